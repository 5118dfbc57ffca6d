-- Tables, spec columns and types, enums, check constraints, RLS on every public table.
begin;

create temp table spec_tables (name text) on commit drop;
insert into spec_tables values
  ('profiles'), ('subscription_config'), ('iap_subscriptions'), ('iap_transactions'), ('iap_webhook_events'),
  ('areas'), ('layers'), ('check_ins'), ('impulses'), ('impulse_areas'), ('sessions'), ('notes'),
  ('analytics_insights'), ('analytics_dashboard_cache'), ('ai_usage'), ('ai_rate_limits'), ('quota_usage'),
  ('user_notification_preferences'), ('notification_messages'), ('notification_events'),
  ('admin_notes'), ('feedback'), ('admin_settings'), ('jobs'), ('processed_messages');

-- The columns the spec names, with the spec's types.
create temp table spec_columns (tbl text, col text, type text) on commit drop;
insert into spec_columns values
  ('profiles', 'id', 'uuid'), ('profiles', 'email', 'text'), ('profiles', 'notification_email', 'text'),
  ('profiles', 'display_name', 'text'), ('profiles', 'auth_provider', 'text'),
  ('profiles', 'subscription_tier', 'text'), ('profiles', 'subscription_status', 'text'),
  ('profiles', 'subscription_end_date', 'timestamp with time zone'),
  ('profiles', 'subscription_cancelled_at', 'timestamp with time zone'), ('profiles', 'billing_period', 'text'),
  ('profiles', 'trial_started_at', 'timestamp with time zone'), ('profiles', 'trial_ends_at', 'timestamp with time zone'),
  ('profiles', 'trial_converted', 'boolean'), ('profiles', 'is_partner', 'boolean'), ('profiles', 'partner_source', 'text'),
  ('profiles', 'preferred_language', 'text'), ('profiles', 'gender', 'text'), ('profiles', 'birth_year', 'integer'),
  ('profiles', 'ai_personalization_enabled', 'boolean'), ('profiles', 'created_at', 'timestamp with time zone'),
  ('profiles', 'updated_at', 'timestamp with time zone'),
  ('iap_subscriptions', 'platform', 'text'), ('iap_subscriptions', 'platform_product_id', 'text'),
  ('iap_subscriptions', 'status', 'text'), ('iap_subscriptions', 'expires_date', 'timestamp with time zone'),
  ('iap_subscriptions', 'auto_renew_enabled', 'boolean'),
  ('impulses', 'id', 'uuid'), ('impulses', 'user_id', 'uuid'), ('impulses', 'content', 'text'),
  ('impulses', 'classification', 'impulse_classification'), ('impulses', 'processual_status', 'processual_status'),
  ('impulses', 'content_validity', 'content_validity'), ('impulses', 'ai_analysis', 'jsonb'),
  ('impulses', 'embedding', 'extensions.vector(512)'), ('impulses', 'source_check_in_id', 'uuid'),
  ('sessions', 'id', 'uuid'), ('sessions', 'user_id', 'uuid'), ('sessions', 'impulse_id', 'uuid'),
  ('sessions', 'classification', 'session_type'), ('sessions', 'status', 'session_status'),
  ('sessions', 'current_step', 'integer'),
  ('sessions', 'step_1_guidance', 'text'), ('sessions', 'step_2_guidance', 'text'), ('sessions', 'step_3_guidance', 'text'),
  ('sessions', 'step_4_guidance', 'text'), ('sessions', 'step_5_guidance', 'text'),
  ('sessions', 'step_1_ai_status', 'ai_workload_status'), ('sessions', 'summary_document', 'jsonb'),
  ('sessions', 'user_reflection', 'text'), ('sessions', 'reflection_conclusion', 'text'),
  ('sessions', 'embedding', 'extensions.vector(512)'), ('sessions', 'embedding_model', 'text'),
  ('sessions', 'total_input_tokens', 'integer'), ('sessions', 'total_output_tokens', 'integer'),
  ('sessions', 'total_cost', 'numeric(10,6)'),
  ('check_ins', 'id', 'uuid'), ('check_ins', 'user_id', 'uuid'), ('check_ins', 'content', 'text'),
  ('check_ins', 'classification', 'text'), ('check_ins', 'ai_assessment', 'jsonb'),
  ('check_ins', 'ai_assessment_status', 'text'), ('check_ins', 'embedding', 'extensions.vector(512)'),
  ('areas', 'id', 'uuid'), ('areas', 'name', 'text'), ('areas', 'display_name', 'text'),
  ('areas', 'is_system', 'boolean'), ('areas', 'sort_order', 'integer'),
  ('layers', 'id', 'uuid'), ('layers', 'name', 'text'), ('layers', 'sort_order', 'integer'),
  ('notes', 'id', 'uuid'), ('notes', 'user_id', 'uuid'), ('notes', 'content', 'text'), ('notes', 'note_type', 'note_type'),
  ('notes', 'impulse_id', 'uuid'), ('notes', 'session_id', 'uuid'), ('notes', 'session_step', 'smallint'),
  ('notes', 'archived_at', 'timestamp with time zone'),
  ('analytics_insights', 'kind', 'text'), ('analytics_insights', 'data_points', 'jsonb'),
  ('analytics_dashboard_cache', 'summary', 'jsonb'), ('analytics_dashboard_cache', 'timeline', 'jsonb'),
  ('analytics_dashboard_cache', 'themes', 'jsonb'),
  ('user_notification_preferences', 'consent', 'boolean'), ('user_notification_preferences', 'categories', 'jsonb'),
  ('user_notification_preferences', 'timezone', 'text'),
  ('user_notification_preferences', 'silence_until', 'timestamp with time zone'),
  ('user_notification_preferences', 'ios_permission_status', 'text'),
  ('user_notification_preferences', 'apns_token', 'text'),
  ('notification_messages', 'category', 'text'), ('notification_messages', 'title', 'text'),
  ('notification_messages', 'body', 'text'), ('notification_messages', 'deeplink', 'text'),
  ('notification_messages', 'metadata', 'jsonb'), ('notification_messages', 'batch_id', 'uuid'),
  ('admin_notes', 'id', 'uuid'), ('admin_notes', 'note', 'text'), ('admin_notes', 'category', 'text'),
  ('admin_notes', 'created_by', 'text'), ('admin_notes', 'created_at', 'timestamp with time zone'),
  ('feedback', 'id', 'uuid'), ('feedback', 'created_at', 'timestamp with time zone'), ('feedback', 'content', 'text'),
  ('feedback', 'admin_notes', 'text'), ('feedback', 'user_id', 'uuid'),
  ('admin_settings', 'key', 'text'), ('admin_settings', 'value', 'jsonb');

