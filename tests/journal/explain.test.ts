// The list queries stay index scans at volume: 100k impulses, sessions, notes and check-ins of
// 1000 users, and EXPLAIN of every list query (with and without filters, with a cursor) run as
// one user (RLS applied) shows no Seq Scan on a user table.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withUser, type Tx } from '../../shared/db/client.ts';
import type { UserClaims } from '../../shared/http/context.ts';
import type { PageRequest } from '../../shared/http/pagination.ts';
import { likePattern } from '../../shared/domain/journal-schemas.ts';
import { listImpulsesQuery } from '../../shared/db/queries/impulses.ts';
import { listSessionsQuery } from '../../shared/db/queries/sessions.ts';
import { listNotesQuery } from '../../shared/db/queries/notes.ts';
import { listCheckInsQuery } from '../../shared/db/queries/check-ins.ts';
import { freshDatabase, type TestDatabase } from '../helpers/db.ts';

const USER_TABLES = new Set(['impulses', 'impulse_areas', 'sessions', 'notes', 'check_ins', 'profiles']);
let db: TestDatabase;
let claims: UserClaims;
let areaId: string;
let impulseId: string;
let sessionId: string;

beforeAll(async () => {
  db = await freshDatabase();
  const sql = db.sql;
  // Bulk data as the service, set-based; the quota triggers are off for this database only.
  await sql`insert into auth.users (email) select 'bulk' || g || '@bulk.local' from generate_series(1, 1000) g`;
  await sql`insert into public.areas (name, sort_order) select 'area' || g, g from generate_series(1, 6) g`;
  await sql`alter table public.impulses disable trigger impulses_quota`;
  await sql`alter table public.check_ins disable trigger check_ins_quota`;
  await sql`
    with u as (select array_agg(id order by id) as ids from public.profiles)
    insert into public.impulses (user_id, content, classification, processual_status, content_validity, created_at)
    select u.ids[1 + g % 1000], 'bulk thought number ' || g,
           (array['contraction', 'expansion'])[1 + (g / 1000) % 2]::public.impulse_classification,
           (array['captured', 'transforming', 'transformed'])[1 + g % 3]::public.processual_status,
           (array['valid', 'low_confidence', 'gibberish'])[1 + g % 3]::public.content_validity,
           now() - make_interval(secs => g)
    from generate_series(1, 100000) g, u`;
  await sql`
    with a as (select array_agg(id order by id) as ids from public.areas)
    insert into public.impulse_areas (impulse_id, user_id, area_id, relevance_score)
    select i.id, i.user_id, a.ids[1 + (hashtext(i.id::text) & 5)], 0.5 from public.impulses i, a`;
  await sql`
    insert into public.sessions (user_id, impulse_id, classification, status, created_at)
    select user_id, id, classification::text::public.session_type,
           case when processual_status = 'transforming' then 'active' else 'completed' end::public.session_status, created_at
    from public.impulses`;
  await sql`
    insert into public.notes (user_id, content, impulse_id, session_id, session_step, archived_at, created_at)
    select s.user_id, 'bulk note', s.impulse_id, case when n % 2 = 0 then s.id end, case when n % 2 = 0 then 3 end,
           case when n % 5 = 0 then now() end, s.created_at
    from (select s.*, row_number() over () as n from public.sessions s) s`;
  await sql`
    with u as (select array_agg(id order by id) as ids from public.profiles)
    insert into public.check_ins (user_id, content, created_at)
    select u.ids[1 + g % 1000], 'bulk check-in ' || g, now() - make_interval(secs => g) from generate_series(1, 100000) g, u`;
  await sql`analyze`;

  const [pick] = await sql<{ user_id: string; impulse_id: string; session_id: string }[]>`
    select s.user_id, s.impulse_id, s.id as session_id from public.sessions s order by s.id limit 1`;
  claims = { sub: pick!.user_id, role: 'authenticated' };
  impulseId = pick!.impulse_id;
  sessionId = pick!.session_id;
  const [area] = await sql<{ id: string }[]>`select id from public.areas limit 1`;
  areaId = area!.id;
}, 300_000);

