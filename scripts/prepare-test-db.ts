// Builds the migrated template database that every test file clones. The template's name carries
// a hash of the shim, migrations and seed, so an unchanged schema is reused across runs.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import postgres from 'postgres';
import { MIGRATIONS_DIR, SEED_FILE, SHIM_FILE, migrate, migrationFiles } from '../local/migrate.ts';
import { adminUrl, dbUrl } from '../tests/helpers/pg.ts';

export async function templateName(): Promise<string> {
  const hash = createHash('sha256');
  for (const f of [SHIM_FILE, SEED_FILE, ...(await migrationFiles()).map((m) => join(MIGRATIONS_DIR, m))]) {
    hash.update(f.split('/').pop()!).update(await readFile(f));
  }
  return `journal_tpl_${hash.digest('hex').slice(0, 12)}`;
}

export async function prepareTemplate(): Promise<string> {
  const name = await templateName();
  const admin = postgres(adminUrl(), { max: 1, onnotice: () => {} });
  try {
    // One builder at a time across concurrent test runs on this machine.
    await admin`select pg_advisory_lock(hashtext('journal_test_template'))`;
    const [exists] = await admin`select 1 from pg_database where datname = ${name}`;
    if (!exists) {
      const building = `${name}_building`;
      await admin.unsafe(`drop database if exists ${building}`);
      await admin.unsafe(`create database ${building}`);
      const db = postgres(dbUrl(building), { max: 1, onnotice: () => {} });
      try {
        await migrate(db, { seed: true });
      } finally {
        await db.end();
      }
      await admin.unsafe(`alter database ${building} rename to ${name}`);
      await admin.unsafe(`alter database ${name} with is_template true`);
      // Older templates of this project are dead weight.
      const stale = await admin<{ datname: string }[]>`
        select datname from pg_database where datname like 'journal_tpl_%' and datname <> ${name}`;
      for (const { datname } of stale) {
        await admin.unsafe(`alter database ${datname} with is_template false`);
        await admin.unsafe(`drop database if exists ${datname}`).catch(() => {});
      }
    }
    return name;
  } finally {
    await admin`select pg_advisory_unlock(hashtext('journal_test_template'))`;
    await admin.end();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await prepareTemplate());
}
