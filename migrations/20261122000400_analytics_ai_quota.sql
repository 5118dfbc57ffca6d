-- Analytics, AI accounting and quota usage.

create table public.analytics_insights (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references public.profiles (id) on delete cascade,
  kind text not null check (kind in ('pattern', 'progress', 'guidance', 'synchronicity', 'shift')),
  title text not null,
  content text not null,
  data_points jsonb not null default '{}'::jsonb check (jsonb_typeof(data_points) = 'object'),
  created_at timestamptz not null default now()
);
create index analytics_insights_user_created_idx on public.analytics_insights (user_id, created_at desc, id desc);

create table public.analytics_dashboard_cache (
  user_id uuid primary key references public.profiles (id) on delete cascade,
  summary jsonb not null default '{}'::jsonb check (jsonb_typeof(summary) = 'object'),
  timeline jsonb not null default '{}'::jsonb check (jsonb_typeof(timeline) = 'object'),
  themes jsonb not null default '{}'::jsonb check (jsonb_typeof(themes) = 'object'),
  computed_at timestamptz not null default now(),
  expires_at timestamptz not null default now() + interval '1 hour'
);

create table public.ai_usage (
  id uuid primary key default gen_random_uuid(),
  user_id uuid references public.profiles (id) on delete set null,
  workload text not null check (workload in ('impulse-classification', 'unified-guidance', 'session-summary',
                                             'insights-regeneration', 'check-in-assessment', 'embedding')),
  model text not null,
  input_tokens integer not null default 0 check (input_tokens >= 0),
  output_tokens integer not null default 0 check (output_tokens >= 0),
  cost numeric(12, 6) not null default 0 check (cost >= 0),
  session_id uuid references public.sessions (id) on delete set null,
  job_id uuid,
  created_at timestamptz not null default now()
);
create index ai_usage_user_created_idx on public.ai_usage (user_id, created_at desc);
create index ai_usage_created_idx on public.ai_usage (created_at);
create index ai_usage_workload_created_idx on public.ai_usage (workload, created_at);
create index ai_usage_session_idx on public.ai_usage (session_id);

create table public.ai_rate_limits (
  tier text primary key check (tier in ('trial', 'partner', 'foundation', 'mastery')),
  monthly_requests integer not null check (monthly_requests >= 0),
  monthly_tokens bigint not null check (monthly_tokens >= 0),
  monthly_cost_usd numeric(10, 2) not null check (monthly_cost_usd >= 0),
  updated_at timestamptz not null default now()
);

-- Quota consumption per user, kind and period: consumed atomically on insert, never refunded
-- (deleting an impulse does not give a trial user a fourth one).
create table public.quota_usage (
  user_id uuid not null references public.profiles (id) on delete cascade,
  kind text not null check (kind in ('impulse', 'check_in')),
  period_start timestamptz not null,
  used integer not null default 0 check (used >= 0),
  primary key (user_id, kind, period_start)
);
