// A user's journey through the journal API, and every refused session transition.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createUser, startJournalStack, type JournalStack } from './setup.ts';

let stack: JournalStack;
let alice: { id: string; email: string };
const api = (method: string, path: string, body?: unknown) => call(stack.app, alice, method, path, body);

const jobsFor = (id: string) => stack.db.sql<{ queue: string; payload: Record<string, unknown>; user_id: string }[]>`
  select queue, payload, user_id from public.jobs where payload::text like ${'%' + id + '%'} order by created_at, id`;

beforeAll(async () => {
  stack = await startJournalStack();
  alice = await createUser(stack.db, 'alice');
});
afterAll(async () => {
  await stack?.close();
});

async function newImpulse(content = 'I fear I am not enough', classification: string | undefined = 'contraction') {
  const res = await api('POST', '/v1/impulses', { content, classification });
  expect(res.status).toBe(201);
  return res.body.data as { id: string; processual_status: string; classification: string };
}

async function walk(sessionId: string, steps = 5) {
  for (let step = 1; step <= steps; step++) {
    const res = await api('POST', `/v1/sessions/${sessionId}/steps/${step}`, { input: `input ${step}` });
    expect(res.status).toBe(200);
  }
}

async function sessionRow(id: string) {
  const [row] = await stack.db.sql`select * from public.sessions where id = ${id}`;
  return row!;
}

