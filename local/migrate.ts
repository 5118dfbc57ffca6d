// Applies the Supabase shim, the migrations (each once, recorded like the Supabase CLI does in
// supabase_migrations.schema_migrations) and optionally the seed. Used by the local stack and tests.
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { Sql } from '../shared/db/client.ts';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const SHIM_FILE = join(ROOT, 'local/supabase-shim.sql');
export const MIGRATIONS_DIR = join(ROOT, 'migrations');
export const SEED_FILE = join(ROOT, 'seed.sql');

export async function migrationFiles(): Promise<string[]> {
  return (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{14}_[a-z0-9_]+\.sql$/.test(f)).sort();
}

export interface MigrateResult {
  applied: string[];
}

export async function migrate(sql: Sql, opts: { shim?: boolean; seed?: boolean } = {}): Promise<MigrateResult> {
  if (opts.shim !== false) await sql.unsafe(await readFile(SHIM_FILE, 'utf8'));
  await sql.unsafe(`
    create schema if not exists supabase_migrations;
    create table if not exists supabase_migrations.schema_migrations (
      version text primary key, statements text[], name text
    );`);
  const done = new Set(
    (await sql<{ version: string }[]>`select version from supabase_migrations.schema_migrations`).map((r) => r.version),
  );
  const applied: string[] = [];
  for (const file of await migrationFiles()) {
    const version = file.slice(0, 14);
    if (done.has(version)) continue;
    const text = await readFile(join(MIGRATIONS_DIR, file), 'utf8');
    await sql.begin(async (tx) => {
      await tx.unsafe(text);
      await tx`insert into supabase_migrations.schema_migrations (version, name) values (${version}, ${file.slice(15, -4)})`;
    });
    applied.push(file);
  }
  if (opts.seed) await sql.unsafe(await readFile(SEED_FILE, 'utf8'));
  return { applied };
}
