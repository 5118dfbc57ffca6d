-- check_impulse_deletable, delete_impulse_safe and expire_trials.
begin;
select plan(22);

select tests.create_user('alice', 'foundation');
select tests.create_user('bob', 'foundation');
select tests.keep('free', tests.add_impulse('alice', 'no sessions'));
select tests.keep('busy', tests.add_impulse('alice', 'has a session'));
select tests.keep('bobs', tests.add_impulse('bob', 'bob''s'));
select tests.add_session('alice', tests.id('busy'));
insert into public.notes (user_id, content, impulse_id) values (tests.uid('alice'), 'a note on the free impulse', tests.id('free'));

select tests.act_as('alice');
select is(public.check_impulse_deletable(tests.id('free')), true, 'an impulse without sessions is deletable');
select is(public.check_impulse_deletable(tests.id('busy')), false, 'an impulse with a session is not deletable');
select is(public.delete_impulse_safe(tests.id('busy')), 'has_sessions', 'delete_impulse_safe refuses an impulse with sessions');
select is(public.delete_impulse_safe(tests.id('bobs')), 'not_found', 'another user''s impulse is not_found');
select is(public.delete_impulse_safe(gen_random_uuid()), 'not_found', 'a missing impulse is not_found');
select is(public.delete_impulse_safe(tests.id('free')), 'deleted', 'delete_impulse_safe deletes an impulse without sessions');
select is(public.delete_impulse_safe(tests.id('free')), 'not_found', 'deleting it again is not_found');
select is_empty($$select id from public.impulses where id = tests.id('free')$$, 'the deleted impulse is gone');
select results_eq($$select impulse_id from public.notes where content = 'a note on the free impulse'$$, $$values (null::uuid)$$,
  'its note survives as a standalone note');

select tests.act_as('bob');
select is(public.delete_impulse_safe(tests.id('busy')), 'not_found', 'bob cannot delete alice''s impulse either');

select tests.act_as_anon();
select throws_ok($$select public.delete_impulse_safe(gen_random_uuid())$$, '42501', null, 'anon cannot call delete_impulse_safe');
select throws_ok($$select public.check_impulse_deletable(gen_random_uuid())$$, '42501', null, 'anon cannot call check_impulse_deletable');

select tests.reset_role();
select is((select count(*)::int from public.impulses where id in (tests.id('busy'), tests.id('bobs'))), 2,
  'the refused impulses still exist');

-- expire_trials: only active trials whose end has passed.
select tests.create_user('trial_past');
select tests.create_user('trial_now');
select tests.create_user('trial_future');
select tests.create_user('trial_already_expired');
select tests.create_user('partner_past', 'partner');
select tests.create_user('paid_past', 'mastery');
update public.profiles set trial_ends_at = now() - interval '1 day'
 where id in (tests.uid('trial_past'), tests.uid('partner_past'), tests.uid('paid_past'));
update public.profiles set trial_ends_at = now() where id = tests.uid('trial_now');
update public.profiles set trial_ends_at = now() - interval '10 days', subscription_status = 'expired' where id = tests.uid('trial_already_expired');

select tests.act_as('alice');
select throws_ok($$select public.expire_trials()$$, '42501', null, 'an app user cannot call expire_trials');

select tests.act_as_service();
select is(public.expire_trials(), 2, 'expire_trials returns how many trials it expired');
select tests.reset_role();
select is((select subscription_status from public.profiles where id = tests.uid('trial_past')), 'expired', 'a trial whose end passed is expired');
select is((select subscription_status from public.profiles where id = tests.uid('trial_now')), 'expired', 'a trial ending now is expired');
select is((select subscription_status from public.profiles where id = tests.uid('trial_future')), 'active', 'a trial ending later stays active');
select is((select subscription_tier || '/' || subscription_status from public.profiles where id = tests.uid('partner_past')),
  'partner/active', 'a partner is never expired by expire_trials');
select is((select subscription_tier || '/' || subscription_status from public.profiles where id = tests.uid('paid_past')),
  'mastery/active', 'a paid user is never expired by expire_trials');
select is((select count(*)::int from public.profiles where subscription_tier = 'trial' and subscription_status = 'active' and trial_ends_at > now()),
  (select count(*)::int from public.profiles where subscription_tier = 'trial' and subscription_status = 'active'),
  'no active trial with a passed end remains');
select tests.act_as_service();
select is(public.expire_trials(), 0, 'a second run expires nothing');

select * from finish();
rollback;
