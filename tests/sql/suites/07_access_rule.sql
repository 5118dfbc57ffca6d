-- is_subscription_active: every row of the spec's access table, and its edges.
begin;
select plan(23);

select is(public.is_subscription_active('trial', 'active', now() + interval '1 day', null), true, 'trial with trial_ends_at in the future: active');
select is(public.is_subscription_active('trial', 'active', now() - interval '1 second', null), false, 'trial with trial_ends_at passed: paywall');
select is(public.is_subscription_active('trial', 'active', null, null), false, 'trial without an end: paywall');
select is(public.is_subscription_active('trial', 'expired', now() + interval '1 day', null), false, 'trial/expired with a future end: paywall');
select is(public.is_subscription_active('trial', 'active', '2030-01-01T00:00:00Z', null, false, '2030-01-01T00:00:00Z'), false,
  'trial at exactly trial_ends_at: paywall');
select is(public.is_subscription_active('trial', 'active', '2030-01-01T00:00:00Z', null, false, '2029-12-31T23:59:59Z'), true,
  'trial one second before trial_ends_at: active');

select is(public.is_subscription_active('partner', 'active', null, null, true), true, 'partner, is_partner true, active: active');
select is(public.is_subscription_active('partner', 'active', null, null, false), false, 'partner, is_partner false: paywall');
select is(public.is_subscription_active('partner', 'active', null, null), false, 'partner without the flag (default false): paywall');
select is(public.is_subscription_active('partner', 'inactive', null, null, true), false, 'partner, is_partner true, inactive: paywall');
select is(public.is_subscription_active('partner', 'cancelled', null, now() + interval '1 day', true), false, 'partner, cancelled: paywall');

select is(public.is_subscription_active('foundation', 'active', null, now() + interval '30 days'), true, 'foundation active: active');
select is(public.is_subscription_active('mastery', 'active', null, null), true, 'mastery active without end date: active');
select is(public.is_subscription_active('foundation', 'cancelled', null, now() + interval '1 day'), true, 'cancelled, end in the future: active');
select is(public.is_subscription_active('mastery', 'cancelled', null, now() - interval '1 second'), false, 'cancelled, end passed: paywall');
select is(public.is_subscription_active('mastery', 'cancelled', null, null), false, 'cancelled without end date: paywall');
select is(public.is_subscription_active('foundation', 'expired', null, now() + interval '1 day'), false, 'paid expired: paywall');
select is(public.is_subscription_active('mastery', 'inactive', null, now() + interval '1 day'), false, 'paid inactive: paywall');
select is(public.is_subscription_active('trial', 'inactive', now() + interval '1 day', null), false, 'trial inactive: paywall');
select is(public.is_subscription_active('foundation', 'past_due', null, now() + interval '1 day'), false, 'paid past_due: paywall');
select is(public.is_subscription_active('foundation', null, null, now() + interval '1 day'), false, 'no status: paywall');
select is(public.is_subscription_active('platinum', 'active', now() + interval '1 day', now() + interval '1 day', true), false, 'unknown tier: paywall');

select tests.act_as_anon();
select throws_ok($$select public.is_subscription_active('trial', 'active', now(), null)$$, '42501', null, 'anon cannot call is_subscription_active');

select * from finish();
rollback;
