// Native sign-in over HTTP: Apple/Google ID token -> /v1/auth/native -> protected call -> refresh
// rotation and reuse detection, through supabase-js against the auth emulator and the real database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startIdentityStack, type IdentityStack } from './setup.ts';

let s: IdentityStack;

beforeAll(async () => {
  s = await startIdentityStack();
});

afterAll(async () => {
  await s?.close();
});

interface SignIn {
  success: true;
  data: { access_token: string; refresh_token: string; expires_in: number; user: { id: string; email: string; is_new_user: boolean } };
}

async function signIn(body: Record<string, unknown>) {
  const res = await call(s.app, 'POST', '/v1/auth/native', { body });
  return { res, json: (await res.json()) as SignIn & { error?: { code: string } } };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('Apple sign-in round trip', () => {
  const email = 'ada@example.com';
  const nonce = 'raw-nonce-4f1c9a';
  let first: SignIn['data'];

  it('creates the user and its trial profile on the first sign-in', async () => {
    const idToken = await s.idp.mintIdToken({ provider: 'apple', email, nonce });
    const { res, json } = await signIn({ provider: 'apple', id_token: idToken, nonce });
    expect(res.status).toBe(200);
    expect(json.success).toBe(true);
    first = json.data;
    expect(Object.keys(first).sort()).toEqual(['access_token', 'expires_in', 'refresh_token', 'user']);
    expect(first.expires_in).toBe(3600);
    expect(first.user).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), email, is_new_user: true });

    const [profile] = await s.db.sql`select subscription_tier, subscription_status, auth_provider, trial_ends_at - trial_started_at as trial
                                     from public.profiles where id = ${first.user.id}`;
    expect(profile).toMatchObject({ subscription_tier: 'trial', subscription_status: 'active', auth_provider: 'apple' });
  });

  it('authenticates an API call with the access token', async () => {
    const res = await call(s.app, 'GET', '/v1/_test/me', { headers: bearer(first.access_token) });
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: { sub: string; email: string; profile: { subscription_tier: string } | null } };
    expect(data.sub).toBe(first.user.id);
    expect(data.email).toBe(email);
    expect(data.profile?.subscription_tier).toBe('trial');
  });

  it('rotates the refresh token, then rejects the old one and revokes the family', async () => {
    const res = await call(s.app, 'POST', '/v1/auth/refresh', { body: { refresh_token: first.refresh_token } });
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: { access_token: string; refresh_token: string; expires_in: number } };
    expect(Object.keys(data).sort()).toEqual(['access_token', 'expires_in', 'refresh_token']);
    expect(data.refresh_token).not.toBe(first.refresh_token);
    expect(data.expires_in).toBe(3600);

    const me = await call(s.app, 'GET', '/v1/_test/me', { headers: bearer(data.access_token) });
    expect(me.status).toBe(200);

    const reuse = await call(s.app, 'POST', '/v1/auth/refresh', { body: { refresh_token: first.refresh_token } });
    expect(reuse.status).toBe(401);
    expect(await reuse.json()).toMatchObject({ success: false, error: { code: 'REFRESH_TOKEN_INVALID' } });

    // The reuse killed the whole family: the child issued a moment ago is dead too.
    const child = await call(s.app, 'POST', '/v1/auth/refresh', { body: { refresh_token: data.refresh_token } });
    expect(child.status).toBe(401);
    expect(await child.json()).toMatchObject({ error: { code: 'REFRESH_TOKEN_INVALID' } });
  });

  it('signs the same Apple account in again as a returning user', async () => {
    const idToken = await s.idp.mintIdToken({ provider: 'apple', email, nonce: 'another-nonce' });
    const { res, json } = await signIn({ provider: 'apple', id_token: idToken, nonce: 'another-nonce' });
    expect(res.status).toBe(200);
    expect(json.data.user).toEqual({ id: first.user.id, email, is_new_user: false });
    const [row] = await s.db.sql`select count(*)::int as count from public.profiles where id = ${first.user.id}`;
    expect(row?.count).toBe(1);
  });

  it('rejects an Apple token whose nonce does not match the raw nonce', async () => {
    const idToken = await s.idp.mintIdToken({ provider: 'apple', email, nonce: 'the-real-nonce' });
    const { res, json } = await signIn({ provider: 'apple', id_token: idToken, nonce: 'a-replayed-nonce' });
    expect(res.status).toBe(401);
    expect(json.error?.code).toBe('AUTH_PROVIDER_TOKEN_INVALID');
  });
});

