// The global rate limits on /api/v1, counted in the real Redis through the Upstash emulator.
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { createApiApp } from '../../functions/api/app.ts';
import { loadConfig, type Config } from '../../shared/config/env.ts';
import { createRedis } from '../../shared/cache/redis.ts';
import { createLogger, setLogSink } from '../../shared/http/logger.ts';
import { handleErrors, requestContext } from '../../shared/http/pipeline.ts';
import { createRateLimits } from '../../shared/http/rate-limit.ts';
import type { AppEnv, UserClaims } from '../../shared/http/context.ts';
import { startUpstashRedisEmulator, type UpstashRedisEmulator } from '../../local/emulators/upstash-redis/server.ts';
import { freshDatabase, type TestDatabase } from '../helpers/db.ts';

const TOKEN = 'rate-limit-test-token';
const API_KEY = 'test-api-key-1234567890';
const LIMIT = 3;

let db: TestDatabase;
let emulator: UpstashRedisEmulator;
// Every log line of this file lands here (and not on stdout); a test reads what it logged.
const lines: string[] = [];
let restoreSink: ((line: string) => void) | undefined;

beforeAll(async () => {
  restoreSink = setLogSink((line) => lines.push(line));
  db = await freshDatabase();
  emulator = await startUpstashRedisEmulator({ port: 0, token: TOKEN, db: 12 });
});

afterAll(async () => {
  if (restoreSink) setLogSink(restoreSink);
  await emulator?.close();
  await db?.drop();
});

function captureLogs(): string[] {
  lines.length = 0;
  return lines;
}

function testConfig(overrides: Record<string, string | undefined> = {}): Config {
  return loadConfig({
    DATABASE_URL: db.url,
    API_CLIENT_KEY: API_KEY,
    CONSOLE_ADMIN_TOKEN: 'admin-token-0123456789',
    HEALTH_SECRET: 'health-secret-0123456789',
    SUPABASE_URL: 'http://127.0.0.1:54321',
    SUPABASE_ANON_KEY: 'anon',
    IDENTITY_SECRET_KEY: 'secret',
    UPSTASH_REDIS_REST_URL: emulator.url,
    UPSTASH_REDIS_REST_TOKEN: TOKEN,
    RATE_LIMIT_IP_PER_MINUTE: String(LIMIT),
    RATE_LIMIT_USER_PER_MINUTE: String(LIMIT),
    ...overrides,
  });
}

function apiApp(config: Config) {
  return createApiApp({ config, sql: db.sql, log: createLogger({ level: 'info' }), redis: createRedis(config) });
}

/** A fresh address per test run: rate-limit keys outlive a run by two windows. */
const randomIp = () => `10.${[0, 0, 0].map(() => Math.floor(Math.random() * 250) + 1).join('.')}`;

const getConfig = (app: { fetch: (r: Request) => Response | Promise<Response> }, ip: string, apiKey = API_KEY) =>
  app.fetch(new Request('http://api.test/api/v1/config', { headers: { 'x-api-key': apiKey, 'x-forwarded-for': `${ip}, 172.16.0.1` } }));

describe('per-IP limit on /api/v1', () => {
  it('answers 429 with Retry-After and the envelope after the limit', async () => {
    const app = apiApp(testConfig());
    const ip = randomIp();
    const remaining: (string | null)[] = [];
    for (let i = 0; i < LIMIT; i++) {
      const res = await getConfig(app, ip);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe(String(LIMIT));
      remaining.push(res.headers.get('x-ratelimit-remaining'));
    }
    expect(remaining).toEqual(['2', '1', '0']);

    const limited = await getConfig(app, ip);
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(limited.headers.get('x-request-id')).toBeTruthy();
    expect(await limited.json()).toEqual({
      success: false,
      error: { code: 'RATE_LIMITED', message: 'Too many requests. Try again later.' },
    });
  });

  it('gives each IP its own budget', async () => {
    const app = apiApp(testConfig());
    const first = randomIp();
    for (let i = 0; i < LIMIT; i++) await getConfig(app, first);
    expect((await getConfig(app, first)).status).toBe(429);
    expect((await getConfig(app, randomIp())).status).toBe(200);
  });

  it('throttles a flood of requests with a wrong API key as well', async () => {
    const app = apiApp(testConfig());
    const ip = randomIp();
    for (let i = 0; i < LIMIT; i++) expect((await getConfig(app, ip, 'wrong-key')).status).toBe(401);
    const res = await getConfig(app, ip, 'wrong-key');
    expect(res.status).toBe(429);
    expect((await res.json()).error.code).toBe('RATE_LIMITED');
  });
});

