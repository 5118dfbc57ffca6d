// Where pg_cron is loaded (scripts/provision-postgres.sh sets cron.database_name = journal_cron),
// the migrations schedule expire_trials. The database is migrated in place (idempotent), never
// dropped: pg_cron's launcher stays connected to it.
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../local/migrate.ts';
import { SCHEDULES } from '../../local/stack.ts';
import { adminUrl, dbUrl } from '../helpers/pg.ts';

async function cronDatabase(): Promise<string | null> {
  const admin = postgres(adminUrl(), { max: 1, onnotice: () => {} });
  try {
    const [row] = await admin<{ db: string | null; loaded: boolean }[]>`
      select current_setting('cron.database_name', true) as db,
             exists (select 1 from pg_available_extensions where name = 'pg_cron') as loaded`;
    return row?.loaded && row.db ? row.db : null;
  } finally {
    await admin.end();
  }
}

const database = await cronDatabase();

describe('pg_cron schedules', () => {
  it.skipIf(!database)('expire-trials runs hourly and calls public.expire_trials()', async () => {
    const sql = postgres(dbUrl(database!), { max: 1, onnotice: () => {} });
    try {
      await migrate(sql, { seed: false });
      const jobs = await sql<{ schedule: string; command: string }[]>`
        select schedule, command from cron.job where jobname = 'expire-trials'`;
      expect(jobs).toEqual([{ schedule: '5 * * * *', command: 'select public.expire_trials()' }]);
      // The local stack's scheduler uses the same schedule.
      expect(SCHEDULES.find((s) => s.job === 'expire-trials')?.cron).toBe(jobs[0]!.schedule);
    } finally {
      await sql.end();
    }
  });
});
