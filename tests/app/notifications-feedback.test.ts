// Notification preferences, silence, device sync, history, and feedback, on a real database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { body, startAppStack, USERS, type AppStack } from './setup.ts';

let s: AppStack;
beforeAll(async () => {
  s = await startAppStack();
});
afterAll(() => s.close());

const TOKEN = 'a1'.repeat(32);

describe('notification preferences', () => {
  it('answers the defaults of a new user', async () => {
    const res = await s.call('GET', '/v1/notifications/preferences');
    expect(res.status).toBe(200);
    expect((await body(res)).data).toEqual({
      consent: false,
      categories: {
        reminder: { enabled: true, lastSentAt: null },
        campaign: { enabled: true, lastSentAt: null },
        lifecycle: { enabled: true, lastSentAt: null },
      },
      timezone: 'UTC',
      silence_until: null,
      ios_permission_status: 'not_determined',
      has_token: false,
    });
  });

  it('changes consent, a category toggle and the time zone, keeping lastSentAt', async () => {
    const id = await s.userId(USERS.foundation);
    await s.db.sql`update public.user_notification_preferences
      set categories = jsonb_set(categories, '{reminder,lastSentAt}', '"2027-01-04T09:00:00.000Z"') where user_id = ${id}`;
    const res = await s.call('PATCH', '/v1/notifications/preferences', {
      as: USERS.foundation,
      body: { consent: true, categories: { reminder: false }, timezone: 'Europe/Oslo' },
    });
    expect(res.status).toBe(200);
    const { data } = await body(res);
    expect(data.consent).toBe(true);
    expect(data.timezone).toBe('Europe/Oslo');
    expect(data.categories.reminder).toEqual({ enabled: false, lastSentAt: '2027-01-04T09:00:00.000Z' });
    expect(data.categories.campaign.enabled).toBe(true);
    const [row] = await s.db.sql`select categories -> 'reminder' ->> 'enabled' as enabled, timezone from public.user_notification_preferences where user_id = ${id}`;
    expect(row).toEqual({ enabled: 'false', timezone: 'Europe/Oslo' });
  });

  it.each([
    [{ categories: { lifecycle: false } }],
    [{ timezone: 'Mars/Olympus_Mons' }],
    [{ consent: 'yes' }],
    [{ apns_token: TOKEN }],
  ])('rejects %j with a 400 envelope', async (patch) => {
    const res = await s.call('PATCH', '/v1/notifications/preferences', { body: patch });
    expect(res.status).toBe(400);
    expect(await body(res)).toMatchObject({ success: false, error: { code: 'VALIDATION_FAILED' } });
  });
});

describe('silence', () => {
  it('silences for 7 days by default, for the given days, and ends it', async () => {
    const as = USERS.mastery;
    const week = await body(await s.call('POST', '/v1/notifications/silence', { as }));
    const days = (Date.parse(week.data.silence_until) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.9);
    expect(days).toBeLessThanOrEqual(7);

    const three = await body(await s.call('POST', '/v1/notifications/silence', { as, body: { days: 3 } }));
    expect((Date.parse(three.data.silence_until) - Date.now()) / 86_400_000).toBeLessThanOrEqual(3);

    const ended = await s.call('DELETE', '/v1/notifications/silence', { as });
    expect((await body(ended)).data.silence_until).toBeNull();
    expect((await s.call('POST', '/v1/notifications/silence', { as, body: { days: 0 } })).status).toBe(400);
  });
});

