// The request pipeline of the api function: API key, body limit, malformed JSON, request id,
// error envelope and logs, through the real app against a real database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp } from '../../functions/api/app.ts';
import { createLogger, setLogSink } from '../../shared/http/logger.ts';
import { freshDatabase, type TestDatabase } from '../helpers/db.ts';
import { testConfig } from '../helpers/config.ts';

let db: TestDatabase;
const lines: string[] = [];
const KEYS = ['first-key-aaaaaaaa', 'second-key-bbbbbbbb'];

function build() {
  const config = testConfig({ API_CLIENT_KEY: KEYS.join(','), MAX_BODY_BYTES: '1024' });
  return createApiApp({ config, sql: db.sql, log: createLogger({ level: 'debug' }), redis: null });
}

beforeAll(async () => {
  db = await freshDatabase();
  setLogSink((line) => lines.push(line));
});
afterAll(async () => {
  setLogSink((line) => console.log(line));
  await db.drop();
});

const expectEnvelope = async (res: Response, status: number, code: string) => {
  expect(res.status).toBe(status);
  const body = await res.json();
  expect(body).toMatchObject({ success: false, error: { code, message: expect.any(String) } });
  return body;
};

describe('X-API-Key', () => {
  it('rejects a request without the key with 401 API_KEY_MISSING', async () => {
    await expectEnvelope(await build().request('/api/v1/config'), 401, 'API_KEY_MISSING');
  });

  it('rejects a wrong key with 401 API_KEY_INVALID', async () => {
    const res = await build().request('/api/v1/config', { headers: { 'x-api-key': 'first-key-aaaaaaab' } });
    await expectEnvelope(res, 401, 'API_KEY_INVALID');
  });

  it('accepts every key of the comma-separated list and logs only its first 8 characters', async () => {
    const app = build();
    lines.length = 0;
    for (const key of KEYS) {
      const res = await app.request('/api/v1/config', { headers: { 'x-api-key': key } });
      expect(res.status).toBe(200);
    }
    const logged = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request');
    expect(logged.map((l) => l.api_key)).toEqual(['first-ke', 'second-k']);
    expect(lines.join('\n')).not.toContain(KEYS[0]);
  });
});

describe('bad requests never become a 500', () => {
  const headers = { 'x-api-key': KEYS[0]!, 'content-type': 'application/json' };

  it('answers an oversized body with 413 BODY_TOO_LARGE', async () => {
    const res = await build().request('/api/v1/auth/refresh', {
      method: 'POST',
      headers,
      body: JSON.stringify({ refresh_token: 'x'.repeat(5000) }),
    });
    await expectEnvelope(res, 413, 'BODY_TOO_LARGE');
  });

  it('answers malformed JSON with 400 INVALID_JSON', async () => {
    const res = await build().request('/api/v1/auth/refresh', { method: 'POST', headers, body: '{"refresh_token": ' });
    await expectEnvelope(res, 400, 'INVALID_JSON');
  });

  it('answers a body of the wrong shape with 400 VALIDATION_FAILED and the field path', async () => {
    const res = await build().request('/api/v1/auth/refresh', { method: 'POST', headers, body: JSON.stringify({ refresh_token: 42 }) });
    const body = await expectEnvelope(res, 400, 'VALIDATION_FAILED');
    expect(body.error.details.fields[0].path).toBe('refresh_token');
  });

  it('answers an unknown route with the 404 envelope', async () => {
    await expectEnvelope(await build().request('/api/v2/nothing-here', { headers }), 404, 'NOT_FOUND');
  });
});

describe('request id and messages', () => {
  it('returns a request id, keeping a well-formed one sent by the client', async () => {
    const app = build();
    const own = await app.request('/api/v1/config', { headers: { 'x-api-key': KEYS[0]!, 'x-request-id': 'client-req-12345' } });
    expect(own.headers.get('x-request-id')).toBe('client-req-12345');
    const generated = await app.request('/api/v1/config', { headers: { 'x-api-key': KEYS[0]!, 'x-request-id': 'bad id!' } });
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('localises error messages from the catalog by Accept-Language', async () => {
    const res = await build().request('/api/v1/config', { headers: { 'accept-language': 'nb-NO,nb;q=0.9' } });
    const body = await res.json();
    expect(body.error.message).toBe('X-API-Key-headeren mangler.');
  });
});