select plan(
  (select count(*)::int from spec_tables)
  + 2 * (select count(*)::int from spec_columns)
  + 8      -- enums
  + 26     -- check constraints and defaults
  + 2      -- RLS everywhere
);

select has_table('public', name, 'table ' || name || ' exists') from spec_tables order by name;
select has_column('public', tbl, col, tbl || '.' || col || ' exists') from spec_columns order by tbl, col;
select col_type_is('public', tbl, col, type, tbl || '.' || col || ' is ' || type) from spec_columns order by tbl, col;

-- Enums: exactly the spec's values, in order.
select enum_has_labels('public', 'impulse_classification', array['contraction', 'expansion'], 'impulse_classification values');
select enum_has_labels('public', 'processual_status', array['captured', 'transforming', 'transformed'], 'processual_status values');
select enum_has_labels('public', 'session_status', array['created', 'active', 'completed', 'abandoned'], 'session_status values');
select enum_has_labels('public', 'session_type', array['contraction', 'expansion'], 'session_type values');
select enum_has_labels('public', 'note_type', array['gratitude', 'reflection'], 'note_type values');
select enum_has_labels('public', 'ai_workload_status', array['idle', 'pending', 'processing', 'complete', 'failed'], 'ai_workload_status values');
select enum_has_labels('public', 'content_validity', array['valid', 'low_confidence', 'gibberish'], 'content_validity values');
select enum_has_labels('public', 'job_status', array['waiting', 'delayed', 'active', 'completed', 'failed'], 'job_status values');

-- Check constraints. A mastery user has quota to spare; rows are inserted as the owner.
select tests.create_user('schema_user', 'mastery');
select tests.keep('imp', tests.add_impulse('schema_user'));
select tests.keep('ses', tests.add_session('schema_user', tests.id('imp')));

select throws_ok($$insert into public.check_ins (user_id, content) values (tests.uid('schema_user'), '')$$,
  '23514', null, 'check-in content of 0 characters is refused');
select throws_ok($$insert into public.check_ins (user_id, content) values (tests.uid('schema_user'), repeat('x', 501))$$,
  '23514', null, 'check-in content of 501 characters is refused');
select lives_ok($$insert into public.check_ins (user_id, content) values (tests.uid('schema_user'), repeat('x', 500))$$,
  'check-in content of 500 characters is accepted');
