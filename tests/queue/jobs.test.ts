// The job machinery end to end: enqueue → QStash emulator → signed delivery to the jobs function
// (a real HTTP server) → ledger transitions in a real database; the sweeper cron; the SQL
// functions behind the queue dashboard.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import type { Hono } from 'hono';
import { freshDatabase, type TestDatabase } from '../helpers/db.ts';
import { signQStashJwt, startQStashEmulator, type QStashEmulator } from '../../local/emulators/qstash/index.ts';
import { createJobsApp } from '../../functions/jobs/app.ts';
import { createCronApp } from '../../functions/cron/app.ts';
import { createLogger, setLogSink } from '../../shared/http/logger.ts';
import type { AppEnv } from '../../shared/http/context.ts';
import {
  QUEUES,
  PermanentJobError,
  createQStashPublisher,
  deleteFailedJob,
  enqueue,
  findJob,
  publishRecorded,
  queueCounts,
  recordJob,
  retryFailedJob,
  type Job,
  type JobContext,
  type JobHandler,
  type JobPublisher,
  type QueueName,
} from '../../shared/queue/index.ts';

const TOKEN = 'jobs-test-qstash-token';
const CURRENT = 'sig_current_jobs_test';
const NEXT = 'sig_next_jobs_test';
const CRON_SECRET = 'cron-secret-for-tests-123';

let db: TestDatabase;
let emu: QStashEmulator;
let server: ServerType;
let publicUrl: string;
let jobsApp: Hono<AppEnv>;
let cronApp: Hono<AppEnv>;
let publisher: JobPublisher;
let logLines: string[] = [];
let restoreSink: ((line: string) => void) | undefined;

/** What the handler of every queue does in the current test. */
let behaviour: JobHandler = async () => {};
let runs: JobContext[] = [];

const handlers = Object.fromEntries(
  QUEUES.map((q) => [q, async (ctx: JobContext) => {
    runs.push(ctx);
    await behaviour(ctx);
  }]),
) as Record<QueueName, JobHandler>;

const uuid = () => crypto.randomUUID();
const job = async (id: string): Promise<Job> => (await findJob(db.sql, id))!;
const cron = (path: string, secret: string | null = CRON_SECRET) =>
  cronApp.fetch(new Request(`http://internal/cron/${path}`, {
    method: 'POST',
    headers: secret === null ? {} : { authorization: `Bearer ${secret}` },
  }));

/** A delivery as QStash would make it, signed by the test. */
async function deliver(opts: { queue: QueueName; jobId: string; key?: string; signedUrl?: string; signedBody?: string; messageId?: string; now?: number; target?: string }) {
  const body = JSON.stringify({ jobId: opts.jobId });
  const url = `${publicUrl}/jobs/${opts.queue}`;
  const signature = await signQStashJwt({ key: opts.key ?? CURRENT, url: opts.signedUrl ?? url, body: opts.signedBody ?? body, now: opts.now });
  return fetch(opts.target ?? url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'upstash-signature': signature,
      'upstash-message-id': opts.messageId ?? `msg_${uuid()}`,
      'upstash-retried': '0',
    },
    body,
  });
}

