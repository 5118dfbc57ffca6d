-- User-visible records written by jobs and webhooks (read-only for the owner), the user's own
-- preferences and dashboard cache (read-write for the owner), and feedback (send and read own).
begin;

create temp table readonly_own (tbl text) on commit drop;
insert into readonly_own values ('iap_subscriptions'), ('analytics_insights'), ('ai_usage'), ('quota_usage'),
                                ('notification_messages');
create temp table writable_own (tbl text) on commit drop;
insert into writable_own values ('analytics_dashboard_cache'), ('user_notification_preferences');
grant select on readonly_own, writable_own to public;

select plan(7 * 5 + 6 * 2 + 14);

select tests.create_user('alice', 'foundation');
select tests.create_user('bob', 'foundation');
-- One row per user in every table (the preferences row comes from the profile trigger).
insert into public.iap_subscriptions (user_id, platform, platform_product_id, tier, status, original_transaction_id, purchase_date, expires_date)
select tests.uid(u), 'ios', 'journal.foundation.monthly', 'foundation', 'active', u || '-otx', now(), now() + interval '30 days'
  from unnest(array['alice', 'bob']) u;
insert into public.analytics_insights (user_id, kind, title, content)
select tests.uid(u), 'pattern', 't', 'c' from unnest(array['alice', 'bob']) u;
insert into public.ai_usage (user_id, workload, model, input_tokens) select tests.uid(u), 'embedding', 'm', 1 from unnest(array['alice', 'bob']) u;
insert into public.quota_usage (user_id, kind, period_start, used) select tests.uid(u), 'impulse', now(), 1 from unnest(array['alice', 'bob']) u;
insert into public.notification_messages (user_id, category, body) select tests.uid(u), 'reminder', 'b' from unnest(array['alice', 'bob']) u;
insert into public.analytics_dashboard_cache (user_id) select tests.uid(u) from unnest(array['alice', 'bob']) u;
insert into public.feedback (user_id, content, admin_notes) select tests.uid(u), u || ' feedback', 'operator only' from unnest(array['alice', 'bob']) u;

select tests.act_as_anon();
select throws_ok(format('select user_id from public.%I', tbl), '42501', format('permission denied for table %s', tbl),
                 'anon cannot read ' || tbl) from readonly_own order by tbl;

select tests.act_as('alice');
select results_eq(format('select user_id from public.%I', tbl), $$values (tests.uid('alice'))$$,
                  'alice reads only her own ' || tbl) from readonly_own order by tbl;
select throws_ok(format('insert into public.%I (user_id) values (tests.uid(%L))', tbl, 'alice'), '42501',
                 format('permission denied for table %s', tbl), 'alice cannot insert into ' || tbl) from readonly_own order by tbl;
select throws_ok(format('update public.%I set user_id = user_id', tbl), '42501',
                 format('permission denied for table %s', tbl), 'alice cannot update ' || tbl) from readonly_own order by tbl;
select throws_ok(format('delete from public.%I', tbl), '42501',
                 format('permission denied for table %s', tbl), 'alice cannot delete from ' || tbl) from readonly_own order by tbl;

select tests.act_as('bob');
select results_eq(format('select user_id from public.%I', tbl), $$values (tests.uid('bob'))$$,
                  'bob reads only his own ' || tbl) from readonly_own order by tbl;

select tests.act_as_service();
select results_eq(format('select count(*)::int from public.%I where user_id in (tests.uid(%L), tests.uid(%L))', tbl, 'alice', 'bob'),
                  $$values (2)$$, 'service role reads both users'' rows of ' || tbl) from readonly_own order by tbl;

-- Preferences and dashboard cache: the owner's row, read-write.
select tests.act_as_anon();
select throws_ok(format('select user_id from public.%I', tbl), '42501', format('permission denied for table %s', tbl),
                 'anon cannot read ' || tbl) from writable_own order by tbl;
select tests.act_as('alice');
select results_eq(format('select user_id from public.%I', tbl), $$values (tests.uid('alice'))$$,
                  'alice reads only her own ' || tbl) from writable_own order by tbl;
select is_empty(format('with u as (update public.%I set user_id = user_id where user_id = tests.uid(%L) returning 1) select * from u', tbl, 'bob'),
                'alice updates nothing of bob''s in ' || tbl) from writable_own order by tbl;
select is_empty(format('with d as (delete from public.%I where user_id = tests.uid(%L) returning 1) select * from d', tbl, 'bob'),
                'alice deletes nothing of bob''s in ' || tbl) from writable_own order by tbl;
select throws_ok(format('update public.%I set user_id = tests.uid(%L)', tbl, 'bob'), '42501',
                 format('new row violates row-level security policy for table "%s"', tbl),
                 'alice cannot move her row of ' || tbl || ' to bob') from writable_own order by tbl;
select tests.act_as_service();
select results_eq(format('select count(*)::int from public.%I where user_id in (tests.uid(%L), tests.uid(%L))', tbl, 'alice', 'bob'),
                  $$values (2)$$, 'service role reads both users'' rows of ' || tbl) from writable_own order by tbl;

select tests.act_as('alice');
select results_eq($$with u as (update public.user_notification_preferences set consent = true, timezone = 'Europe/Oslo' returning consent) select consent from u$$,
  $$values (true)$$, 'alice updates her notification preferences');
select throws_ok($$insert into public.user_notification_preferences (user_id) values (tests.uid('bob'))$$,
  '42501', 'new row violates row-level security policy for table "user_notification_preferences"', 'alice cannot create preferences for bob');

-- Feedback: send and read own, never the operator's columns.
select results_eq($$select content from public.feedback$$, $$values ('alice feedback'::text)$$, 'alice reads only her own feedback');
select throws_ok($$select admin_notes from public.feedback$$, '42501', 'permission denied for table feedback',
  'alice cannot read the operator''s notes on feedback');
select lives_ok($$insert into public.feedback (user_id, content) values (tests.uid('alice'), 'more feedback')$$, 'alice sends feedback');
select throws_ok($$insert into public.feedback (user_id, content) values (tests.uid('bob'), 'forged')$$,
  '42501', 'new row violates row-level security policy for table "feedback"', 'alice cannot send feedback as bob');
select throws_ok($$insert into public.feedback (user_id, content, read_at) values (tests.uid('alice'), 'x', now())$$,
  '42501', 'permission denied for table feedback', 'alice cannot mark her feedback read');
select throws_ok($$update public.feedback set content = 'edited'$$, '42501', 'permission denied for table feedback', 'alice cannot edit feedback');
select throws_ok($$delete from public.feedback$$, '42501', 'permission denied for table feedback', 'alice cannot delete feedback');

select tests.act_as_anon();
select throws_ok($$insert into public.feedback (user_id, content) values (tests.uid('alice'), 'anon')$$,
  '42501', 'permission denied for table feedback', 'anon cannot send feedback');

select tests.reset_role();
select is((select consent from public.user_notification_preferences where user_id = tests.uid('bob')), false, 'bob''s consent is untouched');
select is((select count(*)::int from public.analytics_dashboard_cache where user_id = tests.uid('bob')), 1, 'bob''s dashboard cache survived');
select is((select count(*)::int from public.feedback where user_id = tests.uid('alice')), 2, 'alice has her two feedback items');
select is((select count(*)::int from public.feedback where user_id = tests.uid('bob')), 1, 'no feedback was forged for bob');

select * from finish();
rollback;
