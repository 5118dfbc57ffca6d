// One user's journey through the app API, every response checked against docs/openapi.json (the
// document generated from the route schemas): status documented, body valid for that status.
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp } from '../../functions/api/app.ts';
import { createLogger } from '../../shared/http/logger.ts';
import { startOpenAIEmulator } from '../../local/emulators/openai/index.ts';
import { freshDatabase, type TestDatabase } from '../helpers/db.ts';
import { TEST_API_KEY, testConfig } from '../helpers/config.ts';
import { OPENAPI_FILE } from '../../scripts/openapi-app.ts';

const DEV_TOKEN = 'contract-dev-token-000000001';
type Doc = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>> };
const doc = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as Doc;
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
ajv.addFormat('date-time', (v: string) => !Number.isNaN(Date.parse(v)) && /^\d{4}-\d{2}-\d{2}T/.test(v));
ajv.addFormat('date', /^\d{4}-\d{2}-\d{2}$/);
ajv.addFormat('email', /^[^@\s]+@[^@\s]+$/);
ajv.addFormat('uri', (v: string) => URL.canParse(v));
ajv.addSchema(doc, 'openapi');
const templates = Object.keys(doc.paths).map((t) => ({ t, re: new RegExp(`^${t.replace(/\{[^}]+\}/g, '[^/]+')}$`) }));

let db: TestDatabase;
let openai: Awaited<ReturnType<typeof startOpenAIEmulator>>;
let app: ReturnType<typeof createApiApp>;
let email: string;
const checked = new Set<string>();

async function api(method: string, path: string, body?: unknown) {
  const res = await app.request(`/api${path}`, {
    method,
    headers: {
      'x-api-key': TEST_API_KEY,
      'x-dev-token': DEV_TOKEN,
      'x-dev-user': email,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const json = text ? JSON.parse(text) : null;
  const pathname = `/api${path.split('?')[0]}`;
  const template = templates.find(({ re }) => re.test(pathname))?.t;
  expect(template, `${method} ${pathname} is documented`).toBeDefined();
  const op = doc.paths[template!]![method.toLowerCase()];
  expect(op, `${method} ${template} is documented`).toBeDefined();
  const response = op!.responses[String(res.status)];
  expect(response, `${method} ${template} documents status ${res.status}`).toBeDefined();
  if (json !== null) {
    const pointer = `openapi#/paths/${template!.replaceAll('~', '~0').replaceAll('/', '~1')}/${method.toLowerCase()}/responses/${res.status}/content/application~1json/schema`;
    const validate = ajv.getSchema(pointer);
    expect(validate, `schema for ${method} ${template} ${res.status}`).toBeDefined();
    const valid = validate!(json);
    expect(valid ? [] : validate!.errors, `${method} ${template} ${res.status} body`).toEqual([]);
  }
  checked.add(`${method} ${template} ${res.status}`);
  return { status: res.status, body: json };
}

beforeAll(async () => {
  db = await freshDatabase();
  openai = await startOpenAIEmulator({ apiKey: 'contract-openai-key' });
  const config = testConfig({
    DATABASE_URL: db.url,
    DEV_API_TOKEN: DEV_TOKEN,
    OPENAI_API_KEY: 'contract-openai-key',
    OPENAI_BASE_URL: `${openai.url}/v1`,
  });
  app = createApiApp({ config, sql: db.sql, log: createLogger({ silent: true }), redis: null, publisher: null });
  email = `contract-${crypto.randomUUID().slice(0, 8)}@journal.local`;
  const [u] = await db.sql<{ id: string }[]>`insert into auth.users (email) values (${email}) returning id`;
  await db.sql`update profiles set subscription_tier = 'mastery', subscription_status = 'active',
               subscription_end_date = now() + interval '30 days' where id = ${u!.id}`;
});
afterAll(async () => {
  await openai?.close();
  await db?.drop();
});

describe('the app API matches its OpenAPI document', () => {
  it('over a whole journey, including the dashboard twice and every search', async () => {
    const a = (await api('POST', '/v1/impulses', { content: 'I am afraid of speaking up', classification: 'contraction' })).body.data;
    await api('POST', '/v1/impulses', { content: 'I want to paint again', classification: 'expansion' });
    await api('POST', '/v1/impulses', { content: 'A third impulse' });
    await api('GET', '/v1/impulses?limit=2');
    await api('POST', '/v1/impulses/query', { q: 'afraid', classification: 'contraction', limit: 5 });
    await api('GET', `/v1/impulses/${a.id}`);
    const s = (await api('POST', '/v1/sessions', { impulse_id: a.id })).body.data;
    for (let step = 1; step <= 5; step++) await api('POST', `/v1/sessions/${s.id}/steps/${step}`, { input: `input ${step}` });
    await api('POST', `/v1/sessions/${s.id}/steps/6`, { input: 'too far' });
    await api('POST', `/v1/sessions/${s.id}/complete`);
    await api('PUT', `/v1/sessions/${s.id}/reflection`, { reflection: 'lighter' });
    await api('GET', `/v1/sessions/${s.id}`);
    await api('GET', '/v1/sessions');
    await api('POST', '/v1/notes', { content: 'on the impulse', impulse_id: a.id });
    const n = (await api('POST', '/v1/notes', { content: 'on step 3', session_id: s.id, session_step: 3 })).body.data;
    await api('POST', `/v1/notes/${n.id}/archive`);
    await api('GET', '/v1/notes?include_archived=true');
    const ci = (await api('POST', '/v1/check-ins', { content: 'Tired but hopeful' })).body.data;
    await api('POST', `/v1/check-ins/${ci.id}/convert`);
    await api('GET', '/v1/check-ins');

    const first = await api('GET', '/v1/analytics/dashboard');
    const second = await api('GET', '/v1/analytics/dashboard');
    expect([first.body.data.cached, second.body.data.cached]).toEqual([false, true]);
    await api('GET', '/v1/analytics/insights');
    await api('POST', '/v1/search', { query: 'afraid of speaking' });
    await api('GET', `/v1/impulses/${a.id}/similar`);
    await api('GET', `/v1/impulses/${a.id}/similar-sessions`);
    await api('GET', '/v1/quota');
    await api('GET', '/v1/profile');
    await api('GET', '/v1/notifications/preferences');
    await api('POST', '/v1/feedback', { content: 'Lovely app' });
    await api('POST', '/v1/impulses', { content: 42 });
    await api('GET', `/v1/impulses/${crypto.randomUUID()}`);

    expect(checked.size).toBeGreaterThanOrEqual(25);
  });
});
