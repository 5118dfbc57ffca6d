-- notification_events is append-only; the job queue functions (queue_counts, retry_job,
-- delete_job) are for the service role only.
begin;
select plan(27);

select tests.create_user('alice', 'foundation');
select tests.create_user('gone', 'foundation');

-- notification_events
select tests.act_as_service();
select lives_ok($$insert into public.notification_events (user_id, event, category, reason, data)
                  values (tests.uid('alice'), 'skipped', 'reminder', 'quiet_hours', '{"k":1}'),
                         (tests.uid('gone'), 'sent', 'lifecycle', null, '{}')$$, 'the service role appends events');
select throws_ok($$update public.notification_events set reason = 'edited'$$, '42501', 'notification_events is append-only',
  'the service role cannot update an event');
select throws_ok($$update public.notification_events set user_id = tests.uid('gone') where user_id = tests.uid('alice')$$,
  '42501', 'notification_events is append-only', 'the service role cannot move an event to another user');
select throws_ok($$delete from public.notification_events$$, '42501', 'notification_events is append-only',
  'the service role cannot delete events');
select tests.reset_role();
select throws_ok($$update public.notification_events set category = 'campaign'$$, '42501', 'notification_events is append-only',
  'not even the table owner can update events');
select throws_ok($$delete from public.notification_events$$, '42501', 'notification_events is append-only',
  'not even the table owner can delete events');
select results_eq($$select reason from public.notification_events where user_id = tests.uid('alice')$$, $$values ('quiet_hours'::text)$$,
  'the event is unchanged');

-- Deleting a user keeps its events, detached (the foreign key's set null is the one allowed change).
with m as (insert into public.notification_messages (user_id, category, body) values (tests.uid('alice'), 'reminder', 'b') returning id)
insert into public.notification_events (user_id, message_id, event) select tests.uid('alice'), id, 'opened' from m;
select lives_ok($$delete from auth.users where id = tests.uid('gone')$$, 'a user with events can be deleted');
select results_eq($$select user_id, event from public.notification_events where category = 'lifecycle'$$,
  $$values (null::uuid, 'sent'::text)$$, 'the deleted user''s event remains without user');
select lives_ok($$delete from public.notification_messages where user_id = tests.uid('alice')$$, 'a message with events can be deleted');
select results_eq($$select user_id, message_id from public.notification_events where event = 'opened'$$,
  $$values (tests.uid('alice'), null::uuid)$$, 'the event of a deleted message remains without message');

-- Job queue functions.
insert into public.jobs (id, queue, status, run_at, attempts, last_error, finished_at) values
  ('20000000-0000-4000-8000-000000000001', 'impulse-classification', 'waiting', now() - interval '1 minute', 0, null, null),
  ('20000000-0000-4000-8000-000000000002', 'impulse-classification', 'waiting', now() + interval '1 hour', 1, 'retrying', null),
  ('20000000-0000-4000-8000-000000000003', 'impulse-classification', 'active', now(), 1, null, null),
  ('20000000-0000-4000-8000-000000000004', 'impulse-classification', 'completed', now(), 1, null, now()),
  ('20000000-0000-4000-8000-000000000005', 'impulse-classification', 'failed', now(), 5, 'boom', now()),
  ('20000000-0000-4000-8000-000000000006', 'session-summary', 'delayed', now() + interval '1 minute', 0, null, null),
  ('20000000-0000-4000-8000-000000000007', 'session-summary', 'failed', now(), 5, 'boom', now()),
  ('20000000-0000-4000-8000-000000000008', 'notification-deliver', 'completed', now(), 1, null, now());
insert into public.processed_messages (message_id, job_id) values ('msg-7', '20000000-0000-4000-8000-000000000007');

select tests.act_as_service();
select results_eq($$select queue, waiting, active, completed, failed, delayed from public.queue_counts()$$,
  $$values ('impulse-classification'::text, 1::bigint, 1::bigint, 1::bigint, 1::bigint, 1::bigint),
           ('unified-guidance', 0, 0, 0, 0, 0),
           ('session-summary', 0, 0, 0, 1, 1),
           ('insights-regeneration', 0, 0, 0, 0, 0),
           ('check-in-assessment', 0, 0, 0, 0, 0),
           ('notification-deliver', 0, 0, 1, 0, 0)$$,
  'queue_counts: six queues, a future waiting job counts as delayed');

select is(public.retry_job('20000000-0000-4000-8000-000000000005'), true, 'retry_job retries a failed job');
select results_eq($$select status::text, attempts, last_error, finished_at from public.jobs where id = '20000000-0000-4000-8000-000000000005'$$,
  $$values ('waiting'::text, 0, null::text, null::timestamptz)$$, 'the retried job waits again with fresh attempts');
select is(public.retry_job('20000000-0000-4000-8000-000000000004'), false, 'retry_job does not touch a completed job');
select is(public.retry_job('20000000-0000-4000-8000-000000000003'), false, 'retry_job does not touch an active job');
select is(public.retry_job(gen_random_uuid()), false, 'retry_job of a missing job is false');
select is((select status::text from public.jobs where id = '20000000-0000-4000-8000-000000000004'), 'completed', 'the completed job is unchanged');

select is(public.delete_job('20000000-0000-4000-8000-000000000003'), false, 'delete_job does not delete an active job');
select is(public.delete_job('20000000-0000-4000-8000-000000000007'), true, 'delete_job deletes a failed job');
select is_empty($$select id from public.jobs where id = '20000000-0000-4000-8000-000000000007'$$, 'the failed job is gone');
select is_empty($$select message_id from public.processed_messages where message_id = 'msg-7'$$, 'its processed messages are gone');
select is((select count(*)::int from public.jobs where id = '20000000-0000-4000-8000-000000000003'), 1, 'the active job is still there');

select tests.act_as('alice');
select throws_ok($$select * from public.queue_counts()$$, '42501', null, 'an app user cannot read queue counts');
select throws_ok($$select public.retry_job('20000000-0000-4000-8000-000000000002')$$, '42501', null, 'an app user cannot retry jobs');
select throws_ok($$select public.delete_job('20000000-0000-4000-8000-000000000002')$$, '42501', null, 'an app user cannot delete jobs');
select tests.act_as_anon();
select throws_ok($$select * from public.queue_counts()$$, '42501', null, 'anon cannot read queue counts');

select * from finish();
rollback;
