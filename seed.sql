-- Reference data, tier configuration and the development users. Idempotent.

insert into public.areas (name, display_name, is_system, sort_order) values
  ('relationships', 'Relationships', true, 1),
  ('career', 'Career', true, 2),
  ('health', 'Health', true, 3),
  ('spirituality', 'Spirituality', true, 4),
  ('creativity', 'Creativity', true, 5),
  ('economy', 'Economy', true, 6)
on conflict (name) do nothing;

insert into public.layers (name, sort_order) values
  ('Physical', 1), ('Emotional', 2), ('Mental', 3), ('Spiritual', 4)
on conflict (name) do nothing;

-- Quotas per tier (spec: Limits). session_limit is informational (see docs/decisions.md).
insert into public.subscription_config
  (tier, impulse_limit, check_in_limit, session_limit, quota_period, trial_days, price_usd_monthly) values
  ('trial', 3, 7, null, 'total', 7, 0),
  ('partner', 30, 90, null, 'month', null, 0),
  ('foundation', 30, 90, 30, 'month', null, 6),
  ('mastery', 60, 180, null, 'month', null, 12)
on conflict (tier) do nothing;

insert into public.ai_rate_limits (tier, monthly_requests, monthly_tokens, monthly_cost_usd) values
  ('trial', 100, 300000, 1.00),
  ('partner', 1500, 5000000, 10.00),
  ('foundation', 1500, 5000000, 10.00),
  ('mastery', 3000, 10000000, 20.00)
on conflict (tier) do nothing;

-- Development users, one per tier (the trigger creates their profiles).
insert into auth.users (id, aud, role, email, email_confirmed_at, raw_app_meta_data, raw_user_meta_data)
values
  ('00000000-0000-4000-8000-000000000001', 'authenticated', 'authenticated', 'dev-trial@journal.local', now(),
   '{"provider":"apple","providers":["apple"]}', '{"dev_user":true}'),
  ('00000000-0000-4000-8000-000000000002', 'authenticated', 'authenticated', 'dev-foundation@journal.local', now(),
   '{"provider":"apple","providers":["apple"]}', '{"dev_user":true}'),
  ('00000000-0000-4000-8000-000000000003', 'authenticated', 'authenticated', 'dev-mastery@journal.local', now(),
   '{"provider":"google","providers":["google"]}', '{"dev_user":true}'),
  ('00000000-0000-4000-8000-000000000004', 'authenticated', 'authenticated', 'dev-partner@journal.local', now(),
   '{"provider":"google","providers":["google"]}', '{"dev_user":true}')
on conflict (id) do nothing;

update public.profiles set display_name = 'Dev Trial' where id = '00000000-0000-4000-8000-000000000001' and display_name is null;

update public.profiles set display_name = 'Dev Foundation', subscription_tier = 'foundation',
  subscription_status = 'active', billing_period = 'monthly', trial_converted = true,
  subscription_end_date = now() + interval '30 days'
where id = '00000000-0000-4000-8000-000000000002' and subscription_tier = 'trial';

update public.profiles set display_name = 'Dev Mastery', subscription_tier = 'mastery',
  subscription_status = 'active', billing_period = 'annual', trial_converted = true,
  subscription_end_date = now() + interval '365 days'
where id = '00000000-0000-4000-8000-000000000003' and subscription_tier = 'trial';

update public.profiles set display_name = 'Dev Partner', subscription_tier = 'partner',
  subscription_status = 'active', is_partner = true, partner_source = 'beta_tester',
  subscription_end_date = null
where id = '00000000-0000-4000-8000-000000000004' and subscription_tier = 'trial';

insert into public.iap_subscriptions
  (user_id, platform, platform_product_id, tier, billing_period, status, original_transaction_id,
   latest_transaction_id, environment, purchase_date, expires_date, auto_renew_enabled)
values
  ('00000000-0000-4000-8000-000000000002', 'ios', 'journal.foundation.monthly', 'foundation', 'monthly', 'active',
   'dev-foundation-otx', 'dev-foundation-tx', 'Xcode', now(), now() + interval '30 days', true),
  ('00000000-0000-4000-8000-000000000003', 'android', 'journal.mastery.annual', 'mastery', 'annual', 'active',
   'dev-mastery-token', 'dev-mastery-order', 'Sandbox', now(), now() + interval '365 days', true)
on conflict (platform, original_transaction_id) do nothing;
