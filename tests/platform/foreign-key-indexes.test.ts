// Every foreign key of the public schema is backed by an index whose leading column is the key's
// first column, so deletes of a parent and joins from it never scan the child table.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, type TestDatabase } from '../helpers/db.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => db.drop());

describe('foreign keys', () => {
  it('each has an index led by its first column', async () => {
    const unindexed = await db.sql<{ constraint: string }[]>`
      select c.conrelid::regclass || '.' || c.conname as constraint
        from pg_constraint c
       where c.contype = 'f' and c.connamespace = 'public'::regnamespace
         and not exists (select 1 from pg_index i where i.indrelid = c.conrelid and i.indkey[0] = c.conkey[1])
       order by 1`;
    const total = await db.sql`select 1 from pg_constraint where contype = 'f' and connamespace = 'public'::regnamespace`;
    expect(total.length).toBeGreaterThan(20);
    expect(unindexed).toEqual([]);
  });
});
