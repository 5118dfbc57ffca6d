// Shared set-up of the journal tests: a fresh database, the api app (JWT replaced by the dev
// token, which acts as seeded `@journal.local` users), and helpers to create users and call it.
import { createApiApp } from '../../functions/api/app.ts';
import { createLogger } from '../../shared/http/logger.ts';
import type { Sql } from '../../shared/db/client.ts';
import type { JobPublisher } from '../../shared/queue/publisher.ts';
import { freshDatabase, type TestDatabase } from '../helpers/db.ts';
import { API_KEY, testConfig } from '../identity/setup.ts';

export const DEV_TOKEN = 'journal-test-dev-token-1234567890';

export interface JournalStack {
  db: TestDatabase;
  app: ReturnType<typeof createApiApp>;
  close(): Promise<void>;
}

export async function startJournalStack(opts: { sql?: (db: TestDatabase) => Sql; publisher?: JobPublisher | null } = {}): Promise<JournalStack> {
  const db = await freshDatabase();
  const config = testConfig({ DATABASE_URL: db.url, DEV_API_TOKEN: DEV_TOKEN });
  const app = createApiApp({
    config,
    sql: opts.sql ? opts.sql(db) : db.sql,
    log: createLogger({ silent: true }),
    redis: null,
    embedder: null,
    publisher: opts.publisher ?? null,
  });
  return { db, app, close: () => db.drop() };
}

/** Creates an auth user (the trigger creates a trial profile); tier 'mastery' for unlimited-ish tests. */
export async function createUser(db: TestDatabase, name: string, tier: 'trial' | 'mastery' = 'mastery'): Promise<{ id: string; email: string }> {
  const email = `${name}-${crypto.randomUUID().slice(0, 8)}@journal.local`;
  const [row] = await db.sql<{ id: string }[]>`
    insert into auth.users (email, raw_app_meta_data) values (${email}, '{"provider":"apple"}'::jsonb) returning id`;
  if (tier === 'mastery') {
    await db.sql`update public.profiles set subscription_tier = 'mastery', subscription_status = 'active',
                 subscription_end_date = now() + interval '30 days' where id = ${row!.id}`;
  }
  return { id: row!.id, email };
}

export interface CallResult {
  status: number;
  body: any;
}

export async function call(
  app: JournalStack['app'],
  as: { email: string } | null,
  method: string,
  path: string,
  body?: unknown,
  rawBody?: string,
): Promise<CallResult> {
  const hasBody = rawBody !== undefined || body !== undefined;
  // Like a mobile client: no content-type without a body.
  const headers: Record<string, string> = { 'x-api-key': API_KEY, ...(hasBody ? { 'content-type': 'application/json' } : {}) };
  if (as) Object.assign(headers, { 'x-dev-token': DEV_TOKEN, 'x-dev-user': as.email });
  const res = await app.request(`/api${path}`, {
    method,
    headers,
    body: rawBody !== undefined ? rawBody : body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}
