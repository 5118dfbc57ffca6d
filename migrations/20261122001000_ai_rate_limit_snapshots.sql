-- The latest Anthropic rate-limit headers per model class (opus, sonnet, haiku), written by the
-- AI job workers after each successful call and read by the admin AI-health endpoint.
-- Operator-only: RLS on, no policy, no grant to anon or authenticated.

create table public.ai_rate_limit_snapshots (
  model_class text primary key,
  model text not null,
  rpm_limit integer,
  rpm_remaining integer,
  rpm_reset_at timestamptz,
  itpm_limit integer,
  itpm_remaining integer,
  itpm_reset_at timestamptz,
  otpm_limit integer,
  otpm_remaining integer,
  otpm_reset_at timestamptz,
  updated_at timestamptz not null default now()
);

alter table public.ai_rate_limit_snapshots enable row level security;
revoke all on public.ai_rate_limit_snapshots from anon, authenticated;
grant all on public.ai_rate_limit_snapshots to service_role;

-- Workers look up "was this job's result already written?" by job id on every run.
create index ai_usage_job_idx on public.ai_usage (job_id) where job_id is not null;
