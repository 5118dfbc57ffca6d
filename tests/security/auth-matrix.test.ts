// For every /api/v1 operation of the OpenAPI document: a missing or wrong API key, and (where a JWT
// is required) a missing, expired, tampered, alg-none or wrong-audience token each get their 401 and
// no data. The route list comes from the app itself, so a new route is covered without edits here.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { createApiApp } from '../../functions/api/app.ts';
import { openApiDocument } from '../../functions/api/openapi.ts';
import { createLogger } from '../../shared/http/logger.ts';
import { freshDatabase, type TestDatabase } from '../helpers/db.ts';
import { TEST_API_KEY, testConfig } from '../helpers/config.ts';

const ISSUER = 'https://matrix.test/auth/v1';
const NO_JWT = new Set(['/api/v1/auth/native', '/api/v1/auth/refresh', '/api/v1/config', '/api/v1/openapi.json']);

let db: TestDatabase;
let jwks: Server;
let key: CryptoKey;
let jwk: JWK;
let userId: string;
let app: ReturnType<typeof createApiApp>;
let operations: { method: string; path: string }[];

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const claims = (over: JWTPayload = {}): JWTPayload => {
  const now = Math.floor(Date.now() / 1000);
  return { iss: ISSUER, aud: 'authenticated', sub: userId, role: 'authenticated', iat: now, exp: now + 3600, ...over };
};
const sign = (payload: JWTPayload) => new SignJWT(payload).setProtectedHeader({ alg: 'ES256', kid: jwk.kid! }).sign(key);

beforeAll(async () => {
  db = await freshDatabase();
  const pair = await generateKeyPair('ES256', { extractable: true });
  key = pair.privateKey;
  jwk = { ...(await exportJWK(pair.publicKey)), kid: 'matrix-key', alg: 'ES256', use: 'sig' };
  jwks = createServer((_q, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })));
  await new Promise<void>((r) => jwks.listen(0, '127.0.0.1', r));
  const [user] = await db.sql<{ id: string }[]>`insert into auth.users (email) values ('matrix@example.com') returning id`;
  userId = user!.id;
  const config = testConfig({
    DATABASE_URL: db.url,
    SUPABASE_JWKS_URL: `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks.json`,
    SUPABASE_JWT_ISSUER: ISSUER,
  });
  app = createApiApp({ config, sql: db.sql, log: createLogger({ silent: true }), redis: null, publisher: null, embedder: null });
  const doc = openApiDocument(app) as unknown as { paths: Record<string, Record<string, unknown>> };
  operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.keys(ops).map((method) => ({ method: method.toUpperCase(), path })),
  );
});

afterAll(async () => {
  await new Promise((r) => jwks.close(r));
  await db.drop();
});

function concrete(path: string): string {
  // OpenAPI {param} placeholders: a uuid fits every id; a step number fits /steps/{step}.
  return path.replace(/\{step\}/g, '1').replace(/\{[^}]+\}/g, crypto.randomUUID());
}

async function send(op: { method: string; path: string }, headers: Record<string, string>) {
  const res = await app.request(concrete(op.path), {
    method: op.method,
    headers: { 'content-type': 'application/json', ...headers },
    body: op.method === 'GET' || op.method === 'DELETE' ? undefined : '{}',
  });
  const body = (await res.json()) as { success?: boolean; data?: unknown; error?: { code: string } };
  return { status: res.status, body };
}

describe('authentication matrix over every /api/v1 operation', () => {
  it('covers the protected operations of the app', () => {
    expect(operations.filter((o) => !NO_JWT.has(o.path)).length).toBeGreaterThan(10);
  });

  it('refuses a missing or wrong API key everywhere with 401 and no data', async () => {
    for (const op of operations) {
      for (const [headers, code] of [[{}, 'API_KEY_MISSING'], [{ 'x-api-key': 'not-the-key-000000' }, 'API_KEY_INVALID']] as const) {
        const { status, body } = await send(op, headers);
        expect({ op, status, code: body.error?.code, data: body.data }).toEqual({ op, status: 401, code, data: undefined });
      }
    }
  });

  it('refuses every bad token on every JWT route with its own 401 code and no data', async () => {
    const now = Math.floor(Date.now() / 1000);
    const valid = await sign(claims());
    const [h, p, s] = valid.split('.');
    const tampered = `${h}.${b64({ ...claims(), sub: crypto.randomUUID() })}.${s}`;
    const cases: [string, Record<string, string>, string][] = [
      ['missing', {}, 'AUTH_MISSING'],
      ['expired', { authorization: `Bearer ${await sign(claims({ iat: now - 7200, exp: now - 3600 }))}` }, 'AUTH_EXPIRED'],
      ['tampered', { authorization: `Bearer ${tampered}` }, 'AUTH_INVALID'],
      ['alg none', { authorization: `Bearer ${b64({ alg: 'none', typ: 'JWT' })}.${p}.` }, 'AUTH_ALG_NOT_ALLOWED'],
      ['wrong audience', { authorization: `Bearer ${await sign(claims({ aud: 'someone-else' }))}` }, 'AUTH_AUDIENCE'],
    ];
    for (const op of operations.filter((o) => !NO_JWT.has(o.path))) {
      for (const [name, headers, code] of cases) {
        const { status, body } = await send(op, { 'x-api-key': TEST_API_KEY, ...headers });
        expect({ op, name, status, code: body.error?.code, data: body.data }).toEqual({ op, name, status: 401, code, data: undefined });
      }
    }
  });
});
