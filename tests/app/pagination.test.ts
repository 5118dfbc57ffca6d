// Cursor pages never skip or repeat rows, even when many rows share one created_at (an insights
// regeneration writes its batch with one now(); a campaign sends a batch at once).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { body, startAppStack, USERS, type AppStack } from './setup.ts';

let s: AppStack;
let me = '';
beforeAll(async () => {
  s = await startAppStack();
  me = await s.userId(USERS.mastery);
  await s.db.sql`
    insert into public.analytics_insights (user_id, kind, title, content, created_at)
    select ${me}, 'pattern', 'title ' || g, 'content', '2026-11-01T10:00:00.123456Z'::timestamptz
      from generate_series(1, 5) g`;
  await s.db.sql`
    insert into public.notification_messages (user_id, category, body, created_at)
    select ${me}, 'reminder', 'body ' || g, '2026-11-01T10:00:00.123456Z'::timestamptz
      from generate_series(1, 5) g`;
  for (const table of ['impulses', 'check_ins', 'notes']) {
    const extra = table === 'impulses' ? s.db.sql`, classification` : s.db.sql``;
    const value = table === 'impulses' ? s.db.sql`, 'contraction'` : s.db.sql``;
    await s.db.sql`
      insert into ${s.db.sql('public.' + table)} (user_id, content ${extra}, created_at)
      select ${me}, 'text ' || g ${value}, '2026-11-01T10:00:00.123456Z'::timestamptz from generate_series(1, 5) g`;
  }
});
afterAll(async () => s?.close());

async function walk(path: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const url: string = `${path}?limit=2${cursor ? `&cursor=${cursor}` : ''}`;
    const page = (await body(await s.call('GET', url, { as: USERS.mastery }))).data;
    ids.push(...page.items.map((i: { id: string }) => i.id));
    cursor = page.page.next_cursor;
  } while (cursor);
  return ids;
}

describe('cursor pages over rows with the same created_at', () => {
  for (const path of ['/v1/analytics/insights', '/v1/notifications/history', '/v1/impulses', '/v1/check-ins', '/v1/notes']) {
    it(`${path} returns every row exactly once`, async () => {
      const ids = await walk(path);
      expect(ids).toHaveLength(5);
      expect(new Set(ids).size).toBe(5);
    });
  }
});
