// Shared set-up of the identity tests: a fresh database, stand-in Apple/Google providers, the auth
// emulator, and the api app configured against them, with one test-only protected route.
import { createApiApp } from '../../functions/api/app.ts';
import type { Config } from '../../shared/config/env.ts';
import { testConfig as baseTestConfig } from '../helpers/config.ts';
import { withUser } from '../../shared/db/client.ts';
import { createLogger } from '../../shared/http/logger.ts';
import { startAuthEmulator, type AuthEmulator } from '../../local/emulators/auth/index.ts';
import { startIdentityProviders } from '../../local/emulators/auth/idp.ts';
import { freshDatabase, type TestDatabase } from '../helpers/db.ts';

export const API_KEY = 'identity-test-api-key';
export const ANON_KEY = 'identity-test-anon-key';
export const SERVICE_KEY = 'identity-test-service-role-key';
export const AUDIENCES = { apple: 'app.journal.test.ios', google: 'app.journal.test.android' };

/** The shared test configuration with this suite's keys. */
export function testConfig(overrides: Record<string, string | undefined>): Config {
  return baseTestConfig({
    API_CLIENT_KEY: API_KEY,
    SUPABASE_ANON_KEY: ANON_KEY,
    IDENTITY_SECRET_KEY: SERVICE_KEY,
    IDENTITY_TIMEOUT_MS: '3000',
    ...overrides,
  });
}

/** The api app plus GET /api/v1/_test/me, which answers with the caller and its profile (read under RLS). */
export function testApp(config: Config, db: TestDatabase) {
  const app = createApiApp({ config, sql: db.sql, log: createLogger({ silent: true }), redis: null });
  app.get('/v1/_test/me', async (c) => {
    const user = c.var.user;
    const profiles = await withUser(db.sql, user, (tx) => tx`
      select subscription_tier, subscription_status, trial_started_at, trial_ends_at, auth_provider
      from public.profiles where id = ${user.sub}`);
    return c.json({ success: true, data: { sub: user.sub, email: user.email, profile: profiles[0] ?? null } });
  });
  return app;
}

export type TestApp = ReturnType<typeof testApp>;

export function call(app: TestApp, method: string, path: string, opts: { body?: unknown; headers?: Record<string, string> } = {}) {
  return app.request(`/api${path}`, {
    method,
    headers: { 'x-api-key': API_KEY, 'content-type': 'application/json', ...opts.headers },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
}

export interface IdentityStack {
  db: TestDatabase;
  idp: Awaited<ReturnType<typeof startIdentityProviders>>;
  auth: AuthEmulator;
  config: Config;
  app: TestApp;
  close(): Promise<void>;
}

export async function startIdentityStack(env: Record<string, string | undefined> = {}): Promise<IdentityStack> {
  const db = await freshDatabase();
  const idp = await startIdentityProviders({ audiences: AUDIENCES });
  const auth = await startAuthEmulator({
    sql: db.sql,
    jwks: idp.jwksUrls,
    audiences: AUDIENCES,
    anonKey: ANON_KEY,
    serviceRoleKey: SERVICE_KEY,
  });
  const config = testConfig({ DATABASE_URL: db.url, SUPABASE_URL: auth.url, ...env });
  return {
    db,
    idp,
    auth,
    config,
    app: testApp(config, db),
    async close() {
      await auth.close();
      await idp.close();
      await db.drop();
    },
  };
}
