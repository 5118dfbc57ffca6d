// Analytics dashboard (SQL, per-user cache), insights list and the regeneration job.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PublishRequest } from '../../shared/queue/publisher.ts';
import { body, startAppStack, USERS, type AppStack } from './setup.ts';

let s: AppStack;
const published: PublishRequest[] = [];
let me = '';

const localDay = (tz: string, offsetDays = 0) =>
  new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' })
    .format(new Date(Date.now() - offsetDays * 86_400_000));

beforeAll(async () => {
  s = await startAppStack({ publisher: { publish: async (req) => (published.push(req), `msg_${published.length}`) } });
  me = await s.userId(USERS.mastery);
  const [layer] = await s.db.sql<{ id: string }[]>`select id from public.layers where name = 'Emotional'`;
  const [area] = await s.db.sql<{ id: string }[]>`select id from public.areas where name = 'career'`;
  const impulse = async (classification: string, status: string, daysAgo: number) => {
    const [row] = await s.db.sql<{ id: string }[]>`
      insert into public.impulses (user_id, content, classification, processual_status, primary_layer_id, created_at)
      values (${me}, 'text', ${classification}::public.impulse_classification, ${status}::public.processual_status, ${layer!.id},
              now() - make_interval(days => ${daysAgo})) returning id`;
    return row!.id;
  };
  const a = await impulse('contraction', 'transforming', 0);
  await impulse('expansion', 'captured', 1);
  await impulse('contraction', 'transformed', 3);
  await s.db.sql`insert into public.impulse_areas (impulse_id, user_id, area_id, relevance_score) values (${a}, ${me}, ${area!.id}, 0.9)`;
  await s.db.sql`insert into public.sessions (user_id, impulse_id, classification, status) values (${me}, ${a}, 'contraction', 'active')`;
  await s.db.sql`insert into public.check_ins (user_id, content) values (${me}, 'checking in')`;
  await s.db.sql`insert into public.notes (user_id, content) values (${me}, 'a note'), (${me}, 'another')`;
  await s.db.sql`insert into public.notes (user_id, content, archived_at) values (${me}, 'archived', now())`;
});
afterAll(() => s.close());

describe('GET /v1/analytics/dashboard', () => {
  it('computes summary, 30-day timeline and themes', async () => {
    const res = await s.call('GET', '/v1/analytics/dashboard', { as: USERS.mastery });
    expect(res.status).toBe(200);
    const { data } = await body(res);
    expect(data.cached).toBe(false);
    expect(data.summary).toEqual({
      impulses: { total: 3, by_classification: { contraction: 2, expansion: 1 }, by_status: { captured: 1, transforming: 1, transformed: 1 } },
      sessions: { total: 1, by_status: { created: 0, active: 1, completed: 0, abandoned: 0 } },
      check_ins: 1,
      notes: 2,
      streak_days: 2,
      timezone: 'UTC',
    });
    const days = Object.keys(data.timeline);
    expect(days).toHaveLength(30);
    expect(days.at(-1)).toBe(localDay('UTC'));
    expect(data.timeline[localDay('UTC')]).toEqual({ impulses: 1, sessions: 1, check_ins: 1, notes: 3 });
    expect(data.timeline[localDay('UTC', 3)]).toEqual({ impulses: 1, sessions: 0, check_ins: 0, notes: 0 });
    expect(data.themes.areas).toEqual([{ id: expect.any(String), name: 'career', display_name: 'Career', count: 1 }]);
    expect(data.themes.layers.find((l: { name: string }) => l.name === 'Emotional')).toMatchObject({ primary: 3, secondary: 0 });
  });

  it('serves the cache on the second read and recomputes after expiry', async () => {
    const first = await body(await s.call('GET', '/v1/analytics/dashboard', { as: USERS.mastery }));
    expect(first.data.cached).toBe(true);
    await s.db.sql`insert into public.check_ins (user_id, content) values (${me}, 'one more')`;
    const second = await body(await s.call('GET', '/v1/analytics/dashboard', { as: USERS.mastery }));
    expect(second.data.cached).toBe(true);
    expect(second.data.summary.check_ins).toBe(1);
    expect(second.data.computed_at).toBe(first.data.computed_at);

    await s.db.sql`update public.analytics_dashboard_cache set expires_at = now() - interval '1 second' where user_id = ${me}`;
    const third = await body(await s.call('GET', '/v1/analytics/dashboard', { as: USERS.mastery }));
    expect(third.data.cached).toBe(false);
    expect(third.data.summary.check_ins).toBe(2);
    expect(Date.parse(third.data.expires_at) - Date.parse(third.data.computed_at)).toBe(3_600_000);
  });

  it('cuts days in the user\'s time zone and shows nothing of other users', async () => {
    const as = 'dash-tz@journal.local';
    const id = await s.createUser(as);
    await s.db.sql`update public.user_notification_preferences set timezone = 'Pacific/Kiritimati' where user_id = ${id}`;
    const { data } = await body(await s.call('GET', '/v1/analytics/dashboard', { as }));
    expect(data.summary).toMatchObject({ impulses: { total: 0 }, check_ins: 0, notes: 0, streak_days: 0, timezone: 'Pacific/Kiritimati' });
    expect(Object.keys(data.timeline).at(-1)).toBe(localDay('Pacific/Kiritimati'));
    expect(data.themes.areas).toEqual([]);
  });
});

