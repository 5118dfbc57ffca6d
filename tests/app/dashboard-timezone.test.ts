// A time zone the runtime (Intl) accepts but Postgres does not know must not break the dashboard:
// it is computed in UTC instead; a zone Postgres knows, in any letter case, is still used.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { body, startAppStack, type AppStack } from './setup.ts';

let s: AppStack;
beforeAll(async () => {
  s = await startAppStack();
});
afterAll(() => s.close());

async function dashboardWithTimezone(email: string, timezone: string) {
  const id = await s.createUser(email);
  await s.db.sql`update public.user_notification_preferences set timezone = ${timezone} where user_id = ${id}`;
  await s.db.sql`insert into public.notes (user_id, content) values (${id}, 'a note')`;
  return s.call('GET', '/v1/analytics/dashboard', { as: email });
}

describe('dashboard time zone', () => {
  it('falls back to UTC for a zone unknown to Postgres (US/Pacific-New)', async () => {
    expect(new Intl.DateTimeFormat('en', { timeZone: 'US/Pacific-New' }).resolvedOptions().timeZone).toBeTruthy();
    const res = await dashboardWithTimezone('tz-unknown@journal.local', 'US/Pacific-New');
    expect(res.status).toBe(200);
    const { data } = await body(res);
    expect(data.summary).toMatchObject({ timezone: 'UTC', notes: 1, streak_days: 1 });
    expect(Object.keys(data.timeline)).toHaveLength(30);
  });

  it('keeps a zone Postgres knows', async () => {
    const res = await dashboardWithTimezone('tz-known@journal.local', 'Europe/Oslo');
    expect(res.status).toBe(200);
    expect((await body(res)).data.summary.timezone).toBe('Europe/Oslo');
  });
});
