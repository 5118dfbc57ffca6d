// A local QStash: the publish API as @upstash/qstash calls it (POST /v2/publish/<url>,
// POST /v2/batch, Bearer token), signed deliveries, retries with exponential backoff, delays,
// deduplication ids, and fault switches for tests.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { signQStashJwt } from './sign.ts';

export { signQStashJwt } from './sign.ts';

export interface QStashEmulatorOptions {
  port?: number;
  host?: string;
  token: string;
  currentSigningKey: string;
  nextSigningKey: string;
  /** Delay before retry n (0-based) is retryBaseMs * 2^n. Default 1000. */
  retryBaseMs?: number;
  /** Multiplier applied to Upstash-Delay / Upstash-Not-Before (e.g. 0.001 in tests). Default 1. */
  delayScale?: number;
  /** Retries when the publisher sends no Upstash-Retries header. Default 3. */
  defaultRetries?: number;
}

export interface QStashFaults {
  /** Publish and batch answer 500. */
  failPublish: boolean;
  /** Accepted messages are never delivered (QStash lost them). */
  dropDeliveries: boolean;
  /** Extra latency before every delivery attempt. */
  deliveryDelayMs: number;
  /** Sign with the next key instead of the current one (key rotation). */
  signWithNextKey: boolean;
}

export type MessageState = 'pending' | 'delivered' | 'failed' | 'dropped';

export interface EmulatedMessage {
  messageId: string;
  url: string;
  method: string;
  body: string;
  /** Headers delivered to the destination (Upstash-Forward-* unprefixed, Content-Type). */
  headers: Record<string, string>;
  retries: number;
  delayMs: number;
  deduplicationId: string | null;
  state: MessageState;
  /** One entry per delivery attempt: Upstash-Retried sent and the status answered (null: no answer). */
  deliveries: { retried: number; status: number | null }[];
}

