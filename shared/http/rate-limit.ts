// Global rate limits for /api/v1: a sliding window of one minute per client IP and per user, counted
// in Upstash Redis with @upstash/ratelimit. The limiter fails open: when Redis is unreachable or slow
// the request proceeds, and one warning is logged per outage.
import type { Context, MiddlewareHandler } from 'hono';
import { Ratelimit } from '@upstash/ratelimit';
import type { Redis } from '@upstash/redis';
import type { Config } from '../config/env.ts';
import { AppError } from './errors.ts';
import { describeError, type LogFields, type Logger } from './logger.ts';
import type { AppEnv } from './context.ts';

export type RateLimitConfig = Pick<
  Config,
  'APP_ENV' | 'RATE_LIMIT_IP_PER_MINUTE' | 'RATE_LIMIT_USER_PER_MINUTE' | 'RATE_LIMIT_TIMEOUT_MS'
>;

export interface RateLimits {
  /** Keyed on the client IP; for every /api/v1 route. */
  ip: MiddlewareHandler<AppEnv>;
  /** Keyed on the verified user id (`c.var.user.sub`); passes through when there is no user. */
  user: MiddlewareHandler<AppEnv>;
}

type KeyOf = (c: Context<AppEnv>) => string | undefined;

export function createRateLimits(deps: { redis: Redis | null; config: RateLimitConfig; log: Logger }): RateLimits {
  const { redis, config, log } = deps;
  if (!redis) {
    const fields = { reason: 'UPSTASH_REDIS_REST_URL or UPSTASH_REDIS_REST_TOKEN is not set' };
    if (config.APP_ENV === 'production') log.warn('rate limiting disabled', fields);
    else log.info('rate limiting disabled', fields);
    const pass: MiddlewareHandler<AppEnv> = (_c, next) => next();
    return { ip: pass, user: pass };
  }
  const outage = outageTracker();
  const limiter = (name: string, perMinute: number, keyOf: KeyOf) =>
    rateLimit(
      new Ratelimit({
        redis,
        limiter: Ratelimit.slidingWindow(perMinute, '1 m'),
        prefix: `rl:${name}`,
        timeout: config.RATE_LIMIT_TIMEOUT_MS,
        analytics: false,
      }),
      keyOf,
      outage,
      log,
    );
  return {
    ip: limiter('ip', config.RATE_LIMIT_IP_PER_MINUTE, clientIp),
    user: limiter('user', config.RATE_LIMIT_USER_PER_MINUTE, (c) => c.get('user')?.sub),
  };
}

/** The caller's address as the platform's proxy reports it (first X-Forwarded-For hop). */
export function clientIp(c: Context<AppEnv>): string {
  const forwarded = c.req.header('x-forwarded-for')?.split(',')[0]?.trim();
  return forwarded || c.req.header('x-real-ip')?.trim() || 'unknown';
}

function rateLimit(ratelimit: Ratelimit, keyOf: KeyOf, outage: OutageTracker, log: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const key = keyOf(c);
    if (!key) return next();
    const requestLog = c.get('log') ?? log;
    let result: Awaited<ReturnType<Ratelimit['limit']>>;
    try {
      result = await ratelimit.limit(key);
    } catch (err) {
      outage.down(requestLog, describeError(err));
      return next();
    }
    if (result.reason === 'timeout') {
      outage.down(requestLog, { error: 'timeout' });
      return next();
    }
    if (result.reason === undefined) outage.up(requestLog); // a real answer from Redis

    c.header('X-RateLimit-Limit', String(result.limit));
    c.header('X-RateLimit-Remaining', String(Math.max(0, result.remaining)));
    if (!result.success) {
      const retryAfter = Math.max(1, Math.ceil((result.reset - Date.now()) / 1000));
      throw new AppError(429, 'RATE_LIMITED', undefined, {
        'Retry-After': String(retryAfter),
        'X-RateLimit-Limit': String(result.limit),
        'X-RateLimit-Remaining': '0',
      });
    }
    await next();
  };
}

interface OutageTracker {
  down(log: Logger, fields: LogFields): void;
  up(log: Logger): void;
}

/** Logs the first failure of an outage and the recovery, not every request in between. */
function outageTracker(): OutageTracker {
  let failing = false;
  return {
    down(log, fields) {
      if (failing) return;
      failing = true;
      log.warn('rate limiter unavailable, failing open', fields);
    },
    up(log) {
      if (!failing) return;
      failing = false;
      log.info('rate limiter recovered');
    },
  };
}