beforeAll(async () => {
  restoreSink = setLogSink((line) => logLines.push(line));
  db = await freshDatabase();
  emu = await startQStashEmulator({ token: TOKEN, currentSigningKey: CURRENT, nextSigningKey: NEXT, retryBaseMs: 10, delayScale: 0.01 });
  const log = createLogger({ level: 'debug' });
  server = serve({ fetch: (req) => jobsApp.fetch(req), port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((resolve) => (server.listening ? resolve() : server.once('listening', () => resolve())));
  publicUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  jobsApp = createJobsApp({
    config: { QSTASH_CURRENT_SIGNING_KEY: CURRENT, QSTASH_NEXT_SIGNING_KEY: NEXT, PUBLIC_FUNCTIONS_URL: publicUrl, MAX_BODY_BYTES: 65536 },
    sql: db.sql,
    log,
    handlers,
  });
  publisher = createQStashPublisher({ baseUrl: emu.url, token: TOKEN, publicFunctionsUrl: publicUrl });
  cronApp = createCronApp({ config: { CRON_SECRET }, sql: db.sql, log, publisher });
});

afterAll(async () => {
  await emu?.close();
  server?.close();
  await db?.drop();
  if (restoreSink) setLogSink(restoreSink);
});

beforeEach(async () => {
  await emu.idle();
  behaviour = async () => {};
  runs = [];
  Object.assign(emu.faults, { failPublish: false, dropDeliveries: false, deliveryDelayMs: 0, signWithNextKey: false });
});

describe('enqueue → QStash → worker', () => {
  it('delivers, runs the handler once and completes the job', async () => {
    const sessionId = uuid();
    const { job: created } = await enqueue(db.sql, publisher, 'session-summary', { sessionId });
    expect(created.status).toBe('waiting');
    await emu.idle();

    expect(runs).toHaveLength(1);
    expect(runs[0]!.job.id).toBe(created.id);
    expect(runs[0]!.job.payload).toEqual({ sessionId });
    expect(runs[0]!.job.status).toBe('active');
    const row = await job(created.id);
    expect(row).toMatchObject({ status: 'completed', attempts: 1, last_error: null });
    expect(row.finished_at).toBeInstanceOf(Date);
    const [msg] = emu.messages().filter((m) => m.body === JSON.stringify({ jobId: created.id }));
    expect(row.qstash_message_id).toBe(msg!.messageId);
    expect(msg!.url).toBe(`${publicUrl}/jobs/session-summary`);
    expect(msg!.retries).toBe(4);
    const processed = await db.sql`select job_id from public.processed_messages where message_id = ${msg!.messageId}`;
    expect(processed).toEqual([{ job_id: created.id }]);
  });

  it('retries a handler that fails twice and ends completed with 3 attempts', async () => {
    behaviour = async ({ job: j }) => {
      if (j.attempts < 3) throw new Error('provider hiccup');
    };
    const { job: created } = await enqueue(db.sql, publisher, 'impulse-classification', { impulseId: uuid() });
    await emu.idle();
    expect(runs).toHaveLength(3);
    expect(await job(created.id)).toMatchObject({ status: 'completed', attempts: 3, last_error: null });
    const msg = emu.messages().find((m) => m.messageId === (runs[0]!.job.qstash_message_id ?? ''))
      ?? emu.messages().find((m) => m.body.includes(created.id))!;
    expect(msg.deliveries.map((d) => d.status)).toEqual([500, 500, 200]);
  });

  it('fails a job that always fails after max attempts, with only the error class stored', async () => {
    const secret = 'I felt anxious about my sister today';
    behaviour = async () => {
      throw new TypeError(secret);
    };
    const { job: created } = await enqueue(db.sql, publisher, 'unified-guidance', { impulseId: uuid() });
    await emu.idle();
    const row = await job(created.id);
    expect(row).toMatchObject({ status: 'failed', attempts: 5, last_error: 'TypeError' });
    expect(runs).toHaveLength(5);
    const msg = emu.messages().find((m) => m.body.includes(created.id))!;
    expect(msg.state).toBe('failed');
    expect(msg.deliveries.map((d) => d.status)).toEqual([500, 500, 500, 500, 489]);
    expect(logLines.some((l) => l.includes(secret))).toBe(false);
  });

  it('fails at once on PermanentJobError', async () => {
    behaviour = async () => {
      throw new PermanentJobError('IMPULSE_GONE');
    };
    const { job: created } = await enqueue(db.sql, publisher, 'check-in-assessment', { checkInId: uuid() });
    await emu.idle();
    expect(runs).toHaveLength(1);
    expect(await job(created.id)).toMatchObject({ status: 'failed', attempts: 1, last_error: 'PermanentJobError:IMPULSE_GONE' });
  });

  it('delays the first delivery and records the job as delayed', async () => {
    const { job: created } = await enqueue(db.sql, publisher, 'insights-regeneration', { userRef: uuid() }, { delay: 60 });
    expect(created.status).toBe('delayed');
    expect(created.run_at.getTime()).toBeGreaterThan(Date.now() + 50_000);
    const msg = emu.messages().find((m) => m.body.includes(created.id))!;
    expect(msg.delayMs).toBe(60_000);
    await emu.idle();
    expect(await job(created.id)).toMatchObject({ status: 'completed', attempts: 1 });
  });

  it('returns the existing job for the same dedup key and publishes once', async () => {
    const payload = { impulseId: uuid() };
    const a = await enqueue(db.sql, publisher, 'impulse-classification', payload, { dedupKey: `classify:${payload.impulseId}` });
    const b = await enqueue(db.sql, publisher, 'impulse-classification', payload, { dedupKey: `classify:${payload.impulseId}` });
    expect(a.created).toBe(true);
    expect(b.created).toBe(false);
    expect(b.job.id).toBe(a.job.id);
    await emu.idle();
    const rows = await db.sql`select id from public.jobs where dedup_key = ${`classify:${payload.impulseId}`}`;
    expect(rows).toHaveLength(1);
    expect(emu.messages().filter((m) => m.body.includes(a.job.id))).toHaveLength(1);
    expect(runs).toHaveLength(1);
  });

  it('records inside the caller transaction and publishes only after commit', async () => {
    const rolledBack = uuid();
    await db.sql
      .begin(async (tx) => {
        await recordJob(tx, 'session-summary', { sessionId: rolledBack });
        throw new Error('entity write failed');
      })
      .catch(() => {});
    expect(await db.sql`select 1 from public.jobs where payload->>'sessionId' = ${rolledBack}`).toHaveLength(0);

    const recorded = await db.sql.begin((tx) => recordJob(tx, 'session-summary', { sessionId: uuid() }));
    expect(emu.messages().filter((m) => m.body.includes(recorded.job.id))).toHaveLength(0);
    await publishRecorded(db.sql, publisher, recorded);
    await emu.idle();
    expect(await job(recorded.job.id)).toMatchObject({ status: 'completed' });
  });
});

describe('delivery dedupe', () => {
  it('runs the handler once when the same message is delivered again', async () => {
    const { job: created } = await enqueue(db.sql, publisher, 'notification-deliver', { messageRef: uuid() });
    await emu.idle();
    expect(runs).toHaveLength(1);
    const messageId = (await job(created.id)).qstash_message_id!;
    const again = await deliver({ queue: 'notification-deliver', jobId: created.id, messageId });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ status: 'duplicate' });
    expect(runs).toHaveLength(1);
  });

  it('answers 409 to a concurrent duplicate while the first delivery runs, then 200', async () => {
    const { job: created } = await recordJob(db.sql, 'session-summary', { sessionId: uuid() });
    let release!: () => void;
    let started!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const running = new Promise<void>((r) => (started = r));
    behaviour = async () => {
      started();
      await gate;
    };
    const messageId = `msg_${uuid()}`;
    const first = deliver({ queue: 'session-summary', jobId: created.id, messageId });
    await running;
    const second = await deliver({ queue: 'session-summary', jobId: created.id, messageId });
    expect(second.status).toBe(409);
    release();
    expect((await first).status).toBe(200);
    expect((await deliver({ queue: 'session-summary', jobId: created.id, messageId })).status).toBe(200);
    expect(runs).toHaveLength(1);
  });
});

