-- Queue health and operator actions on the job ledger (public.jobs). Service role only.
-- plpgsql so that the bodies resolve public.jobs at call time.
--
-- Counting rule: `delayed` = status 'delayed', or status 'waiting' with run_at in the future
-- (a job waiting for QStash's next retry after a failed attempt); `waiting` = status 'waiting'
-- and due now.

create or replace function public.queue_counts()
returns table (queue text, waiting bigint, active bigint, completed bigint, failed bigint, delayed bigint)
language plpgsql stable
set search_path = ''
as $$
#variable_conflict use_column
begin
  return query
  select q.name,
         count(j.id) filter (where j.status = 'waiting' and j.run_at <= now()),
         count(j.id) filter (where j.status = 'active'),
         count(j.id) filter (where j.status = 'completed'),
         count(j.id) filter (where j.status = 'failed'),
         count(j.id) filter (where j.status = 'delayed' or (j.status = 'waiting' and j.run_at > now()))
  from unnest(array[
         'impulse-classification', 'unified-guidance', 'session-summary',
         'insights-regeneration', 'check-in-assessment', 'notification-deliver'
       ]) with ordinality as q(name, ord)
  left join public.jobs j on j.queue = q.name
  group by q.name, q.ord
  order by q.ord;
end;
$$;

-- A failed job gets a fresh set of attempts; the caller re-publishes it (shared/queue/admin.ts),
-- and the sweeper does so within a minute or two if that publish fails.
create or replace function public.retry_job(job_id uuid)
returns boolean
language plpgsql volatile
set search_path = ''
as $$
begin
  update public.jobs
  set status = 'waiting', attempts = 0, last_error = null, run_at = now(), started_at = null,
      finished_at = null, qstash_message_id = null, updated_at = now()
  where id = retry_job.job_id and status = 'failed';
  return found;
end;
$$;

create or replace function public.delete_job(job_id uuid)
returns boolean
language plpgsql volatile
set search_path = ''
as $$
declare
  deleted boolean;
begin
  delete from public.jobs where id = delete_job.job_id and status = 'failed';
  deleted := found;
  if deleted then
    delete from public.processed_messages where processed_messages.job_id = delete_job.job_id;
  end if;
  return deleted;
end;
$$;

revoke all on function public.queue_counts() from public, anon, authenticated;
revoke all on function public.retry_job(uuid) from public, anon, authenticated;
revoke all on function public.delete_job(uuid) from public, anon, authenticated;
grant execute on function public.queue_counts() to service_role;
grant execute on function public.retry_job(uuid) to service_role;
grant execute on function public.delete_job(uuid) to service_role;
