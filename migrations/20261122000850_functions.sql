-- SQL functions of the spec, the profile trigger, and quota enforcement.

-- The access rule; mirrors isSubscriptionActive in shared/domain/access.ts (a test runs both).
create or replace function public.is_subscription_active(
  tier text, status text, trial_ends_at timestamptz, subscription_end_date timestamptz,
  is_partner boolean default false, at timestamptz default now()
) returns boolean language sql immutable set search_path = '' as $$
  select case
    when status is null or status in ('expired', 'inactive') then false
    when tier = 'trial' then status = 'active' and trial_ends_at is not null and trial_ends_at > at
    when tier = 'partner' then coalesce(is_partner, false) and status = 'active'
    when tier in ('foundation', 'mastery') then
      status = 'active' or (status = 'cancelled' and subscription_end_date is not null and subscription_end_date > at)
    else false
  end
$$;

-- Start of the quota period: the trial start for total quotas, the UTC month otherwise.
create or replace function public.quota_period_start(p public.profiles, period text, at timestamptz default now())
returns timestamptz language sql stable set search_path = '' as $$
  select case when period = 'total' then coalesce(p.trial_started_at, p.created_at)
              else date_trunc('month', at at time zone 'UTC') at time zone 'UTC' end
$$;

-- Remaining quota of the calling user (or of `for_user` when called by the service role).
create or replace function public.check_impulse_quota(kind text default 'impulse', for_user uuid default null)
returns table (allowed boolean, active boolean, used integer, quota_limit integer, period text,
               period_start timestamptz, resets_at timestamptz)
language plpgsql stable set search_path = '' as $$
declare
  -- An app user always gets its own quota (RLS hides other profiles anyway).
  uid uuid := coalesce(auth.uid(), for_user);
  p public.profiles;
  c public.subscription_config;
  start_at timestamptz;
  n integer;
  lim integer;
begin
  if kind not in ('impulse', 'check_in') then
    raise exception 'unknown quota kind %', kind using errcode = '22023';
  end if;
  select * into p from public.profiles where id = uid;
  if not found then return; end if;
  select * into c from public.subscription_config where tier = p.subscription_tier;
  lim := case kind when 'impulse' then c.impulse_limit else c.check_in_limit end;
  start_at := public.quota_period_start(p, coalesce(c.quota_period, 'month'));
  select coalesce(q.used, 0) into n from public.quota_usage q
   where q.user_id = uid and q.kind = check_impulse_quota.kind and q.period_start = start_at;
  n := coalesce(n, 0);
  active := public.is_subscription_active(p.subscription_tier, p.subscription_status, p.trial_ends_at,
                                          p.subscription_end_date, p.is_partner);
  allowed := active and (lim is null or n < lim);
  used := n;
  quota_limit := lim;
  period := coalesce(c.quota_period, 'month');
  period_start := start_at;
  resets_at := case when period = 'total' then p.trial_ends_at else start_at + interval '1 month' end;
  return next;
end $$;

-- Consumes one unit atomically: the profile row lock serialises concurrent creates of one user.
create or replace function public.consume_quota(uid uuid, quota_kind text) returns boolean
language plpgsql security definer set search_path = '' as $$
declare
  p public.profiles;
  c public.subscription_config;
  start_at timestamptz;
  lim integer;
  n integer;
begin
  select * into p from public.profiles where id = uid for update;
  if not found then return false; end if;
  if not public.is_subscription_active(p.subscription_tier, p.subscription_status, p.trial_ends_at,
                                       p.subscription_end_date, p.is_partner) then
    return false;
  end if;
  select * into c from public.subscription_config where tier = p.subscription_tier;
  lim := case quota_kind when 'impulse' then c.impulse_limit else c.check_in_limit end;
  start_at := public.quota_period_start(p, coalesce(c.quota_period, 'month'));
  insert into public.quota_usage as q (user_id, kind, period_start, used)
  values (uid, quota_kind, start_at, 1)
  on conflict on constraint quota_usage_pkey do update set used = q.used + 1
    where lim is null or q.used < lim
  returning q.used into n;
  return n is not null and (lim is null or n <= lim);
end $$;

create or replace function public.enforce_quota() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if not public.consume_quota(new.user_id, tg_argv[0]) then
    raise exception 'IMPULSE_QUOTA_EXCEEDED' using errcode = 'P0001', hint = 'quota';
  end if;
  return new;
end $$;
create trigger impulses_quota before insert on public.impulses
  for each row execute function public.enforce_quota('impulse');
create trigger check_ins_quota before insert on public.check_ins
  for each row execute function public.enforce_quota('check_in');

create or replace function public.check_impulse_deletable(impulse_id uuid) returns boolean
language sql stable set search_path = '' as $$
  select not exists (select 1 from public.sessions s where s.impulse_id = check_impulse_deletable.impulse_id)
$$;