afterAll(async () => {
  await db?.drop();
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
  [k: string]: unknown;
}

function seqScans(node: PlanNode): string[] {
  const own = node['Node Type'] === 'Seq Scan' && USER_TABLES.has(node['Relation Name'] ?? '') ? [node['Relation Name']!] : [];
  return [...own, ...(node.Plans ?? []).flatMap(seqScans)];
}

/** EXPLAIN of the exact query the route runs, as the user, plus the rows it returns. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function explain(build: (tx: Tx) => any) {
  return withUser(db.sql, claims, async (tx) => {
    const [row] = await tx`explain (format json) ${build(tx)}`;
    const plan = (row as { 'QUERY PLAN': Array<{ Plan: PlanNode }> })['QUERY PLAN'][0]!.Plan;
    const rows = await build(tx);
    return { plan, rows: rows as unknown as Array<{ id: string; cursor_at: string }> };
  });
}

const first: PageRequest = { limit: 20, cursor: null };
const after = (rows: Array<{ id: string; cursor_at: string }>): PageRequest => ({
  limit: 20,
  cursor: { createdAt: rows[rows.length - 1]!.cursor_at, id: rows[rows.length - 1]!.id },
});

describe('list queries at 100k rows use indexes', () => {
  const impulseFilters = [
    {},
    { classification: 'expansion' },
    { processual_status: 'transformed' },
    { content_validity: 'gibberish' },
    { pattern: likePattern('number 1') },
    { classification: 'contraction', processual_status: 'captured' },
  ];

  it('impulses', async () => {
    for (const f of impulseFilters) {
      const { plan, rows } = await explain((tx) => listImpulsesQuery(tx, claims.sub, f, first));
      expect(seqScans(plan), JSON.stringify(f)).toEqual([]);
      expect(rows.length).toBeGreaterThan(0);
      const next = await explain((tx) => listImpulsesQuery(tx, claims.sub, f, after(rows)));
      expect(seqScans(next.plan), `cursor ${JSON.stringify(f)}`).toEqual([]);
    }
    const byArea = await explain((tx) => listImpulsesQuery(tx, claims.sub, { area_id: areaId }, first));
    expect(seqScans(byArea.plan)).toEqual([]);
  });

  it('sessions', async () => {
    for (const f of [{}, { status: 'completed' }, { status: 'active' }, { impulse_id: impulseId }]) {
      const { plan, rows } = await explain((tx) => listSessionsQuery(tx, claims.sub, f, first));
      expect(seqScans(plan), JSON.stringify(f)).toEqual([]);
      if (rows.length > 0) {
        const next = await explain((tx) => listSessionsQuery(tx, claims.sub, f, after(rows)));
        expect(seqScans(next.plan)).toEqual([]);
      }
    }
  });

  it('notes', async () => {
    for (const f of [
      { archived: 'exclude' as const },
      { archived: 'include' as const },
      { archived: 'only' as const },
      { archived: 'exclude' as const, note_type: 'reflection' },
      { archived: 'exclude' as const, impulse_id: impulseId },
      { archived: 'include' as const, session_id: sessionId },
    ]) {
      const { plan, rows } = await explain((tx) => listNotesQuery(tx, claims.sub, f, first));
      expect(seqScans(plan), JSON.stringify(f)).toEqual([]);
      if (rows.length > 0) {
        const next = await explain((tx) => listNotesQuery(tx, claims.sub, f, after(rows)));
        expect(seqScans(next.plan)).toEqual([]);
      }
    }
  });

  it('check-ins', async () => {
    const { plan, rows } = await explain((tx) => listCheckInsQuery(tx, claims.sub, first));
    expect(seqScans(plan)).toEqual([]);
    expect(rows).toHaveLength(21);
    const next = await explain((tx) => listCheckInsQuery(tx, claims.sub, after(rows)));
    expect(seqScans(next.plan)).toEqual([]);
  });

  it('the detector sees a Seq Scan when there is one', async () => {
    // As the service (no RLS qual on user_id), a LIKE on content can only scan the table.
    const [row] = await db.sql`explain (format json) select id from public.impulses where content like '%x%'`;
    const plan = (row as { 'QUERY PLAN': Array<{ Plan: PlanNode }> })['QUERY PLAN'][0]!.Plan;
    expect(seqScans(plan)).toContain('impulses');
  });
});
