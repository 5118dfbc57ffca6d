// The auth emulator's wire API (what supabase-js sends) and the admin calls of shared/identity.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { createIdentity, type Identity } from '../../shared/identity/client.ts';
import { startAuthEmulator, type AuthEmulator } from '../../local/emulators/auth/index.ts';
import { parseGoDuration } from '../../local/emulators/auth/index.ts';
import { freshDatabase, type TestDatabase } from '../helpers/db.ts';
import { ANON_KEY, AUDIENCES, SERVICE_KEY } from './setup.ts';

let db: TestDatabase;
let auth: AuthEmulator;
let identity: Identity;

beforeAll(async () => {
  db = await freshDatabase();
  // No JWKS URLs: the emulator hosts its own providers and the dev mint route.
  auth = await startAuthEmulator({ sql: db.sql, audiences: AUDIENCES, anonKey: ANON_KEY, serviceRoleKey: SERVICE_KEY });
  identity = createIdentity({ url: auth.url, anonKey: ANON_KEY, secretKey: SERVICE_KEY, sql: db.sql, timeoutMs: 3000 });
});

afterAll(async () => {
  await auth?.close();
  await db?.drop();
});

async function devIdToken(provider: 'apple' | 'google', email: string, nonce?: string): Promise<string> {
  const res = await fetch(`${auth.url}/auth/v1/_dev/id-token`, {
    method: 'POST',
    headers: { apikey: ANON_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ provider, email, nonce }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { id_token: string }).id_token;
}

const token = (grant: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${auth.url}/auth/v1/token?grant_type=${grant}`, {
    method: 'POST',
    headers: { apikey: ANON_KEY, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

describe('wire API', () => {
  it('issues a Supabase-shaped session with an ES256 access token verifiable by the served JWKS', async () => {
    const res = await token('id_token', { provider: 'apple', id_token: await devIdToken('apple', 'wire@example.com', 'n1'), nonce: 'n1' });
    expect(res.status).toBe(200);
    const session = (await res.json()) as Record<string, unknown> & { access_token: string; user: Record<string, unknown> };
    expect(session).toMatchObject({ token_type: 'bearer', expires_in: 3600, expires_at: expect.any(Number), refresh_token: expect.any(String) });
    expect(session.user).toMatchObject({ email: 'wire@example.com', aud: 'authenticated', role: 'authenticated', app_metadata: { provider: 'apple', providers: ['apple'] } });

    const jwks = (await (await fetch(auth.jwksUrl)).json()) as { keys: Array<{ kid: string }> };
    expect(jwks.keys[0]?.kid).toBeTruthy();
    expect(decodeProtectedHeader(session.access_token)).toMatchObject({ alg: 'ES256', kid: jwks.keys[0]!.kid });
    const { payload } = await jwtVerify(session.access_token, createLocalJWKSet(jwks as never), { issuer: `${auth.url}/auth/v1`, audience: 'authenticated' });
    expect(payload).toMatchObject({ sub: session.user.id, role: 'authenticated', email: 'wire@example.com', aal: 'aal1', is_anonymous: false, session_id: expect.any(String) });
    expect(payload.exp! - payload.iat!).toBe(3600);
  });

  it('reports refresh-token reuse with error_code refresh_token_already_used', async () => {
    const signIn = (await (await token('id_token', { provider: 'google', id_token: await devIdToken('google', 'reuse@example.com') })).json()) as { refresh_token: string };
    expect((await token('refresh_token', { refresh_token: signIn.refresh_token })).status).toBe(200);
    const reuse = await token('refresh_token', { refresh_token: signIn.refresh_token });
    expect(reuse.status).toBe(400);
    expect(await reuse.json()).toMatchObject({ code: 400, error_code: 'refresh_token_already_used' });
    const unknown = await token('refresh_token', { refresh_token: 'nope' });
    expect(await unknown.json()).toMatchObject({ error_code: 'refresh_token_not_found' });
    const [family] = (await db.sql`
      select count(*)::int as total, count(*) filter (where not revoked)::int as live from auth.refresh_tokens rt
      join auth.identities i on i.user_id::text = rt.user_id where i.email = 'reuse@example.com'`) as unknown as [{ total: number; live: number }];
    expect(family).toEqual({ total: 2, live: 0 });
  });

  it('needs an API key, and the service role for admin endpoints', async () => {
    expect((await fetch(`${auth.url}/auth/v1/token?grant_type=refresh_token`, { method: 'POST', body: '{}' })).status).toBe(401);
    const admin = await fetch(`${auth.url}/auth/v1/admin/users/${crypto.randomUUID()}`, { headers: { apikey: ANON_KEY, authorization: `Bearer ${ANON_KEY}` } });
    expect(admin.status).toBe(403);
    expect(await admin.json()).toMatchObject({ error_code: 'not_admin' });
  });

  it('parses Go durations as GoTrue does for ban_duration', () => {
    expect(parseGoDuration('24h')).toBe(86_400_000);
    expect(parseGoDuration('1h30m')).toBe(5_400_000);
    expect(parseGoDuration('forever')).toBeNull();
  });
});

describe('shared/identity through supabase-js', () => {
  it('signs in, reads the user, and tells new from returning users', async () => {
    const first = await identity.signInWithIdToken('google', await devIdToken('google', 'sdk@example.com'));
    expect(first.isNewUser).toBe(true);
    expect((await identity.getUser(first.session.access_token)).id).toBe(first.user.id);
    const again = await identity.signInWithIdToken('google', await devIdToken('google', 'sdk@example.com'));
    expect(again).toMatchObject({ isNewUser: false, user: { id: first.user.id } });
  });

  it('bans and unbans a user (ban_duration)', async () => {
    const { user } = await identity.signInWithIdToken('apple', await devIdToken('apple', 'ban@example.com'));
    const banned = await identity.banUser(user.id, '876000h');
    expect(new Date(banned.banned_until!).getTime()).toBeGreaterThan(Date.now() + 365 * 86_400_000);
    await expect(identity.signInWithIdToken('apple', await devIdToken('apple', 'ban@example.com'))).rejects.toMatchObject({ status: 403, code: 'ACCOUNT_SUSPENDED' });
    await identity.banUser(user.id, 'none');
    await expect(identity.signInWithIdToken('apple', await devIdToken('apple', 'ban@example.com'))).resolves.toMatchObject({ user: { id: user.id } });
  });

  it('generates a recovery link', async () => {
    const { user } = await identity.signInWithIdToken('apple', await devIdToken('apple', 'recover@example.com'));
    const link = await identity.recoveryLink('recover@example.com');
    expect(link.user.id).toBe(user.id);
    expect(link.actionLink).toMatch(/\/auth\/v1\/verify\?token=[0-9a-f]+&type=recovery/);
    await expect(identity.recoveryLink('nobody@example.com')).rejects.toMatchObject({ status: 404 });
  });

  it('signs a user out of every session', async () => {
    const a = await identity.signInWithIdToken('google', await devIdToken('google', 'out@example.com'));
    const b = await identity.signInWithIdToken('google', await devIdToken('google', 'out@example.com'));
    await identity.signOutAll(a.session.access_token);
    await expect(identity.refresh(a.session.refresh_token)).rejects.toMatchObject({ status: 401, code: 'REFRESH_TOKEN_INVALID' });
    await expect(identity.refresh(b.session.refresh_token)).rejects.toMatchObject({ status: 401, code: 'REFRESH_TOKEN_INVALID' });
    await expect(identity.getUser(b.session.access_token)).rejects.toMatchObject({ status: 401 });
  });

  it('soft-deletes a user: the row stays, the account is gone, the next sign-in is a new user', async () => {
    const first = await identity.signInWithIdToken('apple', await devIdToken('apple', 'gone@example.com'));
    await identity.softDeleteUser(first.user.id);
    const [row] = await db.sql`select deleted_at, email from auth.users where id = ${first.user.id}`;
    expect(row?.deleted_at).toBeInstanceOf(Date);
    expect(row?.email).toBeNull();
    await expect(identity.refresh(first.session.refresh_token)).rejects.toMatchObject({ code: 'REFRESH_TOKEN_INVALID' });
    const next = await identity.signInWithIdToken('apple', await devIdToken('apple', 'gone@example.com'));
    expect(next.isNewUser).toBe(true);
    expect(next.user.id).not.toBe(first.user.id);
  });

  it('maps an unreachable identity backend to 503 IDENTITY_UNAVAILABLE', async () => {
    const nowhere = createIdentity({ url: 'http://127.0.0.1:9', anonKey: ANON_KEY, secretKey: SERVICE_KEY, sql: db.sql, timeoutMs: 2000 });
    await expect(nowhere.refresh('anything')).rejects.toMatchObject({ status: 503, code: 'IDENTITY_UNAVAILABLE' });
    await expect(nowhere.banUser(crypto.randomUUID(), '1h')).rejects.toMatchObject({ status: 503, code: 'IDENTITY_UNAVAILABLE' });
  });
});
