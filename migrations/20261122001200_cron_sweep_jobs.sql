-- The job sweeper runs in the cron function (it publishes to QStash), so pg_cron calls it over HTTP
-- through pg_net, every minute. The function URL and the cron secret come from Supabase Vault
-- (secrets `functions_url` and `cron_secret`, see README). Skipped where pg_cron, pg_net or Vault is
-- missing (PGlite, plain PostgreSQL): the local stack's scheduler calls the route there.
do $outer$
begin
  if not exists (select 1 from pg_extension where extname = 'pg_cron')
     or not exists (select 1 from pg_available_extensions where name = 'pg_net')
     or to_regclass('vault.decrypted_secrets') is null then
    raise notice 'pg_cron, pg_net or vault missing: sweep-jobs not scheduled here';
    return;
  end if;
  create extension if not exists pg_net;
  perform cron.schedule('sweep-jobs', '* * * * *', $job$
    select net.http_post(
      url := (select decrypted_secret from vault.decrypted_secrets where name = 'functions_url') || '/cron/sweep-jobs',
      headers := jsonb_build_object(
        'Authorization', 'Bearer ' || (select decrypted_secret from vault.decrypted_secrets where name = 'cron_secret'),
        'Content-Type', 'application/json'),
      body := '{}'::jsonb)
  $job$);
end
$outer$;
