// The Upstash REST wire format: how requests become Redis commands and how Redis replies become JSON.
import { createHash } from 'node:crypto';

export type Command = string[];

/** A reply from ioredis `callBuffer`: Buffers, integers, null, nested arrays (and Errors inside EXEC). */
export type RawReply = Buffer | string | number | null | RawReply[] | Error;

const OK = Buffer.from('OK');

/** JSON value of a reply. With base64, every string except the status "OK" is base64 (as Upstash does). */
export function encodeReply(reply: RawReply | undefined, base64: boolean): unknown {
  if (reply === null || reply === undefined || reply instanceof Error) return null;
  if (typeof reply === 'number') return reply;
  if (Array.isArray(reply)) return reply.map((r) => encodeReply(r, base64));
  const buf = typeof reply === 'string' ? Buffer.from(reply) : reply;
  if (!base64) return buf.toString('utf8');
  return buf.equals(OK) ? 'OK' : buf.toString('base64');
}

/** JSON arguments as Redis strings: the SDK sends numbers unquoted. */
export function toArgs(value: unknown): Command | null {
  if (!Array.isArray(value) || value.length === 0) return null;
  return value.map((v) => (typeof v === 'string' ? v : typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)));
}

/** The path form: /set/foo/bar?EX=100, with a POST body appended as the value before the query arguments. */
export function commandFromPath(url: URL, body: string): Command {
  const command = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
  if (body) command.push(body);
  for (const [name, value] of url.searchParams) {
    if (name === '_token') continue;
    command.push(name);
    if (value) command.push(value);
  }
  return command;
}

export const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

// Upstash accepts its own shebang flags (e.g. allow-key-locking in @upstash/ratelimit); Redis rejects them.
const REDIS_SCRIPT_FLAGS = new Set(['no-writes', 'allow-oom', 'allow-stale', 'no-cluster', 'allow-cross-slot-keys']);

/** The script with shebang flags Redis does not know removed. */
export function normalizeScript(script: string): string {
  if (!script.startsWith('#!')) return script;
  const newline = script.indexOf('\n');
  const shebang = newline === -1 ? script : script.slice(0, newline);
  const rest = newline === -1 ? '' : script.slice(newline);
  const [engine, ...options] = shebang.split(/\s+/);
  const flags = options
    .filter((o) => o.startsWith('flags='))
    .flatMap((o) => o.slice('flags='.length).split(','))
    .filter((f) => REDIS_SCRIPT_FLAGS.has(f));
  return `${engine}${flags.length ? ` flags=${flags.join(',')}` : ''}${rest}`;
}

// Commands that would change or block the one shared connection.
const REFUSED = new Set([
  'select', 'multi', 'exec', 'discard', 'watch', 'unwatch', 'subscribe', 'psubscribe', 'ssubscribe',
  'unsubscribe', 'punsubscribe', 'sunsubscribe', 'monitor', 'quit', 'reset', 'hello', 'auth', 'client',
  'blpop', 'brpop', 'brpoplpush', 'blmove', 'blmpop', 'bzpopmin', 'bzpopmax', 'bzmpop', 'wait', 'shutdown',
]);

export function refusedCommand(command: Command): string | null {
  const name = command[0]?.toLowerCase() ?? '';
  return REFUSED.has(name) ? `ERR Command is not available: '${name}'` : null;
}
