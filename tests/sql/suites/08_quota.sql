-- check_impulse_quota and the quota trigger on impulses and check-ins, per tier, at the boundary.
begin;
select plan(44);

select tests.create_user('trial_user');
select tests.create_user('foundation_user', 'foundation');
select tests.create_user('mastery_user', 'mastery');
select tests.create_user('partner_user', 'partner');
select tests.create_user('last_month_user', 'foundation');
select tests.create_user('old_trial_usage', 'trial');
select tests.create_user('inactive_user', 'foundation');
select tests.create_user('expired_trial');
select tests.create_user('lapsed_trial');
update public.profiles set subscription_status = 'inactive' where id = tests.uid('inactive_user');
update public.profiles set subscription_status = 'expired', trial_ends_at = now() - interval '1 day' where id = tests.uid('expired_trial');
-- Still 'active' because expire_trials has not run yet, but the end has passed.
update public.profiles set trial_ends_at = now() - interval '1 minute' where id = tests.uid('lapsed_trial');

-- Trial: 3 impulses in total.
select tests.act_as('trial_user');
select results_eq($$select allowed, active, used, quota_limit, period from public.check_impulse_quota()$$,
  $$values (true, true, 0, 3, 'total'::text)$$, 'a new trial user has 0 of 3 impulses used');
select results_eq($$select period_start = p.trial_started_at and resets_at = p.trial_ends_at
                      from public.check_impulse_quota(), public.profiles p$$,
  $$values (true)$$, 'the trial period runs from trial start to trial end');
select lives_ok($$insert into public.impulses (user_id, content, classification) values
                  (tests.uid('trial_user'), 'one', 'contraction'), (tests.uid('trial_user'), 'two', 'expansion'),
                  (tests.uid('trial_user'), 'three', 'contraction')$$, 'a trial user creates 3 impulses');
select results_eq($$select allowed, used from public.check_impulse_quota('impulse')$$, $$values (false, 3)$$,
  'after 3 impulses the quota is used up');
select throws_ok($$insert into public.impulses (user_id, content, classification) values (tests.uid('trial_user'), 'four', 'contraction')$$,
  'P0001', 'IMPULSE_QUOTA_EXCEEDED', 'the 4th trial impulse is refused');
delete from public.impulses where content = 'one';
select throws_ok($$insert into public.impulses (user_id, content, classification) values (tests.uid('trial_user'), 'four', 'contraction')$$,
  'P0001', 'IMPULSE_QUOTA_EXCEEDED', 'deleting an impulse does not give the quota back');
select is((select count(*)::int from public.impulses), 2, 'the refused inserts stored nothing');

-- Trial: 7 check-ins in total, counted apart from impulses.
select results_eq($$select allowed, used, quota_limit from public.check_impulse_quota('check_in')$$, $$values (true, 0, 7)$$,
  'check-ins have their own trial quota of 7');
select lives_ok($$insert into public.check_ins (user_id, content) select tests.uid('trial_user'), 'c' || g from generate_series(1, 7) g$$,
  'a trial user creates 7 check-ins');
select throws_ok($$insert into public.check_ins (user_id, content) values (tests.uid('trial_user'), 'c8')$$,
  'P0001', 'IMPULSE_QUOTA_EXCEEDED', 'the 8th trial check-in is refused');
select results_eq($$select allowed, used from public.check_impulse_quota('check_in')$$, $$values (false, 7)$$,
  'check_impulse_quota reports the check-in quota used up');
select throws_ok($$select * from public.check_impulse_quota('session')$$, '22023', null, 'an unknown quota kind is an error');

-- An app user always gets its own quota, whatever for_user says.
select results_eq($$select used from public.check_impulse_quota('impulse', tests.uid('mastery_user'))$$, $$values (3)$$,
  'for_user is ignored for an app user');

