// Profile, quota and the subscription middleware through the api app, on a real database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { body, startAppStack, USERS, type AppStack } from './setup.ts';

let s: AppStack;
beforeAll(async () => {
  s = await startAppStack();
});
afterAll(() => s.close());

describe('GET /v1/profile', () => {
  it('answers the caller\'s profile with the access verdict', async () => {
    const res = await s.call('GET', '/v1/profile');
    expect(res.status).toBe(200);
    const { success, data } = await body(res);
    expect(success).toBe(true);
    expect(data).toMatchObject({
      email: USERS.trial,
      display_name: 'Dev Trial',
      subscription_tier: 'trial',
      subscription_status: 'active',
      access: { active: true },
    });
    expect(Date.parse(data.trial_ends_at)).toBeGreaterThan(Date.now());
  });

  it('reports access inactive for an expired trial', async () => {
    const id = await s.createUser('expired-profile@journal.local');
    await s.db.sql`update public.profiles set trial_ends_at = now() - interval '1 day' where id = ${id}`;
    const { data } = await body(await s.call('GET', '/v1/profile', { as: 'expired-profile@journal.local' }));
    expect(data.access).toEqual({ active: false });
  });
});

describe('PATCH /v1/profile', () => {
  it('updates the user-changeable fields', async () => {
    const res = await s.call('PATCH', '/v1/profile', {
      as: USERS.mastery,
      body: { display_name: 'Kari', preferred_language: 'no', birth_year: 1990, ai_personalization_enabled: false, notification_email: 'kari@example.com' },
    });
    expect(res.status).toBe(200);
    const { data } = await body(res);
    expect(data).toMatchObject({ display_name: 'Kari', preferred_language: 'no', birth_year: 1990, ai_personalization_enabled: false });
    const [row] = await s.db.sql`select display_name, notification_email from public.profiles where id = ${await s.userId(USERS.mastery)}`;
    expect(row).toEqual({ display_name: 'Kari', notification_email: 'kari@example.com' });
  });

  it('refuses the subscription tier with a 400 envelope and changes nothing', async () => {
    const res = await s.call('PATCH', '/v1/profile', { body: { display_name: 'X', subscription_tier: 'mastery' } });
    expect(res.status).toBe(400);
    const b = await body(res);
    expect(b).toMatchObject({ success: false, error: { code: 'VALIDATION_FAILED' } });
    const [row] = await s.db.sql`select subscription_tier, display_name from public.profiles where id = ${await s.userId(USERS.trial)}`;
    expect(row).toEqual({ subscription_tier: 'trial', display_name: 'Dev Trial' });
  });

  it.each([
    [{ subscription_status: 'active' }],
    [{ is_partner: true }],
    [{ preferred_language: 'de' }],
    [{ birth_year: 1800 }],
    [{ notification_email: 'not-an-email' }],
    [{}],
  ])('rejects %j', async (patch) => {
    const res = await s.call('PATCH', '/v1/profile', { body: patch });
    expect(res.status).toBe(400);
    expect((await body(res)).error.code).toBe('VALIDATION_FAILED');
  });
});

describe('DELETE /v1/profile', () => {
  it('needs confirm: true', async () => {
    const res = await s.call('DELETE', '/v1/profile', { body: { confirm: false } });
    expect(res.status).toBe(400);
  });

  it('soft-deletes the identity and erases the profile with its journal', async () => {
    const email = 'leaving@journal.local';
    const id = await s.createUser(email);
    await s.db.sql`insert into public.check_ins (user_id, content) values (${id}, 'a check-in')`;
    const res = await s.call('DELETE', '/v1/profile', { as: email, body: { confirm: true } });
    expect(res.status).toBe(200);
    expect((await body(res)).data).toEqual({ deleted: true });
    const [user] = await s.db.sql`select deleted_at from auth.users where id = ${id}`;
    expect(user!.deleted_at).toBeInstanceOf(Date);
    expect(await s.db.sql`select 1 from public.profiles where id = ${id}`).toHaveLength(0);
    expect(await s.db.sql`select 1 from public.check_ins where user_id = ${id}`).toHaveLength(0);
    // The dev token no longer resolves the deleted account.
    expect((await s.call('GET', '/v1/profile', { as: email })).status).toBe(401);
  });
});

