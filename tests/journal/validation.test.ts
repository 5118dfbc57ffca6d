// Bad input on every journal endpoint gives the 400/404 envelope, other users' ids are 404, and
// random JSON bodies never produce a 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { call, createUser, startJournalStack, type JournalStack } from './setup.ts';

let stack: JournalStack;
let alice: { id: string; email: string };
let bob: { id: string; email: string };
const api = (method: string, path: string, body?: unknown, raw?: string) => call(stack.app, alice, method, path, body, raw);
const asBob = (method: string, path: string, body?: unknown) => call(stack.app, bob, method, path, body);

/** Bob's rows, which Alice must never see or link to. */
let foreign: { impulse: string; session: string; note: string; checkIn: string };
/** Alice's own rows for the endpoints that need an id. */
let own: { impulse: string; session: string; note: string; checkIn: string };

beforeAll(async () => {
  stack = await startJournalStack();
  alice = await createUser(stack.db, 'alice');
  bob = await createUser(stack.db, 'bob');
  const make = async (as: typeof asBob) => {
    const impulse = (await as('POST', '/v1/impulses', { content: 'a thought' })).body.data.id;
    const other = (await as('POST', '/v1/impulses', { content: 'another thought' })).body.data.id;
    const session = (await as('POST', '/v1/sessions', { impulse_id: other })).body.data.id;
    const note = (await as('POST', '/v1/notes', { content: 'a note' })).body.data.id;
    const checkIn = (await as('POST', '/v1/check-ins', { content: 'a check-in' })).body.data.id;
    return { impulse, session, note, checkIn };
  };
  foreign = await make(asBob);
  own = await make((m, p, b) => api(m, p, b));
});
afterAll(async () => {
  await stack?.close();
});

function expectError(res: { status: number; body: any }, status: number, code?: string) {
  expect(res.status).toBe(status);
  expect(res.body.success).toBe(false);
  expect(typeof res.body.error.code).toBe('string');
  if (code) expect(res.body.error.code).toBe(code);
}

