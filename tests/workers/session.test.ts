// A session walked through its five steps by the workers: guidance per step, the summary
// document, the reflection conclusion, and session totals that match the usage ledger.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summaryDocumentSchema } from '../../shared/ai/schemas.ts';
import { EMBEDDING_MODEL, createImpulse, createSession, createUser, parseVector, startStack, type Stack, runJob } from './harness.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

const inputs = [
  'A tight knot in my stomach, warm and heavy',
  'I have spent years feeding this fear of being judged',
  'I choose to stand in calm confidence instead',
  'I see myself speaking freely, shoulders relaxed',
  'I thank the fear and let it go: I am safe to be seen',
];

async function walk(sessionId: string): Promise<string[]> {
  const { sql } = stack.db;
  const prompts: string[] = [];
  for (let step = 1; step <= 5; step++) {
    const before = stack.systemPrompts.length;
    const job = await runJob(stack, 'unified-guidance', { sessionId, step });
    expect(job.status).toBe('completed');
    expect(stack.systemPrompts.length).toBe(before + 1);
    prompts.push(stack.systemPrompts.at(-1)!);
    await sql`
      update public.sessions set ${sql(`step_${step}_input`)} = ${inputs[step - 1]!},
        current_step = ${Math.min(step + 1, 5)}
      where id = ${sessionId}`;
  }
  return prompts;
}

describe('a session through the workers', () => {
  it('gets guidance for every step, a complete summary and a conclusion, with totals equal to its usage rows', async () => {
    const { sql } = stack.db;
    const userId = await createUser(stack.db);
    const impulseId = await createImpulse(stack.db, userId, 'Afraid of being judged when I speak in meetings');
    const sessionId = await createSession(stack.db, userId, impulseId, 'contraction');

    const prompts = await walk(sessionId);
    expect(new Set(prompts).size).toBe(5);
    ['FEEL', 'OWN', 'SHIFT', 'ENVISION', 'RELEASE'].forEach((name, i) => expect(prompts[i]).toContain(`step ${i + 1}, ${name}`));

    const [guided] = await sql`select * from public.sessions where id = ${sessionId}`;
    for (let step = 1; step <= 5; step++) {
      expect(guided![`step_${step}_ai_status`]).toBe('complete');
      expect(String(guided![`step_${step}_guidance`]).length).toBeGreaterThan(0);
    }

    await sql`update public.sessions set status = 'completed', completed_at = now() where id = ${sessionId}`;
    expect((await runJob(stack, 'session-summary', { sessionId })).status).toBe('completed');
    const [summarized] = await sql`
      select summary_status, summary_document, embedding::text as embedding, embedding_model from public.sessions where id = ${sessionId}`;
    expect(summarized!.summary_status).toBe('complete');
    const doc = summaryDocumentSchema.strict().parse(summarized!.summary_document);
    for (const key of ['title', 'summary', 'startingPoint', 'newUnderstanding', 'breakthroughs', 'nextSteps', 'process', 'reflection', 'generatedAt']) {
      expect(doc).toHaveProperty(key);
    }
    expect(parseVector(summarized!.embedding)).toHaveLength(512);
    expect(summarized!.embedding_model).toBe(EMBEDDING_MODEL);

    await sql`update public.sessions set user_reflection = 'I feel lighter and ready to speak' where id = ${sessionId}`;
    expect((await runJob(stack, 'session-summary', { sessionId, reflection: true })).status).toBe('completed');

    const [session] = await sql<{ reflection_status: string; reflection_conclusion: string; total_input_tokens: number; total_output_tokens: number; total_cost: string }[]>`
      select reflection_status, reflection_conclusion, total_input_tokens, total_output_tokens, total_cost::text
        from public.sessions where id = ${sessionId}`;
    expect(session!.reflection_status).toBe('complete');
    expect(session!.reflection_conclusion.length).toBeGreaterThan(0);
    // The summary document carries the conclusion too, its other members untouched.
    const [concluded] = await sql`select summary_document from public.sessions where id = ${sessionId}`;
    expect(concluded!.summary_document).toEqual({ ...(summarized!.summary_document as object), reflection: session!.reflection_conclusion });

    const [sums] = await sql<{ rows: number; input: number; output: number; cost: string }[]>`
      select count(*)::int as rows, sum(input_tokens)::int as input, sum(output_tokens)::int as output, sum(cost)::text as cost
        from public.ai_usage where session_id = ${sessionId}`;
    // 5 guidance calls, summary + embedding, conclusion.
    expect(sums!.rows).toBe(8);
    expect(session!.total_input_tokens).toBe(sums!.input);
    expect(session!.total_output_tokens).toBe(sums!.output);
    expect(Number(session!.total_cost)).toBe(Number(sums!.cost));
    expect(Number(session!.total_cost)).toBeGreaterThan(0);
  });

  it('concludes a reflection on a session without a summary document, leaving the document null', async () => {
    const { sql } = stack.db;
    const userId = await createUser(stack.db);
    const impulseId = await createImpulse(stack.db, userId, 'Restless before sleep, thoughts racing');
    const sessionId = await createSession(stack.db, userId, impulseId, 'contraction');
    await sql`update public.sessions set user_reflection = 'Calmer now' where id = ${sessionId}`;
    expect((await runJob(stack, 'session-summary', { sessionId, reflection: true })).status).toBe('completed');
    const [row] = await sql`select reflection_status, reflection_conclusion, summary_document from public.sessions where id = ${sessionId}`;
    expect(row!.reflection_status).toBe('complete');
    expect(String(row!.reflection_conclusion).length).toBeGreaterThan(0);
    expect(row!.summary_document).toBeNull();
  });

  it('uses different prompts for a realization session than for a clearing session', async () => {
    const userId = await createUser(stack.db, { language: 'no' });
    const impulseId = await createImpulse(stack.db, userId, 'Excited to start painting again every weekend', 'expansion');
    const sessionId = await createSession(stack.db, userId, impulseId, 'expansion');
    const before = stack.systemPrompts.length;
    expect((await runJob(stack, 'unified-guidance', { sessionId, step: 1 })).status).toBe('completed');
    const expansion = stack.systemPrompts[before]!;
    expect(expansion).toContain('realization session');
    expect(expansion).toContain('Norwegian');
    const clearing = stack.systemPrompts.find((p) => p.includes('clearing session') && p.includes('step 1, FEEL'));
    expect(clearing).toBeDefined();
    expect(expansion).not.toBe(clearing);
  });
});
