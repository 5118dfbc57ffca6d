import { createCronApp } from './app.ts';
import { loadConfig } from '../../shared/config/env.ts';
import { createSql } from '../../shared/db/client.ts';
import { createLogger } from '../../shared/http/logger.ts';
import { publisherFromConfig } from '../../shared/queue/publisher.ts';

const config = loadConfig(Deno.env.toObject());
const log = createLogger({ level: config.LOG_LEVEL, silent: config.LOG_SILENT, base: { fn: 'cron' } });
const app = createCronApp({
  config,
  log,
  sql: createSql(config.DATABASE_URL, { max: 2 }),
  publisher: publisherFromConfig(config),
});

// PORT only matters outside Supabase (the Deno smoke test); the edge runtime ignores it.
Deno.serve({ port: Number(Deno.env.get('PORT') ?? 8000) }, app.fetch);
