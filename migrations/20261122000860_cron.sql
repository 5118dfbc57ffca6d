-- Scheduled jobs through pg_cron, where it exists. Applies cleanly without it (PGlite, plain
-- PostgreSQL): the local stack's scheduler calls the same functions then.
do $outer$
begin
  if not exists (select 1 from pg_available_extensions where name = 'pg_cron') then
    raise notice 'pg_cron not available: schedules not created';
    return;
  end if;
  begin
    create extension if not exists pg_cron;
  exception when others then
    -- pg_cron can only live in cron.database_name and needs shared_preload_libraries.
    raise notice 'pg_cron not loadable in this database: %', sqlerrm;
    return;
  end;
  perform cron.schedule('expire-trials', '5 * * * *', 'select public.expire_trials()');
end
$outer$;
