-- The job ledger behind the QStash queues: queue health, inspection, retry and the sweeper.

create type public.job_status as enum ('waiting', 'delayed', 'active', 'completed', 'failed');

create table public.jobs (
  id uuid primary key default gen_random_uuid(),
  queue text not null check (queue in ('impulse-classification', 'unified-guidance', 'session-summary',
                                       'insights-regeneration', 'check-in-assessment', 'notification-deliver')),
  payload jsonb not null default '{}'::jsonb,   -- identifiers only, never journal text
  status public.job_status not null default 'waiting',
  dedup_key text,
  user_id uuid references public.profiles (id) on delete cascade,
  run_at timestamptz not null default now(),
  attempts integer not null default 0,
  max_attempts integer not null default 5,
  last_error text,
  qstash_message_id text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  started_at timestamptz,
  finished_at timestamptz,
  unique (queue, dedup_key)
);
create index jobs_queue_status_idx on public.jobs (queue, status);
create index jobs_pending_idx on public.jobs (status, run_at) where status in ('waiting', 'delayed');
create index jobs_user_idx on public.jobs (user_id);
create trigger jobs_updated_at before update on public.jobs
  for each row execute function public.set_updated_at();

-- QStash delivers at least once: a message id is processed once.
create table public.processed_messages (
  message_id text primary key,
  job_id uuid references public.jobs (id) on delete cascade,
  processed_at timestamptz not null default now()
);
create index processed_messages_job_idx on public.processed_messages (job_id);