describe('signature', () => {
  let pending: Job;
  beforeEach(async () => {
    pending = (await recordJob(db.sql, 'session-summary', { sessionId: uuid() })).job;
  });
  const untouched = async () => expect(await job(pending.id)).toMatchObject({ status: 'waiting', attempts: 0 });

  it('rejects a signature made with another key', async () => {
    const res = await deliver({ queue: 'session-summary', jobId: pending.id, key: 'sig_forged_key' });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { code: 'QSTASH_SIGNATURE_INVALID' } });
    await untouched();
    expect(runs).toHaveLength(0);
  });

  it('rejects a signature for another URL', async () => {
    const res = await deliver({ queue: 'session-summary', jobId: pending.id, signedUrl: `${publicUrl}/jobs/unified-guidance` });
    expect(res.status).toBe(401);
    await untouched();
  });

  it('rejects an expired signature', async () => {
    const res = await deliver({ queue: 'session-summary', jobId: pending.id, now: Date.now() - 10 * 60_000 });
    expect(res.status).toBe(401);
    await untouched();
  });

  it('rejects a body that does not match the signed hash, and a missing signature', async () => {
    const tampered = await deliver({ queue: 'session-summary', jobId: pending.id, signedBody: JSON.stringify({ jobId: uuid() }) });
    expect(tampered.status).toBe(401);
    const unsigned = await fetch(`${publicUrl}/jobs/session-summary`, { method: 'POST', body: JSON.stringify({ jobId: pending.id }) });
    expect(unsigned.status).toBe(401);
    await untouched();
  });

  it('accepts a signature made with the next key', async () => {
    const res = await deliver({ queue: 'session-summary', jobId: pending.id, key: NEXT });
    expect(res.status).toBe(200);
    expect(await job(pending.id)).toMatchObject({ status: 'completed', attempts: 1 });
  });

  it('accepts deliveries the emulator signs with the next key (rotation)', async () => {
    emu.faults.signWithNextKey = true;
    const { job: created } = await enqueue(db.sql, publisher, 'session-summary', { sessionId: uuid() });
    await emu.idle();
    expect(await job(created.id)).toMatchObject({ status: 'completed' });
  });

  it('checks against the configured public URL, not the URL the request arrived on', async () => {
    const body = JSON.stringify({ jobId: pending.id });
    const signature = await signQStashJwt({ key: CURRENT, url: `${publicUrl}/jobs/session-summary`, body });
    const res = await jobsApp.fetch(new Request('http://kong:8000/jobs/session-summary', {
      method: 'POST',
      headers: { 'upstash-signature': signature, 'upstash-message-id': `msg_${uuid()}` },
      body,
    }));
    expect(res.status).toBe(200);
  });

  it('has a route per queue and 404 for unknown queues', async () => {
    const res = await fetch(`${publicUrl}/jobs/not-a-queue`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(404);
    for (const q of QUEUES) {
      expect((await fetch(`${publicUrl}/jobs/${q}`, { method: 'POST', body: '{}' })).status).toBe(401);
    }
  });
});