-- 'deleted', 'not_found' (absent or another user's) or 'has_sessions'.
create or replace function public.delete_impulse_safe(impulse_id uuid) returns text
language plpgsql set search_path = '' as $$
declare
  owner uuid;
begin
  select i.user_id into owner from public.impulses i where i.id = delete_impulse_safe.impulse_id for update;
  if owner is null or owner is distinct from auth.uid() then return 'not_found'; end if;
  if not public.check_impulse_deletable(delete_impulse_safe.impulse_id) then return 'has_sessions'; end if;
  delete from public.impulses i where i.id = delete_impulse_safe.impulse_id;
  return 'deleted';
end $$;

-- Marks every trial whose end has passed as expired; returns how many.
create or replace function public.expire_trials() returns integer
language sql security definer set search_path = '' as $$
  with expired as (
    update public.profiles set subscription_status = 'expired'
     where subscription_tier = 'trial' and subscription_status = 'active' and trial_ends_at <= now()
    returning 1)
  select count(*)::integer from expired
$$;

-- Similarity search: cosine similarity = 1 - cosine distance, only the calling user's rows.
create or replace function public.find_similar_impulses(
  query_embedding extensions.vector(512), match_threshold double precision default 0.7,
  match_count integer default 10, exclude_id uuid default null)
returns table (id uuid, classification public.impulse_classification, processual_status public.processual_status,
               title text, created_at timestamptz, similarity double precision)
language sql stable set search_path = '' as $$
  select i.id, i.classification, i.processual_status, i.title, i.created_at,
         1 - (i.embedding operator(extensions.<=>) query_embedding) as similarity
    from public.impulses i
   where i.user_id = auth.uid() and i.embedding is not null
     and (exclude_id is null or i.id <> exclude_id)
     and 1 - (i.embedding operator(extensions.<=>) query_embedding) >= match_threshold
   order by i.embedding operator(extensions.<=>) query_embedding
   limit least(greatest(match_count, 0), 100)
$$;

create or replace function public.find_similar_to_impulse(
  impulse_id uuid, match_threshold double precision default 0.7, match_count integer default 10)
returns table (id uuid, classification public.impulse_classification, processual_status public.processual_status,
               title text, created_at timestamptz, similarity double precision)
language sql stable set search_path = '' as $$
  select f.* from public.impulses src,
       lateral public.find_similar_impulses(src.embedding, match_threshold, match_count, src.id) f
   where src.id = find_similar_to_impulse.impulse_id and src.user_id = auth.uid() and src.embedding is not null
$$;

create or replace function public.find_similar_sessions(
  query_embedding extensions.vector(512), match_threshold double precision default 0.7, match_count integer default 10)
returns table (id uuid, impulse_id uuid, classification public.session_type, status public.session_status,
               created_at timestamptz, similarity double precision)
language sql stable set search_path = '' as $$
  select s.id, s.impulse_id, s.classification, s.status, s.created_at,
         1 - (s.embedding operator(extensions.<=>) query_embedding) as similarity
    from public.sessions s
   where s.user_id = auth.uid() and s.embedding is not null
     and 1 - (s.embedding operator(extensions.<=>) query_embedding) >= match_threshold
   order by s.embedding operator(extensions.<=>) query_embedding
   limit least(greatest(match_count, 0), 100)
$$;

create or replace function public.find_sessions_similar_to_impulse(
  impulse_id uuid, match_threshold double precision default 0.7, match_count integer default 10)
returns table (id uuid, impulse_id uuid, classification public.session_type, status public.session_status,
               created_at timestamptz, similarity double precision)
language sql stable set search_path = '' as $$
  select f.* from public.impulses src,
       lateral public.find_similar_sessions(src.embedding, match_threshold, match_count) f
   where src.id = find_sessions_similar_to_impulse.impulse_id and src.user_id = auth.uid() and src.embedding is not null
$$;

create or replace function public.find_similar_check_ins(
  query_embedding extensions.vector(512), match_threshold double precision default 0.7, match_count integer default 10)
returns table (id uuid, classification text, created_at timestamptz, similarity double precision)
language sql stable set search_path = '' as $$
  select c.id, c.classification, c.created_at,
         1 - (c.embedding operator(extensions.<=>) query_embedding) as similarity
    from public.check_ins c
   where c.user_id = auth.uid() and c.embedding is not null
     and 1 - (c.embedding operator(extensions.<=>) query_embedding) >= match_threshold
   order by c.embedding operator(extensions.<=>) query_embedding
   limit least(greatest(match_count, 0), 100)
$$;

create trigger on_auth_user_created after insert on auth.users
  for each row execute function public.create_user_profile();

-- Functions callable by app users; everything else is service-only.
revoke all on all functions in schema public from public, anon, authenticated;
grant execute on function
  public.is_subscription_active(text, text, timestamptz, timestamptz, boolean, timestamptz),
  public.quota_period_start(public.profiles, text, timestamptz),
  public.check_impulse_quota(text, uuid),
  public.check_impulse_deletable(uuid),
  public.delete_impulse_safe(uuid),
  public.find_similar_impulses(extensions.vector, double precision, integer, uuid),
  public.find_similar_to_impulse(uuid, double precision, integer),
  public.find_similar_sessions(extensions.vector, double precision, integer),
  public.find_sessions_similar_to_impulse(uuid, double precision, integer),
  public.find_similar_check_ins(extensions.vector, double precision, integer)
  to authenticated;
grant execute on all functions in schema public to service_role;
