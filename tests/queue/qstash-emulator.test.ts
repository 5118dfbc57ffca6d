// The QStash emulator against the real @upstash/qstash SDK: publish, batch, signing, retries,
// deduplication and the fault switches.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, QstashError, Receiver } from '@upstash/qstash';
import { jwtVerify } from 'jose';
import { startQStashEmulator, type QStashEmulator } from '../../local/emulators/qstash/index.ts';

const TOKEN = 'emulator-test-token';
const CURRENT = 'sig_current_emulator_test_key';
const NEXT = 'sig_next_emulator_test_key';

interface Received {
  path: string;
  method: string;
  headers: IncomingMessage['headers'];
  body: string;
}

let emu: QStashEmulator;
let receiver: Server;
let base: string;
let received: Received[] = [];
/** Status the destination answers, by path. */
const answers = new Map<string, { status: number; headers?: Record<string, string> }>();

const client = () => new Client({ baseUrl: emu.url, token: TOKEN, devMode: false, enableTelemetry: false, retry: false });

beforeAll(async () => {
  emu = await startQStashEmulator({ token: TOKEN, currentSigningKey: CURRENT, nextSigningKey: NEXT, retryBaseMs: 10, delayScale: 0.01 });
  receiver = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    received.push({ path: req.url ?? '', method: req.method ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() });
    const answer = answers.get(req.url ?? '') ?? { status: 200 };
    res.writeHead(answer.status, answer.headers ?? {});
    res.end('ok');
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await emu.close();
  receiver.closeAllConnections();
  await new Promise((r) => receiver.close(r));
});

beforeEach(() => {
  received = [];
  answers.clear();
  Object.assign(emu.faults, { failPublish: false, dropDeliveries: false, deliveryDelayMs: 0, signWithNextKey: false });
});

describe('publish', () => {
  it('delivers publishJSON with the signed QStash headers and forwarded headers', async () => {
    const url = `${base}/hooks/one`;
    const res = await client().publishJSON({ url, body: { jobId: 'abc' }, headers: { 'X-Trace': 't-1' }, retries: 2 });
    expect(res.messageId).toMatch(/^msg_/);
    await emu.idle();

    expect(received).toHaveLength(1);
    const [got] = received;
    expect(got!.path).toBe('/hooks/one');
    expect(got!.method).toBe('POST');
    expect(got!.body).toBe('{"jobId":"abc"}');
    expect(got!.headers['content-type']).toBe('application/json');
    expect(got!.headers['x-trace']).toBe('t-1');
    expect(got!.headers['upstash-message-id']).toBe(res.messageId);
    expect(got!.headers['upstash-retried']).toBe('0');
    expect(got!.headers['user-agent']).toBe('Upstash-QStash');

    const signature = got!.headers['upstash-signature'] as string;
    const verifier = new Receiver({ currentSigningKey: CURRENT, nextSigningKey: NEXT, devMode: false });
    await expect(verifier.verify({ signature, body: got!.body, url })).resolves.toBe(true);
    await expect(verifier.verify({ signature, body: got!.body, url: `${base}/hooks/other` })).rejects.toThrow();
    const { payload } = await jwtVerify(signature, new TextEncoder().encode(CURRENT));
    expect(payload.iss).toBe('Upstash');
    expect(payload.sub).toBe(url);
    expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(300);
    expect(payload.jti).toBeTruthy();
    expect(payload.body).not.toMatch(/=$/);
    expect(emu.messages().find((m) => m.messageId === res.messageId)?.state).toBe('delivered');
  });

  it('rejects a wrong token with 401', async () => {
    const bad = new Client({ baseUrl: emu.url, token: 'wrong', devMode: false, enableTelemetry: false, retry: false });
    const err = await bad.publishJSON({ url: `${base}/x`, body: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QstashError);
    expect((err as QstashError).status).toBe(401);
  });

  it('answers 500 on publish when failPublish is set, and accepts nothing', async () => {
    emu.faults.failPublish = true;
    const before = emu.messages().length;
    const err = await client().publishJSON({ url: `${base}/x`, body: {} }).catch((e: unknown) => e);
    expect((err as QstashError).status).toBe(500);
    expect(emu.messages()).toHaveLength(before);
  });

  it('publishes a batch and returns one message id per message', async () => {
    const res = await client().batchJSON([
      { url: `${base}/batch/a`, body: { n: 1 } },
      { url: `${base}/batch/b`, body: { n: 2 }, retries: 0 },
    ]);
    expect(res).toHaveLength(2);
    expect(new Set(res.map((r) => (r as { messageId: string }).messageId)).size).toBe(2);
    await emu.idle();
    expect(received.map((r) => [r.path, r.body]).sort()).toEqual([
      ['/batch/a', '{"n":1}'],
      ['/batch/b', '{"n":2}'],
    ]);
    expect(received.every((r) => r.headers['content-type'] === 'application/json')).toBe(true);
  });

  it('deduplicates on Upstash-Deduplication-Id', async () => {
    const a = await client().publishJSON({ url: `${base}/dedup`, body: {}, deduplicationId: 'same-id' });
    const b = await client().publishJSON({ url: `${base}/dedup`, body: {}, deduplicationId: 'same-id' });
    expect(b.messageId).toBe(a.messageId);
    await emu.idle();
    expect(received.filter((r) => r.path === '/dedup')).toHaveLength(1);
  });

  it('honours Upstash-Delay and Upstash-Method', async () => {
    const res = await client().publish({ url: `${base}/delayed`, body: 'x', delay: 3, method: 'PUT' });
    const msg = emu.messages().find((m) => m.messageId === res.messageId);
    expect(msg?.delayMs).toBe(3000);
    await emu.idle();
    expect(received).toHaveLength(1);
    expect(received[0]!.method).toBe('PUT');
  });
});

describe('delivery', () => {
  it('retries non-2xx answers up to Upstash-Retries with an increasing Upstash-Retried', async () => {
    answers.set('/flaky', { status: 500 });
    const res = await client().publishJSON({ url: `${base}/flaky`, body: {}, retries: 2 });
    await emu.idle();
    expect(received.map((r) => r.headers['upstash-retried'])).toEqual(['0', '1', '2']);
    const msg = emu.messages().find((m) => m.messageId === res.messageId)!;
    expect(msg.state).toBe('failed');
    expect(msg.deliveries.map((d) => d.status)).toEqual([500, 500, 500]);
  });

  it('stops retrying on 489 with Upstash-NonRetryable-Error', async () => {
    answers.set('/permanent', { status: 489, headers: { 'Upstash-NonRetryable-Error': 'true' } });
    await client().publishJSON({ url: `${base}/permanent`, body: {}, retries: 3 });
    await emu.idle();
    expect(received).toHaveLength(1);
  });

  it('drops deliveries when dropDeliveries is set', async () => {
    emu.faults.dropDeliveries = true;
    const res = await client().publishJSON({ url: `${base}/lost`, body: {} });
    await emu.idle();
    expect(received).toHaveLength(0);
    expect(emu.messages().find((m) => m.messageId === res.messageId)?.state).toBe('dropped');
  });

  it('signs with the next key when signWithNextKey is set', async () => {
    emu.faults.signWithNextKey = true;
    await client().publishJSON({ url: `${base}/rotated`, body: {} });
    await emu.idle();
    const signature = received[0]!.headers['upstash-signature'] as string;
    await expect(jwtVerify(signature, new TextEncoder().encode(NEXT))).resolves.toBeTruthy();
    await expect(jwtVerify(signature, new TextEncoder().encode(CURRENT))).rejects.toThrow();
  });
});