describe('sweeper cron', () => {
  // Only this describe's rows are due for the sweeper, however long the earlier tests took.
  beforeEach(async () => {
    await db.sql`delete from public.jobs where status in ('waiting', 'delayed', 'active')`;
  });

  it('requires the cron bearer secret', async () => {
    const none = await cron('sweep-jobs', null);
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ error: { code: 'CRON_UNAUTHORIZED' } });
    expect((await cron('sweep-jobs', 'wrong-secret')).status).toBe(401);
    expect((await cron('sweep-jobs')).status).toBe(200);
  });

  it('leaves a job waiting when QStash is down, then re-publishes it once it is a minute old', async () => {
    emu.faults.failPublish = true;
    const { job: created } = await enqueue(db.sql, publisher, 'impulse-classification', { impulseId: uuid() });
    expect(await job(created.id)).toMatchObject({ status: 'waiting', qstash_message_id: null });
    expect(emu.messages().filter((m) => m.body.includes(created.id))).toHaveLength(0);
    emu.faults.failPublish = false;

    const early = await (await cron('sweep-jobs')).json();
    expect(early).toMatchObject({ republished: 0 });

    await db.sql`update public.jobs set run_at = now() - interval '2 minutes' where id = ${created.id}`;
    const swept = await (await cron('sweep-jobs')).json();
    expect(swept).toMatchObject({ republished: 1, publish_failed: 0 });
    await emu.idle();
    expect(await job(created.id)).toMatchObject({ status: 'completed', attempts: 1 });
  });

  it('re-publishes a job whose delivery QStash lost', async () => {
    emu.faults.dropDeliveries = true;
    const { job: created } = await enqueue(db.sql, publisher, 'session-summary', { sessionId: uuid() });
    await emu.idle();
    expect(await job(created.id)).toMatchObject({ status: 'waiting' });
    emu.faults.dropDeliveries = false;
    await db.sql`update public.jobs set run_at = now() - interval '5 minutes' where id = ${created.id}`;
    expect(await (await cron('sweep-jobs')).json()).toMatchObject({ republished: 1 });
    await emu.idle();
    expect(await job(created.id)).toMatchObject({ status: 'completed' });
  });

  it('returns stale active jobs to waiting and runs them again', async () => {
    const [stale] = await db.sql<Job[]>`
      insert into public.jobs (queue, payload, status, attempts, started_at, run_at)
      values ('session-summary', '{}', 'active', 1, now() - interval '11 minutes', now() - interval '12 minutes')
      returning *`;
    const [fresh] = await db.sql<Job[]>`
      insert into public.jobs (queue, payload, status, attempts, started_at, run_at)
      values ('session-summary', '{}', 'active', 1, now() - interval '2 minutes', now() - interval '3 minutes')
      returning *`;
    const result = await (await cron('sweep-jobs')).json();
    expect(result).toMatchObject({ reset_active: 1, republished: 1 });
    await emu.idle();
    expect(await job(stale!.id)).toMatchObject({ status: 'completed', attempts: 2 });
    expect(await job(fresh!.id)).toMatchObject({ status: 'active' });
    await db.sql`delete from public.jobs where id = ${fresh!.id}`;
  });

  it('fails a stale job that is out of attempts, and the entity it was working on with it', async () => {
    const [u] = await db.sql<{ id: string }[]>`insert into auth.users (email) values (${`stale-${uuid()}@example.com`}) returning id`;
    await db.sql`update public.profiles set subscription_tier = 'mastery', subscription_status = 'active' where id = ${u!.id}`;
    const [imp] = await db.sql<{ id: string }[]>`
      insert into public.impulses (user_id, content, classification, ai_status)
      values (${u!.id}, 'stale impulse', 'contraction', 'processing') returning id`;
    const [ses] = await db.sql<{ id: string }[]>`
      insert into public.sessions (user_id, impulse_id, classification, current_step, step_2_ai_status)
      values (${u!.id}, ${imp!.id}, 'contraction', 2, 'processing') returning id`;
    const stale = await db.sql<Job[]>`
      insert into public.jobs (queue, payload, status, attempts, max_attempts, started_at, run_at) values
        ('impulse-classification', ${db.sql.json({ impulseId: imp!.id })}, 'active', 5, 5, now() - interval '11 minutes', now() - interval '12 minutes'),
        ('unified-guidance', ${db.sql.json({ sessionId: ses!.id, step: 2 })}, 'active', 5, 5, now() - interval '11 minutes', now() - interval '12 minutes')
      returning *`;
    expect(await (await cron('sweep-jobs')).json()).toMatchObject({ reset_active: 2 });
    for (const j of stale) expect(await job(j.id)).toMatchObject({ status: 'failed', last_error: 'StaleActive' });
    const [after] = await db.sql<{ ai_status: string; step_1: string; step_2: string }[]>`
      select i.ai_status, s.step_1_ai_status as step_1, s.step_2_ai_status as step_2
      from public.impulses i join public.sessions s on s.impulse_id = i.id where i.id = ${imp!.id}`;
    expect(after).toEqual({ ai_status: 'failed', step_1: 'pending', step_2: 'failed' });
  });

  it('expires trials through public.expire_trials()', async () => {
    const userId = uuid();
    await db.sql`insert into auth.users (id, email) values (${userId}, ${`${userId}@example.test`})`;
    await db.sql`
      update public.profiles set subscription_tier = 'trial', subscription_status = 'active',
        trial_ends_at = now() - interval '1 hour' where id = ${userId}`;
    const res = await cron('expire-trials');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ expired: 1 });
    const [profile] = await db.sql`select subscription_status from public.profiles where id = ${userId}`;
    expect(profile?.subscription_status).toBe('expired');
  });
});