-- subscription_config changes apply at once.
select tests.reset_role();
update public.subscription_config set impulse_limit = 4 where tier = 'trial';
select tests.act_as('trial_user');
select results_eq($$select allowed, quota_limit from public.check_impulse_quota()$$, $$values (true, 4)$$,
  'a raised trial limit shows at once');
select lives_ok($$insert into public.impulses (user_id, content, classification) values (tests.uid('trial_user'), 'four', 'contraction')$$,
  'a raised trial limit allows one more impulse at once');
select tests.reset_role();
update public.subscription_config set impulse_limit = 2 where tier = 'trial';
select results_eq($$select allowed, used, quota_limit from public.check_impulse_quota('impulse', tests.uid('trial_user'))$$,
  $$values (false, 4, 2)$$, 'a lowered limit below usage reports not allowed');
update public.subscription_config set impulse_limit = 3 where tier = 'trial';

-- Trial total: only the usage of the current trial counts.
insert into public.quota_usage (user_id, kind, period_start, used)
select tests.uid('old_trial_usage'), 'impulse', p.trial_started_at - interval '30 days', 3 from public.profiles p where p.id = tests.uid('old_trial_usage');
select results_eq($$select allowed, used from public.check_impulse_quota('impulse', tests.uid('old_trial_usage'))$$, $$values (true, 0)$$,
  'usage recorded for an earlier period does not count against the trial');
select lives_ok($$insert into public.impulses (user_id, content, classification) select tests.uid('old_trial_usage'), 'i' || g, 'contraction' from generate_series(1, 3) g$$,
  'the trial user still gets 3 impulses');

-- Foundation: 30 impulses and 90 check-ins per month.
select results_eq($$select allowed, used, quota_limit, period, period_start, resets_at from public.check_impulse_quota('impulse', tests.uid('foundation_user'))$$,
  $$values (true, 0, 30, 'month'::text, date_trunc('month', now() at time zone 'UTC') at time zone 'UTC',
            (date_trunc('month', now() at time zone 'UTC') + interval '1 month') at time zone 'UTC')$$,
  'foundation: 30 per UTC calendar month, resetting at the next month');
select lives_ok($$insert into public.impulses (user_id, content, classification) select tests.uid('foundation_user'), 'i' || g, 'contraction' from generate_series(1, 30) g$$,
  'foundation creates 30 impulses');
select throws_ok($$insert into public.impulses (user_id, content, classification) values (tests.uid('foundation_user'), 'i31', 'contraction')$$,
  'P0001', 'IMPULSE_QUOTA_EXCEEDED', 'the 31st foundation impulse of the month is refused');
select lives_ok($$insert into public.check_ins (user_id, content) select tests.uid('foundation_user'), 'c' || g from generate_series(1, 90) g$$,
  'foundation creates 90 check-ins');
select throws_ok($$insert into public.check_ins (user_id, content) values (tests.uid('foundation_user'), 'c91')$$,
  'P0001', 'IMPULSE_QUOTA_EXCEEDED', 'the 91st foundation check-in of the month is refused');

-- Monthly: last month's usage does not count.
insert into public.quota_usage (user_id, kind, period_start, used)
values (tests.uid('last_month_user'), 'impulse', (date_trunc('month', now() at time zone 'UTC') - interval '1 month') at time zone 'UTC', 30);
select results_eq($$select allowed, used from public.check_impulse_quota('impulse', tests.uid('last_month_user'))$$, $$values (true, 0)$$,
  'a full quota last month does not count this month');
select lives_ok($$insert into public.impulses (user_id, content, classification) values (tests.uid('last_month_user'), 'new month', 'expansion')$$,
  'a user who used all of last month creates an impulse this month');

-- Mastery: 60 impulses, 180 check-ins.
select results_eq($$select quota_limit from public.check_impulse_quota('check_in', tests.uid('mastery_user'))$$, $$values (180)$$,
  'mastery: 180 check-ins per month');
