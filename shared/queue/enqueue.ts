// enqueue(): ledger row first, then the QStash publish. A publish failure leaves the row
// `waiting` for the sweeper and is not an error for the caller.
import type { Logger } from '../http/logger.ts';
import { recordJob, type Job, type JobOptions, type JobPayload, type Queryable, type RecordedJob } from './ledger.ts';
import type { JobPublisher } from './publisher.ts';
import type { QueueName } from './queues.ts';

export interface EnqueueOptions extends JobOptions {
  log?: Logger;
}

/**
 * Records and publishes in one call. Inside a transaction, call `recordJob(tx, ...)` instead and
 * `publishRecorded(sql, publisher, recorded)` after the commit.
 */
export async function enqueue(
  sql: Queryable,
  publisher: JobPublisher,
  queue: QueueName,
  payload: JobPayload,
  opts: EnqueueOptions = {},
): Promise<RecordedJob> {
  const recorded = await recordJob(sql, queue, payload, opts);
  return publishRecorded(sql, publisher, recorded, opts.log);
}

/** Publishes a freshly recorded job; a dedup hit is returned untouched (it was published before). */
export async function publishRecorded(
  sql: Queryable,
  publisher: JobPublisher,
  recorded: RecordedJob,
  log?: Logger,
): Promise<RecordedJob> {
  if (!recorded.created) return recorded;
  const job = await publishJob(sql, publisher, recorded.job, log);
  return { job, created: true };
}

/**
 * Publishes `{ jobId }` with the retries the row has left and the remaining delay, and stores
 * the message id. On failure the row is returned unchanged (still waiting/delayed).
 */
export async function publishJob(sql: Queryable, publisher: JobPublisher, job: Job, log?: Logger): Promise<Job> {
  let messageId: string;
  try {
    messageId = await publisher.publish({
      queue: job.queue,
      jobId: job.id,
      delaySeconds: Math.max(0, Math.ceil((job.run_at.getTime() - Date.now()) / 1000)),
      retries: Math.max(0, job.max_attempts - job.attempts - 1),
    });
  } catch (err) {
    // Identifiers and the error class only: the error text may echo a response body.
    log?.warn('job publish failed; left for the sweeper', {
      queue: job.queue,
      job_id: job.id,
      error: err instanceof Error ? err.name : typeof err,
      status: typeof (err as { status?: unknown })?.status === 'number' ? (err as { status: number }).status : undefined,
    });
    return job;
  }
  const [updated] = await sql<Job[]>`
    update public.jobs set qstash_message_id = ${messageId}, updated_at = now()
    where id = ${job.id} returning *`;
  return updated ?? job;
}
