-- Push notification preferences, delivered messages and the observability log.

create table public.user_notification_preferences (
  user_id uuid primary key references public.profiles (id) on delete cascade,
  consent boolean not null default false,
  categories jsonb not null default
    '{"reminder":{"enabled":true,"lastSentAt":null},"lifecycle":{"enabled":true,"lastSentAt":null},"campaign":{"enabled":true,"lastSentAt":null}}'::jsonb
    check (jsonb_typeof(categories) = 'object'),
  timezone text not null default 'UTC' check (char_length(timezone) between 1 and 64),
  silence_until timestamptz,
  ios_permission_status text not null default 'not_determined'
    check (ios_permission_status in ('not_determined', 'granted', 'denied', 'provisional', 'ephemeral')),
  apns_token text check (apns_token ~ '^[0-9a-fA-F]{32,200}$'),
  apns_token_updated_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index user_notification_preferences_token_idx on public.user_notification_preferences (apns_token)
  where apns_token is not null;
create trigger user_notification_preferences_updated_at before update on public.user_notification_preferences
  for each row execute function public.set_updated_at();

create table public.notification_messages (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references public.profiles (id) on delete cascade,
  category text not null check (category in ('reminder', 'lifecycle', 'campaign')),
  title text,
  body text not null,
  deeplink text,
  metadata jsonb not null default '{}'::jsonb check (jsonb_typeof(metadata) = 'object'),
  batch_id uuid,
  source_entity_id uuid,
  status text not null default 'sent' check (status in ('sent', 'failed')),
  sent_at timestamptz not null default now(),
  opened_at timestamptz,
  created_at timestamptz not null default now()
);
create index notification_messages_user_created_idx on public.notification_messages (user_id, created_at desc, id desc);
create index notification_messages_batch_idx on public.notification_messages (batch_id) where batch_id is not null;

-- Append-only: no update or delete, for anyone.
create table public.notification_events (
  id bigint generated always as identity primary key,
  user_id uuid references public.profiles (id) on delete set null,
  message_id uuid references public.notification_messages (id) on delete set null,
  event text not null check (event in ('enqueued', 'skipped', 'rate_limited', 'sent', 'failed',
                                       'token_revoked', 'opened', 'preferences_reset')),
  category text,
  reason text,
  data jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now()
);
create index notification_events_user_idx on public.notification_events (user_id, created_at desc);
create index notification_events_message_idx on public.notification_events (message_id);
create index notification_events_created_idx on public.notification_events (created_at);

-- Row-level, letting through only the foreign keys' "on delete set null" (the columns named as
-- trigger arguments becoming null) when a user or message is deleted: a statement-level trigger
-- made every user deletion fail, because the set-null action runs an update even for 0 rows.
create or replace function public.forbid_change() returns trigger
language plpgsql set search_path = '' as $$
begin
  if tg_op = 'UPDATE' and not exists (
       select 1 from jsonb_each(to_jsonb(new)) n join jsonb_each(to_jsonb(old)) o using (key)
        where n.value is distinct from o.value and not (n.key = any (tg_argv) and n.value = 'null'::jsonb)) then
    return new;
  end if;
  raise exception '% is append-only', tg_table_name using errcode = '42501';
end $$;
create trigger notification_events_append_only before update or delete on public.notification_events
  for each row execute function public.forbid_change('user_id', 'message_id');
