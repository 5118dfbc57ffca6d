// Every route that starts AI work is behind the subscription middleware: an expired trial gets
// 403 SUBSCRIPTION_INACTIVE, nothing changes and no job is recorded; an active user passes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createUser, startJournalStack, type JournalStack } from './setup.ts';

let s: JournalStack;
beforeAll(async () => {
  s = await startJournalStack();
});
afterAll(() => s.close());

const FIVE_INPUTS = ['one', 'two', 'three', 'four', 'five'];

/** An impulse, an active session with five inputs and a completed session, written as the service. */
async function journalOf(userId: string) {
  const [impulse] = await s.db.sql<{ id: string }[]>`
    insert into public.impulses (user_id, content, classification, processual_status)
    values (${userId}, 'Restless before the talk', 'contraction', 'transforming')
    returning id`;
  const [other] = await s.db.sql<{ id: string }[]>`
    insert into public.impulses (user_id, content, classification) values (${userId}, 'Glad about the garden', 'expansion')
    returning id`;
  const [open] = await s.db.sql<{ id: string }[]>`
    insert into public.sessions (user_id, impulse_id, classification, status, current_step, started_at,
                                 step_1_input, step_2_input, step_3_input, step_4_input, step_5_input)
    values (${userId}, ${impulse!.id}, 'contraction', 'active', 5, now(), ${FIVE_INPUTS[0]!}, ${FIVE_INPUTS[1]!},
            ${FIVE_INPUTS[2]!}, ${FIVE_INPUTS[3]!}, ${FIVE_INPUTS[4]!})
    returning id`;
  const [done] = await s.db.sql<{ id: string }[]>`
    insert into public.sessions (user_id, impulse_id, classification, status, current_step, started_at, completed_at,
                                 step_1_input, step_2_input, step_3_input, step_4_input, step_5_input)
    values (${userId}, ${other!.id}, 'expansion', 'completed', 5, now(), now(), ${FIVE_INPUTS[0]!}, ${FIVE_INPUTS[1]!},
            ${FIVE_INPUTS[2]!}, ${FIVE_INPUTS[3]!}, ${FIVE_INPUTS[4]!})
    returning id`;
  return { impulseId: impulse!.id, openId: open!.id, completedId: done!.id };
}

const gatedCalls = (j: Awaited<ReturnType<typeof journalOf>>) =>
  [
    ['PATCH', `/v1/impulses/${j.impulseId}`, { content: 'Edited to run classification again' }],
    ['POST', `/v1/sessions/${j.openId}/complete`, undefined],
    ['PUT', `/v1/sessions/${j.completedId}/reflection`, { reflection: 'I learned to pause' }],
  ] as const;

const jobCount = async (userId: string) => {
  const [row] = await s.db.sql<{ n: number }[]>`select count(*)::int as n from public.jobs where user_id = ${userId}`;
  return row!.n;
};

describe('AI-starting routes need an active subscription', () => {
  it('answers 403 SUBSCRIPTION_INACTIVE to an expired trial and changes nothing', async () => {
    const user = await createUser(s.db, 'expired-trial', 'trial');
    const journal = await journalOf(user.id);
    await s.db.sql`update public.profiles set trial_ends_at = now() - interval '1 day' where id = ${user.id}`;
    const jobsBefore = await jobCount(user.id);

    for (const [method, path, body] of gatedCalls(journal)) {
      const res = await call(s.app, user, method, path, body);
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 403 });
      expect(res.body).toMatchObject({ success: false, error: { code: 'SUBSCRIPTION_INACTIVE' } });
    }

    const [impulse] = await s.db.sql`select content from public.impulses where id = ${journal.impulseId}`;
    expect(impulse!.content).toBe('Restless before the talk');
    const sessions = await s.db.sql`select id, status, user_reflection from public.sessions where user_id = ${user.id} order by status`;
    expect(sessions.map((r) => [r.status, r.user_reflection])).toEqual([['active', null], ['completed', null]]);
    expect(await jobCount(user.id)).toBe(jobsBefore);
  });

  it('lets an active user through the same routes', async () => {
    const user = await createUser(s.db, 'active-paid', 'mastery');
    const journal = await journalOf(user.id);
    for (const [method, path, body] of gatedCalls(journal)) {
      const res = await call(s.app, user, method, path, body);
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 200 });
    }
    expect(await jobCount(user.id)).toBeGreaterThanOrEqual(3);
  });
});
