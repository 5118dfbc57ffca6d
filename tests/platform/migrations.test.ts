// The migrations apply to an empty Supabase-like database (shim first) and to PGlite, and a
// second run applies nothing.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { migrate, migrationFiles } from '../../local/migrate.ts';
import { startEmbeddedPostgres } from '../../local/pglite.ts';
import { adminUrl, dbUrl } from '../helpers/pg.ts';

async function applyTwice(url: string) {
  const sql = postgres(url, { max: 1, prepare: false, onnotice: () => {} });
  try {
    const first = await migrate(sql, { seed: true });
    const second = await migrate(sql, { seed: true });
    const [counts] = await sql<{ areas: number; layers: number; profiles: number; ledger: number }[]>`
      select (select count(*)::int from public.areas) as areas, (select count(*)::int from public.layers) as layers,
             (select count(*)::int from public.profiles) as profiles,
             (select count(*)::int from supabase_migrations.schema_migrations) as ledger`;
    return { first, second, counts: counts! };
  } finally {
    await sql.end();
  }
}

describe('migrations', () => {
  it('apply to an empty PostgreSQL database once, and the seed is idempotent', async () => {
    const name = `journal_mig_${crypto.randomUUID().slice(0, 8)}`;
    const admin = postgres(adminUrl(), { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name}`);
    try {
      const { first, second, counts } = await applyTwice(dbUrl(name));
      expect(first.applied).toEqual(await migrationFiles());
      expect(second.applied).toEqual([]);
      expect(counts).toEqual({ areas: 6, layers: 4, profiles: 4, ledger: first.applied.length });
    } finally {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    }
  });

  it('apply to PGlite (the embedded database of the local stack) once', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'journal-pglite-'));
    const pg = await startEmbeddedPostgres({ dataDir: dir });
    try {
      const { first, second, counts } = await applyTwice(pg.url);
      expect(first.applied).toEqual(await migrationFiles());
      expect(second.applied).toEqual([]);
      expect(counts).toMatchObject({ areas: 6, layers: 4, profiles: 4 });
    } finally {
      await pg.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
