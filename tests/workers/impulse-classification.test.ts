// impulse-classification end to end: enqueue → QStash emulator → jobs function → Anthropic and
// OpenAI emulators → one transaction of results in a real database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { aiAnalysisSchema } from '../../shared/ai/schemas.ts';
import { latestRateLimitSnapshots } from '../../shared/ai/accounting.ts';
import { costOf } from '../../shared/ai/pricing.ts';
import { withUser } from '../../shared/db/client.ts';
import { enqueue, findJob } from '../../shared/queue/index.ts';
import { EMBEDDING_MODEL, MODEL, createImpulse, createUser, parseVector, startStack, type Stack } from './harness.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

const claims = (sub: string) => ({ sub, role: 'authenticated' as const, aud: 'authenticated' });

async function classify(impulseId: string) {
  const { job } = await enqueue(stack.db.sql, stack.publisher, 'impulse-classification', { impulseId });
  await stack.qstash.idle();
  return (await findJob(stack.db.sql, job.id))!;
}

describe('impulse-classification', () => {
  it('writes the analysis, embedding, links and usage of an impulse in one go', async () => {
    const { sql } = stack.db;
    const userId = await createUser(stack.db);
    const content = 'I feel anxious about presenting my project to the whole team tomorrow morning';
    const impulseId = await createImpulse(stack.db, userId, content, 'expansion');

    const job = await classify(impulseId);
    expect(job).toMatchObject({ status: 'completed', attempts: 1, last_error: null });

    const [impulse] = await sql`
      select ai_status, ai_analysis, classification, content_validity, title, primary_layer_id, secondary_layer_id,
             embedding::text as embedding, embedding_model
        from public.impulses where id = ${impulseId}`;
    expect(impulse!.ai_status).toBe('complete');
    const analysis = aiAnalysisSchema.strict().parse(impulse!.ai_analysis);
    expect(Date.parse(analysis.processedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(impulse!.title).toBe(analysis.title);
    expect(impulse!.content_validity).toBe(analysis.contentValidity);
    expect(['contraction', 'expansion']).toContain(impulse!.classification);
    expect(parseVector(impulse!.embedding)).toHaveLength(512);
    expect(impulse!.embedding_model).toBe(EMBEDDING_MODEL);

    // Areas are existing ones with their names; impulse_areas mirrors them.
    const areas = await sql<{ id: string; name: string }[]>`select id, name from public.areas`;
    for (const a of analysis.areas) expect(areas).toContainEqual({ id: a.id, name: a.name });
    const links = await sql<{ area_id: string }[]>`select area_id from public.impulse_areas where impulse_id = ${impulseId}`;
    expect(links.map((l) => l.area_id).sort()).toEqual([...new Set(analysis.areas.map((a) => a.id))].sort());

    // Layers by name.
    const [primary] = await sql<{ name: string }[]>`select name from public.layers where id = ${impulse!.primary_layer_id}`;
    expect(primary!.name.toLowerCase()).toBe(analysis.layers.primary.layer);

    // One usage row per AI call, priced, tagged with the job; no text in them.
    const usage = await sql<{ workload: string; model: string; input_tokens: number; output_tokens: number; cost: string; job_id: string }[]>`
      select workload, model, input_tokens, output_tokens, cost::text, job_id from public.ai_usage where user_id = ${userId} order by workload`;
    expect(usage.map((u) => u.workload)).toEqual(['embedding', 'impulse-classification']);
    expect(usage.map((u) => u.model)).toEqual([EMBEDDING_MODEL, MODEL]);
    for (const u of usage) {
      expect(u.input_tokens).toBeGreaterThan(0);
      // numeric(12,6): a short text's embedding costs less than a millionth of a dollar.
      expect(Number(u.cost)).toBe(Math.round(costOf(u.model, u.input_tokens, u.output_tokens) * 1e6) / 1e6);
      expect(u.job_id).toBe(job.id);
    }
    expect(usage[1]!.output_tokens).toBeGreaterThan(0);
    expect(Number(usage[1]!.cost)).toBeGreaterThan(0);

    // The rate-limit headers of the call are kept for the admin endpoint.
    const snapshots = await latestRateLimitSnapshots(sql);
    expect(snapshots).toEqual([expect.objectContaining({ model_class: 'sonnet', model: MODEL, rpm_limit: 4000 })]);
  });

  it('makes an impulse sharing words findable by find_similar_impulses, and an unrelated one not', async () => {
    const { sql } = stack.db;
    const userId = await createUser(stack.db);
    const first = await createImpulse(stack.db, userId, 'Worried about money, rent, bills and debt piling up every single month');
    const second = await createImpulse(stack.db, userId, 'Worried about money, rent, bills and debt piling up again this month');
    const unrelated = await createImpulse(stack.db, userId, 'Joyful sunrise swim in the cold ocean with friends', 'expansion');
    for (const id of [first, second, unrelated]) expect((await classify(id)).status).toBe('completed');

    const [{ embedding }] = (await sql`select embedding::text as embedding from public.impulses where id = ${first}`) as unknown as [{ embedding: string }];
    const similar = await withUser(sql, claims(userId), (tx) =>
      tx<{ id: string; similarity: number }[]>`
        select id, similarity from public.find_similar_impulses(${embedding}::extensions.vector, 0.7, 10, ${first})`,
    );
    expect(similar.map((s) => s.id)).toEqual([second]);
    expect(similar[0]!.similarity).toBeGreaterThan(0.7);

    // Below the threshold, the unrelated one is far away.
    const all = await withUser(sql, claims(userId), (tx) =>
      tx<{ id: string; similarity: number }[]>`
        select id, similarity from public.find_similar_impulses(${embedding}::extensions.vector, -1, 10, ${first})`,
    );
    expect(z.number().parse(all.find((s) => s.id === unrelated)?.similarity)).toBeLessThan(0.3);
  });

  it('keeps the classification of an impulse whose session has started, and still writes the analysis', async () => {
    const { sql } = stack.db;
    const userId = await createUser(stack.db);
    // Same content and user: the emulated model answers both alike, so at least one of the two
    // differs from the AI's value and would have been overwritten.
    const content = 'A heavy pressure in my chest whenever my manager calls me into a meeting';
    const contraction = await createImpulse(stack.db, userId, content, 'contraction');
    const expansion = await createImpulse(stack.db, userId, content, 'expansion');
    await sql`update public.impulses set processual_status = 'transforming' where id in ${sql([contraction, expansion])}`;

    for (const id of [contraction, expansion]) expect((await classify(id)).status).toBe('completed');

    const rows = await sql<{ id: string; classification: string; ai_status: string; ai_analysis: unknown }[]>`
      select id, classification, ai_status, ai_analysis from public.impulses where id in ${sql([contraction, expansion])}`;
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(contraction)!.classification).toBe('contraction');
    expect(byId.get(expansion)!.classification).toBe('expansion');
    for (const r of rows) {
      expect(r.ai_status).toBe('complete');
      aiAnalysisSchema.strict().parse(r.ai_analysis);
    }
  });

  it('fails a job with a malformed payload at once, without an AI call', async () => {
    const before = stack.anthropic.requests();
    const { job } = await enqueue(stack.db.sql, stack.publisher, 'impulse-classification', { impulseId: 'nope' });
    await stack.qstash.idle();
    expect(await findJob(stack.db.sql, job.id)).toMatchObject({ status: 'failed', attempts: 1, last_error: 'PermanentJobError:JOB_PAYLOAD_INVALID' });
    expect(stack.anthropic.requests()).toBe(before);
  });
});
