// End-to-end journeys over the local stack (the same launcher as `npm start`): HTTP in, the auth
// emulator behind /auth/v1, QStash delivering to the jobs function, the AI emulators answering.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../local/stack.ts';
import { aiAnalysisSchema } from '../../shared/ai/schemas.ts';
import { freshDatabase, type TestDatabase } from '../helpers/db.ts';

let db: TestDatabase;
let stack: Stack;

beforeAll(async () => {
  db = await freshDatabase();
  stack = await startStack({ env: { DATABASE_URL: db.url, LOG_SILENT: 'true' }, port: 0, scheduler: false });
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await db?.drop();
});

const api = (path: string, init: { method?: string; body?: unknown; token?: string } = {}) =>
  fetch(`${stack.functionsUrl}/api/v1${path}`, {
    method: init.method ?? 'GET',
    headers: {
      'x-api-key': stack.config.API_CLIENT_KEY[0]!,
      'content-type': 'application/json',
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });

async function mintAppleToken(email: string, nonce: string): Promise<string> {
  const res = await fetch(`${stack.baseUrl}/auth/v1/_dev/id-token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', apikey: stack.config.SUPABASE_ANON_KEY },
    body: JSON.stringify({ provider: 'apple', email, nonce }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { id_token: string }).id_token;
}

async function signIn(email: string) {
  const nonce = crypto.randomUUID();
  const res = await api('/auth/native', { method: 'POST', body: { provider: 'apple', id_token: await mintAppleToken(email, nonce), nonce } });
  expect(res.status).toBe(200);
  return (await res.json()).data as { access_token: string; refresh_token: string; expires_in: number; user: { id: string; is_new_user: boolean } };
}

async function waitForImpulse(token: string, id: string) {
  for (let i = 0; i < 200; i++) {
    const body = await (await api(`/impulses/${id}`, { token })).json();
    if (body.data.ai_status === 'complete' || body.data.ai_status === 'failed') return body.data;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('classification did not finish');
}

describe('local stack', () => {
  it('serves health and config', async () => {
    const health = await fetch(`${stack.functionsUrl}/health/${stack.config.HEALTH_SECRET}`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ database: true, redis: true });
    const config = await api('/config');
    expect((await config.json()).data).toMatchObject({ min_version: '0.0.0' });
  });

  it('signs in natively, refreshes with rotation, rejects the old refresh token, and knows a returning user', async () => {
    const email = `e2e-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const first = await signIn(email);
    expect(first.user.is_new_user).toBe(true);
    expect(first.expires_in).toBe(3600);

    const profile = (await (await api('/profile', { token: first.access_token })).json()).data;
    expect(profile).toMatchObject({ subscription_tier: 'trial', subscription_status: 'active' });
    const trialMs = Date.parse(profile.trial_ends_at) - Date.parse(profile.trial_started_at);
    expect(Math.round(trialMs / 3_600_000)).toBe(7 * 24);

    const refreshed = await api('/auth/refresh', { method: 'POST', body: { refresh_token: first.refresh_token } });
    expect(refreshed.status).toBe(200);
    const rotated = (await refreshed.json()).data;
    expect(rotated.refresh_token).not.toBe(first.refresh_token);
    expect((await api('/profile', { token: rotated.access_token })).status).toBe(200);

    const reused = await api('/auth/refresh', { method: 'POST', body: { refresh_token: first.refresh_token } });
    expect(reused.status).toBe(401);
    expect((await reused.json()).error.code).toBe('REFRESH_TOKEN_INVALID');

    const again = await signIn(email);
    expect(again.user).toMatchObject({ id: first.user.id, is_new_user: false });
  });

  it('classifies a new impulse through QStash and the AI emulator, and finds a similar one', async () => {
    const { access_token: token, user } = await signIn(`e2e-ai-${crypto.randomUUID().slice(0, 8)}@example.com`);
    const create = async (content: string) => {
      const res = await api('/impulses', { method: 'POST', token, body: { content } });
      expect(res.status).toBe(201);
      return (await res.json()).data.id as string;
    };
    const first = await create('I feel anxious about the job interview tomorrow morning at the office');
    const similar = await create('I feel anxious about the job interview tomorrow morning');
    const unrelated = await create('Planted tomatoes and basil in the garden with my daughter');

    const classified = await waitForImpulse(token, first);
    expect(classified.ai_status).toBe('complete');
    expect(aiAnalysisSchema.safeParse(classified.ai_analysis).success).toBe(true);
    for (const id of [similar, unrelated]) expect((await waitForImpulse(token, id)).ai_status).toBe('complete');

    const [usage] = await db.sql<{ rows: number; cost: string }[]>`
      select count(*)::int as rows, sum(cost)::text as cost from ai_usage where user_id = ${user.id}`;
    expect(usage!.rows).toBeGreaterThanOrEqual(3);
    expect(Number(usage!.cost)).toBeGreaterThan(0);
    const [embedded] = await db.sql<{ n: number }[]>`
      select count(*)::int as n from impulses where user_id = ${user.id} and extensions.vector_dims(embedding) = 512`;
    expect(embedded!.n).toBe(3);

    const found = (await (await api(`/impulses/${first}/similar`, { token })).json()).data;
    const ids = (found.items ?? found).map((r: { id: string }) => r.id);
    expect(ids).toContain(similar);
    expect(ids).not.toContain(unrelated);
  }, 60_000);
});
