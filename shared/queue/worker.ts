// The worker wrapper behind every /jobs/<queue> route: QStash signature, delivery dedupe,
// ledger transitions (waiting|delayed → active → completed | waiting | failed) and the status
// codes that tell QStash whether to retry.
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { Receiver } from '@upstash/qstash';
import { z } from 'zod';
import type { Sql } from '../db/client.ts';
import { AppError } from '../http/errors.ts';
import type { AppEnv } from '../http/context.ts';
import type { Logger } from '../http/logger.ts';
import type { Job } from './ledger.ts';
import { workerUrl, type QueueName } from './queues.ts';

export interface JobContext {
  job: Job;
  sql: Sql;
  log: Logger;
}

export type JobHandler = (ctx: JobContext) => Promise<void>;

/** Thrown by a handler when retrying cannot help: the job fails at once. */
export class PermanentJobError extends Error {
  override name = 'PermanentJobError';
  constructor(readonly code: string) {
    super(code);
  }
}

export interface WorkerDeps {
  sql: Sql;
  log: Logger;
  publicFunctionsUrl: string;
  currentSigningKey: string;
  nextSigningKey: string;
}

const Body = z.object({ jobId: z.uuid() });

// QStash's documented way to stop retrying a message (it goes to the DLQ).
const NON_RETRYABLE = 489 as ContentfulStatusCode;

/** QStash's default backoff before retry n: min(86400, e^(2.5n)) seconds. */
export function qstashBackoffSeconds(retry: number): number {
  return Math.min(86400, Math.round(Math.exp(2.5 * retry)));
}

/** Error class and code only: handler errors may carry journal text in their messages. */
export function errorLabel(err: unknown): string {
  if (err instanceof PermanentJobError) return `${err.name}:${err.code}`.slice(0, 120);
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return (typeof code === 'string' || typeof code === 'number' ? `${err.name}:${code}` : err.name).slice(0, 120);
  }
  return 'UnknownError';
}

export function createQueueWorker(queue: QueueName, handler: JobHandler, deps: WorkerDeps) {
  const receiver = new Receiver({
    currentSigningKey: deps.currentSigningKey,
    nextSigningKey: deps.nextSigningKey,
    devMode: false,
  });
  // The public URL QStash signed, never req.url (internal behind Supabase's gateway).
  const url = workerUrl(deps.publicFunctionsUrl, queue);
  const { sql } = deps;

  return async (c: Context<AppEnv>): Promise<Response> => {
    const log = (c.var.log ?? deps.log).child({ queue });
    const signature = c.req.header('upstash-signature');
    const body = await c.req.text();
    if (!signature) throw new AppError(401, 'QSTASH_SIGNATURE_INVALID');
    try {
      await receiver.verify({ signature, body, url });
    } catch {
      throw new AppError(401, 'QSTASH_SIGNATURE_INVALID');
    }

    let jobId: string;
    try {
      jobId = Body.parse(JSON.parse(body)).jobId;
    } catch {
      c.header('Upstash-NonRetryable-Error', 'true');
      return c.json({ error: { code: 'JOB_PAYLOAD_INVALID', message: 'The message body is not { jobId }.' } }, NON_RETRYABLE);
    }
    const messageId = c.req.header('upstash-message-id') ?? null;
    const retried = Number.parseInt(c.req.header('upstash-retried') ?? '0', 10) || 0;
    const jobLog = log.child({ job_id: jobId, message_id: messageId, retried });

    if (messageId) {
      const [seen] = await sql`select 1 from public.processed_messages where message_id = ${messageId}`;
      if (seen) {
        jobLog.info('job delivery already processed');
        return c.json({ status: 'duplicate' }, 200);
      }
    }

    const [job] = await sql<Job[]>`
      update public.jobs
      set status = 'active', attempts = attempts + 1, started_at = now(), updated_at = now()
      where id = ${jobId} and queue = ${queue} and status in ('waiting', 'delayed')
      returning *`;
    if (!job) {
      const [row] = await sql<Pick<Job, 'status'>[]>`select status from public.jobs where id = ${jobId} and queue = ${queue}`;
      // Another delivery is running it: answer non-2xx so QStash comes back after that one ends.
      if (row?.status === 'active') return c.json({ status: 'busy' }, 409);
      jobLog.info('job not runnable', { status: row?.status ?? 'missing' });
      return c.json({ status: row?.status ?? 'missing' }, 200);
    }

    const started = performance.now();
    try {
      await handler({ job, sql, log: jobLog });
    } catch (err) {
      const label = errorLabel(err);
      const final = err instanceof PermanentJobError || job.attempts >= job.max_attempts;
      if (final) {
        await sql.begin(async (tx) => {
          await tx`
            update public.jobs set status = 'failed', last_error = ${label}, finished_at = now(), updated_at = now()
            where id = ${job.id}`;
          if (messageId) await tx`insert into public.processed_messages (message_id, job_id) values (${messageId}, ${job.id}) on conflict do nothing`;
        });
        jobLog.warn('job failed', { error: label, attempts: job.attempts });
        c.header('Upstash-NonRetryable-Error', 'true');
        return c.json({ status: 'failed', error: label }, NON_RETRYABLE);
      }
      // Back to waiting; run_at = when QStash's next retry is expected, so the sweeper only steps
      // in when that retry does not come.
      await sql`
        update public.jobs
        set status = 'waiting', last_error = ${label}, updated_at = now(),
            run_at = now() + make_interval(secs => ${qstashBackoffSeconds(retried + 1)})
        where id = ${job.id}`;
      jobLog.warn('job attempt failed; QStash will retry', { error: label, attempts: job.attempts });
      return c.json({ status: 'retry', error: label }, 500);
    }

    await sql.begin(async (tx) => {
      await tx`
        update public.jobs set status = 'completed', last_error = null, finished_at = now(), updated_at = now()
        where id = ${job.id}`;
      if (messageId) await tx`insert into public.processed_messages (message_id, job_id) values (${messageId}, ${job.id}) on conflict do nothing`;
    });
    jobLog.info('job completed', { attempts: job.attempts, ms: Math.round(performance.now() - started) });
    return c.json({ status: 'completed' }, 200);
  };
}
