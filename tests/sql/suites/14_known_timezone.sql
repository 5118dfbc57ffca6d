-- known_timezone: the zone when Postgres knows it, else UTC (the dashboard never fails on a zone).
begin;
select plan(4);
select is(public.known_timezone('Europe/Oslo'), 'Europe/Oslo', 'a known zone is kept');
select is(public.known_timezone('US/Pacific-New'), 'UTC', 'a zone Postgres does not know becomes UTC');
select is(public.known_timezone('not a zone'), 'UTC', 'garbage becomes UTC');
select is(public.known_timezone(null), 'UTC', 'null becomes UTC');
select * from finish();
rollback;
