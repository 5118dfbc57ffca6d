import { createJobsApp } from './app.ts';
import { aiHandlersFromConfig, defaultHandlers } from './routes/handlers.ts';
import { loadConfig } from '../../shared/config/env.ts';
import { createSql } from '../../shared/db/client.ts';
import { createLogger } from '../../shared/http/logger.ts';

const config = loadConfig(Deno.env.toObject());
const log = createLogger({ level: config.LOG_LEVEL, silent: config.LOG_SILENT, base: { fn: 'jobs' } });
const app = createJobsApp({
  config,
  log,
  sql: createSql(config.DATABASE_URL, { max: config.DATABASE_POOL_MAX }),
  handlers: { ...defaultHandlers, ...aiHandlersFromConfig(config) },
});

// PORT only matters outside Supabase (the Deno smoke test); the edge runtime ignores it.
Deno.serve({ port: Number(Deno.env.get('PORT') ?? 8000) }, app.fetch);