describe('per-user limit', () => {
  // The JWT middleware is stubbed: it sets c.var.user from a header, as the real one sets verified claims.
  function userApp(config: Config) {
    const log = createLogger({ level: 'info' });
    const limits = createRateLimits({ redis: createRedis(config), config, log });
    const app = new Hono<AppEnv>();
    handleErrors(app, 'api', log);
    app.use('*', requestContext(log));
    app.use('*', async (c, next) => {
      const sub = c.req.header('x-test-user');
      if (sub) c.set('user', { sub, role: 'authenticated' } satisfies UserClaims);
      await next();
    });
    app.use('*', limits.user);
    app.get('/me', (c) => c.json({ success: true }));
    return app;
  }
  const asUser = (app: Hono<AppEnv>, sub?: string) =>
    app.fetch(new Request('http://api.test/me', { headers: sub ? { 'x-test-user': sub } : {} }));

  it('limits each user separately', async () => {
    const app = userApp(testConfig());
    const alice = crypto.randomUUID();
    const statuses = [];
    for (let i = 0; i < LIMIT + 1; i++) statuses.push((await asUser(app, alice)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect((await asUser(app, crypto.randomUUID())).status).toBe(200);
  });

  it('passes requests without a user through untouched', async () => {
    const app = userApp(testConfig());
    for (let i = 0; i < LIMIT + 2; i++) {
      const res = await asUser(app);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    }
  });
});

describe('fail open', () => {
  const warnings = (captured: string[]) => captured.map((l) => JSON.parse(l)).filter((l) => l.level === 'warn');

  it('lets requests through and warns once when the REST endpoint is unreachable', async () => {
    const port = await freePort();
    const app = apiApp(testConfig({ UPSTASH_REDIS_REST_URL: `http://127.0.0.1:${port}` }));
    const captured = captureLogs();
    for (let i = 0; i < LIMIT + 3; i++) expect((await getConfig(app, randomIp())).status).toBe(200);
    const warned = warnings(captured);
    expect(warned).toHaveLength(1);
    expect(warned[0].msg).toBe('rate limiter unavailable, failing open');
    expect(JSON.stringify(warned[0])).not.toContain(TOKEN);
  });

  it('lets requests through and warns once when Redis behind the endpoint is down', async () => {
    const broken = await startUpstashRedisEmulator({ token: TOKEN, redisUrl: `redis://127.0.0.1:${await freePort()}` });
    try {
      const app = apiApp(testConfig({ UPSTASH_REDIS_REST_URL: broken.url }));
      const captured = captureLogs();
      const ip = randomIp();
      for (let i = 0; i < LIMIT + 3; i++) expect((await getConfig(app, ip)).status).toBe(200);
      expect(warnings(captured)).toHaveLength(1);
    } finally {
      await broken.close();
    }
  });

  it('lets requests through and warns once when Redis is slower than the timeout', async () => {
    const hanging = await startHangingServer();
    try {
      const app = apiApp(testConfig({ UPSTASH_REDIS_REST_URL: hanging.url, RATE_LIMIT_TIMEOUT_MS: '50' }));
      const captured = captureLogs();
      const ip = randomIp();
      for (let i = 0; i < LIMIT + 1; i++) expect((await getConfig(app, ip)).status).toBe(200);
      const warned = warnings(captured);
      expect(warned).toHaveLength(1);
      expect(warned[0].error).toBe('timeout');
    } finally {
      await hanging.close();
    }
  });

  it('is a no-op without Redis and says so once at startup', async () => {
    const config = testConfig({ UPSTASH_REDIS_REST_URL: undefined, UPSTASH_REDIS_REST_TOKEN: undefined });
    const captured = captureLogs();
    const app = createApiApp({ config, sql: db.sql, log: createLogger({ level: 'info' }), redis: createRedis(config) });
    const ip = randomIp();
    for (let i = 0; i < LIMIT + 2; i++) {
      const res = await getConfig(app, ip);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    }
    const disabled = captured.map((l) => JSON.parse(l)).filter((l) => l.msg === 'rate limiting disabled');
    expect(disabled).toHaveLength(1);
    expect(warnings(captured)).toHaveLength(0);
  });
});

/** A port nothing listens on (bound once, then released). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createNetServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** An HTTP server that accepts requests and never answers them. */
async function startHangingServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createHttpServer(() => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
