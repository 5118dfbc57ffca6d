import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp } from '../../functions/api/app.ts';
import { createHealthApp } from '../../functions/health/app.ts';
import { createSql } from '../../shared/db/client.ts';
import { createRedis } from '../../shared/cache/redis.ts';
import { createLogger } from '../../shared/http/logger.ts';
import { startUpstashRedisEmulator } from '../../local/emulators/upstash-redis/server.ts';
import { freshDatabase, type TestDatabase } from '../helpers/db.ts';
import { TEST_API_KEY, TEST_HEALTH_SECRET, testConfig } from '../helpers/config.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => db.drop());

describe('GET /api/v1/config', () => {
  const config = testConfig({
    MIN_APP_VERSION_IOS: '1.2.0',
    LATEST_APP_VERSION_IOS: '1.5.0',
    MIN_APP_VERSION_ANDROID: '1.1.0',
    LATEST_APP_VERSION_ANDROID: '1.6.0',
  });
  const get = (headers: Record<string, string> = {}) =>
    createApiApp({ config, sql: db.sql, log: createLogger({ silent: true }), redis: null })
      .request('/api/v1/config', { headers: { 'x-api-key': TEST_API_KEY, ...headers } });

  it('needs only the API key and answers the platform of X-App-Platform', async () => {
    const ios = await (await get({ 'x-app-platform': 'ios', 'x-app-version': '1.3.0' })).json();
    expect(ios).toEqual({
      success: true,
      data: {
        platform: 'ios',
        min_version: '1.2.0',
        latest_version: '1.5.0',
        platforms: {
          ios: { min_version: '1.2.0', latest_version: '1.5.0' },
          android: { min_version: '1.1.0', latest_version: '1.6.0' },
        },
      },
    });
    const android = await (await get({ 'x-app-platform': 'Android' })).json();
    expect(android.data).toMatchObject({ platform: 'android', min_version: '1.1.0', latest_version: '1.6.0' });
  });

  it('answers the lowest versions of both platforms when the platform is missing or unknown', async () => {
    for (const headers of [{}, { 'x-app-platform': 'windows' }] as Record<string, string>[]) {
      const body = await (await get(headers)).json();
      expect(body.data).toMatchObject({ platform: null, min_version: '1.1.0', latest_version: '1.5.0' });
    }
  });

  it('defaults every version to 0.0.0', async () => {
    const app = createApiApp({ config: testConfig(), sql: db.sql, log: createLogger({ silent: true }), redis: null });
    const body = await (await app.request('/api/v1/config', { headers: { 'x-api-key': TEST_API_KEY, 'x-app-platform': 'ios' } })).json();
    expect(body.data).toMatchObject({ min_version: '0.0.0', latest_version: '0.0.0' });
  });
});

describe('GET /health/{secret}', () => {
  const config = testConfig();

  it('reports database and Redis reachability for the right secret', async () => {
    const emulator = await startUpstashRedisEmulator({ token: 'health-token', db: 5 });
    try {
      const redis = createRedis({ UPSTASH_REDIS_REST_URL: emulator.url, UPSTASH_REDIS_REST_TOKEN: 'health-token' });
      const res = await createHealthApp({ config, sql: db.sql, redis }).request(`/health/${TEST_HEALTH_SECRET}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ status: 'ok', database: true, redis: true, timestamp: expect.any(String) });
    } finally {
      await emulator.close();
    }
  });

  it('is degraded, still 200, when Redis is unreachable', async () => {
    const redis = createRedis({ UPSTASH_REDIS_REST_URL: 'http://127.0.0.1:9', UPSTASH_REDIS_REST_TOKEN: 'x' });
    const res = await createHealthApp({ config, sql: db.sql, redis }).request(`/health/${TEST_HEALTH_SECRET}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'degraded', database: true, redis: false });
  });

  it('answers 503 when the database is unreachable', async () => {
    const dead = createSql('postgres://postgres@127.0.0.1:9/none', { max: 1 });
    try {
      const res = await createHealthApp({ config, sql: dead, redis: null }).request(`/health/${TEST_HEALTH_SECRET}`);
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ status: 'down', database: false });
    } finally {
      await dead.end();
    }
  });

  it('answers 404 for a wrong or missing secret', async () => {
    const app = createHealthApp({ config, sql: db.sql, redis: null });
    expect((await app.request('/health/wrong-secret')).status).toBe(404);
    expect((await app.request('/health/')).status).toBe(404);
    expect((await app.request(`/health/${TEST_HEALTH_SECRET}x`)).status).toBe(404);
  });
});