describe('journey', () => {
  it('captures, walks five steps, completes, reflects, writes notes, converts a check-in', async () => {
    const a = await newImpulse('  I am afraid of speaking up  ', 'contraction');
    const b = await newImpulse('I want to paint again', 'expansion');
    const c = await newImpulse('Something without a chosen type', undefined);
    expect(a).toMatchObject({ classification: 'contraction', processual_status: 'captured', ai_status: 'pending' });
    expect((a as any).content).toBe('I am afraid of speaking up');
    expect(c.classification).toBe('contraction');

    // Jobs: one classification job per impulse, ids only.
    for (const imp of [a, b, c]) {
      const jobs = await jobsFor(imp.id);
      expect(jobs).toEqual([{ queue: 'impulse-classification', payload: { impulseId: imp.id }, user_id: alice.id }]);
    }

    const list = await api('GET', '/v1/impulses?limit=2');
    expect(list.status).toBe(200);
    expect(list.body.data.items.map((i: any) => i.id)).toEqual([c.id, b.id]);
    expect(list.body.data.page.has_more).toBe(true);
    const next = await api('GET', `/v1/impulses?limit=2&cursor=${list.body.data.page.next_cursor}`);
    expect(next.body.data.items.map((i: any) => i.id)).toEqual([a.id]);
    expect(next.body.data.page).toEqual({ next_cursor: null, has_more: false });

    const filtered = await api('GET', '/v1/impulses?classification=expansion');
    expect(filtered.body.data.items.map((i: any) => i.id)).toEqual([b.id]);
    const searched = await api('POST', '/v1/impulses/query', { q: 'PAINT' });
    expect(searched.body.data.items.map((i: any) => i.id)).toEqual([b.id]);

    // Session on the contraction impulse.
    const started = await api('POST', '/v1/sessions', { impulse_id: a.id });
    expect(started.status).toBe(201);
    const s = started.body.data;
    expect(s).toMatchObject({ impulse_id: a.id, classification: 'contraction', status: 'created', current_step: 1 });
    expect(s.steps.map((x: any) => x.name)).toEqual(['FEEL', 'OWN', 'SHIFT', 'ENVISION', 'RELEASE']);
    expect(s.steps[0]).toMatchObject({ step: 1, purpose: 'somatic awareness', input: null, ai_status: 'pending' });
    expect(s.steps[1].ai_status).toBe('idle');
    expect((await api('GET', `/v1/impulses/${a.id}`)).body.data.processual_status).toBe('transforming');

    const step1 = await api('POST', `/v1/sessions/${s.id}/steps/1`, { input: 'tight chest' });
    expect(step1.body.data).toMatchObject({ status: 'active', current_step: 2 });
    expect(step1.body.data.steps[0].input).toBe('tight chest');
    expect(step1.body.data.steps[1].ai_status).toBe('pending');
    for (let step = 2; step <= 5; step++) {
      const r = await api('POST', `/v1/sessions/${s.id}/steps/${step}`, { input: `input ${step}` });
      expect(r.status).toBe(200);
      expect(r.body.data.current_step).toBe(Math.min(step + 1, 5));
    }
    const detail = await api('GET', `/v1/sessions/${s.id}`);
    expect(detail.body.data.steps.map((x: any) => x.input)).toEqual(['tight chest', 'input 2', 'input 3', 'input 4', 'input 5']);
    expect(detail.body.data.status).toBe('active');

    const done = await api('POST', `/v1/sessions/${s.id}/complete`);
    expect(done.status).toBe(200);
    expect(done.body.data).toMatchObject({ status: 'completed', summary_status: 'pending' });
    expect(done.body.data.completed_at).toEqual(expect.any(String));
    expect((await api('GET', `/v1/impulses/${a.id}`)).body.data.processual_status).toBe('transformed');

    const refl = await api('PUT', `/v1/sessions/${s.id}/reflection`, { reflection: 'I feel lighter' });
    expect(refl.status).toBe(200);
    expect(refl.body.data).toMatchObject({ user_reflection: 'I feel lighter', reflection_status: 'pending' });

    expect((await jobsFor(s.id)).map((j) => [j.queue, j.payload])).toEqual([
      ['unified-guidance', { sessionId: s.id, step: 1 }],
      ['unified-guidance', { sessionId: s.id, step: 2 }],
      ['unified-guidance', { sessionId: s.id, step: 3 }],
      ['unified-guidance', { sessionId: s.id, step: 4 }],
      ['unified-guidance', { sessionId: s.id, step: 5 }],
      ['session-summary', { sessionId: s.id }],
      ['session-summary', { sessionId: s.id, reflection: true }],
    ]);

    // Notes.
    const n1 = await api('POST', '/v1/notes', { content: 'Grateful for courage', note_type: 'gratitude', impulse_id: a.id });
    expect(n1.status).toBe(201);
    const n2 = await api('POST', '/v1/notes', { content: 'Step 3 felt real', session_id: s.id, session_step: 3 });
    expect(n2.status).toBe(201);
    expect(n2.body.data).toMatchObject({ note_type: 'reflection', session_id: s.id, session_step: 3, archived_at: null });
    const n3 = await api('POST', '/v1/notes', { content: 'standalone' });
    expect(n3.status).toBe(201);

    const impDetail = await api('GET', `/v1/impulses/${a.id}`);
    expect(impDetail.body.data.sessions.map((x: any) => x.id)).toEqual([s.id]);
    expect(impDetail.body.data.notes.map((x: any) => x.id)).toEqual([n1.body.data.id]);

    const archived = await api('POST', `/v1/notes/${n1.body.data.id}/archive`);
    expect(archived.body.data.archived_at).toEqual(expect.any(String));
    expect((await api('GET', `/v1/impulses/${a.id}`)).body.data.notes).toEqual([]);
    expect((await api('GET', '/v1/notes')).body.data.items.map((x: any) => x.id)).toEqual([n3.body.data.id, n2.body.data.id]);
    expect((await api('GET', '/v1/notes?archived=only')).body.data.items.map((x: any) => x.id)).toEqual([n1.body.data.id]);
    expect((await api('GET', '/v1/notes?include_archived=true')).body.data.items).toHaveLength(3);
    expect((await api('GET', `/v1/notes?session_id=${s.id}`)).body.data.items.map((x: any) => x.id)).toEqual([n2.body.data.id]);
    const unarchived = await api('POST', `/v1/notes/${n1.body.data.id}/unarchive`);
    expect(unarchived.body.data.archived_at).toBeNull();
    const patched = await api('PATCH', `/v1/notes/${n3.body.data.id}`, { note_type: 'gratitude' });
    expect(patched.body.data).toMatchObject({ note_type: 'gratitude', content: 'standalone' });

    // Check-in, then convert.
    const ci = await api('POST', '/v1/check-ins', { content: 'Tired but hopeful' });
    expect(ci.status).toBe(201);
    expect(ci.body.data).toMatchObject({ ai_assessment_status: 'pending', converted_impulse_id: null });
    expect((await jobsFor(ci.body.data.id)).map((j) => [j.queue, j.payload])).toEqual([
      ['check-in-assessment', { checkInId: ci.body.data.id }],
    ]);
    const conv = await api('POST', `/v1/check-ins/${ci.body.data.id}/convert`, { classification: 'expansion' });
    expect(conv.status).toBe(201);
    expect(conv.body.data).toMatchObject({ content: 'Tired but hopeful', classification: 'expansion', source_check_in_id: ci.body.data.id });
    const again = await api('POST', `/v1/check-ins/${ci.body.data.id}/convert`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('CHECK_IN_ALREADY_CONVERTED');
    expect((await api('GET', `/v1/check-ins/${ci.body.data.id}`)).body.data.converted_impulse_id).toBe(conv.body.data.id);
    expect((await api('GET', '/v1/check-ins')).body.data.items).toHaveLength(1);

    // Edit re-classifies; delete refuses impulses with sessions and deletes others.
    const edited = await api('PATCH', `/v1/impulses/${b.id}`, { content: 'I want to paint every week' });
    expect(edited.body.data).toMatchObject({ content: 'I want to paint every week', ai_status: 'pending' });
    expect((await jobsFor(b.id))).toHaveLength(2);
    expect((await api('DELETE', `/v1/impulses/${c.id}`)).status).toBe(204);
    expect((await api('GET', `/v1/impulses/${c.id}`)).status).toBe(404);

    // No job payload carries journal text.
    const [leak] = await stack.db.sql`select count(*)::int as n from public.jobs
      where payload::text ilike '%afraid%' or payload::text ilike '%paint%' or payload::text ilike '%hopeful%'`;
    expect(leak!.n).toBe(0);
  });
});

describe('illegal transitions: 409 and nothing changes', () => {
  async function expectRefused(method: string, path: string, code: string, body?: unknown) {
    const res = await api(method, path, body);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ success: false, error: { code } });
  }

  it('skipping a step, repeating a step and step 6', async () => {
    const imp = await newImpulse();
    const s = (await api('POST', '/v1/sessions', { impulse_id: imp.id })).body.data;
    const before = await sessionRow(s.id);
    await expectRefused('POST', `/v1/sessions/${s.id}/steps/2`, 'SESSION_STEP_OUT_OF_ORDER', { input: 'x' });
    expect(await sessionRow(s.id)).toEqual(before);
    await api('POST', `/v1/sessions/${s.id}/steps/1`, { input: 'one' });
    await expectRefused('POST', `/v1/sessions/${s.id}/steps/1`, 'SESSION_STEP_OUT_OF_ORDER', { input: 'again' });
    await expectRefused('POST', `/v1/sessions/${s.id}/steps/3`, 'SESSION_STEP_OUT_OF_ORDER', { input: 'x' });
    const mid = await sessionRow(s.id);
    expect(mid.step_1_input).toBe('one');
    expect(mid.current_step).toBe(2);
    for (let step = 2; step <= 5; step++) await api('POST', `/v1/sessions/${s.id}/steps/${step}`, { input: `i${step}` });
    const atFive = await sessionRow(s.id);
    await expectRefused('POST', `/v1/sessions/${s.id}/steps/6`, 'SESSION_STEP_OUT_OF_ORDER', { input: 'x' });
    await expectRefused('POST', `/v1/sessions/${s.id}/steps/5`, 'SESSION_STEP_ALREADY_SUBMITTED', { input: 'x' });
    expect(await sessionRow(s.id)).toEqual(atFive);
  });

  it('completing an incomplete session, a second open session, reflecting too early', async () => {
    const imp = await newImpulse();
    const s = (await api('POST', '/v1/sessions', { impulse_id: imp.id })).body.data;
    await walk(s.id, 4);
    const before = await sessionRow(s.id);
    await expectRefused('POST', `/v1/sessions/${s.id}/complete`, 'SESSION_INCOMPLETE');
    await expectRefused('PUT', `/v1/sessions/${s.id}/reflection`, 'SESSION_NOT_COMPLETED', { reflection: 'early' });
    await expectRefused('POST', '/v1/sessions', 'SESSION_ALREADY_OPEN', { impulse_id: imp.id });
    expect(await sessionRow(s.id)).toEqual(before);
    const [{ n }] = await stack.db.sql`select count(*)::int as n from public.sessions where impulse_id = ${imp.id}` as any;
    expect(n).toBe(1);
  });

  it('abandoned sessions cannot advance or complete; the impulse goes back to captured', async () => {
    const imp = await newImpulse();
    const s = (await api('POST', '/v1/sessions', { impulse_id: imp.id })).body.data;
    await walk(s.id, 5);
    const ab = await api('POST', `/v1/sessions/${s.id}/abandon`);
    expect(ab.body.data.status).toBe('abandoned');
    expect((await api('GET', `/v1/impulses/${imp.id}`)).body.data.processual_status).toBe('captured');
    const before = await sessionRow(s.id);
    await expectRefused('POST', `/v1/sessions/${s.id}/complete`, 'SESSION_NOT_ACTIVE');
    await expectRefused('POST', `/v1/sessions/${s.id}/abandon`, 'SESSION_NOT_ACTIVE');
    await expectRefused('POST', `/v1/sessions/${s.id}/steps/5`, 'SESSION_NOT_ACTIVE', { input: 'x' });
    expect(await sessionRow(s.id)).toEqual(before);
    // A new session may start after the abandoned one.
    expect((await api('POST', '/v1/sessions', { impulse_id: imp.id })).status).toBe(201);
  });

  it('completed sessions cannot advance, complete again or be abandoned; impulses with sessions cannot be deleted', async () => {
    const imp = await newImpulse();
    const s = (await api('POST', '/v1/sessions', { impulse_id: imp.id })).body.data;
    await walk(s.id, 5);
    expect((await api('POST', `/v1/sessions/${s.id}/complete`)).status).toBe(200);
    const before = await sessionRow(s.id);
    await expectRefused('POST', `/v1/sessions/${s.id}/steps/5`, 'SESSION_ALREADY_COMPLETED', { input: 'x' });
    await expectRefused('POST', `/v1/sessions/${s.id}/complete`, 'SESSION_ALREADY_COMPLETED');
    await expectRefused('POST', `/v1/sessions/${s.id}/abandon`, 'SESSION_ALREADY_COMPLETED');
    expect(await sessionRow(s.id)).toEqual(before);
    await expectRefused('DELETE', `/v1/impulses/${imp.id}`, 'IMPULSE_HAS_SESSIONS');
    expect((await api('GET', `/v1/impulses/${imp.id}`)).status).toBe(200);

    // A second session on a transformed impulse, abandoned: the impulse stays transformed.
    const s2 = (await api('POST', '/v1/sessions', { impulse_id: imp.id })).body.data;
    expect((await api('GET', `/v1/impulses/${imp.id}`)).body.data.processual_status).toBe('transforming');
    await api('POST', `/v1/sessions/${s2.id}/abandon`);
    expect((await api('GET', `/v1/impulses/${imp.id}`)).body.data.processual_status).toBe('transformed');
  });
});
