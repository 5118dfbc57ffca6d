// The Upstash Redis REST emulator, driven by the official SDKs against the real Redis.
import { createHash } from 'node:crypto';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis as IORedis } from 'ioredis';
import { Redis } from '@upstash/redis';
import { Ratelimit } from '@upstash/ratelimit';
import { startUpstashRedisEmulator, type UpstashRedisEmulator } from '../../local/emulators/upstash-redis/server.ts';

const TOKEN = 'emulator-test-token';
const DB = 11;
const run = `t:${crypto.randomUUID().slice(0, 8)}`; // keys of this run only
const key = (name: string) => `${run}:${name}`;

let emulator: UpstashRedisEmulator;
let redis: Redis;
let direct: IORedis;

beforeAll(async () => {
  emulator = await startUpstashRedisEmulator({ port: 0, token: TOKEN, db: DB });
  redis = new Redis({ url: emulator.url, token: TOKEN, enableTelemetry: false, retry: false });
  direct = new IORedis({ db: DB });
});

afterAll(async () => {
  const keys = await direct.keys(`${run}:*`);
  if (keys.length) await direct.del(...keys);
  direct.disconnect();
  await emulator.close();
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${emulator.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

describe('commands through @upstash/redis', () => {
  it('set/get/incr/expire reach the real Redis', async () => {
    expect(await redis.set(key('greeting'), 'hello')).toBe('OK');
    expect(await redis.get(key('greeting'))).toBe('hello');
    expect(await direct.get(key('greeting'))).toBe('hello');

    expect(await redis.incr(key('counter'))).toBe(1);
    expect(await redis.incr(key('counter'))).toBe(2);
    expect(await redis.expire(key('counter'), 120)).toBe(1);
    const ttl = await direct.ttl(key('counter'));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(120);
    expect(await redis.get(key('missing'))).toBeNull();
  });

  it('round-trips JSON values and non-ASCII text', async () => {
    await redis.set(key('json'), { a: 1, list: ['x', 'y'] });
    expect(await redis.get(key('json'))).toEqual({ a: 1, list: ['x', 'y'] });
    await redis.set(key('text'), 'blåbær 日本 🙂');
    expect(await redis.get(key('text'))).toBe('blåbær 日本 🙂');
    await redis.hset(key('hash'), { field: 'value', n: 3 });
    expect(await redis.hgetall(key('hash'))).toEqual({ field: 'value', n: 3 });
    await redis.zadd(key('zset'), { score: 2, member: 'b' }, { score: 1, member: 'a' });
    expect(await redis.zrange(key('zset'), 0, -1, { withScores: true })).toEqual(['a', 1, 'b', 2]);
    const flat = await post('/', ['ZRANGE', key('zset'), 0, -1, 'WITHSCORES']);
    expect(await flat.json()).toEqual({ result: ['a', '1', 'b', '2'] });
  });

  it('runs a pipeline and reports per-command errors', async () => {
    await direct.set(key('word'), 'not-a-number');
    const p = redis.pipeline();
    p.set(key('p1'), 'one');
    p.get(key('p1'));
    p.incr(key('word'));
    const results = await p.exec({ keepErrors: true });
    expect(results.map((r) => r.result)).toEqual(['OK', 'one', undefined]);
    expect(results[0]!.error).toBeUndefined();
    expect(results[2]!.error).toMatch(/not an integer/);
  });

  it('runs multi-exec as a transaction', async () => {
    const tx = redis.multi();
    tx.set(key('tx'), 10);
    tx.incrby(key('tx'), 5);
    tx.get(key('tx'));
    expect(await tx.exec()).toEqual(['OK', 15, 15]);
    expect(await direct.get(key('tx'))).toBe('15');
  });

  it('discards a transaction with an invalid command (400)', async () => {
    const res = await post('/multi-exec', [['set', key('discarded'), 'x'], ['nosuchcommand']]);
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatch(/EXECABORT/);
    expect(await direct.exists(key('discarded'))).toBe(0);
  });

  it('evaluates scripts, loads them and falls back from NOSCRIPT to EVAL', async () => {
    expect(await redis.eval('return {KEYS[1], ARGV[1], 7}', [key('k')], ['arg'])).toEqual([key('k'), 'arg', 7]);

    const source = `return redis.call("INCRBY", KEYS[1], ARGV[1]) -- ${run}`;
    const sha = createHash('sha1').update(source).digest('hex');
    await expect(redis.evalsha(sha, [key('script')], [2])).rejects.toThrow(/NOSCRIPT/);

    const script = redis.createScript<number>(source);
    expect(await script.exec([key('script')], ['2'])).toBe(2); // evalsha fails, eval runs and caches it
    expect(await redis.evalsha(sha, [key('script')], [3])).toBe(5);

    const loaded = `return ARGV[1] -- loaded ${run}`;
    expect(await redis.scriptLoad(loaded)).toBe(createHash('sha1').update(loaded).digest('hex'));
    expect(await redis.evalsha(createHash('sha1').update(loaded).digest('hex'), [], ['back'])).toBe('back');
  });

  it('accepts the Upstash-only shebang flags @upstash/ratelimit sends', async () => {
    const source = `#!lua flags=allow-key-locking\nreturn redis.call("SET", KEYS[1], "${run}")`;
    expect(await redis.eval(source, [key('flagged')], [])).toBe('OK');
    const sha = createHash('sha1').update(source).digest('hex');
    expect(await redis.evalsha(sha, [key('flagged')], [])).toBe('OK');
  });

  it('lets @upstash/ratelimit count a sliding window', async () => {
    const limiter = new Ratelimit({ redis, limiter: Ratelimit.slidingWindow(2, '1 m'), prefix: key('rl'), ephemeralCache: false });
    const outcomes = [];
    for (let i = 0; i < 3; i++) outcomes.push(await limiter.limit('someone'));
    expect(outcomes.map((o) => o.success)).toEqual([true, true, false]);
    expect(outcomes.map((o) => o.remaining)).toEqual([1, 0, 0]);
    expect((await limiter.limit('someone-else')).success).toBe(true);
  });
});

describe('wire format', () => {
  it('base64-encodes strings except OK when asked to', async () => {
    const set = await post('/', ['SET', key('b64'), 'value'], { 'upstash-encoding': 'base64' });
    expect(await set.json()).toEqual({ result: 'OK' });
    const get = await post('/', ['GET', key('b64')], { 'upstash-encoding': 'base64' });
    expect(await get.json()).toEqual({ result: Buffer.from('value').toString('base64') });
    const plain = await post('/', ['GET', key('b64')]);
    expect(await plain.json()).toEqual({ result: 'value' });
    const pipe = await post('/pipeline', [['GET', key('b64')], ['INCR', key('b64')], ['EXISTS', key('b64')]], { 'upstash-encoding': 'base64' });
    expect(await pipe.json()).toEqual([
      { result: 'dmFsdWU=' },
      { error: 'ERR value is not an integer or out of range' },
      { result: 1 },
    ]);
  });

  it('answers command errors with 400 {error}', async () => {
    const res = await post('/', ['NOSUCHCOMMAND', 'x']);
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatch(/unknown command/);
  });

  it('serves the path form with query arguments', async () => {
    const headers = { authorization: `Bearer ${TOKEN}` };
    const set = await fetch(`${emulator.url}/set/${encodeURIComponent(key('path'))}/a%20b?EX=100`, { headers });
    expect(await set.json()).toEqual({ result: 'OK' });
    const get = await fetch(`${emulator.url}/get/${encodeURIComponent(key('path'))}?_token=${TOKEN}`);
    expect(await get.json()).toEqual({ result: 'a b' });
    expect(await direct.ttl(key('path'))).toBeGreaterThan(0);
  });

  it('rejects a wrong or missing token with 401 {error}', async () => {
    const wrong = await post('/', ['GET', key('x')], { authorization: 'Bearer not-the-token' });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ error: 'Unauthorized' });
    const missing = await fetch(`${emulator.url}/get/x`);
    expect(missing.status).toBe(401);

    const intruder = new Redis({ url: emulator.url, token: 'not-the-token', enableTelemetry: false, retry: false });
    await expect(intruder.get(key('x'))).rejects.toThrow(/Unauthorized/);
  });
});

describe('when Redis is down', () => {
  it('answers 500 {error} at once and the SDK throws', async () => {
    const deadPort = await freePort();
    const broken = await startUpstashRedisEmulator({ token: TOKEN, redisUrl: `redis://127.0.0.1:${deadPort}` });
    try {
      const res = await fetch(`${broken.url}/get/x`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(res.status).toBe(500);
      expect((await res.json()).error).toMatch(/unavailable/i);
      const client = new Redis({ url: broken.url, token: TOKEN, enableTelemetry: false, retry: false });
      await expect(client.get('x')).rejects.toThrow(/unavailable/i);
    } finally {
      await broken.close();
    }
  });
});

/** A port nothing listens on (bound once, then released). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}
