import { createApiApp, createIdentityFromConfig } from './app.ts';
import { loadConfig } from '../../shared/config/env.ts';
import { createSql } from '../../shared/db/client.ts';
import { createLogger } from '../../shared/http/logger.ts';
import { createRedis } from '../../shared/cache/redis.ts';

const config = loadConfig(Deno.env.toObject());
const log = createLogger({ level: config.LOG_LEVEL, silent: config.LOG_SILENT, base: { fn: 'api' } });
const sql = createSql(config.DATABASE_URL, { max: config.DATABASE_POOL_MAX });
const app = createApiApp({
  config,
  log,
  sql,
  redis: createRedis(config),
  identity: createIdentityFromConfig({ config, sql }),
});

// PORT only matters outside Supabase (the Deno smoke test); the edge runtime ignores it.
Deno.serve({ port: Number(Deno.env.get('PORT') ?? 8000) }, app.fetch);
