// The `cron` function: /cron/<job>, called on a schedule (pg_cron through pg_net, or the local
// scheduler) with `Authorization: Bearer <CRON_SECRET>`. Runtime-neutral.
import { Hono, type MiddlewareHandler } from 'hono';
import type { Config } from '../../shared/config/env.ts';
import type { Sql } from '../../shared/db/client.ts';
import { timingSafeEqual } from '../../shared/http/compare.ts';
import type { AppEnv } from '../../shared/http/context.ts';
import { AppError } from '../../shared/http/errors.ts';
import type { Logger } from '../../shared/http/logger.ts';
import { handleErrors, requestContext } from '../../shared/http/pipeline.ts';
import type { JobPublisher } from '../../shared/queue/publisher.ts';
import { sweepJobs } from '../../shared/queue/sweeper.ts';

export interface CronDeps {
  config: Pick<Config, 'CRON_SECRET'>;
  sql: Sql;
  log: Logger;
  publisher: JobPublisher;
}

/** Without a configured secret every call is refused. */
function requireCronSecret(secret: string | undefined): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const header = c.req.header('authorization') ?? '';
    const token = header.startsWith('Bearer ') ? header.slice(7) : '';
    const valid = secret !== undefined && token !== '' && (await timingSafeEqual(token, secret));
    if (!valid) throw new AppError(401, 'CRON_UNAUTHORIZED');
    await next();
  };
}

export function createCronApp(deps: CronDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>().basePath('/cron');
  handleErrors(app, 'admin', deps.log);
  app.use('*', requestContext(deps.log));
  app.use('*', requireCronSecret(deps.config.CRON_SECRET));

  app.on(['GET', 'POST'], '/sweep-jobs', async (c) => {
    const result = await sweepJobs(deps.sql, deps.publisher, { log: c.var.log });
    return c.json(result);
  });

  app.on(['GET', 'POST'], '/expire-trials', async (c) => {
    const [row] = await deps.sql<{ expired: number | null }[]>`select public.expire_trials() as expired`;
    c.var.log.info('trials expired', { expired: row?.expired ?? 0 });
    return c.json({ expired: row?.expired ?? 0 });
  });
  return app;
}
