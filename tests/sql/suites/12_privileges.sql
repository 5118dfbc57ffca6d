-- Function and table privileges as a whole: what anon and authenticated can reach at all.
begin;
select plan(9);

-- The project's own functions in public (pgTAP, installed there for the tests, is left out).
create temp view own_functions as
select p.oid, p.proname::text as name, p.prosecdef as definer, p.proconfig as config
  from pg_proc p join pg_namespace n on n.oid = p.pronamespace
 where n.nspname = 'public'
   and not exists (select 1 from pg_depend d where d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e');

select is_empty($$select name from own_functions where has_function_privilege('anon', oid, 'execute')$$,
  'anon can execute no function of the project');
select set_eq($$select name from own_functions where has_function_privilege('authenticated', oid, 'execute')$$,
  array['is_subscription_active', 'quota_period_start', 'check_impulse_quota', 'check_impulse_deletable', 'delete_impulse_safe',
        'find_similar_impulses', 'find_similar_to_impulse', 'find_similar_sessions', 'find_sessions_similar_to_impulse',
        'find_similar_check_ins', 'known_timezone'],
  'authenticated executes exactly the app-facing functions');
select is_empty($$select name from own_functions where not has_function_privilege('service_role', oid, 'execute')$$,
  'the service role executes every function');
select is_empty($$select name from own_functions where definer and has_function_privilege('authenticated', oid, 'execute')$$,
  'no security-definer function is callable by app users');
select is_empty($$select name from own_functions where not coalesce(array_to_string(config, ',') like '%search_path=%', false)$$,
  'every function pins its search_path');

-- Tables: anon has no privilege anywhere in public; authenticated never truncates or references.
select is_empty($$select table_name::text from information_schema.role_table_grants where grantee = 'anon' and table_schema = 'public'$$,
  'anon holds no table privilege in public');
select is_empty($$select table_name::text || '.' || column_name from information_schema.column_privileges where grantee = 'anon' and table_schema = 'public'$$,
  'anon holds no column privilege in public');
select is_empty($$select table_name::text || ' ' || privilege_type from information_schema.role_table_grants
                   where grantee = 'authenticated' and table_schema = 'public' and privilege_type in ('TRUNCATE', 'REFERENCES', 'TRIGGER')$$,
  'authenticated holds no truncate, references or trigger privilege');

-- Every policy is scoped to a role (none applies to public, i.e. to anon too).
select is_empty($$select tablename::text || '.' || policyname from pg_policies where schemaname = 'public' and 'public' = any (roles)$$,
  'no policy applies to every role');

select * from finish();
rollback;