describe('queue dashboard SQL', () => {
  beforeEach(async () => {
    await db.sql`delete from public.jobs`;
  });

  it('queue_counts() counts every queue, with delayed = delayed or waiting in the future', async () => {
    await db.sql`
      insert into public.jobs (queue, status, run_at) values
        ('impulse-classification', 'waiting', now() - interval '1 second'),
        ('impulse-classification', 'waiting', now() - interval '1 second'),
        ('impulse-classification', 'waiting', now() + interval '1 hour'),
        ('impulse-classification', 'delayed', now() + interval '1 hour'),
        ('impulse-classification', 'active', now()),
        ('impulse-classification', 'completed', now()),
        ('unified-guidance', 'failed', now()),
        ('unified-guidance', 'completed', now()),
        ('unified-guidance', 'completed', now())`;
    const counts = await queueCounts(db.sql);
    expect(counts.map((c) => c.queue)).toEqual([...QUEUES]);
    expect(counts.find((c) => c.queue === 'impulse-classification')).toEqual({
      queue: 'impulse-classification', waiting: 2, active: 1, completed: 1, failed: 0, delayed: 2,
    });
    expect(counts.find((c) => c.queue === 'unified-guidance')).toEqual({
      queue: 'unified-guidance', waiting: 0, active: 0, completed: 2, failed: 1, delayed: 0,
    });
    expect(counts.find((c) => c.queue === 'notification-deliver')).toEqual({
      queue: 'notification-deliver', waiting: 0, active: 0, completed: 0, failed: 0, delayed: 0,
    });
  });

  it('retries only failed jobs, with fresh attempts, and runs them again', async () => {
    const [failed] = await db.sql<Job[]>`
      insert into public.jobs (queue, status, attempts, last_error, finished_at)
      values ('session-summary', 'failed', 5, 'TypeError', now()) returning *`;
    const [completed] = await db.sql<Job[]>`
      insert into public.jobs (queue, status, attempts) values ('session-summary', 'completed', 1) returning *`;

    expect(await retryFailedJob(db.sql, publisher, completed!.id)).toBe(false);
    expect(await job(completed!.id)).toMatchObject({ status: 'completed', attempts: 1 });

    expect(await retryFailedJob(db.sql, publisher, failed!.id)).toBe(true);
    await emu.idle();
    expect(await job(failed!.id)).toMatchObject({ status: 'completed', attempts: 1, last_error: null });
    expect(runs).toHaveLength(1);
  });

  it('deletes only failed jobs', async () => {
    const [failed] = await db.sql<Job[]>`insert into public.jobs (queue, status) values ('session-summary', 'failed') returning *`;
    const [waiting] = await db.sql<Job[]>`insert into public.jobs (queue, status) values ('session-summary', 'waiting') returning *`;
    expect(await deleteFailedJob(db.sql, waiting!.id)).toBe(false);
    expect(await findJob(db.sql, waiting!.id)).not.toBeNull();
    expect(await deleteFailedJob(db.sql, failed!.id)).toBe(true);
    expect(await findJob(db.sql, failed!.id)).toBeNull();
    expect(await deleteFailedJob(db.sql, uuid())).toBe(false);
  });

  it('keeps the functions away from anon and authenticated', async () => {
    for (const role of ['anon', 'authenticated']) {
      for (const call of ['select public.queue_counts()', `select public.retry_job('${uuid()}')`, `select public.delete_job('${uuid()}')`]) {
        const err = await db.sql
          .begin(async (tx) => {
            await tx.unsafe(`set local role ${role}`);
            await tx.unsafe(call);
          })
          .catch((e: { code?: string }) => e);
        expect((err as { code?: string })?.code).toBe('42501');
      }
    }
  });
});
