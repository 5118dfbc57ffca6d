// The monthly AI limit per tier: a user at the limit gets no AI call, the entity and the job fail
// with AI_LIMIT_EXCEEDED; last month's usage does not count. A user without active access gets no
// AI call either (SUBSCRIPTION_INACTIVE).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkMonthlyLimit } from '../../shared/ai/accounting.ts';
import { MODEL, createCheckIn, createImpulse, createUser, startStack, type Stack, runJob } from './harness.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

async function addUsage(userId: string, rows: number, opts: { cost?: number; monthsAgo?: number } = {}) {
  await stack.db.sql`
    insert into public.ai_usage (user_id, workload, model, input_tokens, output_tokens, cost, created_at)
    select ${userId}, 'impulse-classification', ${MODEL}, 10, 10, ${opts.cost ?? 0.0001},
           now() - make_interval(months => ${opts.monthsAgo ?? 0})
      from generate_series(1, ${rows})`;
}

const aiCalls = () => stack.anthropic.requests() + stack.openai.requests();

describe('monthly AI limit', () => {
  it('fails the impulse and the job without calling the AI when the request limit is reached', async () => {
    const userId = await createUser(stack.db, { tier: 'trial' });
    await addUsage(userId, 100); // trial: 100 requests per month
    const impulseId = await createImpulse(stack.db, userId, 'Nervous about the exam next week');
    const before = aiCalls();

    const job = await runJob(stack, 'impulse-classification', { impulseId });
    expect(job).toMatchObject({ status: 'failed', attempts: 1, last_error: 'PermanentJobError:AI_LIMIT_EXCEEDED' });
    const [impulse] = await stack.db.sql`select ai_status, ai_analysis, classification from public.impulses where id = ${impulseId}`;
    expect(impulse).toEqual({ ai_status: 'failed', ai_analysis: null, classification: 'contraction' });
    expect(aiCalls()).toBe(before);
    const [{ n }] = (await stack.db.sql`select count(*)::int as n from public.ai_usage where user_id = ${userId}`) as unknown as [{ n: number }];
    expect(n).toBe(100);
  });

  it('fails a check-in assessment when the cost limit is reached', async () => {
    const userId = await createUser(stack.db, { tier: 'mastery' });
    await addUsage(userId, 1, { cost: 20 }); // mastery: 20 USD per month
    const checkInId = await createCheckIn(stack.db, userId, 'Tired but hopeful today');
    const before = aiCalls();
    expect(await runJob(stack, 'check-in-assessment', { checkInId })).toMatchObject({ status: 'failed', last_error: 'PermanentJobError:AI_LIMIT_EXCEEDED' });
    const [row] = await stack.db.sql`select ai_assessment_status, ai_assessment from public.check_ins where id = ${checkInId}`;
    expect(row).toEqual({ ai_assessment_status: 'failed', ai_assessment: null });
    expect(aiCalls()).toBe(before);
    expect(await checkMonthlyLimit(stack.db.sql, userId, 'mastery')).toMatchObject({ exceeded: true, limit: 'cost' });
  });

  it('fails the job without calling the AI when the subscription is no longer active', async () => {
    const userId = await createUser(stack.db, { tier: 'trial' });
    // Queued while the trial was active; the trial has ended by the time the job runs.
    const impulseId = await createImpulse(stack.db, userId, 'Worried about the move next month');
    await stack.db.sql`update public.profiles set trial_ends_at = now() - interval '1 day' where id = ${userId}`;
    const before = aiCalls();

    const job = await runJob(stack, 'impulse-classification', { impulseId });
    expect(job).toMatchObject({ status: 'failed', attempts: 1, last_error: 'PermanentJobError:SUBSCRIPTION_INACTIVE' });
    const [impulse] = await stack.db.sql`select ai_status, ai_analysis from public.impulses where id = ${impulseId}`;
    expect(impulse).toEqual({ ai_status: 'failed', ai_analysis: null });
    expect(aiCalls()).toBe(before);
    const [{ n }] = (await stack.db.sql`select count(*)::int as n from public.ai_usage where user_id = ${userId}`) as unknown as [{ n: number }];
    expect(n).toBe(0);
  });

  it('does not count last month, and lets a user below the limit through', async () => {
    const userId = await createUser(stack.db, { tier: 'trial' });
    await addUsage(userId, 100, { monthsAgo: 1 });
    await addUsage(userId, 99);
    expect(await checkMonthlyLimit(stack.db.sql, userId, 'trial')).toMatchObject({ exceeded: false, used: { requests: 99 } });
    const impulseId = await createImpulse(stack.db, userId, 'Grateful for a calm morning walk', 'expansion');
    expect((await runJob(stack, 'impulse-classification', { impulseId })).status).toBe('completed');
    // Now at 101 this month: the next job is refused.
    expect(await checkMonthlyLimit(stack.db.sql, userId, 'trial')).toMatchObject({ exceeded: true, limit: 'requests' });
  });
});