describe('GET /v1/analytics/insights', () => {
  it('pages the caller\'s insights, filters by kind, and hides them from others', async () => {
    for (const [i, kind] of ['pattern', 'progress', 'pattern'].entries()) {
      await s.db.sql`insert into public.analytics_insights (user_id, kind, title, content, data_points, created_at)
        values (${me}, ${kind}, ${`title ${i}`}, 'content', '{"confidence":0.8}', now() - make_interval(mins => ${10 - i}))`;
    }
    const all = await body(await s.call('GET', '/v1/analytics/insights?limit=2', { as: USERS.mastery }));
    expect(all.data.items.map((i: { title: string }) => i.title)).toEqual(['title 2', 'title 1']);
    expect(all.data.items[0].data_points).toEqual({ confidence: 0.8 });
    const rest = await body(await s.call('GET', `/v1/analytics/insights?limit=2&cursor=${all.data.page.next_cursor}`, { as: USERS.mastery }));
    expect(rest.data.items.map((i: { title: string }) => i.title)).toEqual(['title 0']);
    const patterns = await body(await s.call('GET', '/v1/analytics/insights?kind=pattern', { as: USERS.mastery }));
    expect(patterns.data.items.map((i: { title: string }) => i.title)).toEqual(['title 2', 'title 0']);
    const other = await body(await s.call('GET', '/v1/analytics/insights', { as: USERS.foundation }));
    expect(other.data.items).toEqual([]);
    const bad = await s.call('GET', '/v1/analytics/insights?kind=horoscope', { as: USERS.mastery });
    expect(bad.status).toBe(400);
    expect((await body(bad)).error.code).toBe('VALIDATION_FAILED');
  });
});

describe('POST /v1/analytics/insights/regenerate', () => {
  it('records and publishes one job, then answers 429 with Retry-After for 24 hours', async () => {
    const res = await s.call('POST', '/v1/analytics/insights/regenerate', { as: USERS.foundation });
    expect(res.status).toBe(202);
    const { data } = await body(res);
    const foundation = await s.userId(USERS.foundation);
    const [job] = await s.db.sql`select queue, user_id, payload, qstash_message_id from public.jobs where id = ${data.job_id}`;
    expect(job).toEqual({ queue: 'insights-regeneration', user_id: foundation, payload: { userId: foundation }, qstash_message_id: 'msg_1' });
    expect(published).toEqual([expect.objectContaining({ queue: 'insights-regeneration', jobId: data.job_id })]);

    const again = await s.call('POST', '/v1/analytics/insights/regenerate', { as: USERS.foundation });
    expect(again.status).toBe(429);
    expect((await body(again)).error.code).toBe('INSIGHTS_RECENTLY_REGENERATED');
    const retryAfter = Number(again.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(86_000);
    expect(retryAfter).toBeLessThanOrEqual(86_400);

    // Another user is not affected; a failed job does not block a new request.
    expect((await s.call('POST', '/v1/analytics/insights/regenerate', { as: USERS.partner })).status).toBe(202);
    await s.db.sql`update public.jobs set status = 'failed' where id = ${data.job_id}`;
    expect((await s.call('POST', '/v1/analytics/insights/regenerate', { as: USERS.foundation })).status).toBe(202);
  });

  it('lets only one of two simultaneous requests through', async () => {
    const statuses = await Promise.all([1, 2].map(() => s.call('POST', '/v1/analytics/insights/regenerate', { as: USERS.mastery }).then((r) => r.status)));
    expect(statuses.sort()).toEqual([202, 429]);
  });
});