export interface QStashEmulator {
  url: string;
  faults: QStashFaults;
  messages(): EmulatedMessage[];
  /** Resolves when no message is pending (scheduled, retrying or in flight). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

interface PublishInput {
  destination: string;
  headers: Headers;
  body: string;
}

class HttpError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

const DELAY_UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

function parseDelay(value: string | null): number {
  if (!value) return 0;
  const parts = [...value.trim().matchAll(/(\d+)([smhd])/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== value.trim()) {
    throw new HttpError(400, `invalid Upstash-Delay: ${value}`);
  }
  return parts.reduce((ms, p) => ms + Number(p[1]) * DELAY_UNITS[p[2]!]!, 0);
}

function newMessageId(): string {
  return `msg_${randomBytes(16).toString('base64url')}`;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export async function startQStashEmulator(opts: QStashEmulatorOptions): Promise<QStashEmulator> {
  const retryBaseMs = opts.retryBaseMs ?? 1000;
  const delayScale = opts.delayScale ?? 1;
  const faults: QStashFaults = { failPublish: false, dropDeliveries: false, deliveryDelayMs: 0, signWithNextKey: false };
  const messages = new Map<string, EmulatedMessage>();
  const dedup = new Map<string, string>();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let idleWaiters: (() => void)[] = [];
  let closed = false;

  const pendingCount = () => [...messages.values()].filter((m) => m.state === 'pending').length;
  const settle = (msg: EmulatedMessage, state: MessageState) => {
    msg.state = state;
    if (pendingCount() === 0) {
      const waiters = idleWaiters;
      idleWaiters = [];
      for (const w of waiters) w();
    }
  };

  const schedule = (msg: EmulatedMessage, ms: number) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      void deliver(msg);
    }, ms + faults.deliveryDelayMs);
    timers.add(timer);
  };

  async function deliver(msg: EmulatedMessage): Promise<void> {
    if (closed) return settle(msg, 'dropped');
    if (faults.dropDeliveries) return settle(msg, 'dropped');
    const retried = msg.deliveries.length;
    const key = faults.signWithNextKey ? opts.nextSigningKey : opts.currentSigningKey;
    const headers = new Headers(msg.headers);
    headers.set('Upstash-Signature', await signQStashJwt({ key, url: msg.url, body: msg.body }));
    headers.set('Upstash-Message-Id', msg.messageId);
    headers.set('Upstash-Retried', String(retried));
    headers.set('User-Agent', 'Upstash-QStash');
    let status: number | null = null;
    let nonRetryable = false;
    try {
      const res = await fetch(msg.url, {
        method: msg.method,
        headers,
        body: msg.method === 'GET' || msg.method === 'HEAD' ? undefined : msg.body,
        signal: AbortSignal.timeout(30_000),
      });
      status = res.status;
      nonRetryable = status === 489 && res.headers.get('upstash-nonretryable-error') === 'true';
      await res.arrayBuffer();
    } catch {
      status = null;
    }
    msg.deliveries.push({ retried, status });
    if (closed) return settle(msg, 'dropped');
    if (status !== null && status >= 200 && status < 300) return settle(msg, 'delivered');
    if (nonRetryable || retried >= msg.retries) return settle(msg, 'failed');
    schedule(msg, retryBaseMs * 2 ** retried);
  }

  function accept(input: PublishInput): { messageId: string; deduplicated?: boolean } {
    let url: URL;
    try {
      url = new URL(input.destination);
    } catch {
      throw new HttpError(400, `invalid destination url: ${input.destination}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new HttpError(400, 'destination must be http(s)');
    const h = input.headers;
    const deduplicationId = h.get('upstash-deduplication-id');
    if (deduplicationId && dedup.has(deduplicationId)) return { messageId: dedup.get(deduplicationId)!, deduplicated: true };

    const retriesHeader = h.get('upstash-retries');
    const retries = retriesHeader === null ? (opts.defaultRetries ?? 3) : Number.parseInt(retriesHeader, 10);
    if (!Number.isInteger(retries) || retries < 0) throw new HttpError(400, 'invalid Upstash-Retries');
    let delayMs = parseDelay(h.get('upstash-delay'));
    const notBefore = h.get('upstash-not-before');
    if (notBefore) delayMs = Math.max(0, Number(notBefore) * 1000 - Date.now());

    const forwarded: Record<string, string> = {};
    for (const [name, value] of h) {
      if (name.startsWith('upstash-forward-')) forwarded[name.slice('upstash-forward-'.length)] = value;
    }
    const contentType = h.get('content-type');
    if (contentType) forwarded['content-type'] = contentType;

    const msg: EmulatedMessage = {
      messageId: newMessageId(),
      url: input.destination,
      method: (h.get('upstash-method') ?? 'POST').toUpperCase(),
      body: input.body,
      headers: forwarded,
      retries,
      delayMs,
      deduplicationId,
      state: 'pending',
      deliveries: [],
    };
    messages.set(msg.messageId, msg);
    if (deduplicationId) dedup.set(deduplicationId, msg.messageId);
    schedule(msg, Math.round(delayMs * delayScale));
    return { messageId: msg.messageId };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.headers.authorization !== `Bearer ${opts.token}`) return sendJson(res, 401, { error: 'Unauthorized' });
    const path = req.url ?? '/';
    if (req.method === 'POST' && path.startsWith('/v2/publish/')) {
      const body = await readBody(req);
      if (faults.failPublish) return sendJson(res, 500, { error: 'internal server error' });
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string') headers.set(name, value);
      }
      return sendJson(res, 201, accept({ destination: path.slice('/v2/publish/'.length), headers, body }));
    }
    if (req.method === 'POST' && path === '/v2/batch') {
      const text = await readBody(req);
      if (faults.failPublish) return sendJson(res, 500, { error: 'internal server error' });
      let items: unknown;
      try {
        items = JSON.parse(text);
      } catch {
        throw new HttpError(400, 'body must be a JSON array');
      }
      if (!Array.isArray(items)) throw new HttpError(400, 'body must be a JSON array');
      const inputs = items.map((item: { destination?: unknown; headers?: unknown; body?: unknown }) => {
        if (typeof item?.destination !== 'string') throw new HttpError(400, 'destination is required');
        const headers = new Headers();
        for (const [k, v] of Object.entries((item.headers ?? {}) as Record<string, unknown>)) headers.set(k, String(v));
        return { destination: item.destination, headers, body: typeof item.body === 'string' ? item.body : '' };
      });
      return sendJson(res, 201, inputs.map(accept));
    }
    sendJson(res, 404, { error: 'not found' });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (err instanceof HttpError) return sendJson(res, err.status, { error: err.message });
      sendJson(res, 500, { error: 'internal server error' });
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://${opts.host ?? '127.0.0.1'}:${port}`,
    faults,
    messages: () => [...messages.values()].map((m) => ({ ...m, headers: { ...m.headers }, deliveries: [...m.deliveries] })),
    idle: () => (pendingCount() === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve))),
    async close() {
      closed = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      for (const m of messages.values()) if (m.state === 'pending') settle(m, 'dropped');
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
