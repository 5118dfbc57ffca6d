// Local stand-in for Upstash Redis: the REST protocol (`POST /`, `/pipeline`, `/multi-exec`, the path
// form, Bearer auth, `Upstash-Encoding: base64`) served on top of a real Redis, so @upstash/redis and
// @upstash/ratelimit run unchanged against it.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { timingSafeEqual } from 'node:crypto';
import { Redis as IORedis, ReplyError } from 'ioredis';
import {
  commandFromPath,
  encodeReply,
  normalizeScript,
  refusedCommand,
  sha1,
  toArgs,
  type Command,
  type RawReply,
} from './protocol.ts';

export interface UpstashRedisEmulatorOptions {
  /** 0 or absent: a random free port. */
  port?: number;
  host?: string;
  token: string;
  redisUrl?: string;
  /** Redis database number, so test files do not share keys. */
  db?: number;
}

export interface UpstashRedisEmulator {
  url: string;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 10 * 1024 * 1024;

type Outcome = { result: unknown } | { error: string };

/** A failure of the Redis connection itself (not a command error): answered with 500. */
class Unavailable extends Error {}
/** A request the protocol rejects as a whole: answered with 400. */
class BadRequest extends Error {}

const isReplyError = (err: unknown): err is Error => err instanceof ReplyError;

export async function startUpstashRedisEmulator(opts: UpstashRedisEmulatorOptions): Promise<UpstashRedisEmulator> {
  const redis = new IORedis(opts.redisUrl ?? 'redis://127.0.0.1:6379', {
    db: opts.db ?? 0,
    protocol: 2, // Upstash answers with RESP2 shapes (flat arrays, scores as strings)
    // Fail commands at once while Redis is down instead of queueing them: callers see a 500 quickly.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt) => Math.min(attempt * 100, 2000),
  });
  redis.on('error', () => {}); // reconnects on its own; each request reports the failure
  await firstConnectAttempt(redis);

  // The SDK hashes the script it sends; Redis hashes the normalized one. Map the first to the second.
  const scriptShas = new Map<string, string>();
  const prepare = (input: Command): { command: Command; reply?: (r: RawReply) => RawReply } => {
    const command = [...input];
    const name = command[0]!.toLowerCase();
    const sub = command[1]?.toLowerCase();
    if ((name === 'eval' || name === 'eval_ro') && command[1] !== undefined) {
      command[1] = rememberScript(command[1]);
    } else if ((name === 'evalsha' || name === 'evalsha_ro') && command[1] !== undefined) {
      command[1] = scriptShas.get(command[1].toLowerCase()) ?? command[1];
    } else if (name === 'script' && sub === 'load' && command[2] !== undefined) {
      const original = sha1(command[2]);
      command[2] = rememberScript(command[2]);
      return { command, reply: () => Buffer.from(original) };
    } else if (name === 'script' && sub === 'exists') {
      for (let i = 2; i < command.length; i++) command[i] = scriptShas.get(command[i]!.toLowerCase()) ?? command[i]!;
    }
    return { command };
  };
  const rememberScript = (script: string): string => {
    const normalized = normalizeScript(script);
    scriptShas.set(sha1(script), sha1(normalized));
    return normalized;
  };

  const runOne = async (input: Command): Promise<Outcome> => {
    const refused = refusedCommand(input);
    if (refused) return { error: refused };
    const { command, reply } = prepare(input);
    try {
      const raw = (await redis.callBuffer(rawName(command), ...command.slice(1))) as RawReply;
      return { result: reply ? reply(raw) : raw };
    } catch (err) {
      if (isReplyError(err)) return { error: err.message };
      throw new Unavailable(err instanceof Error ? err.message : String(err));
    }
  };

  const runBatch = async (commands: Command[], transaction: boolean): Promise<Outcome[]> => {
    const refused = commands.map(refusedCommand);
    const prepared = commands.map(prepare);
    if (transaction && refused.some(Boolean)) {
      throw new BadRequest(`EXECABORT Transaction discarded because of previous errors: ${refused.find(Boolean)}`);
    }
    const batch = transaction ? redis.multi() : redis.pipeline();
    prepared.forEach(({ command }, i) => {
      if (!refused[i]) batch.callBuffer(rawName(command), ...command.slice(1));
    });
    let results: [Error | null, unknown][] = [];
    if (prepared.some((_, i) => !refused[i])) {
      const out = await batch.exec().catch((err: unknown) => {
        if (isReplyError(err)) throw new BadRequest(err.message);
        throw new Unavailable(err instanceof Error ? err.message : String(err));
      });
      if (!out) throw new BadRequest('EXECABORT Transaction discarded');
      results = out;
    }
    let next = 0;
    return prepared.map(({ reply }, i): Outcome => {
      if (refused[i]) return { error: refused[i]! };
      const [err, raw] = results[next++] ?? [new Unavailable('no reply'), null];
      if (isReplyError(err)) return { error: err.message };
      if (err) throw new Unavailable((err as Error).message);
      return { result: reply ? reply(raw as RawReply) : raw };
    });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      const status = err instanceof BadRequest ? 400 : 500;
      const message = err instanceof Error ? err.message : String(err);
      send(res, status, { error: err instanceof Unavailable ? `ERR Redis is unavailable: ${message}` : message });
    });
  });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://emulator');
    if (!authorized(req, url, opts.token)) return send(res, 401, { error: 'Unauthorized' });
    if (!['GET', 'HEAD', 'POST', 'PUT'].includes(req.method ?? '')) return send(res, 405, { error: 'Method not allowed' });
    const base64 = req.headers['upstash-encoding']?.toString().toLowerCase() === 'base64';
    const body = await readBody(req);
    const encode = (o: Outcome) => ('error' in o ? o : { result: encodeReply(o.result as RawReply, base64) });

    if (url.pathname === '/pipeline' || url.pathname === '/multi-exec') {
      const commands = parseJson(body);
      if (!Array.isArray(commands) || commands.length === 0) return send(res, 400, { error: 'ERR the body must be a non-empty array of commands' });
      const parsed = commands.map(toArgs);
      if (parsed.some((c) => c === null)) return send(res, 400, { error: 'ERR every command must be a non-empty array' });
      const outcomes = await runBatch(parsed as Command[], url.pathname === '/multi-exec');
      return send(res, 200, outcomes.map(encode));
    }

    const command = url.pathname === '/' ? toArgs(parseJson(body)) : commandFromPath(url, body);
    if (!command || command.length === 0) return send(res, 400, { error: 'ERR the body must be a command array such as ["GET","key"]' });
    const outcome = await runOne(command);
    return send(res, 'error' in outcome ? 400 : 200, encode(outcome));
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = opts.host && opts.host !== '0.0.0.0' ? opts.host : '127.0.0.1';

  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      redis.disconnect();
    },
  };
}

// ioredis reshapes some replies (HGETALL into an object, WITHSCORES into pairs), looked up by the
// lower-case command name. Upstash returns Redis's flat arrays, so send the name upper-cased.
const rawName = (command: Command) => command[0]!.toUpperCase();

function authorized(req: IncomingMessage, url: URL, token: string): boolean {
  const header = req.headers.authorization;
  const sent = header?.startsWith('Bearer ') ? header.slice('Bearer '.length) : url.searchParams.get('_token');
  if (!sent) return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new BadRequest('ERR request body is too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Waits until Redis answers or the first attempt fails, so a down Redis does not block startup. */
function firstConnectAttempt(redis: IORedis): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      redis.off('ready', done);
      redis.off('error', done);
      resolve();
    };
    redis.once('ready', done);
    redis.once('error', done);
  });
}
