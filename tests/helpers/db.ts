// A fresh database per test file, cloned from the migrated template (see scripts/prepare-test-db.ts).
import postgres from 'postgres';
import { inject } from 'vitest';
import { createSql, type Sql } from '../../shared/db/client.ts';
import { adminUrl, dbUrl } from './pg.ts';

export interface TestDatabase {
  name: string;
  url: string;
  sql: Sql;
  drop(): Promise<void>;
}

export async function freshDatabase(): Promise<TestDatabase> {
  const template = inject('templateDb');
  if (!template) throw new Error('TEST_TEMPLATE_DB is not set: run the tests through vitest (globalSetup builds it)');
  const name = `journal_t_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`;
  const admin = postgres(adminUrl(), { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database ${name} template ${template}`);
  } finally {
    await admin.end();
  }
  const url = dbUrl(name);
  const sql = createSql(url, { max: 8 });
  return {
    name,
    url,
    sql,
    async drop() {
      await sql.end({ timeout: 5 });
      const a = postgres(adminUrl(), { max: 1, onnotice: () => {} });
      try {
        await a.unsafe(`drop database if exists ${name} with (force)`);
      } finally {
        await a.end();
      }
    },
  };
}
