// The api app as the document generator sees it: real routes, a configuration that connects to nothing.
import { join } from 'node:path';
import { createApiApp } from '../functions/api/app.ts';
import { loadConfig } from '../shared/config/env.ts';
import { createSql } from '../shared/db/client.ts';
import { createLogger } from '../shared/http/logger.ts';
import { ROOT } from '../local/migrate.ts';

export const OPENAPI_FILE = join(ROOT, 'docs/openapi.json');

export function buildDocumentApp() {
  const config = loadConfig({
    DATABASE_URL: 'postgres://127.0.0.1:9/none',
    API_CLIENT_KEY: 'openapi-generator',
    CONSOLE_ADMIN_TOKEN: 'openapi-generator-token',
    HEALTH_SECRET: 'openapi-generator-secret',
    SUPABASE_URL: 'http://127.0.0.1:9',
    SUPABASE_ANON_KEY: 'anon',
    IDENTITY_SECRET_KEY: 'service',
    LOG_SILENT: 'true',
  });
  // postgres.js connects lazily: building the app opens no connection.
  return createApiApp({ config, sql: createSql(config.DATABASE_URL, { max: 1 }), log: createLogger({ silent: true }), redis: null });
}
