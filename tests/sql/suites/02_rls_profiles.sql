-- profiles under anon, the owner, another user and the service role; column grants on update.
begin;
select plan(19);

select tests.create_user('alice');
select tests.create_user('bob');

-- anon: no grant at all.
select tests.act_as_anon();
select throws_ok($$select id from public.profiles$$, '42501', 'permission denied for table profiles', 'anon cannot read profiles');
select throws_ok($$update public.profiles set display_name = 'x'$$, '42501', null, 'anon cannot update profiles');

-- The owner.
select tests.act_as('alice');
select results_eq($$select id from public.profiles$$, $$values (tests.uid('alice'))$$, 'alice reads only her own profile');
select is_empty($$select id from public.profiles where id = tests.uid('bob')$$, 'alice cannot read bob''s profile');
select results_eq(
  $$with u as (update public.profiles set display_name = 'Alice', preferred_language = 'no', birth_year = 1990 where id = tests.uid('alice') returning display_name) select display_name from u$$,
  $$values ('Alice'::text)$$, 'alice updates her display_name, language and birth year');
select throws_ok($$update public.profiles set subscription_tier = 'mastery' where id = tests.uid('alice')$$,
  '42501', 'permission denied for table profiles', 'alice cannot change her subscription_tier');
select throws_ok($$update public.profiles set subscription_status = 'active', trial_ends_at = now() + interval '1 year' where id = tests.uid('alice')$$,
  '42501', 'permission denied for table profiles', 'alice cannot change her subscription_status or trial end');
select throws_ok($$update public.profiles set is_partner = true where id = tests.uid('alice')$$,
  '42501', 'permission denied for table profiles', 'alice cannot make herself a partner');
select throws_ok($$update public.profiles set email = 'other@x.y' where id = tests.uid('alice')$$,
  '42501', 'permission denied for table profiles', 'alice cannot change the sign-in email');
select throws_ok($$update public.profiles set id = tests.uid('bob') where id = tests.uid('alice')$$,
  '42501', 'permission denied for table profiles', 'alice cannot move her profile to another id');
select is_empty($$with u as (update public.profiles set display_name = 'hacked' where id = tests.uid('bob') returning id) select id from u$$,
  'alice updates no row of bob''s profile');
select throws_ok($$insert into public.profiles (id, email) values (gen_random_uuid(), 'x@y.z')$$,
  '42501', 'permission denied for table profiles', 'alice cannot insert a profile');
select throws_ok($$delete from public.profiles where id = tests.uid('alice')$$,
  '42501', 'permission denied for table profiles', 'alice cannot delete her profile directly');

-- Another user sees its own only.
select tests.act_as('bob');
select results_eq($$select id from public.profiles$$, $$values (tests.uid('bob'))$$, 'bob reads only his own profile');

-- The service role reads and writes all, including tier and status.
select tests.act_as_service();
select results_eq($$select count(*)::int from public.profiles where id in (tests.uid('alice'), tests.uid('bob'))$$,
  $$values (2)$$, 'service role reads every profile');
select lives_ok($$update public.profiles set subscription_tier = 'mastery', subscription_status = 'active' where id = tests.uid('bob')$$,
  'service role changes tier and status');

select tests.reset_role();
select is((select display_name from public.profiles where id = tests.uid('bob')), null, 'bob''s display_name is untouched');
select is((select subscription_tier || '/' || subscription_status || '/' || is_partner from public.profiles where id = tests.uid('alice')),
  'trial/active/false', 'alice''s tier, status and partner flag are untouched');
select is((select display_name || '/' || preferred_language from public.profiles where id = tests.uid('alice')),
  'Alice/no', 'alice''s own update was stored');

select * from finish();
rollback;
