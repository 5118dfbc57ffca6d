// The deployed entry points boot under Deno (the runtime of Supabase Edge Functions) and answer.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, type TestDatabase } from '../helpers/db.ts';
import { TEST_API_KEY, TEST_HEALTH_SECRET } from '../helpers/config.ts';
import { signQStashJwt } from '../../local/emulators/qstash/sign.ts';

const SIGNING_KEY = 'sig_deno_smoke_current';
const CRON_SECRET = 'deno-smoke-cron-secret';

let db: TestDatabase;
const children: ChildProcess[] = [];

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

async function bootUnderDeno(fn: string): Promise<string> {
  const port = await freePort();
  const functionsUrl = `http://127.0.0.1:${port}`;
  const child = spawn('npx', ['deno', 'run', '--allow-net', '--allow-env', '--allow-read', '--allow-sys', `functions/${fn}/index.ts`], {
    env: {
      ...process.env,
      PORT: String(port),
      DATABASE_URL: db.url,
      API_CLIENT_KEY: TEST_API_KEY,
      CONSOLE_ADMIN_TOKEN: 'deno-smoke-admin-token',
      HEALTH_SECRET: TEST_HEALTH_SECRET,
      SUPABASE_URL: 'http://127.0.0.1:9',
      SUPABASE_ANON_KEY: 'anon',
      IDENTITY_SECRET_KEY: 'service',
      LOG_SILENT: 'true',
      MIN_APP_VERSION_IOS: '2.0.0',
      QSTASH_CURRENT_SIGNING_KEY: SIGNING_KEY,
      QSTASH_TOKEN: 'deno-smoke-qstash-token',
      QSTASH_URL: 'http://127.0.0.1:9',
      PUBLIC_FUNCTIONS_URL: functionsUrl,
      CRON_SECRET,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const url = functionsUrl;
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`deno exited: ${output}`);
    try {
      await fetch(url);
      return url;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`deno did not listen: ${output}`);
}

beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  for (const c of children) c.kill('SIGTERM');
  await db.drop();
});

describe('functions under Deno', () => {
  it('health answers with the database reachable', async () => {
    const url = await bootUnderDeno('health');
    const res = await fetch(`${url}/health/${TEST_HEALTH_SECRET}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ database: true });
    expect((await fetch(`${url}/health/nope`)).status).toBe(404);
  }, 120_000);

  it('api answers /api/v1/config and refuses a missing API key', async () => {
    const url = await bootUnderDeno('api');
    const res = await fetch(`${url}/api/v1/config`, { headers: { 'x-api-key': TEST_API_KEY, 'x-app-platform': 'ios' } });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toMatchObject({ platform: 'ios', min_version: '2.0.0' });
    const denied = await fetch(`${url}/api/v1/config`);
    expect(denied.status).toBe(401);
    expect((await denied.json()).error.code).toBe('API_KEY_MISSING');
  }, 120_000);

  it('jobs verifies QStash signatures and moves the ledger row to its final state', async () => {
    const url = await bootUnderDeno('jobs');
    // notification-deliver has no handler yet: the job fails for good, which is a final state.
    const [job] = await db.sql<{ id: string }[]>`insert into public.jobs (queue) values ('notification-deliver') returning id`;
    const body = JSON.stringify({ jobId: job!.id });
    const target = `${url}/jobs/notification-deliver`;
    const send = async (key: string) =>
      fetch(target, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'upstash-signature': await signQStashJwt({ key, url: target, body }),
          'upstash-message-id': `msg_${crypto.randomUUID()}`,
          'upstash-retried': '0',
        },
        body,
      });
    expect((await send('not-the-signing-key')).status).toBe(401);
    const delivered = await send(SIGNING_KEY);
    expect(delivered.status).toBe(489);
    const [row] = await db.sql<{ status: string }[]>`select status from public.jobs where id = ${job!.id}`;
    expect(row!.status).toBe('failed');
  }, 120_000);

  it('cron runs expire-trials with the bearer secret and refuses without it', async () => {
    const url = await bootUnderDeno('cron');
    expect((await fetch(`${url}/cron/expire-trials`, { method: 'POST' })).status).toBe(401);
    const res = await fetch(`${url}/cron/expire-trials`, { method: 'POST', headers: { authorization: `Bearer ${CRON_SECRET}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ expired: expect.any(Number) });
  }, 120_000);
});
