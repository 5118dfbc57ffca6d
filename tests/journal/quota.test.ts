// The impulse quota under concurrency: the database trigger is the single point of enforcement.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSql, type Sql } from '../../shared/db/client.ts';
import { call, createUser, startJournalStack, type JournalStack } from './setup.ts';

let stack: JournalStack;
let pool: Sql;

beforeAll(async () => {
  stack = await startJournalStack({ sql: (db) => (pool = createSql(db.url, { max: 20 })) });
});
afterAll(async () => {
  await pool?.end({ timeout: 5 });
  await stack?.close();
});

describe('impulse quota', () => {
  it('100 concurrent captures by a trial user with 3 left: exactly 3 rows, 97 × 403', async () => {
    const user = await createUser(stack.db, 'trial', 'trial');
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => call(stack.app, user, 'POST', '/v1/impulses', { content: `thought ${i}` })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(3);
    expect(statuses.filter((s) => s === 403)).toHaveLength(97);
    for (const r of results.filter((x) => x.status === 403)) {
      expect(r.body).toMatchObject({ success: false, error: { code: 'IMPULSE_QUOTA_EXCEEDED' } });
    }
    const [{ n }] = await stack.db.sql`select count(*)::int as n from public.impulses where user_id = ${user.id}` as any;
    expect(n).toBe(3);
    // Refused captures leave no job behind.
    const [{ j }] = await stack.db.sql`select count(*)::int as j from public.jobs where user_id = ${user.id}` as any;
    expect(j).toBe(3);
  });

  it('check-ins have their own quota; conversion counts against the impulse quota', async () => {
    const user = await createUser(stack.db, 'trial2', 'trial');
    const checkIns: string[] = [];
    for (let i = 0; i < 7; i++) {
      const r = await call(stack.app, user, 'POST', '/v1/check-ins', { content: `check-in ${i}` });
      expect(r.status).toBe(201);
      checkIns.push(r.body.data.id);
    }
    const eighth = await call(stack.app, user, 'POST', '/v1/check-ins', { content: 'one too many' });
    expect(eighth.status).toBe(403);
    expect(eighth.body.error.code).toBe('IMPULSE_QUOTA_EXCEEDED');

    for (let i = 0; i < 3; i++) expect((await call(stack.app, user, 'POST', `/v1/check-ins/${checkIns[i]}/convert`)).status).toBe(201);
    const fourth = await call(stack.app, user, 'POST', `/v1/check-ins/${checkIns[3]}/convert`);
    expect(fourth.status).toBe(403);
    expect(fourth.body.error.code).toBe('IMPULSE_QUOTA_EXCEEDED');
    const [{ n }] = await stack.db.sql`select count(*)::int as n from public.impulses where source_check_in_id = ${checkIns[3]!}` as any;
    expect(n).toBe(0);
  });

  it('an expired trial cannot capture', async () => {
    const user = await createUser(stack.db, 'expired', 'trial');
    await stack.db.sql`update public.profiles set trial_ends_at = now() - interval '1 day' where id = ${user.id}`;
    const r = await call(stack.app, user, 'POST', '/v1/impulses', { content: 'hello' });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('IMPULSE_QUOTA_EXCEEDED');
  });
});
