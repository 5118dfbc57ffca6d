import { createApiApp } from './app.ts';
import { loadConfig } from '../../shared/config/env.ts';
import { createSql } from '../../shared/db/client.ts';
import { createLogger } from '../../shared/http/logger.ts';
import { createRedis } from '../../shared/cache/redis.ts';

const config = loadConfig(Deno.env.toObject());
const log = createLogger({ level: config.LOG_LEVEL, base: { fn: 'api' } });
const app = createApiApp({
  config,
  log,
  sql: createSql(config.DATABASE_URL, { max: config.DATABASE_POOL_MAX }),
  redis: createRedis(config),
});

Deno.serve(app.fetch);
