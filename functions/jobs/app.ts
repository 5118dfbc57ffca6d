// The `jobs` function: QStash callbacks at /jobs/<queue>, authenticated by the QStash signature
// (verify_jwt = false at the gateway). Runtime-neutral.
import { Hono } from 'hono';
import type { Config } from '../../shared/config/env.ts';
import type { Sql } from '../../shared/db/client.ts';
import type { AppEnv } from '../../shared/http/context.ts';
import type { Logger } from '../../shared/http/logger.ts';
import { handleErrors, limitBody, requestContext } from '../../shared/http/pipeline.ts';
import { QueueConfigError } from '../../shared/queue/publisher.ts';
import { registerWorkers } from './routes/workers.ts';
import type { JobHandlers } from './routes/handlers.ts';

export interface JobsDeps {
  config: Pick<Config, 'QSTASH_CURRENT_SIGNING_KEY' | 'QSTASH_NEXT_SIGNING_KEY' | 'PUBLIC_FUNCTIONS_URL' | 'MAX_BODY_BYTES'>;
  sql: Sql;
  log: Logger;
  handlers: JobHandlers;
}

export function createJobsApp(deps: JobsDeps): Hono<AppEnv> {
  const { QSTASH_CURRENT_SIGNING_KEY: current, QSTASH_NEXT_SIGNING_KEY: next, PUBLIC_FUNCTIONS_URL: publicUrl } = deps.config;
  if (!current || !publicUrl) {
    throw new QueueConfigError('QSTASH_CURRENT_SIGNING_KEY and PUBLIC_FUNCTIONS_URL are required by the jobs function');
  }
  const app = new Hono<AppEnv>().basePath('/jobs');
  handleErrors(app, 'admin', deps.log);
  app.use('*', requestContext(deps.log));
  app.use('*', limitBody(deps.config.MAX_BODY_BYTES));
  registerWorkers(app, deps.handlers, {
    sql: deps.sql,
    log: deps.log,
    publicFunctionsUrl: publicUrl,
    currentSigningKey: current,
    // Without a rotation in progress both keys may be the same.
    nextSigningKey: next ?? current,
  });
  return app;
}
