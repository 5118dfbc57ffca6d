-- Helpers for the pgTAP suites in tests/sql/suites. Applied once to the fresh test database
-- (scripts/test-sql.sh) before pg_prove runs the suites; every suite rolls back its own changes.
create extension if not exists pgtap;

create schema if not exists tests;
grant usage on schema tests to anon, authenticated, service_role;

-- A named test user. The insert into auth.users fires the real profile trigger; the tier is
-- then set the way the store, webhook or admin flows leave it.
create or replace function tests.create_user(name text, tier text default 'trial') returns uuid
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid;
begin
  insert into auth.users (email, raw_app_meta_data, raw_user_meta_data)
  values (name || '@test.local', '{"provider":"apple"}'::jsonb, jsonb_build_object('test_name', name))
  returning id into uid;
  if tier in ('foundation', 'mastery') then
    update public.profiles set subscription_tier = tier, subscription_status = 'active', trial_converted = true,
           billing_period = 'monthly', subscription_end_date = now() + interval '30 days'
     where id = uid;
  elsif tier = 'partner' then
    update public.profiles set subscription_tier = 'partner', subscription_status = 'active', is_partner = true,
           partner_source = 'beta_tester'
     where id = uid;
  elsif tier <> 'trial' then
    raise exception 'unknown tier %', tier;
  end if;
  return uid;
end $$;

-- Security definer: called while acting as a user, who cannot read auth.users.
create or replace function tests.uid(name text) returns uuid
language sql stable security definer set search_path = '' as $$
  select u.id from auth.users u where u.raw_user_meta_data ->> 'test_name' = name
$$;

-- Acts as the named user for the rest of the transaction: the claims PostgREST/our API would
-- set AND the authenticated role (the table owner would bypass RLS).
create or replace function tests.act_as(name text) returns void
language plpgsql set search_path = '' as $$
declare
  uid uuid := tests.uid(name);
begin
  if uid is null then
    raise exception 'no test user named %', name;
  end if;
  perform set_config('request.jwt.claims', jsonb_build_object(
    'sub', uid, 'role', 'authenticated', 'email', name || '@test.local', 'aud', 'authenticated',
    'is_anonymous', false, 'aal', 'aal1')::text, true);
  perform set_config('role', 'authenticated', true);
end $$;

create or replace function tests.act_as_anon() returns void
language plpgsql set search_path = '' as $$
begin
  perform set_config('request.jwt.claims', '{"role":"anon"}', true);
  perform set_config('role', 'anon', true);
end $$;

create or replace function tests.act_as_service() returns void
language plpgsql set search_path = '' as $$
begin
  perform set_config('request.jwt.claims', '{"role":"service_role"}', true);
  perform set_config('role', 'service_role', true);
end $$;

-- Back to the session user (the superuser that owns the tables), without claims.
create or replace function tests.reset_role() returns void
language plpgsql set search_path = '' as $$
begin
  perform set_config('request.jwt.claims', '', true);
  perform set_config('role', 'none', true);
end $$;

-- True when every ordinary table of the schema has row-level security enabled.
create or replace function tests.rls_enabled(schema_name text) returns boolean
language sql stable set search_path = '' as $$
  select coalesce(bool_and(c.relrowsecurity), true)
    from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
   where n.nspname = schema_name and c.relkind in ('r', 'p')
$$;

-- A 512-dimensional unit vector at `degrees` from the x axis in the x/y plane. The cosine
-- similarity of tests.vec(a) and tests.vec(b) is exactly cos(a - b).
create or replace function tests.vec(degrees double precision) returns extensions.vector
language sql immutable set search_path = '' as $$
  select (array[cosd(degrees)::real, sind(degrees)::real]
          || array_fill(0::real, array[510]))::extensions.vector(512)
$$;

-- The angle whose vector has cosine similarity `sim` with tests.vec(0).
create or replace function tests.vec_sim(sim double precision) returns extensions.vector
language sql immutable set search_path = '' as $$
  select tests.vec(acosd(sim))
$$;

-- Rows for the suites, inserted as the owner (bypassing RLS, still through the quota trigger).
create or replace function tests.add_impulse(owner text, content text default 'an impulse',
                                             embedding extensions.vector default null) returns uuid
language sql security definer set search_path = '' as $$
  insert into public.impulses (user_id, content, classification, embedding)
  values (tests.uid(owner), content, 'contraction', embedding) returning id
$$;

create or replace function tests.add_session(owner text, impulse uuid, embedding extensions.vector default null)
returns uuid
language sql security definer set search_path = '' as $$
  insert into public.sessions (user_id, impulse_id, classification, embedding, status)
  values (tests.uid(owner), impulse, 'contraction', embedding, 'completed') returning id
$$;

create or replace function tests.add_check_in(owner text, content text default 'a check-in',
                                              embedding extensions.vector default null) returns uuid
language sql security definer set search_path = '' as $$
  insert into public.check_ins (user_id, content, embedding) values (tests.uid(owner), content, embedding) returning id
$$;

-- Named ids for the rest of the transaction, readable under any role (psql variables are not
-- expanded inside the dollar-quoted statements that pgTAP runs).
create or replace function tests.keep(key text, id uuid) returns uuid
language sql set search_path = '' as $$
  select set_config('tests.' || key, id::text, true)::uuid
$$;

create or replace function tests.id(key text) returns uuid
language sql stable set search_path = '' as $$
  select current_setting('tests.' || key)::uuid   -- errors on an unknown key
$$;

grant execute on all functions in schema tests to anon, authenticated, service_role;
