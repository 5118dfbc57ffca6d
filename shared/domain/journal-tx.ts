// One user transaction for a journal request: the writes run under RLS (withUser), the jobs they
// cause are recorded in the ledger in the SAME transaction (nothing is enqueued for a rolled-back
// write), and published to QStash only after the commit. Database errors are mapped to AppErrors.
import { withUser, type Sql, type Tx } from '../db/client.ts';
import { mapDbError } from '../db/errors.ts';
import type { UserClaims } from '../http/context.ts';
import type { Logger } from '../http/logger.ts';
import { recordJob, type JobPayload, type RecordedJob } from '../queue/ledger.ts';
import { publishRecorded } from '../queue/enqueue.ts';
import type { JobPublisher } from '../queue/publisher.ts';
import type { QueueName } from '../queue/queues.ts';

export interface JournalDeps {
  sql: Sql;
  /** Absent or null: jobs are only recorded; the sweeper publishes them later. */
  publisher?: JobPublisher | null;
}

export type EnqueueJob = (queue: QueueName, payload: JobPayload) => void;

export async function journalTx<T>(
  deps: JournalDeps,
  user: UserClaims,
  log: Logger | undefined,
  fn: (tx: Tx, enqueue: EnqueueJob) => Promise<T>,
): Promise<T> {
  const wanted: Array<{ queue: QueueName; payload: JobPayload }> = [];
  const recorded: RecordedJob[] = [];
  let result: T;
  try {
    result = await withUser(deps.sql, user, async (tx) => {
      const value = await fn(tx, (queue, payload) => wanted.push({ queue, payload }));
      if (wanted.length > 0) {
        // The ledger is service-only (RLS, no grants): leave the user role for these inserts only.
        await tx`set local role none`;
        for (const job of wanted) recorded.push(await recordJob(tx, job.queue, job.payload, { userId: user.sub }));
        await tx`select set_config('role', 'authenticated', true)`;
      }
      return value;
    });
  } catch (err) {
    throw mapDbError(err);
  }
  if (deps.publisher) {
    for (const job of recorded) {
      // publishRecorded never throws for a QStash failure; a ledger update failure must not turn a
      // committed write into an error either: the sweeper publishes what is left.
      await publishRecorded(deps.sql, deps.publisher, job, log).catch((err: unknown) => {
        log?.warn('job publish bookkeeping failed', { queue: job.job.queue, job_id: job.job.id, error: err instanceof Error ? err.name : 'unknown' });
      });
    }
  }
  return result;
}

/** Reads only: still one RLS transaction, with errors mapped. */
export async function journalRead<T>(deps: JournalDeps, user: UserClaims, fn: (tx: Tx) => Promise<T>): Promise<T> {
  try {
    return await withUser(deps.sql, user, fn);
  } catch (err) {
    throw mapDbError(err);
  }
}
