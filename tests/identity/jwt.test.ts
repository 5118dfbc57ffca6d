// The JWT middleware on a protected /api/v1 route, against a JWKS this test serves itself, and the
// development token that stands in for it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT, exportJWK, exportSPKI, generateKeyPair, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { freshDatabase, type TestDatabase } from '../helpers/db.ts';
import { call, testApp, testConfig, type TestApp } from './setup.ts';

const ISSUER = 'https://project.test/auth/v1';
const LEGACY_SECRET = 'legacy-jwt-secret-with-at-least-32-chars';
const DEV_TOKEN = 'dev-token-for-identity-tests';

let db: TestDatabase;
let jwksServer: Server;
let jwksUrl: string;
let privateKey: CryptoKey;
let publicJwk: JWK;
let publicPem: string;
let otherKey: CryptoKey;
let userId: string;
let app: TestApp;

const base64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

function claims(overrides: JWTPayload = {}): JWTPayload {
  const now = Math.floor(Date.now() / 1000);
  return {
    iss: ISSUER,
    aud: 'authenticated',
    sub: userId,
    email: 'jwt-user@example.com',
    role: 'authenticated',
    session_id: crypto.randomUUID(),
    iat: now,
    exp: now + 3600,
    ...overrides,
  };
}

const es256 = (payload: JWTPayload, key: CryptoKey = privateKey, kid = publicJwk.kid!) =>
  new SignJWT(payload).setProtectedHeader({ alg: 'ES256', kid, typ: 'JWT' }).sign(key);

const hs256 = (payload: JWTPayload, secret: string) =>
  new SignJWT(payload).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode(secret));

async function me(target: TestApp, headers: Record<string, string>) {
  const res = await call(target, 'GET', '/v1/_test/me', { headers });
  return { status: res.status, body: (await res.json()) as { data?: { sub: string; email: string }; error?: { code: string } } };
}

async function ensureUser(email: string): Promise<string> {
  const [found] = await db.sql<{ id: string }[]>`select id from auth.users where email = ${email}`;
  if (found) return found.id;
  const [created] = await db.sql<{ id: string }[]>`
    insert into auth.users (email, raw_app_meta_data) values (${email}, '{"provider":"apple","providers":["apple"]}') returning id`;
  return created!.id;
}

