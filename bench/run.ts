// npm run bench: the numbers behind the index choices. Each benchmark measures a baseline and the
// alternative in the same run, on the same data, and reports their ratio (machine speed cancels out).
// Needs the test PostgreSQL (PG* variables) with pgvector; builds the migrated template if missing.
import postgres from 'postgres';
import { prepareTemplate } from '../scripts/prepare-test-db.ts';
import { adminUrl, dbUrl } from '../tests/helpers/pg.ts';

const USERS = Number(process.env.BENCH_USERS ?? 40);
const PER_USER = Number(process.env.BENCH_PER_USER ?? 500);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 200);

async function timeQueries(label: string, run: (i: number) => Promise<unknown>) {
  const times: number[] = [];
  for (let i = 0; i < QUERIES; i++) {
    const t = performance.now();
    await run(i);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const p50 = times[Math.floor(times.length / 2)]!;
  const p95 = times[Math.floor(times.length * 0.95)]!;
  console.log(`  ${label.padEnd(46)} p50 ${p50.toFixed(2)} ms  p95 ${p95.toFixed(2)} ms`);
  return p50;
}

const template = await prepareTemplate();
const name = `journal_bench_${Date.now()}`;
const admin = postgres(adminUrl(), { max: 1, onnotice: () => {} });
await admin.unsafe(`create database ${name} template ${template}`);
const sql = postgres(dbUrl(name), { max: 1, prepare: false, onnotice: () => {} });
try {
  console.log(`data: ${USERS} users x ${PER_USER} impulses = ${USERS * PER_USER} rows with 512-d embeddings`);
  await sql`alter table impulses disable trigger impulses_quota`;
  await sql`
    insert into auth.users (id, email)
    select gen_random_uuid(), 'bench' || g || '@bench.invalid' from generate_series(1, ${USERS}) g`;
  await sql`
    insert into impulses (user_id, content, classification, embedding, created_at)
    select p.id, 'bench', 'contraction',
           (select array_agg(random()::real - 0.5) from generate_series(1, 512) d where g > 0)::extensions.vector,
           now() - (g || ' minutes')::interval
      from profiles p cross join generate_series(1, ${PER_USER}) g
     where p.email like 'bench%'`;
  await sql`analyze impulses`;
  const users = (await sql<{ id: string }[]>`select id from profiles where email like 'bench%'`).map((r) => r.id);
  const probe = await sql<{ embedding: string }[]>`select embedding::text from impulses limit 50`;

  const similar = (i: number, tx: postgres.Sql = sql) =>
    tx.begin(async (t) => {
      await t`select set_config('request.jwt.claims', ${JSON.stringify({ sub: users[i % users.length], role: 'authenticated' })}, true),
                     set_config('role', 'authenticated', true)`;
      return t`select * from find_similar_impulses(${probe[i % probe.length]!.embedding}::extensions.vector, 0.1, 10)`;
    });

  console.log('similarity search per user (find_similar_impulses, threshold 0.1, 10 results):');
  const exact = await timeQueries('baseline: exact scan after the user_id b-tree', (i) => similar(i));
  await sql`set maintenance_work_mem = '512MB'`;
  await sql`create index impulses_embedding_hnsw on impulses using hnsw (embedding extensions.vector_cosine_ops)`;
  await sql`alter database ${sql(name)} set hnsw.iterative_scan = 'relaxed_order'`;
  await sql.end();
  const sql2 = postgres(dbUrl(name), { max: 1, prepare: false, onnotice: () => {} });
  const hnsw = await timeQueries('HNSW index with iterative scan', (i) => similar(i, sql2));
  console.log(`  ratio HNSW / exact: ${(hnsw / exact).toFixed(2)} (below 1 means HNSW is faster)`);

  console.log('impulse list page (20 rows, newest first):');
  const page = (cursor: boolean) => (i: number) =>
    sql2.begin(async (t) => {
      await t`select set_config('request.jwt.claims', ${JSON.stringify({ sub: users[i % users.length], role: 'authenticated' })}, true),
                     set_config('role', 'authenticated', true)`;
      return cursor
        ? t`select id, created_at from impulses where user_id = auth.uid()
             and (created_at, id) < (now() - interval '400 minutes', 'ffffffff-ffff-ffff-ffff-ffffffffffff'::uuid)
             order by created_at desc, id desc limit 21`
        : t`select id, created_at from impulses where user_id = auth.uid() order by created_at desc, id desc offset 400 limit 21`;
    });
  const offset = await timeQueries('baseline: offset 400', page(false));
  const keyset = await timeQueries('cursor (keyset) at the same depth', page(true));
  console.log(`  ratio cursor / offset: ${(keyset / offset).toFixed(2)}`);
  await sql2.end();
} finally {
  await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.end();
}
process.exit(0);