select lives_ok($$insert into public.check_ins (user_id, content) values (tests.uid('schema_user'), 'x')$$,
  'check-in content of 1 character is accepted');
select throws_ok($$insert into public.check_ins (user_id, content, classification) values (tests.uid('schema_user'), 'x', 'happy')$$,
  '23514', null, 'check-in classification outside contraction/expansion/neutral is refused');

select throws_ok($$update public.sessions set current_step = 0 where id = tests.id('ses')$$,
  '23514', null, 'session current_step 0 is refused');
select throws_ok($$update public.sessions set current_step = 6 where id = tests.id('ses')$$,
  '23514', null, 'session current_step 6 is refused');
select lives_ok($$update public.sessions set current_step = 5 where id = tests.id('ses')$$,
  'session current_step 5 is accepted');
select throws_ok($$insert into public.notes (user_id, content, session_id, session_step) values (tests.uid('schema_user'), 'n', tests.id('ses'), 6)$$,
  '23514', null, 'note session_step 6 is refused');
select throws_ok($$insert into public.notes (user_id, content, session_id, session_step) values (tests.uid('schema_user'), 'n', tests.id('ses'), 0)$$,
  '23514', null, 'note session_step 0 is refused');
select throws_ok($$insert into public.notes (user_id, content, session_step) values (tests.uid('schema_user'), 'n', 1)$$,
  '23514', null, 'note session_step without a session is refused');
select throws_ok($$insert into public.notes (user_id, content, note_type) values (tests.uid('schema_user'), 'n', 'diary')$$,
  '22P02', null, 'note_type outside the enum is refused');

select throws_ok($$insert into public.impulses (user_id, content, classification) values (tests.uid('schema_user'), 'x', null)$$,
  '23502', null, 'impulse classification is never null');

select throws_ok($$update public.profiles set subscription_tier = 'gold' where id = tests.uid('schema_user')$$,
  '23514', null, 'unknown subscription_tier is refused');
select throws_ok($$update public.profiles set subscription_status = 'paused' where id = tests.uid('schema_user')$$,
  '23514', null, 'unknown subscription_status is refused');
select lives_ok($$update public.profiles set subscription_status = 'past_due' where id = tests.uid('schema_user')$$,
  'past_due (second list of the spec) is accepted');
select throws_ok($$update public.profiles set auth_provider = 'facebook' where id = tests.uid('schema_user')$$,
  '23514', null, 'unknown auth_provider is refused');
select throws_ok($$update public.profiles set billing_period = 'weekly' where id = tests.uid('schema_user')$$,
  '23514', null, 'unknown billing_period is refused');
select throws_ok($$update public.profiles set partner_source = 'friend' where id = tests.uid('schema_user')$$,
  '23514', null, 'unknown partner_source is refused');
select throws_ok($$update public.profiles set preferred_language = 'de' where id = tests.uid('schema_user')$$,
  '23514', null, 'unknown preferred_language is refused');
select throws_ok($$insert into public.admin_settings (key, value) values ('openai_balance', '1')$$,
  '23514', null, 'unknown admin setting key is refused');
select lives_ok($$insert into public.admin_settings (key, value) values ('slack_webhook_url', '"https://hooks.example"')$$,
  'a spec admin setting key is accepted');
select throws_ok($$insert into public.admin_notes (user_id, note, category, created_by) values (tests.uid('schema_user'), 'n', 'misc', 'op')$$,
  '23514', null, 'unknown admin note category is refused');
select throws_ok($$insert into public.iap_subscriptions (user_id, platform, platform_product_id, tier, status, original_transaction_id, purchase_date, expires_date)
                   values (tests.uid('schema_user'), 'web', 'p', 'mastery', 'active', 'otx', now(), now())$$,
  '23514', null, 'unknown iap platform is refused');
select throws_ok($$insert into public.analytics_insights (user_id, kind, title, content) values (tests.uid('schema_user'), 'mood', 't', 'c')$$,
  '23514', null, 'unknown insight kind is refused');

select is((select processual_status::text || '/' || step_1_ai_status::text || '/' || status::text || '/' || total_cost::text
             from public.sessions s join public.impulses i on i.id = s.impulse_id where s.id = tests.id('ses')),
  'captured/pending/completed/0.000000', 'defaults: processual_status captured, step_1_ai_status pending');

-- RLS on every table of the public schema.
select ok(tests.rls_enabled('public'), 'row-level security is enabled on every public table');
select is_empty($$select c.relname::text from pg_class c join pg_namespace n on n.oid = c.relnamespace
                   where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relrowsecurity$$,
  'no public table without row-level security');

select * from finish();
rollback;
