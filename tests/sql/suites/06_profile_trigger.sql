-- create_user_profile: a new auth user gets a trial profile and notification preferences.
-- now() is the transaction start, so the trigger's timestamps equal now() exactly here.
begin;
select plan(17);

insert into auth.users (id, email, raw_app_meta_data)
values ('10000000-0000-4000-8000-000000000001', 'new@example.com', '{"provider":"google","providers":["google"]}');

select is((select email from public.profiles where id = '10000000-0000-4000-8000-000000000001'), 'new@example.com',
  'the profile has the auth user''s id and email');
select is((select subscription_tier || '/' || subscription_status from public.profiles where id = '10000000-0000-4000-8000-000000000001'),
  'trial/active', 'a new user is trial/active');
select is((select trial_started_at from public.profiles where id = '10000000-0000-4000-8000-000000000001'), now(),
  'trial_started_at is now');
select is((select trial_ends_at from public.profiles where id = '10000000-0000-4000-8000-000000000001'), now() + interval '7 days',
  'trial_ends_at is 7 days later');
select is((select auth_provider from public.profiles where id = '10000000-0000-4000-8000-000000000001'), 'google',
  'auth_provider comes from raw_app_meta_data');
select is((select not trial_converted and not is_partner and subscription_end_date is null from public.profiles
            where id = '10000000-0000-4000-8000-000000000001'), true, 'not converted, not a partner, no end date');
select is((select consent::text || '/' || timezone || '/' || (categories -> 'reminder' ->> 'enabled')
             from public.user_notification_preferences where user_id = '10000000-0000-4000-8000-000000000001'),
  'false/UTC/true', 'notification preferences are created: no consent yet, categories enabled');
select is(public.is_subscription_active(p.subscription_tier, p.subscription_status, p.trial_ends_at, p.subscription_end_date, p.is_partner),
  true, 'the new trial passes the access rule') from public.profiles p where id = '10000000-0000-4000-8000-000000000001';

-- Email fallback and providers outside apple/google.
insert into auth.users (id, email, raw_app_meta_data) values
  ('10000000-0000-4000-8000-000000000002', null, '{"provider":"apple"}'),
  ('10000000-0000-4000-8000-000000000003', '', '{"provider":"email"}'),
  ('10000000-0000-4000-8000-000000000004', 'x@example.com', '{}');
select is((select email from public.profiles where id = '10000000-0000-4000-8000-000000000002'),
  '10000000-0000-4000-8000-000000000002@users.invalid', 'a user without email gets the .invalid fallback');
select is((select email from public.profiles where id = '10000000-0000-4000-8000-000000000003'),
  '10000000-0000-4000-8000-000000000003@users.invalid', 'an empty email gets the fallback too');
select is((select auth_provider from public.profiles where id = '10000000-0000-4000-8000-000000000002'), 'apple', 'apple provider is kept');
select is((select auth_provider from public.profiles where id = '10000000-0000-4000-8000-000000000003'), null,
  'a provider other than apple/google is stored as null');
select is((select auth_provider from public.profiles where id = '10000000-0000-4000-8000-000000000004'), null,
  'no provider is stored as null');

-- The trial length follows subscription_config at once.
update public.subscription_config set trial_days = 14 where tier = 'trial';
insert into auth.users (id, email) values ('10000000-0000-4000-8000-000000000005', 'late@example.com');
select is((select trial_ends_at from public.profiles where id = '10000000-0000-4000-8000-000000000005'), now() + interval '14 days',
  'a changed trial_days applies to the next sign-up');
select is((select trial_ends_at from public.profiles where id = '10000000-0000-4000-8000-000000000001'), now() + interval '7 days',
  'existing trials keep their end');

-- The auth service (here the service role) creating a user also gets the profile.
select tests.act_as_service();
insert into auth.users (id, email) values ('10000000-0000-4000-8000-000000000006', 'svc@example.com');
select tests.reset_role();
select is((select count(*)::int from public.profiles p join public.user_notification_preferences n on n.user_id = p.id
            where p.id = '10000000-0000-4000-8000-000000000006'), 1, 'a user created by the service role gets profile and preferences');

-- Deleting the auth user takes the profile with it.
delete from auth.users where id = '10000000-0000-4000-8000-000000000001';
select is_empty($$select id from public.profiles where id = '10000000-0000-4000-8000-000000000001'$$,
  'deleting the auth user deletes the profile');

select * from finish();
rollback;
