-- Profiles, tier configuration, store subscriptions and their logs.

create table public.subscription_config (
  tier text primary key check (tier in ('trial', 'partner', 'foundation', 'mastery')),
  impulse_limit integer check (impulse_limit >= 0),        -- null = unlimited
  check_in_limit integer check (check_in_limit >= 0),      -- null = unlimited
  session_limit integer check (session_limit >= 0),        -- informational; see decisions
  quota_period text not null check (quota_period in ('total', 'month')),
  trial_days integer check (trial_days > 0),               -- used by the trial row only
  price_usd_monthly numeric(10, 2) not null default 0,
  updated_at timestamptz not null default now()
);

create table public.profiles (
  id uuid primary key references auth.users (id) on delete cascade,
  email text not null,
  notification_email text check (notification_email is null or notification_email ~ '^[^@\s]+@[^@\s]+\.[^@\s]+$'),
  display_name text check (char_length(display_name) <= 100),
  auth_provider text check (auth_provider in ('apple', 'google')),
  subscription_tier text not null default 'trial' check (subscription_tier in ('trial', 'foundation', 'mastery', 'partner')),
  subscription_status text not null default 'inactive'
    check (subscription_status in ('active', 'expired', 'inactive', 'cancelled', 'past_due')),
  subscription_end_date timestamptz,
  subscription_cancelled_at timestamptz,
  billing_period text check (billing_period in ('monthly', 'annual')),
  trial_started_at timestamptz,
  trial_ends_at timestamptz,
  trial_converted boolean not null default false,
  is_partner boolean not null default false,
  partner_source text check (partner_source in ('influencer', 'beta_tester', 'ambassador', 'marketing')),
  preferred_language text check (preferred_language in ('en', 'no')),
  gender text check (char_length(gender) <= 50),
  birth_year integer check (birth_year between 1900 and 2100),
  ai_personalization_enabled boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index profiles_tier_status_idx on public.profiles (subscription_tier, subscription_status);
create index profiles_created_at_idx on public.profiles (created_at desc);
create index profiles_trial_expiry_idx on public.profiles (trial_ends_at)
  where subscription_tier = 'trial' and subscription_status = 'active';
create trigger profiles_updated_at before update on public.profiles
  for each row execute function public.set_updated_at();

create table public.iap_subscriptions (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references public.profiles (id) on delete cascade,
  platform text not null check (platform in ('ios', 'android')),
  platform_product_id text not null,
  tier text not null check (tier in ('foundation', 'mastery')),
  billing_period text check (billing_period in ('monthly', 'annual')),
  status text not null check (status in ('active', 'grace_period', 'billing_retry', 'expired', 'cancelled')),
  original_transaction_id text not null,   -- iOS originalTransactionId; Android purchase token
  latest_transaction_id text,
  environment text not null default 'Production' check (environment in ('Production', 'Sandbox', 'Xcode', 'LocalTesting')),
  purchase_date timestamptz not null,
  expires_date timestamptz not null,
  auto_renew_enabled boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (platform, original_transaction_id)
);
create index iap_subscriptions_user_idx on public.iap_subscriptions (user_id, expires_date desc);
create index iap_subscriptions_expiry_idx on public.iap_subscriptions (expires_date) where status = 'active';
create trigger iap_subscriptions_updated_at before update on public.iap_subscriptions
  for each row execute function public.set_updated_at();

create table public.iap_transactions (
  id uuid primary key default gen_random_uuid(),
  user_id uuid references public.profiles (id) on delete set null,
  subscription_id uuid references public.iap_subscriptions (id) on delete set null,
  platform text not null check (platform in ('ios', 'android')),
  transaction_id text not null,
  original_transaction_id text not null,
  product_id text not null,
  kind text not null check (kind in ('purchase', 'renewal', 'refund', 'revoke', 'refund_reversed')),
  amount numeric(12, 2),            -- in `currency`, as the store reports it
  amount_usd numeric(12, 2),
  currency text check (currency ~ '^[A-Z]{3}$'),
  environment text not null default 'Production',
  purchase_date timestamptz not null,
  expires_date timestamptz,
  created_at timestamptz not null default now(),
  unique (platform, transaction_id, kind)
);
create index iap_transactions_user_idx on public.iap_transactions (user_id, purchase_date desc);
create index iap_transactions_subscription_idx on public.iap_transactions (subscription_id);
create index iap_transactions_date_idx on public.iap_transactions (purchase_date);

create table public.iap_webhook_events (
  id uuid primary key default gen_random_uuid(),
  platform text not null check (platform in ('ios', 'android')),
  event_id text not null,           -- notificationUUID (iOS), Pub/Sub messageId (Android)
  notification_type text not null,
  subtype text,
  original_transaction_id text,
  user_id uuid references public.profiles (id) on delete set null,
  payload jsonb not null default '{}'::jsonb,
  status text not null default 'received' check (status in ('received', 'processed', 'ignored', 'failed')),
  error text,
  received_at timestamptz not null default now(),
  processed_at timestamptz,
  unique (platform, event_id)
);
create index iap_webhook_events_user_idx on public.iap_webhook_events (user_id);
create index iap_webhook_events_received_idx on public.iap_webhook_events (received_at desc);

-- The profile of a new auth user, in trial, with its notification preferences.
create or replace function public.create_user_profile() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  days integer;
  provider text := new.raw_app_meta_data ->> 'provider';
begin
  select c.trial_days into days from public.subscription_config c where c.tier = 'trial';
  insert into public.profiles (id, email, auth_provider, subscription_tier, subscription_status,
                               trial_started_at, trial_ends_at)
  values (new.id,
          coalesce(nullif(new.email, ''), new.id::text || '@users.invalid'),
          case when provider in ('apple', 'google') then provider end,
          'trial', 'active', now(), now() + make_interval(days => coalesce(days, 7)));
  insert into public.user_notification_preferences (user_id) values (new.id);
  return new;
end $$;
