// Operator actions on the ledger (console): counts, retry and delete of failed jobs. The SQL
// functions live in migrations/20261122000900_job_queue_functions.sql (service role only).
import type { Sql } from '../db/client.ts';
import type { Logger } from '../http/logger.ts';
import { publishJob } from './enqueue.ts';
import { findJob } from './ledger.ts';
import type { JobPublisher } from './publisher.ts';
import type { QueueName } from './queues.ts';

export interface QueueCounts {
  queue: QueueName;
  waiting: number;
  active: number;
  completed: number;
  failed: number;
  delayed: number;
}

export async function queueCounts(sql: Sql): Promise<QueueCounts[]> {
  const rows = await sql<QueueCounts[]>`
    select queue, waiting::int, active::int, completed::int, failed::int, delayed::int from public.queue_counts()`;
  return [...rows];
}

/** Resets a failed job (fresh attempts) and re-publishes it. False when the job is not failed. */
export async function retryFailedJob(sql: Sql, publisher: JobPublisher, id: string, log?: Logger): Promise<boolean> {
  const [row] = await sql<{ ok: boolean }[]>`select public.retry_job(${id}) as ok`;
  if (!row?.ok) return false;
  const job = await findJob(sql, id);
  if (job) await publishJob(sql, publisher, job, log);
  return true;
}

/** Deletes a failed job. False when the job is not failed (or does not exist). */
export async function deleteFailedJob(sql: Sql, id: string): Promise<boolean> {
  const [row] = await sql<{ ok: boolean }[]>`select public.delete_job(${id}) as ok`;
  return row?.ok === true;
}
