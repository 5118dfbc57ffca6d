// Property: no write operation of the app API answers 500, whatever JSON (or non-JSON) it gets.
// The operations come from the OpenAPI document, path ids are the caller's real rows, so handlers
// run past the lookup with the random bodies.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp } from '../../functions/api/app.ts';
import { openApiDocument } from '../../functions/api/openapi.ts';
import { createLogger } from '../../shared/http/logger.ts';
import { freshDatabase, type TestDatabase } from '../helpers/db.ts';
import { TEST_API_KEY, testConfig } from '../helpers/config.ts';

const DEV_TOKEN = 'random-bodies-dev-token-0001';
let db: TestDatabase;
let app: ReturnType<typeof createApiApp>;
let email: string;
let ids: Record<string, string>;

const request = (method: string, path: string, body?: string) =>
  app.request(`/api${path}`, {
    method,
    headers: { 'x-api-key': TEST_API_KEY, 'x-dev-token': DEV_TOKEN, 'x-dev-user': email, 'content-type': 'application/json' },
    body,
  });

beforeAll(async () => {
  db = await freshDatabase();
  app = createApiApp({
    config: testConfig({ DATABASE_URL: db.url, DEV_API_TOKEN: DEV_TOKEN }),
    sql: db.sql,
    log: createLogger({ silent: true }),
    redis: null,
    publisher: null,
    embedder: null,
  });
  email = `fuzz-${crypto.randomUUID().slice(0, 8)}@journal.local`;
  const [u] = await db.sql<{ id: string }[]>`insert into auth.users (email) values (${email}) returning id`;
  await db.sql`update profiles set subscription_tier = 'mastery', subscription_status = 'active' where id = ${u!.id}`;
  const post = async (path: string, body: unknown) => (await (await request('POST', path, JSON.stringify(body))).json()).data.id as string;
  const impulse = await post('/v1/impulses', { content: 'fuzz impulse', classification: 'contraction' });
  const session = await post('/v1/sessions', { impulse_id: impulse });
  const note = await post('/v1/notes', { content: 'fuzz note' });
  const checkIn = await post('/v1/check-ins', { content: 'fuzz check-in' });
  ids = { impulses: impulse, sessions: session, notes: note, 'check-ins': checkIn };
});
afterAll(async () => db.drop());

function concrete(template: string): string {
  return template
    .replace(/^\/api/, '')
    .replace(/\/v1\/([a-z-]+)\/\{id\}/, (_m, resource: string) => `/v1/${resource}/${ids[resource] ?? crypto.randomUUID()}`)
    .replace('{step}', '1')
    .replace(/\{[^}]+\}/g, crypto.randomUUID());
}

describe('random bodies at every write operation', () => {
  it('never get a 500', async () => {
    const doc = openApiDocument(app) as unknown as { paths: Record<string, Record<string, unknown>> };
    const writes = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops)
        .filter((m) => ['post', 'put', 'patch', 'delete'].includes(m))
        .filter((m) => !(path === '/api/v1/profile' && m === 'delete')) // would delete the caller
        .filter((m) => !path.startsWith('/api/v1/auth/')) // identity backend calls; covered in tests/identity
        .map((m) => ({ method: m.toUpperCase(), path })),
    );
    expect(writes.length).toBeGreaterThan(15);
    const bodies = fc.oneof(
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc.dictionary(fc.constantFrom('content', 'classification', 'impulse_id', 'input', 'reflection', 'query', 'timezone',
        'categories', 'note_type', 'session_id', 'session_step', 'days', 'apns_token', 'consent', 'display_name', 'threshold', 'limit'),
        fc.jsonValue()).map((v) => JSON.stringify(v)),
      fc.string(),
    );
    for (const op of writes) {
      await fc.assert(
        fc.asyncProperty(bodies, async (body) => {
          const res = await request(op.method, concrete(op.path), body);
          return res.status < 500;
        }),
        { numRuns: 25, seed: 20261122 },
      );
    }
  }, 120_000);
});
