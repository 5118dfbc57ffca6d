-- Row-level security on every public table, and the grants that go with it.
-- User-owned: the owner reads and writes its own rows and cannot move a row to another user.
-- Operator-only: RLS on, no policy, no grant: only the service role (and the owner) reach them.
-- Reference: readable by authenticated users.

do $$
declare t text;
begin
  foreach t in array array[
    'subscription_config', 'profiles', 'iap_subscriptions', 'iap_transactions', 'iap_webhook_events',
    'areas', 'layers', 'check_ins', 'impulses', 'impulse_areas', 'sessions', 'notes',
    'analytics_insights', 'analytics_dashboard_cache', 'ai_usage', 'ai_rate_limits', 'quota_usage',
    'user_notification_preferences', 'notification_messages', 'notification_events',
    'admin_notes', 'feedback', 'admin_settings', 'jobs', 'processed_messages']
  loop
    execute format('alter table public.%I enable row level security', t);
    execute format('revoke all on public.%I from anon, authenticated', t);
    execute format('grant all on public.%I to service_role', t);
  end loop;
end $$;
grant usage on all sequences in schema public to service_role;

-- Reference data.
grant select on public.areas, public.layers, public.subscription_config to authenticated;
create policy areas_read on public.areas for select to authenticated using (true);
create policy layers_read on public.layers for select to authenticated using (true);
create policy subscription_config_read on public.subscription_config for select to authenticated using (true);

-- Profiles: read own; update only the fields a user may change (tier and status never).
grant select on public.profiles to authenticated;
grant update (display_name, notification_email, preferred_language, gender, birth_year, ai_personalization_enabled)
  on public.profiles to authenticated;
create policy profiles_select_own on public.profiles for select to authenticated
  using (id = (select auth.uid()));
create policy profiles_update_own on public.profiles for update to authenticated
  using (id = (select auth.uid())) with check (id = (select auth.uid()));

-- Read-only own rows (written by jobs, webhooks and security-definer functions).
grant select on public.iap_subscriptions, public.analytics_insights, public.ai_usage, public.quota_usage,
  public.notification_messages to authenticated;
create policy iap_subscriptions_select_own on public.iap_subscriptions for select to authenticated
  using (user_id = (select auth.uid()));
create policy analytics_insights_select_own on public.analytics_insights for select to authenticated
  using (user_id = (select auth.uid()));
create policy ai_usage_select_own on public.ai_usage for select to authenticated
  using (user_id = (select auth.uid()));
create policy quota_usage_select_own on public.quota_usage for select to authenticated
  using (user_id = (select auth.uid()));
create policy notification_messages_select_own on public.notification_messages for select to authenticated
  using (user_id = (select auth.uid()));

-- Fully user-owned rows.
do $$
declare t text;
begin
  foreach t in array array['impulses', 'impulse_areas', 'sessions', 'notes', 'check_ins',
                           'analytics_dashboard_cache', 'user_notification_preferences']
  loop
    execute format('grant select, insert, update, delete on public.%I to authenticated', t);
    execute format('create policy %I on public.%I for select to authenticated using (user_id = (select auth.uid()))', t || '_select_own', t);
    execute format('create policy %I on public.%I for insert to authenticated with check (user_id = (select auth.uid()))', t || '_insert_own', t);
    execute format('create policy %I on public.%I for update to authenticated using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()))', t || '_update_own', t);
    execute format('create policy %I on public.%I for delete to authenticated using (user_id = (select auth.uid()))', t || '_delete_own', t);
  end loop;
end $$;

-- Feedback: a user sends and reads its own; the operator's notes and read marker stay operator-only.
grant select (id, user_id, content, created_at), insert (user_id, content) on public.feedback to authenticated;
create policy feedback_select_own on public.feedback for select to authenticated using (user_id = (select auth.uid()));
create policy feedback_insert_own on public.feedback for insert to authenticated with check (user_id = (select auth.uid()));
