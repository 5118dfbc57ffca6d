// 200 AI jobs across the five queues against an Anthropic emulator that answers ~30% 429/500 and
// ~10% invalid tool input: every job ends completed or failed, every entity shows the matching
// status, no result is written twice, and no journal text reaches a log line or the ledger.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueue, type Job, type JobPayload, type QueueName } from '../../shared/queue/index.ts';
import { createCheckIn, createImpulse, createSession, createUser, startStack, type Stack } from './harness.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ retryBaseMs: 20 });
});
afterAll(async () => {
  await stack?.close();
});

/** Usage rows a completed job writes: structured call (+ embedding where the spec has one). */
const rowsPerJob = (job: Job): number =>
  job.queue === 'impulse-classification' || job.queue === 'check-in-assessment' ? 2
  : job.queue === 'session-summary' ? (job.payload.reflection ? 1 : 2)
  : 1;

describe('AI workers under provider faults', () => {
  it('ends every job completed or failed with a clear entity status and no duplicate results', async () => {
    const { db } = stack;
    const texts: string[] = [];
    const secret = (kind: string, n: number) => {
      // A marker word that can only come from the journal text.
      const text = `${kind} journal zq${kind}${n}marker feeling stuck about work and family`;
      texts.push(`zq${kind}${n}marker`);
      return text;
    };

    const planned: { queue: QueueName; payload: JobPayload }[] = [];
    for (let u = 0; u < 4; u++) {
      const userId = await createUser(db);
      const impulses: string[] = [];
      for (let i = 0; i < 15; i++) {
        const id = await createImpulse(db, userId, secret('imp', u * 100 + i));
        impulses.push(id);
        planned.push({ queue: 'impulse-classification', payload: { impulseId: id } });
      }
      for (let i = 0; i < 15; i++) {
        planned.push({ queue: 'check-in-assessment', payload: { checkInId: await createCheckIn(db, userId, secret('chk', u * 100 + i)) } });
      }
      for (let s = 0; s < 2; s++) {
        const sessionId = await createSession(db, userId, impulses[s]!, 'contraction');
        for (let step = 1; step <= 5; step++) planned.push({ queue: 'unified-guidance', payload: { sessionId, step } });
      }
      for (let s = 2; s < 7; s++) {
        const sessionId = await createSession(db, userId, impulses[s]!, s % 2 ? 'expansion' : 'contraction');
        await db.sql`
          update public.sessions set status = 'completed', step_1_input = ${secret('step', u * 100 + s)},
            user_reflection = ${secret('refl', u * 100 + s)}, summary_document = '{"summary":"earlier summary"}'
          where id = ${sessionId}`;
        planned.push({ queue: 'session-summary', payload: s === 6 ? { sessionId, reflection: true } : { sessionId } });
      }
      for (let i = 0; i < 5; i++) planned.push({ queue: 'insights-regeneration', payload: { userId } });
    }
    expect(planned).toHaveLength(200);

    stack.anthropic.setFaults({ seed: 20261122, rateLimitRate: 0.2, serverErrorRate: 0.1, invalidOutputRate: 0.1, retryAfterSeconds: 0 });
    // Every fifth job gets a single attempt, so the failure path is exercised for sure.
    const jobs = await Promise.all(
      planned.map(({ queue, payload }, i) =>
        enqueue(db.sql, stack.publisher, queue, payload, { maxAttempts: i % 5 === 0 ? 1 : 5 }).then((r) => r.job.id),
      ),
    );
    await stack.qstash.idle();
    stack.anthropic.resetFaults();

    const ledger = await db.sql<Job[]>`select * from public.jobs where id in ${db.sql(jobs)}`;
    expect(ledger).toHaveLength(200);
    const byStatus = (s: string) => ledger.filter((j) => j.status === s);
    expect(byStatus('completed').length + byStatus('failed').length).toBe(200);
    expect(byStatus('completed').length).toBeGreaterThan(100);
    expect(byStatus('failed').length).toBeGreaterThan(0);
    for (const j of byStatus('failed')) expect(j.last_error).toMatch(/^(AiJobError|PermanentJobError):AI_[A-Z_]+$/);

    // The entity of every job shows the job's outcome; nothing stays processing.
    const entityStatus = async (j: Job): Promise<string | null> => {
      const p = j.payload;
      if (j.queue === 'impulse-classification') return (await db.sql`select ai_status from public.impulses where id = ${p.impulseId as string}`)[0]!.ai_status;
      if (j.queue === 'check-in-assessment') return (await db.sql`select ai_assessment_status as s from public.check_ins where id = ${p.checkInId as string}`)[0]!.s;
      if (j.queue === 'unified-guidance') {
        return (await db.sql`select ${db.sql(`step_${p.step}_ai_status`)} as s from public.sessions where id = ${p.sessionId as string}`)[0]!.s;
      }
      if (j.queue === 'session-summary') {
        const col = p.reflection ? 'reflection_status' : 'summary_status';
        return (await db.sql`select ${db.sql(col)} as s from public.sessions where id = ${p.sessionId as string}`)[0]!.s;
      }
      return null;
    };
    const usage = await db.sql<{ job_id: string; n: number }[]>`
      select job_id, count(*)::int as n from public.ai_usage
       where job_id in ${db.sql(jobs)} and outcome = 'used' group by job_id`;
    const rowsOf = new Map(usage.map((u) => [u.job_id, u.n]));
    for (const j of ledger) {
      const status = await entityStatus(j);
      if (j.status === 'completed') {
        if (status !== null) expect(status).toBe('complete');
        // Written once: exactly the rows of one successful run.
        expect(rowsOf.get(j.id) ?? 0).toBe(rowsPerJob(j));
      } else {
        if (status !== null) expect(status).toBe('failed');
        expect(rowsOf.get(j.id) ?? 0).toBe(0);
      }
    }
    const [processing] = await db.sql<{ n: number }[]>`
      select (select count(*) from public.impulses where ai_status = 'processing')
           + (select count(*) from public.check_ins where ai_assessment_status = 'processing')
           + (select count(*) from public.sessions where 'processing' in (step_1_ai_status, step_2_ai_status, step_3_ai_status,
                step_4_ai_status, step_5_ai_status, summary_status, reflection_status)) as n`;
    expect(Number(processing!.n)).toBe(0);

    // Billed calls without a kept result (invalid output) are spend too: recorded as wasted.
    const [wasted] = await db.sql<{ n: number }[]>`
      select count(*)::int as n from public.ai_usage where job_id in ${db.sql(jobs)} and outcome = 'wasted'`;
    expect(wasted!.n).toBeGreaterThan(0);

    // Session totals still equal the ledger of usage rows (used and wasted).
    const mismatched = await db.sql`
      select s.id from public.sessions s
        left join (select session_id, sum(input_tokens) i, sum(output_tokens) o, sum(cost) c from public.ai_usage group by session_id) u
          on u.session_id = s.id
       where s.total_input_tokens <> coalesce(u.i, 0) or s.total_output_tokens <> coalesce(u.o, 0) or s.total_cost <> coalesce(u.c, 0)`;
    expect(mismatched).toEqual([]);

    // No journal text in any log line or in the ledger's errors.
    expect(stack.logLines.length).toBeGreaterThan(200);
    expect(stack.logLines.some((l) => l.includes('job failed'))).toBe(true);
    for (const marker of texts) {
      expect(stack.logLines.filter((l) => l.includes(marker))).toEqual([]);
      expect(ledger.filter((j) => (j.last_error ?? '').includes(marker))).toEqual([]);
    }
  }, 90_000);
});
