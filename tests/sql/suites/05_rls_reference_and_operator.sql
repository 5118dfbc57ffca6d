-- Reference tables: readable by signed-in users, written by the operator only.
-- Operator-only tables: no access at all for anon or authenticated; the service role has all.
begin;

create temp table reference (tbl text, rows int, col text) on commit drop;
insert into reference values ('areas', 6, 'name'), ('layers', 4, 'name'), ('subscription_config', 4, 'tier');
-- Each operator table with a column to try an update on.
create temp table operator_only (tbl text, col text) on commit drop;
insert into operator_only values
  ('admin_notes', 'note'), ('admin_settings', 'value'), ('iap_transactions', 'amount'), ('iap_webhook_events', 'status'),
  ('ai_rate_limits', 'monthly_requests'), ('jobs', 'status'), ('processed_messages', 'processed_at'),
  ('notification_events', 'reason');
grant select on reference, operator_only to public;

select plan(3 * 6 + 8 * 8);

select tests.create_user('alice', 'foundation');
-- One row in every operator table, so "no access" is not just "no rows".
insert into public.admin_notes (user_id, note, created_by) values (tests.uid('alice'), 'note', 'op');
insert into public.admin_settings (key, value) values ('alert_thresholds', '{}');
insert into public.iap_transactions (user_id, platform, transaction_id, original_transaction_id, product_id, kind, purchase_date)
values (tests.uid('alice'), 'ios', 't1', 'o1', 'p', 'purchase', now());
insert into public.iap_webhook_events (platform, event_id, notification_type, user_id) values ('ios', 'e1', 'DID_RENEW', tests.uid('alice'));
with j as (insert into public.jobs (queue, user_id) values ('impulse-classification', tests.uid('alice')) returning id)
insert into public.processed_messages (message_id, job_id) select 'm1', id from j;
insert into public.notification_events (user_id, event) values (tests.uid('alice'), 'sent');

-- Reference tables.
select tests.act_as_anon();
select throws_ok(format('select * from public.%I', tbl), '42501', format('permission denied for table %s', tbl),
                 'anon cannot read ' || tbl) from reference order by tbl;
select tests.act_as('alice');
select results_eq(format('select count(*)::int from public.%I', tbl), format('values (%s)', rows),
                  'alice reads every row of ' || tbl) from reference order by tbl;
select throws_ok(format('insert into public.%I (%I) values (%L)', tbl, col, 'trial'), '42501',
                 format('permission denied for table %s', tbl), 'alice cannot insert into ' || tbl) from reference order by tbl;
select throws_ok(format('update public.%I set %I = %I', tbl, col, col), '42501',
                 format('permission denied for table %s', tbl), 'alice cannot update ' || tbl) from reference order by tbl;
select throws_ok(format('delete from public.%I', tbl), '42501',
                 format('permission denied for table %s', tbl), 'alice cannot delete from ' || tbl) from reference order by tbl;
select tests.act_as_service();
select lives_ok(format('update public.%I set %I = %I', tbl, col, col), 'service role updates ' || tbl) from reference order by tbl;

-- Operator-only tables.
select tests.act_as_anon();
select throws_ok(format('select * from public.%I', tbl), '42501', format('permission denied for table %s', tbl),
                 'anon cannot read ' || tbl) from operator_only order by tbl;
select throws_ok(format('insert into public.%I default values', tbl), '42501', format('permission denied for table %s', tbl),
                 'anon cannot insert into ' || tbl) from operator_only order by tbl;
select tests.act_as('alice');
select throws_ok(format('select * from public.%I', tbl), '42501', format('permission denied for table %s', tbl),
                 'alice cannot read ' || tbl) from operator_only order by tbl;
select throws_ok(format('insert into public.%I default values', tbl), '42501', format('permission denied for table %s', tbl),
                 'alice cannot insert into ' || tbl) from operator_only order by tbl;
select throws_ok(format('update public.%I set %I = %I', tbl, col, col), '42501', format('permission denied for table %s', tbl),
                 'alice cannot update ' || tbl) from operator_only order by tbl;
select throws_ok(format('delete from public.%I', tbl), '42501', format('permission denied for table %s', tbl),
                 'alice cannot delete from ' || tbl) from operator_only order by tbl;
-- No policy grants anything either, should a grant ever be added by mistake.
select tests.reset_role();
select is_empty(format($q$select policyname::text from pg_policies where schemaname = 'public' and tablename = %L$q$, tbl),
                tbl || ' has no policy') from operator_only order by tbl;
select tests.act_as_service();
select ok((select count(*) from public.admin_notes) > 0 and (select count(*) from public.admin_settings) > 0
          and (select count(*) from public.iap_transactions) > 0 and (select count(*) from public.iap_webhook_events) > 0
          and (select count(*) from public.ai_rate_limits) = 4 and (select count(*) from public.jobs) > 0
          and (select count(*) from public.processed_messages) > 0 and (select count(*) from public.notification_events) > 0,
          'service role reads every operator table');
select lives_ok($$update public.admin_settings set value = '{"x":1}' where key = 'alert_thresholds'$$, 'service role writes admin settings');
select lives_ok($$update public.jobs set status = 'completed'$$, 'service role writes jobs');
select lives_ok($$insert into public.admin_notes (user_id, note, created_by) values (tests.uid('alice'), 'n2', 'op')$$, 'service role writes admin notes');
select lives_ok($$delete from public.processed_messages$$, 'service role deletes processed messages');
select lives_ok($$update public.ai_rate_limits set monthly_requests = monthly_requests$$, 'service role writes ai rate limits');
select lives_ok($$insert into public.iap_webhook_events (platform, event_id, notification_type) values ('android', 'e2', 'x')$$, 'service role logs webhook events');
select lives_ok($$insert into public.iap_transactions (platform, transaction_id, original_transaction_id, product_id, kind, purchase_date) values ('android', 't2', 'o2', 'p', 'renewal', now())$$,
  'service role logs transactions');

select * from finish();
rollback;
