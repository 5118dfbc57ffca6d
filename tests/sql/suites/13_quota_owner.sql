-- The quota trigger refuses a row for another user before it touches that user's quota, so the
-- answer never depends on (and never reveals or changes) the other user's account state.
begin;
select plan(13);

select tests.create_user('quota_writer');
select tests.create_user('victim_open');                 -- trial with quota left
select tests.create_user('victim_full');                 -- trial with the quota used up
select tests.create_user('victim_expired');              -- trial that has ended
select tests.create_user('victim_paid', 'mastery');      -- unlimited
update public.profiles set subscription_status = 'expired', trial_ends_at = now() - interval '1 day'
 where id = tests.uid('victim_expired');
select tests.add_impulse('victim_full') from generate_series(1, 3);

create temporary table quota_before on commit drop as
  select user_id, kind, period_start, used from public.quota_usage;
grant select on quota_before to authenticated;

select tests.act_as('quota_writer');
select throws_ok(format($$insert into public.impulses (user_id, content, classification) values (%L, 'x', 'contraction')$$, tests.uid(v)),
  '42501', 'new row violates row-level security policy for table "impulses"', 'an impulse for ' || v || ' is refused as an RLS violation')
  from unnest(array['victim_open', 'victim_full', 'victim_expired', 'victim_paid']) v;
select throws_ok(format($$insert into public.check_ins (user_id, content) values (%L, 'x')$$, tests.uid(v)),
  '42501', 'new row violates row-level security policy for table "check_ins"', 'a check-in for ' || v || ' is refused as an RLS violation')
  from unnest(array['victim_open', 'victim_full', 'victim_expired', 'victim_paid']) v;
select tests.reset_role();

select results_eq($$select user_id, kind, period_start, used from public.quota_usage order by 1, 2, 3$$,
  $$select user_id, kind, period_start, used from quota_before order by 1, 2, 3$$,
  'the refused inserts changed no quota usage');
select is((select count(*)::int from public.impulses where user_id <> tests.uid('victim_full')), 0,
  'the refused inserts stored no impulse');

-- The owner's own inserts, and service inserts (no auth.uid()), still go through the quota.
select tests.act_as('quota_writer');
select lives_ok($$insert into public.impulses (user_id, content, classification) values (tests.uid('quota_writer'), 'mine', 'contraction')$$,
  'a user still creates its own impulse');
select tests.reset_role();
select is((select used from public.quota_usage where user_id = tests.uid('quota_writer') and kind = 'impulse'), 1,
  'the own impulse consumed one unit of the own quota');
select tests.act_as_service();
select throws_ok($$insert into public.impulses (user_id, content, classification) values (tests.uid('victim_full'), 'svc', 'contraction')$$,
  'P0001', 'IMPULSE_QUOTA_EXCEEDED', 'a service insert is still held to the owner''s quota');

select * from finish();
rollback;
