// Semantic search against the OpenAI emulator: rows get the emulator's embedding of their text, a
// query sharing most words finds them, unrelated rows and other users' rows stay out.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { embedText } from '../../local/emulators/openai/embedding.ts';
import { createApiApp } from '../../functions/api/app.ts';
import { createLogger, setLogSink } from '../../shared/http/logger.ts';
import { toVectorLiteral } from '../../shared/domain/embedder.ts';
import { costOf } from '../../shared/ai/pricing.ts';
import { body, startAppStack, USERS, type AppStack } from './setup.ts';

const ANXIOUS = 'I feel anxious about the meeting with my manager tomorrow morning';
const ANXIOUS_QUERY = 'anxious about the meeting with my manager on Monday morning';
const GARDEN = 'The garden tomatoes need water and sunshine this summer';

let s: AppStack;
const ids = { anxious: '', garden: '', anxious2: '', session: '', checkIn: '', other: '' };
const vec = (text: string) => toVectorLiteral(embedText(text, 512));

beforeAll(async () => {
  s = await startAppStack();
  const me = await s.userId(USERS.mastery);
  const other = await s.userId(USERS.foundation);
  const impulse = async (user: string, text: string) => {
    const [row] = await s.db.sql<{ id: string }[]>`
      insert into public.impulses (user_id, content, classification, title, embedding)
      values (${user}, ${text}, 'contraction', 'a title', ${vec(text)}::extensions.vector) returning id`;
    return row!.id;
  };
  ids.anxious = await impulse(me, ANXIOUS);
  ids.garden = await impulse(me, GARDEN);
  ids.anxious2 = await impulse(me, 'Anxious again about the meeting with my manager this morning');
  ids.other = await impulse(other, ANXIOUS);
  const [session] = await s.db.sql<{ id: string }[]>`
    insert into public.sessions (user_id, impulse_id, classification, embedding)
    values (${me}, ${ids.anxious}, 'contraction', ${vec(ANXIOUS)}::extensions.vector) returning id`;
  ids.session = session!.id;
  const [checkIn] = await s.db.sql<{ id: string }[]>`
    insert into public.check_ins (user_id, content, classification, embedding)
    values (${me}, ${ANXIOUS}, 'contraction', ${vec(ANXIOUS)}::extensions.vector) returning id`;
  ids.checkIn = checkIn!.id;
});
afterAll(() => s.close());
beforeEach(() => s.openai.resetFaults());

const search = (b: unknown, as: string = USERS.mastery) => s.call('POST', '/v1/search', { as, body: b });

