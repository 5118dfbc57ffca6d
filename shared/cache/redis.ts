// Upstash Redis over REST (the local emulator speaks the same protocol on a real Redis).
import { Redis } from '@upstash/redis';
import type { Config } from '../config/env.ts';

export function createRedis(config: Pick<Config, 'UPSTASH_REDIS_REST_URL' | 'UPSTASH_REDIS_REST_TOKEN'>): Redis | null {
  if (!config.UPSTASH_REDIS_REST_URL || !config.UPSTASH_REDIS_REST_TOKEN) return null;
  return new Redis({
    url: config.UPSTASH_REDIS_REST_URL,
    token: config.UPSTASH_REDIS_REST_TOKEN,
    // Fail fast: callers (rate limiter, health) degrade instead of waiting on retries.
    retry: { retries: 0 },
    enableTelemetry: false,
  });
}

export async function redisReachable(redis: Redis | null, timeoutMs = 1000): Promise<boolean> {
  if (!redis) return false;
  try {
    const pong = await Promise.race([
      redis.ping(),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), timeoutMs)),
    ]);
    return pong === 'PONG';
  } catch {
    return false;
  }
}