beforeAll(async () => {
  db = await freshDatabase();
  const pair = await generateKeyPair('ES256', { extractable: true });
  privateKey = pair.privateKey;
  publicJwk = { ...(await exportJWK(pair.publicKey)), kid: 'test-key-1', alg: 'ES256', use: 'sig' };
  publicPem = await exportSPKI(pair.publicKey);
  otherKey = (await generateKeyPair('ES256')).privateKey;
  jwksServer = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: [publicJwk] }));
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  jwksUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/auth/v1/.well-known/jwks.json`;
  userId = await ensureUser('jwt-user@example.com');
  app = testApp(testConfig({ DATABASE_URL: db.url, SUPABASE_JWKS_URL: jwksUrl, SUPABASE_JWT_ISSUER: ISSUER }), db);
});

afterAll(async () => {
  await new Promise((resolve) => jwksServer?.close(resolve));
  await db?.drop();
});

describe('JWT middleware (JWKS only)', () => {
  it('accepts a valid ES256 token and sets the user', async () => {
    const { status, body } = await me(app, { authorization: `Bearer ${await es256(claims())}` });
    expect(status).toBe(200);
    expect(body.data).toMatchObject({ sub: userId, email: 'jwt-user@example.com' });
  });

  it.each<[string, () => Promise<Record<string, string>>, string]>([
    ['no Authorization header', async () => ({}), 'AUTH_MISSING'],
    ['a non-bearer Authorization header', async () => ({ authorization: 'Basic abc' }), 'AUTH_MISSING'],
    ['an expired token', async () => ({ authorization: `Bearer ${await es256(claims({ exp: Math.floor(Date.now() / 1000) - 60 }))}` }), 'AUTH_EXPIRED'],
    [
      'a tampered payload',
      async () => {
        const [h, , sig] = (await es256(claims())).split('.');
        return { authorization: `Bearer ${h}.${base64url(claims({ sub: crypto.randomUUID() }))}.${sig}` };
      },
      'AUTH_INVALID',
    ],
    ['a malformed token', async () => ({ authorization: 'Bearer not.a.jwt' }), 'AUTH_INVALID'],
    ['a token signed by an unknown key', async () => ({ authorization: `Bearer ${await es256(claims(), otherKey, 'other-kid')}` }), 'AUTH_INVALID'],
    ['a token signed by another key under our kid', async () => ({ authorization: `Bearer ${await es256(claims(), otherKey)}` }), 'AUTH_INVALID'],
    ['alg none', async () => ({ authorization: `Bearer ${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(claims())}.` }), 'AUTH_ALG_NOT_ALLOWED'],
    ['HS256 signed with the public key (PEM)', async () => ({ authorization: `Bearer ${await hs256(claims(), publicPem)}` }), 'AUTH_ALG_NOT_ALLOWED'],
    ['HS256 signed with the public JWK', async () => ({ authorization: `Bearer ${await hs256(claims(), JSON.stringify(publicJwk))}` }), 'AUTH_ALG_NOT_ALLOWED'],
    ['another audience', async () => ({ authorization: `Bearer ${await es256(claims({ aud: 'anon' }))}` }), 'AUTH_AUDIENCE'],
    ['another issuer', async () => ({ authorization: `Bearer ${await es256(claims({ iss: 'https://evil.test/auth/v1' }))}` }), 'AUTH_ISSUER'],
    ['role service_role', async () => ({ authorization: `Bearer ${await es256(claims({ role: 'service_role' }))}` }), 'AUTH_INVALID'],
    ['role anon', async () => ({ authorization: `Bearer ${await es256(claims({ role: 'anon' }))}` }), 'AUTH_INVALID'],
  ])('rejects %s with 401 %s', async (_name, headers, code) => {
    const { status, body } = await me(app, await headers());
    expect(status).toBe(401);
    expect(body).toMatchObject({ success: false, error: { code } });
  });

  it('leaves /v1/config and the sign-in routes without JWT', async () => {
    expect((await call(app, 'GET', '/v1/config')).status).toBe(200);
    const refresh = await call(app, 'POST', '/v1/auth/refresh', { body: {} });
    expect(refresh.status).toBe(400); // validation, not AUTH_MISSING
  });

  it('answers 503 IDENTITY_UNAVAILABLE when the JWKS cannot be fetched', async () => {
    const down = testApp(testConfig({ DATABASE_URL: db.url, SUPABASE_JWKS_URL: 'http://127.0.0.1:9/jwks.json', SUPABASE_JWT_ISSUER: ISSUER }), db);
    const { status, body } = await me(down, { authorization: `Bearer ${await es256(claims())}` });
    expect(status).toBe(503);
    expect(body.error?.code).toBe('IDENTITY_UNAVAILABLE');
  });
});

describe('JWT middleware with the legacy secret', () => {
  let legacy: TestApp;
  beforeAll(() => {
    legacy = testApp(
      testConfig({ DATABASE_URL: db.url, SUPABASE_JWKS_URL: jwksUrl, SUPABASE_JWT_ISSUER: ISSUER, SUPABASE_JWT_SECRET: LEGACY_SECRET }),
      db,
    );
  });

  it('accepts HS256 signed with the secret and still accepts ES256', async () => {
    expect((await me(legacy, { authorization: `Bearer ${await hs256(claims(), LEGACY_SECRET)}` })).status).toBe(200);
    expect((await me(legacy, { authorization: `Bearer ${await es256(claims())}` })).status).toBe(200);
  });

  it('rejects HS256 signed with anything else', async () => {
    const { status, body } = await me(legacy, { authorization: `Bearer ${await hs256(claims(), publicPem)}` });
    expect(status).toBe(401);
    expect(body.error?.code).toBe('AUTH_INVALID');
  });

  it('still checks exp, aud and iss on HS256 tokens', async () => {
    const expired = await hs256(claims({ exp: Math.floor(Date.now() / 1000) - 5 }), LEGACY_SECRET);
    expect((await me(legacy, { authorization: `Bearer ${expired}` })).body.error?.code).toBe('AUTH_EXPIRED');
    const aud = await hs256(claims({ aud: 'other' }), LEGACY_SECRET);
    expect((await me(legacy, { authorization: `Bearer ${aud}` })).body.error?.code).toBe('AUTH_AUDIENCE');
    const iss = await hs256(claims({ iss: 'https://evil.test' }), LEGACY_SECRET);
    expect((await me(legacy, { authorization: `Bearer ${iss}` })).body.error?.code).toBe('AUTH_ISSUER');
  });
});

describe('development token', () => {
  let devApp: TestApp;
  let trialId: string;
  let foundationId: string;
  beforeAll(async () => {
    trialId = await ensureUser('dev-trial@journal.local');
    foundationId = await ensureUser('dev-foundation@journal.local');
    devApp = testApp(testConfig({ DATABASE_URL: db.url, SUPABASE_JWKS_URL: jwksUrl, SUPABASE_JWT_ISSUER: ISSUER, DEV_API_TOKEN: DEV_TOKEN }), db);
  });

  it('acts as the dev user named by X-Dev-User', async () => {
    const { status, body } = await me(devApp, { 'x-dev-token': DEV_TOKEN, 'x-dev-user': 'dev-foundation@journal.local' });
    expect(status).toBe(200);
    expect(body.data).toMatchObject({ sub: foundationId, email: 'dev-foundation@journal.local' });
  });

  it('acts as the trial dev user by default', async () => {
    const { status, body } = await me(devApp, { 'x-dev-token': DEV_TOKEN });
    expect(status).toBe(200);
    expect(body.data?.sub).toBe(trialId);
  });

  it('rejects a wrong dev token and users outside the dev accounts', async () => {
    expect((await me(devApp, { 'x-dev-token': 'wrong' })).body.error?.code).toBe('DEV_TOKEN_INVALID');
    const real = await me(devApp, { 'x-dev-token': DEV_TOKEN, 'x-dev-user': 'jwt-user@example.com' });
    expect(real.status).toBe(401);
    expect(real.body.error?.code).toBe('DEV_USER_UNKNOWN');
    expect((await me(devApp, { 'x-dev-token': DEV_TOKEN, 'x-dev-user': 'dev-nobody@journal.local' })).body.error?.code).toBe('DEV_USER_UNKNOWN');
  });

  it('is ignored when DEV_API_TOKEN is unset', async () => {
    const { status, body } = await me(app, { 'x-dev-token': DEV_TOKEN, 'x-dev-user': 'dev-foundation@journal.local' });
    expect(status).toBe(401);
    expect(body.error?.code).toBe('AUTH_MISSING');
  });

  it('dev endpoints answer 404 when DEV_API_TOKEN is unset and need the token when set', async () => {
    const off = await call(app, 'POST', '/v1/notifications/dev/ping', { headers: { 'x-dev-token': DEV_TOKEN } });
    expect(off.status).toBe(404);
    const noHeader = await call(devApp, 'POST', '/v1/notifications/dev/ping', { headers: { authorization: `Bearer ${await es256(claims())}` } });
    expect(noHeader.status).toBe(401);
    expect(await noHeader.json()).toMatchObject({ error: { code: 'DEV_TOKEN_INVALID' } });
  });
});
