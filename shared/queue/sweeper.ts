// The sweeper (cron /cron/sweep-jobs): recovers jobs QStash lost or never received.
import type { Sql } from '../db/client.ts';
import type { Logger } from '../http/logger.ts';
import { publishJob } from './enqueue.ts';
import type { Job } from './ledger.ts';
import type { JobPublisher } from './publisher.ts';

export interface SweepResult {
  /** Active longer than 10 minutes (worker died): back to waiting, or failed when out of attempts. */
  reset_active: number;
  republished: number;
  publish_failed: number;
}

export async function sweepJobs(sql: Sql, publisher: JobPublisher, opts: { log?: Logger; limit?: number } = {}): Promise<SweepResult> {
  const stale = await sql<Pick<Job, 'id' | 'status'>[]>`
    update public.jobs
    set status = case when attempts >= max_attempts then 'failed'::public.job_status else 'waiting'::public.job_status end,
        finished_at = case when attempts >= max_attempts then now() end,
        last_error = 'StaleActive', updated_at = now()
    where status = 'active' and started_at < now() - interval '10 minutes'
    returning id, status`;
  // A job given up on leaves no entity waiting on it forever.
  const givenUp = stale.filter((j) => j.status === 'failed').map((j) => j.id);
  if (givenUp.length > 0) await sql`select public.fail_job_entities(${givenUp}::uuid[])`;

  // Due for over a minute and not running: claim the batch by moving run_at, so that a
  // concurrent sweep skips these rows, then publish each.
  const due = await sql<Job[]>`
    update public.jobs set run_at = now(), updated_at = now()
    where id in (
      select id from public.jobs
      where status in ('waiting', 'delayed') and run_at < now() - interval '1 minute'
      order by run_at
      limit ${opts.limit ?? 100}
      for update skip locked
    )
    returning *`;

  let republished = 0;
  for (const job of due) {
    const after = await publishJob(sql, publisher, job, opts.log);
    if (after.qstash_message_id && after.qstash_message_id !== job.qstash_message_id) republished++;
  }
  const result = { reset_active: stale.length, republished, publish_failed: due.length - republished };
  opts.log?.info('jobs swept', { ...result });
  return result;
}