describe('device sync', () => {
  it('stores token, permission and time zone; null clears the token', async () => {
    const as = USERS.partner;
    const id = await s.userId(as);
    const res = await s.call('POST', '/v1/notifications/device', {
      as,
      body: { apns_token: TOKEN.toUpperCase(), ios_permission_status: 'granted', timezone: 'America/New_York' },
    });
    expect(res.status).toBe(200);
    const { data } = await body(res);
    expect(data).toMatchObject({ has_token: true, ios_permission_status: 'granted', timezone: 'America/New_York' });
    expect(JSON.stringify(data)).not.toContain(TOKEN);
    const [row] = await s.db.sql`select apns_token, apns_token_updated_at from public.user_notification_preferences where user_id = ${id}`;
    expect(row!.apns_token).toBe(TOKEN);
    expect(row!.apns_token_updated_at).toBeInstanceOf(Date);

    const cleared = await s.call('POST', '/v1/notifications/device', {
      as, body: { apns_token: null, ios_permission_status: 'denied', timezone: 'America/New_York' },
    });
    expect((await body(cleared)).data).toMatchObject({ has_token: false, ios_permission_status: 'denied' });
  });

  it.each([
    [{ apns_token: 'not-hex', ios_permission_status: 'granted', timezone: 'UTC' }],
    [{ apns_token: TOKEN, ios_permission_status: 'maybe', timezone: 'UTC' }],
    [{ apns_token: TOKEN, ios_permission_status: 'granted', timezone: 'Nowhere/Town' }],
    [{ apns_token: TOKEN, ios_permission_status: 'granted' }],
  ])('rejects %j', async (b) => {
    const res = await s.call('POST', '/v1/notifications/device', { body: b });
    expect(res.status).toBe(400);
    expect((await body(res)).error.code).toBe('VALIDATION_FAILED');
  });
});

describe('history', () => {
  it('pages the caller\'s messages newest first and shows no one else\'s', async () => {
    const as = 'history@journal.local';
    const id = await s.createUser(as);
    for (let i = 0; i < 3; i++) {
      await s.db.sql`insert into public.notification_messages (user_id, category, title, body, deeplink, created_at, sent_at)
        values (${id}, 'reminder', ${`t${i}`}, ${`b${i}`}, 'journal://home', now() - make_interval(mins => ${10 - i}), now() - make_interval(mins => ${10 - i}))`;
    }
    const first = await body(await s.call('GET', '/v1/notifications/history?limit=2', { as }));
    expect(first.data.items.map((m: { title: string }) => m.title)).toEqual(['t2', 't1']);
    expect(first.data.items[0]).toMatchObject({ category: 'reminder', body: 'b2', deeplink: 'journal://home', opened_at: null });
    expect(first.data.page.has_more).toBe(true);
    const second = await body(await s.call('GET', `/v1/notifications/history?limit=2&cursor=${first.data.page.next_cursor}`, { as }));
    expect(second.data.items.map((m: { title: string }) => m.title)).toEqual(['t0']);
    expect(second.data.page).toEqual({ next_cursor: null, has_more: false });

    const other = await body(await s.call('GET', '/v1/notifications/history', { as: USERS.trial }));
    expect(other.data.items).toEqual([]);
    expect((await s.call('GET', '/v1/notifications/history?cursor=garbage', { as })).status).toBe(400);
    expect((await s.call('GET', '/v1/notifications/history?limit=0', { as })).status).toBe(400);
  });
});

describe('POST /v1/feedback', () => {
  it('stores the feedback for the caller and answers 201', async () => {
    const res = await s.call('POST', '/v1/feedback', { body: { content: 'The check-in screen is lovely' } });
    expect(res.status).toBe(201);
    const { data } = await body(res);
    expect(data.content).toBe('The check-in screen is lovely');
    const [row] = await s.db.sql`select user_id, content from public.feedback where id = ${data.id}`;
    expect(row).toEqual({ user_id: await s.userId(USERS.trial), content: 'The check-in screen is lovely' });
  });

  it.each([[{ content: '' }], [{ content: 'x'.repeat(5001) }], [{}], [{ content: 'ok', admin_notes: 'x' }]])('rejects %j', async (b) => {
    const res = await s.call('POST', '/v1/feedback', { body: b });
    expect(res.status).toBe(400);
    expect(await body(res)).toMatchObject({ success: false, error: { code: 'VALIDATION_FAILED' } });
  });
});