describe('POST /v1/search', () => {
  it('finds the similar impulse, session and check-in and not the unrelated impulse', async () => {
    const res = await search({ query: ANXIOUS_QUERY });
    expect(res.status).toBe(200);
    const { data } = await body(res);
    const impulseIds = data.impulses.map((h: { id: string }) => h.id);
    expect(impulseIds).toContain(ids.anxious);
    expect(impulseIds).not.toContain(ids.garden);
    expect(impulseIds).not.toContain(ids.other);
    expect(data.impulses[0].similarity).toBeGreaterThanOrEqual(0.7);
    expect(data.sessions.map((h: { id: string }) => h.id)).toEqual([ids.session]);
    expect(data.check_ins.map((h: { id: string }) => h.id)).toEqual([ids.checkIn]);
    // The query went to the embeddings API with 512 dimensions.
    expect(s.openai.lastRequest()).toMatchObject({ dimensions: 512, input: [ANXIOUS_QUERY] });
  });

  it('accounts the query embedding: one ai_usage row for the caller with workload embedding', async () => {
    const me = await s.userId(USERS.mastery);
    const usage = () => s.db.sql<{ id: string; workload: string; model: string; input_tokens: number; output_tokens: number; cost: string; session_id: string | null }[]>`
      select id::text, workload, model, input_tokens, output_tokens, cost::text, session_id from public.ai_usage where user_id = ${me}`;
    const before = new Set((await usage()).map((r) => r.id));
    expect((await search({ query: ANXIOUS_QUERY })).status).toBe(200);
    const added = (await usage()).filter((r) => !before.has(r.id));
    expect(added).toHaveLength(1);
    const row = added[0]!;
    expect(row).toMatchObject({ workload: 'embedding', model: 'text-embedding-3-small', output_tokens: 0, session_id: null });
    expect(row.input_tokens).toBeGreaterThan(0);
    expect(Number(row.cost)).toBe(Math.round(costOf(row.model, row.input_tokens, 0) * 1e6) / 1e6);
  });

  it('honours types, threshold and limit', async () => {
    const { data } = await body(await search({ query: ANXIOUS_QUERY, types: ['impulses'], limit: 1 }));
    expect(data.impulses).toHaveLength(1);
    expect(data.sessions).toEqual([]);
    expect(data.check_ins).toEqual([]);
    const low = await body(await search({ query: GARDEN, types: ['impulses'], threshold: 0 }));
    expect(low.data.impulses.map((h: { id: string }) => h.id)).toContain(ids.garden);
  });

  it('shows another user nothing of the caller\'s rows', async () => {
    const { data } = await body(await search({ query: ANXIOUS_QUERY }, USERS.foundation));
    expect(data.impulses.map((h: { id: string }) => h.id)).toEqual([ids.other]);
    expect(data.sessions).toEqual([]);
    expect(data.check_ins).toEqual([]);
  });

  it.each([
    [{ query: '' }],
    [{ query: 'x'.repeat(501) }],
    [{ query: 'ok', threshold: 1.5 }],
    [{ query: 'ok', limit: 51 }],
    [{ query: 'ok', types: ['notes'] }],
    [{ query: 'ok', extra: true }],
  ])('rejects %j with a 400 envelope', async (b) => {
    const res = await search(b);
    expect(res.status).toBe(400);
    expect(await body(res)).toMatchObject({ success: false, error: { code: 'VALIDATION_FAILED' } });
  });

  it('answers 503 AI_UNAVAILABLE when the embeddings API fails', async () => {
    s.openai.setFaults({ serverErrorRate: 1 });
    const res = await search({ query: ANXIOUS_QUERY });
    expect(res.status).toBe(503);
    expect(await body(res)).toEqual({ success: false, error: { code: 'AI_UNAVAILABLE', message: expect.any(String) } });
  });

  it('never logs the query text when embedding fails, and answers 503 without an OpenAI key', async () => {
    const lines: string[] = [];
    const previous = setLogSink((line) => lines.push(line));
    try {
      const log = createLogger({ level: 'debug' });
      const post = (app: ReturnType<typeof createApiApp>) => app.request('/api/v1/search', {
        method: 'POST',
        headers: { 'x-api-key': s.config.API_CLIENT_KEY[0]!, 'x-dev-token': s.config.DEV_API_TOKEN!, 'x-dev-user': USERS.mastery, 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'secret words of my journal' }),
      });
      s.openai.setFaults({ serverErrorRate: 1 });
      const failing = await post(createApiApp({ config: s.config, sql: s.db.sql, log, redis: null, publisher: null }));
      expect(failing.status).toBe(503);
      const unconfigured = await post(createApiApp({ config: { ...s.config, OPENAI_API_KEY: undefined }, sql: s.db.sql, log, redis: null, publisher: null }));
      expect(unconfigured.status).toBe(503);
      expect((await body(unconfigured)).error.code).toBe('AI_UNAVAILABLE');
      expect(lines.some((l) => l.includes('query embedding failed'))).toBe(true);
      expect(lines.join('\n')).not.toContain('secret');
    } finally {
      setLogSink(previous);
    }
  });
});

describe('similar to an impulse', () => {
  it('answers impulses and sessions similar to the caller\'s impulse', async () => {
    const similar = await body(await s.call('GET', `/v1/impulses/${ids.anxious}/similar?threshold=0.5`, { as: USERS.mastery }));
    const found = similar.data.items.map((h: { id: string }) => h.id);
    expect(found).toContain(ids.anxious2);
    expect(found).not.toContain(ids.anxious);
    expect(found).not.toContain(ids.garden);
    expect(found).not.toContain(ids.other);
    const sessions = await body(await s.call('GET', `/v1/impulses/${ids.anxious}/similar-sessions`, { as: USERS.mastery }));
    expect(sessions.data.items.map((h: { id: string }) => h.id)).toEqual([ids.session]);
  });

  it('answers 404 for another user\'s or an unknown impulse, 400 for a bad id or threshold', async () => {
    for (const path of [`/v1/impulses/${ids.anxious}/similar`, `/v1/impulses/${ids.anxious}/similar-sessions`]) {
      const res = await s.call('GET', path, { as: USERS.foundation });
      expect(res.status).toBe(404);
      expect((await body(res)).error.code).toBe('NOT_FOUND');
    }
    expect((await s.call('GET', `/v1/impulses/${crypto.randomUUID()}/similar`, { as: USERS.mastery })).status).toBe(404);
    expect((await s.call('GET', '/v1/impulses/not-a-uuid/similar', { as: USERS.mastery })).status).toBe(400);
    expect((await s.call('GET', `/v1/impulses/${ids.anxious}/similar?threshold=2`, { as: USERS.mastery })).status).toBe(400);
  });
});
