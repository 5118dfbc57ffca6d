// Shared set-up of the app API tests: a fresh database, the OpenAI and auth emulators, and the api
// app acting as seeded or freshly created @journal.local users through the development token.
import { createApiApp, type ApiDeps } from '../../functions/api/app.ts';
import { startAuthEmulator, type AuthEmulator } from '../../local/emulators/auth/index.ts';
import { startOpenAIEmulator } from '../../local/emulators/openai/index.ts';
import type { Config } from '../../shared/config/env.ts';
import { createLogger } from '../../shared/http/logger.ts';
import { testConfig, TEST_API_KEY } from '../helpers/config.ts';
import { freshDatabase, type TestDatabase } from '../helpers/db.ts';

export const DEV_TOKEN = 'app-test-dev-token-000001';
export const OPENAI_KEY = 'sk-app-test';
export const USERS = {
  trial: 'dev-trial@journal.local',
  foundation: 'dev-foundation@journal.local',
  mastery: 'dev-mastery@journal.local',
  partner: 'dev-partner@journal.local',
} as const;

export interface AppStack {
  db: TestDatabase;
  openai: Awaited<ReturnType<typeof startOpenAIEmulator>>;
  auth: AuthEmulator;
  config: Config;
  app: ReturnType<typeof createApiApp>;
  call(method: string, path: string, opts?: { as?: string; body?: unknown; headers?: Record<string, string> }): Promise<Response>;
  /** A new user (the profile trigger runs); returns its id. */
  createUser(email: string): Promise<string>;
  userId(email: string): Promise<string>;
  close(): Promise<void>;
}

export async function startAppStack(deps: Partial<Pick<ApiDeps, 'embedder' | 'publisher'>> = {}): Promise<AppStack> {
  const db = await freshDatabase();
  const openai = await startOpenAIEmulator({ port: 0, apiKey: OPENAI_KEY });
  const auth = await startAuthEmulator({ port: 0, sql: db.sql, anonKey: 'app-anon', serviceRoleKey: 'app-service-role' });
  const config = testConfig({
    DATABASE_URL: db.url,
    SUPABASE_URL: auth.url,
    SUPABASE_ANON_KEY: 'app-anon',
    IDENTITY_SECRET_KEY: 'app-service-role',
    DEV_API_TOKEN: DEV_TOKEN,
    OPENAI_API_KEY: OPENAI_KEY,
    OPENAI_BASE_URL: `${openai.url}/v1`,
    AI_REQUEST_TIMEOUT_MS: '5000',
  });
  const app = createApiApp({ config, sql: db.sql, log: createLogger({ silent: true }), redis: null, publisher: null, ...deps });
  const userId = async (email: string) => {
    const [row] = await db.sql<{ id: string }[]>`select id from auth.users where email = ${email}`;
    if (!row) throw new Error(`no user ${email}`);
    return row.id;
  };
  return {
    db,
    openai,
    auth,
    config,
    app,
    async call(method, path, opts = {}) {
      return app.request(`/api${path}`, {
        method,
        headers: {
          'x-api-key': TEST_API_KEY,
          'x-dev-token': DEV_TOKEN,
          'x-dev-user': opts.as ?? USERS.trial,
          ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...opts.headers,
        },
        body: opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body),
      });
    },
    async createUser(email) {
      const [row] = await db.sql<{ id: string }[]>`
        insert into auth.users (email, raw_app_meta_data) values (${email}, '{"provider":"apple"}') returning id`;
      return row!.id;
    },
    userId,
    async close() {
      await auth.close();
      await openai.close();
      await db.drop();
    },
  };
}

/** The body of a response, asserting nothing. */
export const body = (res: Response) => res.json() as Promise<any>;
