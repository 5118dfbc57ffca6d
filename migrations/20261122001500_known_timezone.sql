-- The zone itself when Postgres knows it, else 'UTC'. Clients validate IANA names with their own
-- (possibly newer or older) zone database; reading pg_timezone_names scans every zone on disk,
-- while trying the conversion costs microseconds.
create or replace function public.known_timezone(tz text) returns text
language plpgsql stable set search_path = '' as $$
begin
  if tz is null then return 'UTC'; end if;
  perform now() at time zone tz;
  return tz;
exception when others then
  return 'UTC';
end $$;

revoke all on function public.known_timezone(text) from public, anon;
grant execute on function public.known_timezone(text) to authenticated, service_role;
