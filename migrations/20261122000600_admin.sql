-- Operator records: admin notes on users, user feedback, admin settings.

create table public.admin_notes (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references public.profiles (id) on delete cascade,
  note text not null check (char_length(note) between 1 and 5000),
  category text not null default 'general'
    check (category in ('general', 'support', 'tier_change', 'suspension', 'password_reset')),
  created_by text not null,
  created_at timestamptz not null default now()
);
create index admin_notes_user_created_idx on public.admin_notes (user_id, created_at desc);

create table public.feedback (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references public.profiles (id) on delete cascade,
  content text not null check (char_length(content) between 1 and 5000),
  admin_notes text,
  read_at timestamptz,
  created_at timestamptz not null default now()
);
create index feedback_created_idx on public.feedback (created_at desc, id desc);
create index feedback_user_idx on public.feedback (user_id, created_at desc);
create index feedback_unread_idx on public.feedback (created_at) where read_at is null;

create table public.admin_settings (
  key text primary key check (key in ('anthropic_balance', 'alert_thresholds', 'slack_webhook_url')),
  value jsonb not null,
  updated_by text,
  updated_at timestamptz not null default now()
);
