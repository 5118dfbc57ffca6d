// The `health` function: GET /health/{secret}. Bypasses every other middleware.
import { Hono } from 'hono';
import type { Redis } from '@upstash/redis';
import type { Config } from '../../shared/config/env.ts';
import type { Sql } from '../../shared/db/client.ts';
import { timingSafeEqual } from '../../shared/http/compare.ts';
import { redisReachable } from '../../shared/cache/redis.ts';

export interface HealthDeps {
  config: Pick<Config, 'HEALTH_SECRET'>;
  sql: Sql;
  redis: Redis | null;
}

async function databaseReachable(sql: Sql): Promise<boolean> {
  try {
    const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000));
    const [row] = await Promise.race([sql`select 1 as ok`, timeout]);
    return row?.ok === 1;
  } catch {
    return false;
  }
}

export function createHealthApp(deps: HealthDeps): Hono {
  const app = new Hono().basePath('/health');
  const notFound = () => Response.json({ error: { code: 'NOT_FOUND', message: 'Not found.' } }, { status: 404 });
  app.get('/:secret', async (c) => {
    if (!(await timingSafeEqual(c.req.param('secret'), deps.config.HEALTH_SECRET))) return notFound();
    const [database, redis] = await Promise.all([databaseReachable(deps.sql), redisReachable(deps.redis)]);
    const status = database ? (redis ? 'ok' : 'degraded') : 'down';
    return c.json({ status, database, redis, timestamp: new Date().toISOString() }, database ? 200 : 503);
  });
  app.notFound(() => notFound());
  return app;
}