describe('GET /v1/quota', () => {
  it('answers used, limit, period and reset for both kinds', async () => {
    const email = 'quota@journal.local';
    const id = await s.createUser(email);
    await s.db.sql`insert into public.impulses (user_id, content, classification) values (${id}, 'first impulse', 'expansion')`;
    const res = await s.call('GET', '/v1/quota', { as: email });
    expect(res.status).toBe(200);
    const { data } = await body(res);
    expect(data.access).toEqual({ active: true });
    expect(data.impulse).toMatchObject({ used: 1, limit: 3, period: 'total', allowed: true });
    expect(data.check_in).toMatchObject({ used: 0, limit: 7, period: 'total', allowed: true });
    const [p] = await s.db.sql<{ trial_ends_at: Date }[]>`select trial_ends_at from public.profiles where id = ${id}`;
    expect(data.impulse.resets_at).toBe(p!.trial_ends_at.toISOString());
  });

  it('sees a subscription_config change at once', async () => {
    await s.db.sql`update public.subscription_config set impulse_limit = 1, check_in_limit = null where tier = 'trial'`;
    try {
      const { data } = await body(await s.call('GET', '/v1/quota', { as: 'quota@journal.local' }));
      expect(data.impulse).toMatchObject({ used: 1, limit: 1, allowed: false });
      expect(data.check_in).toMatchObject({ limit: null, allowed: true });
    } finally {
      await s.db.sql`update public.subscription_config set impulse_limit = 3, check_in_limit = 7 where tier = 'trial'`;
    }
  });

  it('answers monthly periods for paid tiers and not allowed when access is inactive', async () => {
    const { data } = await body(await s.call('GET', '/v1/quota', { as: USERS.foundation }));
    expect(data.impulse).toMatchObject({ limit: 30, period: 'month', allowed: true });
    expect(new Date(data.impulse.resets_at).getUTCDate()).toBe(1);

    const id = await s.createUser('quota-expired@journal.local');
    await s.db.sql`update public.profiles set subscription_status = 'expired' where id = ${id}`;
    const expired = await body(await s.call('GET', '/v1/quota', { as: 'quota-expired@journal.local' }));
    expect(expired.data.access).toEqual({ active: false });
    expect(expired.data.impulse).toMatchObject({ used: 0, allowed: false });
  });
});

describe('subscription middleware', () => {
  it('answers 403 SUBSCRIPTION_INACTIVE on gated routes for an inactive user, and lets the active through', async () => {
    const email = 'paywalled@journal.local';
    const id = await s.createUser(email);
    await s.db.sql`update public.profiles set subscription_status = 'expired' where id = ${id}`;
    for (const [method, path, reqBody] of [
      ['POST', '/v1/search', { query: 'anything' }],
      ['POST', '/v1/analytics/insights/regenerate', undefined],
    ] as const) {
      const res = await s.call(method, path, { as: email, body: reqBody });
      expect(res.status).toBe(403);
      expect(await body(res)).toMatchObject({ success: false, error: { code: 'SUBSCRIPTION_INACTIVE' } });
    }
    // Ungated routes still work for the same user.
    for (const path of ['/v1/profile', '/v1/quota', '/v1/notifications/preferences', '/v1/analytics/dashboard']) {
      expect((await s.call('GET', path, { as: email })).status).toBe(200);
    }
    expect((await s.call('POST', '/v1/feedback', { as: email, body: { content: 'let me in' } })).status).toBe(201);
    // The partner (is_partner + active) passes the same gate.
    expect((await s.call('POST', '/v1/search', { as: USERS.partner, body: { query: 'anything' } })).status).toBe(200);
  });
});