describe('bad input → 400 VALIDATION_FAILED', () => {
  const long = (n: number) => 'x'.repeat(n);
  const cases: Array<[string, string, unknown]> = [
    ['POST', '/v1/impulses', {}],
    ['POST', '/v1/impulses', { content: 42 }],
    ['POST', '/v1/impulses', { content: '   ' }],
    ['POST', '/v1/impulses', { content: long(2001) }],
    ['POST', '/v1/impulses', { content: 'ok', classification: 'neutral' }],
    ['POST', '/v1/impulses', { content: 'ok', classification: null }],
    ['POST', '/v1/impulses', [1, 2]],
    ['POST', '/v1/sessions', {}],
    ['POST', '/v1/sessions', { impulse_id: 'not-a-uuid' }],
    ['POST', '/v1/notes', { content: '' }],
    ['POST', '/v1/notes', { content: long(10001) }],
    ['POST', '/v1/notes', { content: 'ok', note_type: 'diary' }],
    ['POST', '/v1/notes', { content: 'ok', impulse_id: 123 }],
    ['POST', '/v1/notes', { content: 'ok', session_step: 3 }],
    ['POST', '/v1/check-ins', { content: long(501) }],
    ['POST', '/v1/check-ins', { content: true }],
  ];
  it.each(cases)('%s %s %j', async (method, path, body) => {
    expectError(await api(method, path, body), 400, 'VALIDATION_FAILED');
  });

  it('bodies and params of the id routes', async () => {
    expectError(await api('PATCH', `/v1/impulses/${own.impulse}`, { content: long(2001) }), 400, 'VALIDATION_FAILED');
    expectError(await api('PATCH', `/v1/impulses/${own.impulse}`, {}), 400, 'VALIDATION_FAILED');
    expectError(await api('POST', `/v1/sessions/${own.session}/steps/1`, { input: long(5001) }), 400, 'VALIDATION_FAILED');
    expectError(await api('POST', `/v1/sessions/${own.session}/steps/1`, { input: 7 }), 400, 'VALIDATION_FAILED');
    expectError(await api('POST', `/v1/sessions/${own.session}/steps/abc`, { input: 'x' }), 400, 'VALIDATION_FAILED');
    expectError(await api('POST', `/v1/sessions/${own.session}/steps/0`, { input: 'x' }), 400, 'VALIDATION_FAILED');
    expectError(await api('PUT', `/v1/sessions/${own.session}/reflection`, {}), 400, 'VALIDATION_FAILED');
    expectError(await api('PATCH', `/v1/notes/${own.note}`, {}), 400, 'VALIDATION_FAILED');
    expectError(await api('PATCH', `/v1/notes/${own.note}`, { note_type: 'diary' }), 400, 'VALIDATION_FAILED');
    expectError(await api('POST', `/v1/check-ins/${own.checkIn}/convert`, { classification: 'neutral' }), 400, 'VALIDATION_FAILED');
    expectError(await api('POST', '/v1/impulses', undefined, '{"content":'), 400, 'INVALID_JSON');
  });

  it('query strings', async () => {
    expectError(await api('GET', '/v1/impulses?classification=other'), 400, 'VALIDATION_FAILED');
    expectError(await api('GET', '/v1/impulses?limit=0'), 400, 'VALIDATION_FAILED');
    expectError(await api('GET', '/v1/impulses?limit=1000'), 400, 'VALIDATION_FAILED');
    expectError(await api('POST', '/v1/impulses/query', { q: 'y'.repeat(101) }), 400, 'VALIDATION_FAILED');
    expectError(await api('POST', '/v1/impulses/query', {}), 400, 'VALIDATION_FAILED');
    expectError(await api('GET', '/v1/impulses?area=nope'), 400, 'VALIDATION_FAILED');
    expectError(await api('GET', '/v1/impulses?cursor=garbage'), 400, 'INVALID_CURSOR');
    expectError(await api('GET', '/v1/sessions?status=paused'), 400, 'VALIDATION_FAILED');
    expectError(await api('GET', '/v1/notes?impulse_id=1'), 400, 'VALIDATION_FAILED');
    expectError(await api('GET', '/v1/notes?archived=all'), 400, 'VALIDATION_FAILED');
    expectError(await api('GET', '/v1/check-ins?cursor=%%%'), 400);
  });

  it('invalid uuids in paths', async () => {
    for (const [method, path] of [
      ['GET', '/v1/impulses/123'], ['PATCH', '/v1/impulses/123'], ['DELETE', '/v1/impulses/123'],
      ['GET', '/v1/sessions/abc'], ['POST', '/v1/sessions/abc/complete'], ['POST', '/v1/sessions/abc/abandon'],
      ['GET', '/v1/notes/x'], ['POST', '/v1/notes/x/archive'], ['GET', '/v1/check-ins/x'], ['POST', '/v1/check-ins/x/convert'],
    ] as const) {
      expectError(await api(method, path, method === 'PATCH' ? { content: 'x' } : undefined), 400, 'VALIDATION_FAILED');
    }
  });

  it('LIKE metacharacters in q match literally', async () => {
    const pct = (await api('POST', '/v1/impulses', { content: '100% sure' })).body.data.id;
    const res = await api('POST', '/v1/impulses/query', { q: '0%' });
    expect(res.body.data.items.map((i: any) => i.id)).toEqual([pct]);
    expect((await api('POST', '/v1/impulses/query', { q: '_' })).body.data.items).toEqual([]);
  });
});

describe('text limits count characters like the column checks, not UTF-16 units', () => {
  const emoji = (n: number) => '😀'.repeat(n);

  it('accepts a check-in of 300 emoji (600 UTF-16 units) and one of 500, refuses one of 501 characters', async () => {
    expect(emoji(300)).toHaveLength(600);
    const accepted = await api('POST', '/v1/check-ins', { content: emoji(300) });
    expect(accepted.status).toBe(201);
    const [row] = await stack.db.sql<{ n: number }[]>`select char_length(content)::int as n from public.check_ins where id = ${accepted.body.data.id}`;
    expect(row!.n).toBe(300);
    expect((await api('POST', '/v1/check-ins', { content: emoji(500) })).status).toBe(201);
    expectError(await api('POST', '/v1/check-ins', { content: emoji(501) }), 400, 'VALIDATION_FAILED');
    expectError(await api('POST', '/v1/check-ins', { content: 'x'.repeat(501) }), 400, 'VALIDATION_FAILED');
  });

  it('counts characters after trimming, for impulses and notes too', async () => {
    expect((await api('POST', '/v1/impulses', { content: `  ${emoji(2000)}  ` })).status).toBe(201);
    expectError(await api('POST', '/v1/impulses', { content: emoji(2001) }), 400, 'VALIDATION_FAILED');
    expect((await api('POST', '/v1/notes', { content: emoji(6000) })).status).toBe(201);
  });
});

