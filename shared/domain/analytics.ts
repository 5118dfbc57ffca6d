// The analytics dashboard of one user, computed in SQL under the caller's RLS, with day boundaries
// in the user's own time zone (user_notification_preferences.timezone), and cached for an hour in
// analytics_dashboard_cache.
import type { Tx } from '../db/client.ts';

export const DASHBOARD_TTL_SECONDS = 3600;
export const TIMELINE_DAYS = 30;

export interface DayCounts {
  impulses: number;
  sessions: number;
  check_ins: number;
  notes: number;
}

export interface Dashboard {
  summary: {
    impulses: { total: number; by_classification: Record<string, number>; by_status: Record<string, number> };
    sessions: { total: number; by_status: Record<string, number> };
    check_ins: number;
    notes: number;
    streak_days: number;
    timezone: string;
  };
  /** YYYY-MM-DD (user's time zone) → counts, the last 30 days including today. */
  timeline: Record<string, DayCounts>;
  themes: {
    areas: Array<{ id: string; name: string; display_name: string | null; count: number }>;
    layers: Array<{ id: string; name: string; primary: number; secondary: number }>;
  };
}

export interface CachedDashboard extends Dashboard {
  cached: boolean;
  computed_at: string;
  expires_at: string;
}

const zeros = (keys: readonly string[], counts: Record<string, number> | null) =>
  Object.fromEntries(keys.map((k) => [k, counts?.[k] ?? 0]));

export async function computeDashboard(tx: Tx, userId: string): Promise<Dashboard> {
  // The runtime (Intl) accepts zones Postgres may not know (US/Pacific-New): those count in UTC.
  const [pref] = await tx<{ timezone: string }[]>`
    select public.known_timezone(p.timezone) as timezone
      from public.user_notification_preferences p where p.user_id = ${userId}`;
  const tz = pref?.timezone ?? 'UTC';

  const [counts] = await tx<{
    impulses: number; by_class: Record<string, number> | null; by_status: Record<string, number> | null;
    sessions: number; sessions_by_status: Record<string, number> | null; check_ins: number; notes: number;
  }[]>`
    select
      (select count(*)::int from public.impulses where user_id = ${userId}) as impulses,
      (select jsonb_object_agg(classification, n) from (
         select classification, count(*)::int as n from public.impulses where user_id = ${userId} group by 1) x) as by_class,
      (select jsonb_object_agg(processual_status, n) from (
         select processual_status, count(*)::int as n from public.impulses where user_id = ${userId} group by 1) x) as by_status,
      (select count(*)::int from public.sessions where user_id = ${userId}) as sessions,
      (select jsonb_object_agg(status, n) from (
         select status, count(*)::int as n from public.sessions where user_id = ${userId} group by 1) x) as sessions_by_status,
      (select count(*)::int from public.check_ins where user_id = ${userId}) as check_ins,
      (select count(*)::int from public.notes where user_id = ${userId} and archived_at is null) as notes`;

  // Activity events of the last 30 local days, and the streak: the run of consecutive local days
  // with any activity that ends today or yesterday (gaps-and-islands over distinct days).
  const events = () => tx`
    select 'impulses' as kind, created_at from public.impulses where user_id = ${userId}
    union all select 'sessions', created_at from public.sessions where user_id = ${userId}
    union all select 'check_ins', created_at from public.check_ins where user_id = ${userId}
    union all select 'notes', created_at from public.notes where user_id = ${userId}`;

  const timelineRows = await tx<(DayCounts & { day: string })[]>`
    with today as (select (now() at time zone ${tz})::date as t),
         days as (select generate_series(t - ${TIMELINE_DAYS - 1}::int, t, interval '1 day')::date as d from today),
         ev as (select kind, (created_at at time zone ${tz})::date as d from (${events()}) e
                where created_at >= now() - make_interval(days => ${TIMELINE_DAYS + 1}))
    select to_char(days.d, 'YYYY-MM-DD') as day,
           count(ev.kind) filter (where ev.kind = 'impulses')::int as impulses,
           count(ev.kind) filter (where ev.kind = 'sessions')::int as sessions,
           count(ev.kind) filter (where ev.kind = 'check_ins')::int as check_ins,
           count(ev.kind) filter (where ev.kind = 'notes')::int as notes
      from days left join ev on ev.d = days.d
     group by days.d order by days.d`;

  const [streak] = await tx<{ streak_days: number }[]>`
    with days as (select distinct (created_at at time zone ${tz})::date as d from (${events()}) e),
         runs as (select d, d - (row_number() over (order by d))::int as run from days)
    select count(*)::int as streak_days from runs
     where run = (select run from runs order by d desc limit 1)
       and (select max(d) from days) >= (now() at time zone ${tz})::date - 1`;

  const areas = await tx<{ id: string; name: string; display_name: string | null; count: number }[]>`
    select a.id, a.name, a.display_name, count(*)::int as count
      from public.impulse_areas ia join public.areas a on a.id = ia.area_id
     where ia.user_id = ${userId}
     group by a.id order by count desc, a.sort_order`;
  const layers = await tx<{ id: string; name: string; primary: number; secondary: number }[]>`
    select l.id, l.name,
           count(i.id) filter (where i.primary_layer_id = l.id)::int as primary,
           count(i.id) filter (where i.secondary_layer_id = l.id)::int as secondary
      from public.layers l
      left join public.impulses i on i.user_id = ${userId} and l.id in (i.primary_layer_id, i.secondary_layer_id)
     group by l.id order by l.sort_order`;

  const c = counts!;
  return {
    summary: {
      impulses: {
        total: c.impulses,
        by_classification: zeros(['contraction', 'expansion'], c.by_class),
        by_status: zeros(['captured', 'transforming', 'transformed'], c.by_status),
      },
      sessions: { total: c.sessions, by_status: zeros(['created', 'active', 'completed', 'abandoned'], c.sessions_by_status) },
      check_ins: c.check_ins,
      notes: c.notes,
      streak_days: streak?.streak_days ?? 0,
      timezone: tz,
    },
    timeline: Object.fromEntries(timelineRows.map(({ day, ...n }) => [day, n])),
    themes: { areas: [...areas], layers: [...layers] },
  };
}

/** The cached dashboard while it is fresh, else a new computation written back to the cache. */
export async function readDashboard(tx: Tx, userId: string): Promise<CachedDashboard> {
  const [hit] = await tx<(Dashboard & { computed_at: Date; expires_at: Date })[]>`
    select summary, timeline, themes, computed_at, expires_at from public.analytics_dashboard_cache
     where user_id = ${userId} and expires_at > now()`;
  if (hit) {
    return { ...hit, cached: true, computed_at: hit.computed_at.toISOString(), expires_at: hit.expires_at.toISOString() };
  }
  const d = await computeDashboard(tx, userId);
  const [row] = await tx<{ computed_at: Date; expires_at: Date }[]>`
    insert into public.analytics_dashboard_cache (user_id, summary, timeline, themes, computed_at, expires_at)
    values (${userId}, ${tx.json(d.summary as never)}, ${tx.json(d.timeline as never)}, ${tx.json(d.themes as never)},
            now(), now() + make_interval(secs => ${DASHBOARD_TTL_SECONDS}))
    on conflict (user_id) do update set summary = excluded.summary, timeline = excluded.timeline,
      themes = excluded.themes, computed_at = excluded.computed_at, expires_at = excluded.expires_at
    returning computed_at, expires_at`;
  return { ...d, cached: false, computed_at: row!.computed_at.toISOString(), expires_at: row!.expires_at.toISOString() };
}