select lives_ok($$insert into public.impulses (user_id, content, classification) select tests.uid('mastery_user'), 'i' || g, 'contraction' from generate_series(1, 60) g$$,
  'mastery creates 60 impulses');
select throws_ok($$insert into public.impulses (user_id, content, classification) values (tests.uid('mastery_user'), 'i61', 'contraction')$$,
  'P0001', 'IMPULSE_QUOTA_EXCEEDED', 'the 61st mastery impulse is refused');

-- Partner: 30 per month.
select lives_ok($$insert into public.impulses (user_id, content, classification) select tests.uid('partner_user'), 'i' || g, 'contraction' from generate_series(1, 30) g$$,
  'partner creates 30 impulses');
select throws_ok($$insert into public.impulses (user_id, content, classification) values (tests.uid('partner_user'), 'i31', 'contraction')$$,
  'P0001', 'IMPULSE_QUOTA_EXCEEDED', 'the 31st partner impulse is refused');
select results_eq($$select allowed, used, quota_limit, period from public.check_impulse_quota('impulse', tests.uid('partner_user'))$$,
  $$values (false, 30, 30, 'month'::text)$$, 'partner quota reported used up');

-- An unlimited tier (null limit).
update public.subscription_config set impulse_limit = null where tier = 'mastery';
select results_eq($$select allowed, quota_limit from public.check_impulse_quota('impulse', tests.uid('mastery_user'))$$, $$values (true, null::int)$$,
  'a null limit means unlimited');
select lives_ok($$insert into public.impulses (user_id, content, classification) values (tests.uid('mastery_user'), 'i61', 'contraction')$$,
  'an unlimited tier creates past the old limit');

-- No access: nothing allowed.
select results_eq($$select allowed, active from public.check_impulse_quota('impulse', tests.uid('inactive_user'))$$, $$values (false, false)$$,
  'an inactive user has no quota');
select throws_ok($$insert into public.impulses (user_id, content, classification) values (tests.uid('inactive_user'), 'x', 'contraction')$$,
  'P0001', 'IMPULSE_QUOTA_EXCEEDED', 'an inactive user cannot create an impulse');
select throws_ok($$insert into public.check_ins (user_id, content) values (tests.uid('inactive_user'), 'x')$$,
  'P0001', 'IMPULSE_QUOTA_EXCEEDED', 'an inactive user cannot create a check-in');
select results_eq($$select allowed, active from public.check_impulse_quota('impulse', tests.uid('expired_trial'))$$, $$values (false, false)$$,
  'an expired trial has no quota');
select throws_ok($$insert into public.impulses (user_id, content, classification) values (tests.uid('expired_trial'), 'x', 'contraction')$$,
  'P0001', 'IMPULSE_QUOTA_EXCEEDED', 'an expired trial cannot create an impulse');
select results_eq($$select allowed, active from public.check_impulse_quota('impulse', tests.uid('lapsed_trial'))$$, $$values (false, false)$$,
  'a trial past its end (not yet marked expired) has no quota');
select throws_ok($$insert into public.check_ins (user_id, content) values (tests.uid('lapsed_trial'), 'x')$$,
  'P0001', 'IMPULSE_QUOTA_EXCEEDED', 'a trial past its end cannot create a check-in');
select is((select coalesce(sum(used), 0)::int from public.quota_usage where user_id in (tests.uid('inactive_user'), tests.uid('expired_trial'), tests.uid('lapsed_trial'))),
  0, 'refused creates consume nothing');
select is_empty($$select * from public.check_impulse_quota('impulse', gen_random_uuid())$$, 'an unknown user gets no quota row');

-- Who may call it.
select tests.act_as_service();
select results_eq($$select used from public.check_impulse_quota('impulse', tests.uid('foundation_user'))$$, $$values (30)$$,
  'the service role reads a given user''s quota');
select tests.act_as_anon();
select throws_ok($$select * from public.check_impulse_quota()$$, '42501', null, 'anon cannot call check_impulse_quota');

select * from finish();
rollback;
