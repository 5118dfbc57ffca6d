// check-in-assessment and insights-regeneration end to end.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkInAssessmentSchema } from '../../shared/ai/schemas.ts';
import { EMBEDDING_MODEL, createCheckIn, createImpulse, createUser, parseVector, startStack, type Stack, runJob } from './harness.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

describe('check-in-assessment', () => {
  it('writes the assessment, classification and embedding with its usage', async () => {
    const userId = await createUser(stack.db);
    await createCheckIn(stack.db, userId, 'Slept badly, still went for a run');
    const checkInId = await createCheckIn(stack.db, userId, 'Feeling open and grateful after talking with my sister');
    const job = await runJob(stack, 'check-in-assessment', { checkInId });
    expect(job.status).toBe('completed');
    const [row] = await stack.db.sql`
      select ai_assessment_status, ai_assessment, classification, embedding::text as embedding, embedding_model
        from public.check_ins where id = ${checkInId}`;
    expect(row!.ai_assessment_status).toBe('complete');
    const assessment = checkInAssessmentSchema.strict().parse(row!.ai_assessment);
    expect(row!.classification).toBe(assessment.classification);
    expect(parseVector(row!.embedding)).toHaveLength(512);
    expect(row!.embedding_model).toBe(EMBEDDING_MODEL);
    const usage = await stack.db.sql`select workload from public.ai_usage where job_id = ${job.id} order by workload`;
    expect(usage.map((u) => u.workload)).toEqual(['check-in-assessment', 'embedding']);
  });
});

describe('insights-regeneration', () => {
  it('replaces the insights of a user, each resting on the user\'s entries', async () => {
    const userId = await createUser(stack.db);
    const ids = [
      await createImpulse(stack.db, userId, 'Afraid my manager thinks I am slow'),
      await createImpulse(stack.db, userId, 'Proud of finishing the report early', 'expansion'),
      await createCheckIn(stack.db, userId, 'Calm and focused this morning'),
    ];
    await stack.db.sql`
      insert into public.analytics_insights (user_id, kind, title, content) values (${userId}, 'pattern', 'old', 'old')`;
    const job = await runJob(stack, 'insights-regeneration', { userId });
    expect(job.status).toBe('completed');
    const insights = await stack.db.sql<{ kind: string; title: string; data_points: { entryIds: string[]; confidence: number } }[]>`
      select kind, title, data_points from public.analytics_insights where user_id = ${userId}`;
    expect(insights.length).toBeGreaterThan(0);
    expect(insights.map((i) => i.title)).not.toContain('old');
    for (const i of insights) {
      expect(['pattern', 'progress', 'guidance', 'synchronicity', 'shift']).toContain(i.kind);
      expect(i.data_points.entryIds.length).toBeGreaterThan(0);
      for (const id of i.data_points.entryIds) expect(ids).toContain(id);
    }
    const usage = await stack.db.sql`select workload from public.ai_usage where job_id = ${job.id}`;
    expect(usage.map((u) => u.workload)).toEqual(['insights-regeneration']);
  });

  it('completes without an AI call for a user without entries', async () => {
    const userId = await createUser(stack.db);
    const before = stack.anthropic.requests();
    expect((await runJob(stack, 'insights-regeneration', { userId })).status).toBe('completed');
    expect(stack.anthropic.requests()).toBe(before);
  });
});