describe('Google sign-in and invalid ID tokens', () => {
  it('signs a Google user in without a nonce', async () => {
    const idToken = await s.idp.mintIdToken({ provider: 'google', email: 'grace@example.com' });
    const { res, json } = await signIn({ provider: 'google', id_token: idToken });
    expect(res.status).toBe(200);
    expect(json.data.user).toMatchObject({ email: 'grace@example.com', is_new_user: true });
    const [profile] = await s.db.sql`select auth_provider from public.profiles where id = ${json.data.user.id}`;
    expect(profile?.auth_provider).toBe('google');
  });

  it('answers the profile trigger\'s placeholder email when the provider gave none', async () => {
    const idToken = await s.idp.mintIdToken({ provider: 'apple', email: '', sub: '000emailless-apple-user' });
    const { res, json } = await signIn({ provider: 'apple', id_token: idToken });
    expect(res.status).toBe(200);
    const { id, email } = json.data.user;
    expect(email).toBe(`${id}@users.invalid`);
    const [profile] = await s.db.sql`select email from public.profiles where id = ${id}`;
    expect(profile?.email).toBe(email);
  });

  it.each([
    ['another audience', { audience: 'com.someone.else' }],
    ['another issuer', { issuer: 'https://evil.example.com' }],
    ['an expired token', { expiresInSeconds: -120 }],
  ])('rejects an ID token with %s as AUTH_PROVIDER_TOKEN_INVALID', async (_name, extra) => {
    const idToken = await s.idp.mintIdToken({ provider: 'google', email: 'mallory@example.com', ...extra });
    const { res, json } = await signIn({ provider: 'google', id_token: idToken });
    expect(res.status).toBe(401);
    expect(json.error?.code).toBe('AUTH_PROVIDER_TOKEN_INVALID');
    const users = await s.db.sql`select 1 from auth.users where email = 'mallory@example.com'`;
    expect(users).toHaveLength(0);
  });

  it('rejects a token of one provider presented as the other', async () => {
    const idToken = await s.idp.mintIdToken({ provider: 'google', email: 'mix@example.com', audience: s.idp.audiences.apple });
    const { res, json } = await signIn({ provider: 'apple', id_token: idToken });
    expect(res.status).toBe(401);
    expect(json.error?.code).toBe('AUTH_PROVIDER_TOKEN_INVALID');
  });

  it('validates the request body', async () => {
    const { res, json } = await signIn({ provider: 'facebook', id_token: 'x' });
    expect(res.status).toBe(400);
    expect(json.error?.code).toBe('VALIDATION_FAILED');
  });

  it('still needs the API key', async () => {
    const res = await s.app.request('/api/v1/auth/refresh', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { code: 'API_KEY_MISSING' } });
  });
});

describe('banned users', () => {
  it('cannot sign in or refresh once banned', async () => {
    const email = 'banned@example.com';
    const mint = () => s.idp.mintIdToken({ provider: 'google', email });
    const { json } = await signIn({ provider: 'google', id_token: await mint() });
    await s.db.sql`update auth.users set banned_until = now() + interval '1 day' where id = ${json.data.user.id}`;

    const again = await signIn({ provider: 'google', id_token: await mint() });
    expect(again.res.status).toBe(403);
    expect(again.json.error?.code).toBe('ACCOUNT_SUSPENDED');

    const refresh = await call(s.app, 'POST', '/v1/auth/refresh', { body: { refresh_token: json.data.refresh_token } });
    expect(refresh.status).toBe(403);
    expect(await refresh.json()).toMatchObject({ error: { code: 'ACCOUNT_SUSPENDED' } });
  });
});

describe('identity backend down', () => {
  it('answers 503 IDENTITY_UNAVAILABLE on sign-in and refresh, and recovers', async () => {
    const idToken = await s.idp.mintIdToken({ provider: 'google', email: 'outage@example.com' });
    s.auth.faults.down = true;
    try {
      const { res, json } = await signIn({ provider: 'google', id_token: idToken });
      expect(res.status).toBe(503);
      expect(json).toMatchObject({ success: false, error: { code: 'IDENTITY_UNAVAILABLE', message: expect.any(String) } });

      const refresh = await call(s.app, 'POST', '/v1/auth/refresh', { body: { refresh_token: 'whatever' } });
      expect(refresh.status).toBe(503);
      expect(await refresh.json()).toMatchObject({ error: { code: 'IDENTITY_UNAVAILABLE' } });
    } finally {
      s.auth.faults.down = false;
    }
    const { res } = await signIn({ provider: 'google', id_token: idToken });
    expect(res.status).toBe(200);
  });
});
