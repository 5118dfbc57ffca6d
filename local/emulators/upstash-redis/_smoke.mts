import { Redis } from '@upstash/redis';
import { Ratelimit } from '@upstash/ratelimit';
import { startUpstashRedisEmulator } from './server.ts';
const emu = await startUpstashRedisEmulator({ token: 'tok', db: 9 });
const r = new Redis({ url: emu.url, token: 'tok', enableTelemetry: false });
console.log(await r.set('k1', 'hello'), await r.get('k1'), await r.ping(), await r.incr('n1'), await r.expire('n1', 10));
console.log(await r.set('j1', { a: 1 }), await r.get('j1'));
const p = r.pipeline(); p.set('x', 1); p.get('x'); p.incr('x');
console.log(await p.exec());
const m = r.multi(); m.set('y', 'v'); m.get('y');
console.log(await m.exec());
console.log(await r.eval('return {KEYS[1], ARGV[1], 3}', ['a'], ['b']));
try { await r.evalsha('0123456789012345678901234567890123456789', [], []); } catch (e) { console.log('err', String(e)); }
const rl = new Ratelimit({ redis: r, limiter: Ratelimit.slidingWindow(3, '1 m'), prefix: 'rlsmoke' + Date.now() });
for (let i = 0; i < 5; i++) console.log(await rl.limit('id'));
try { const bad = new Redis({ url: emu.url, token: 'bad', retry: false }); await bad.get('k1'); } catch (e) { console.log('bad', String(e)); }
const res = await fetch(emu.url + '/set/pathkey/val?EX=100', { headers: { authorization: 'Bearer tok' } });
console.log(res.status, await res.text());
const res2 = await fetch(emu.url + '/multi-exec', { method: 'POST', body: JSON.stringify([['set','q','1'],['nosuchcmd']]), headers: { authorization: 'Bearer tok' } });
console.log(res2.status, await res2.text());
const res3 = await fetch(emu.url + '/', { method: 'POST', body: JSON.stringify(['nosuchcmd']), headers: { authorization: 'Bearer tok' } });
console.log(res3.status, await res3.text());
await emu.close();
