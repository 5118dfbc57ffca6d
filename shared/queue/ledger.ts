// The job ledger (public.jobs): one row per job, the source of truth for queue health, retries
// and the sweeper. QStash only transports `{ jobId }`; payloads hold ids, never journal text.
import type postgres from 'postgres';
import type { QueueName } from './queues.ts';

/** postgres.js pool or transaction: ledger writes can join the caller's transaction. */
export type Queryable = postgres.ISql;

export type JobStatus = 'waiting' | 'delayed' | 'active' | 'completed' | 'failed';

/** Identifiers and flags only: the type keeps journal text out of the ledger. */
export type JobPayload = Record<string, string | number | boolean | null>;

export interface Job {
  id: string;
  queue: QueueName;
  payload: JobPayload;
  status: JobStatus;
  dedup_key: string | null;
  user_id: string | null;
  run_at: Date;
  attempts: number;
  max_attempts: number;
  last_error: string | null;
  qstash_message_id: string | null;
  created_at: Date;
  updated_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

export interface JobOptions {
  /** Seconds before the first delivery. */
  delay?: number;
  /** Same queue + key → the existing job is returned and nothing is published again. */
  dedupKey?: string;
  userId?: string;
  maxAttempts?: number;
}

export interface RecordedJob {
  job: Job;
  /** False when the dedup key matched an existing job. */
  created: boolean;
}

/**
 * Inserts the ledger row (in the caller's transaction when `db` is one). Publish it after the
 * commit with `publishRecorded`; a row whose publish never happens is picked up by the sweeper.
 */
export async function recordJob(
  db: Queryable,
  queue: QueueName,
  payload: JobPayload,
  opts: JobOptions = {},
): Promise<RecordedJob> {
  const delay = Math.max(0, Math.ceil(opts.delay ?? 0));
  const [inserted] = await db<Job[]>`
    insert into public.jobs (queue, payload, status, dedup_key, user_id, run_at, max_attempts)
    values (
      ${queue}, ${db.json(payload)}, ${delay > 0 ? 'delayed' : 'waiting'}, ${opts.dedupKey ?? null},
      ${opts.userId ?? null}, now() + make_interval(secs => ${delay}), ${opts.maxAttempts ?? 5}
    )
    on conflict (queue, dedup_key) do nothing
    returning *`;
  if (inserted) return { job: inserted, created: true };
  const [existing] = await db<Job[]>`
    select * from public.jobs where queue = ${queue} and dedup_key = ${opts.dedupKey ?? null}`;
  if (!existing) throw new Error('job dedup conflict without an existing row');
  return { job: existing, created: false };
}

export async function findJob(db: Queryable, id: string): Promise<Job | null> {
  const [job] = await db<Job[]>`select * from public.jobs where id = ${id}`;
  return job ?? null;
}