describe("another user's ids → 404", () => {
  it('reads and writes by id', async () => {
    const f = foreign;
    for (const [method, path, body] of [
      ['GET', `/v1/impulses/${f.impulse}`], ['PATCH', `/v1/impulses/${f.impulse}`, { content: 'mine now' }],
      ['DELETE', `/v1/impulses/${f.impulse}`], ['GET', `/v1/sessions/${f.session}`],
      ['POST', `/v1/sessions/${f.session}/steps/1`, { input: 'x' }], ['POST', `/v1/sessions/${f.session}/complete`],
      ['POST', `/v1/sessions/${f.session}/abandon`], ['PUT', `/v1/sessions/${f.session}/reflection`, { reflection: 'x' }],
      ['GET', `/v1/notes/${f.note}`], ['PATCH', `/v1/notes/${f.note}`, { content: 'x' }], ['POST', `/v1/notes/${f.note}/archive`],
      ['POST', `/v1/notes/${f.note}/unarchive`], ['GET', `/v1/check-ins/${f.checkIn}`], ['POST', `/v1/check-ins/${f.checkIn}/convert`],
      ['POST', '/v1/sessions', { impulse_id: f.impulse }],
      ['GET', `/v1/impulses/${crypto.randomUUID()}`],
    ] as Array<[string, string, unknown?]>) {
      expectError(await api(method, path, body), 404, 'NOT_FOUND');
    }
    // Nothing of Bob's changed.
    const [imp] = await stack.db.sql`select content, processual_status from public.impulses where id = ${f.impulse}`;
    expect(imp).toEqual({ content: 'a thought', processual_status: 'captured' });
    const [s] = await stack.db.sql`select status, step_1_input from public.sessions where id = ${f.session}`;
    expect(s).toEqual({ status: 'created', step_1_input: null });
  });

  it('links in a note body', async () => {
    expectError(await api('POST', '/v1/notes', { content: 'x', impulse_id: foreign.impulse }), 404, 'LINKED_ENTITY_NOT_FOUND');
    expectError(await api('POST', '/v1/notes', { content: 'x', session_id: foreign.session, session_step: 2 }), 404, 'LINKED_ENTITY_NOT_FOUND');
    expectError(await api('POST', '/v1/notes', { content: 'x', impulse_id: crypto.randomUUID() }), 404, 'LINKED_ENTITY_NOT_FOUND');
    const [{ n }] = await stack.db.sql`select count(*)::int as n from public.notes where user_id = ${alice.id} and content = 'x'` as any;
    expect(n).toBe(0);
  });

  it("lists never show another user's rows", async () => {
    for (const path of ['/v1/impulses', '/v1/sessions', '/v1/notes', '/v1/check-ins']) {
      const ids = (await api('GET', `${path}?limit=100`)).body.data.items.map((i: any) => i.id);
      expect(ids).not.toContain(foreign.impulse);
      expect(ids).not.toContain(foreign.session);
      expect(ids).not.toContain(foreign.note);
      expect(ids).not.toContain(foreign.checkIn);
      expect(ids.length).toBeGreaterThan(0);
    }
  });
});

describe('property: random JSON bodies never produce a 500', () => {
  it('every write endpoint', async () => {
    const endpoints: Array<[string, () => string]> = [
      ['POST', () => '/v1/impulses'],
      ['PATCH', () => `/v1/impulses/${own.impulse}`],
      ['POST', () => '/v1/sessions'],
      ['POST', () => `/v1/sessions/${own.session}/steps/1`],
      ['POST', () => `/v1/sessions/${own.session}/complete`],
      ['PUT', () => `/v1/sessions/${own.session}/reflection`],
      ['POST', () => '/v1/notes'],
      ['PATCH', () => `/v1/notes/${own.note}`],
      ['POST', () => `/v1/notes/${own.note}/archive`],
      ['POST', () => '/v1/check-ins'],
      ['POST', () => `/v1/check-ins/${own.checkIn}/convert`],
    ];
    const field = fc.constantFrom('content', 'classification', 'impulse_id', 'session_id', 'session_step', 'note_type', 'input', 'reflection');
    const value = fc.oneof(
      fc.jsonValue(),
      fc.uuid(),
      fc.constantFrom('contraction', 'expansion', 'neutral', 'gratitude', own.impulse, own.session, foreign.impulse, foreign.session),
      fc.string({ maxLength: 30 }),
      fc.integer({ min: -10, max: 10 }),
    );
    const body = fc.oneof(fc.jsonValue(), fc.dictionary(field, value, { maxKeys: 5 }));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...endpoints), body, async ([method, path], b) => {
        const res = await api(method, path(), b);
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400) expect(res.body.success).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});
