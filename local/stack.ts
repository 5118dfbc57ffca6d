// The local stack: the database (embedded PGlite or DATABASE_URL), migrations and seed, every
// emulator, and all functions on one port under /functions/v1 (as on Supabase), plus a scheduler
// that calls the cron routes. Used by `npm start` and by the end-to-end tests.
import { serve, type ServerType } from '@hono/node-server';
import { Cron } from 'croner';
import postgres from 'postgres';
import { join } from 'node:path';
import { loadConfig, type Config } from '../shared/config/env.ts';
import { createSql } from '../shared/db/client.ts';
import { createLogger, type Logger } from '../shared/http/logger.ts';
import { createRedis } from '../shared/cache/redis.ts';
import { createApiApp } from '../functions/api/app.ts';
import { createHealthApp } from '../functions/health/app.ts';
import { createJobsApp } from '../functions/jobs/app.ts';
import { createCronApp } from '../functions/cron/app.ts';
import { aiHandlersFromConfig, defaultHandlers } from '../functions/jobs/routes/handlers.ts';
import { publisherFromConfig } from '../shared/queue/publisher.ts';
import { ROOT, migrate } from './migrate.ts';
import { startEmbeddedPostgres } from './pglite.ts';
import { startUpstashRedisEmulator } from './emulators/upstash-redis/server.ts';
import { startAuthEmulator, type AuthEmulator } from './emulators/auth/index.ts';
import { startQStashEmulator } from './emulators/qstash/index.ts';
import { startAnthropicEmulator } from './emulators/anthropic/index.ts';
import { startOpenAIEmulator } from './emulators/openai/index.ts';

/** Development values for the variables left unset. Not secrets: printed in the banner and README. */
export const DEV_DEFAULTS = {
  API_CLIENT_KEY: 'dev-api-key-0001',
  CONSOLE_ADMIN_TOKEN: 'dev-console-admin-token',
  DEV_API_TOKEN: 'dev-token-0001',
  HEALTH_SECRET: 'dev-health-secret-0001',
  CRON_SECRET: 'dev-cron-secret-0001',
  SUPABASE_ANON_KEY: 'dev-anon-key',
  IDENTITY_SECRET_KEY: 'dev-service-role-key',
  UPSTASH_REDIS_REST_TOKEN: 'dev-redis-token',
  QSTASH_TOKEN: 'dev-qstash-token',
  QSTASH_CURRENT_SIGNING_KEY: 'sig_dev_current_0001',
  QSTASH_NEXT_SIGNING_KEY: 'sig_dev_next_0001',
  ANTHROPIC_API_KEY: 'dev-anthropic-key',
  OPENAI_API_KEY: 'dev-openai-key',
} as const;

export const DEV_USERS = [
  { tier: 'trial', email: 'dev-trial@journal.local', id: '00000000-0000-4000-8000-000000000001' },
  { tier: 'foundation', email: 'dev-foundation@journal.local', id: '00000000-0000-4000-8000-000000000002' },
  { tier: 'mastery', email: 'dev-mastery@journal.local', id: '00000000-0000-4000-8000-000000000003' },
  { tier: 'partner', email: 'dev-partner@journal.local', id: '00000000-0000-4000-8000-000000000004' },
] as const;

/** Schedules of the cron routes; the same as the pg_cron schedules of the migrations. */
export const SCHEDULES = [
  { job: 'expire-trials', cron: '5 * * * *' },
  { job: 'sweep-jobs', cron: '* * * * *' },
] as const;

export interface StackOptions {
  env?: Record<string, string | undefined>;
  port?: number;
  /** Where the embedded database lives when DATABASE_URL is unset. */
  dataDir?: string;
  /** Run the cron scheduler (off in tests that call cron routes themselves). */
  scheduler?: boolean;
  log?: Logger;
}

export interface Stack {
  baseUrl: string;
  functionsUrl: string;
  config: Config;
  auth: AuthEmulator;
  emulators: Record<string, { url: string }>;
  close(): Promise<void>;
}

export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  const env: Record<string, string | undefined> = { ...opts.env };
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const c of closers.reverse()) await c().catch(() => {});
  };
  try {
    for (const [k, v] of Object.entries(DEV_DEFAULTS)) env[k] ??= v;

    if (!env.DATABASE_URL) {
      const pg = await startEmbeddedPostgres({ dataDir: opts.dataDir ?? join(ROOT, '.data/pglite') });
      closers.push(pg.close);
      env.DATABASE_URL = pg.url;
      // PGlite serves one connection at a time (ARCHITECTURE §10).
      env.DATABASE_POOL_MAX = '1';
    }
    const migrator = postgres(env.DATABASE_URL, { max: 1, prepare: false, onnotice: () => {} });
    try {
      await migrate(migrator, { seed: true });
    } finally {
      await migrator.end();
    }

    // The HTTP server first, so the emulators can be told where the functions live.
    const server = await listenLater(opts.port ?? Number(env.PORT ?? 54321));
    closers.push(server.close);
    const baseUrl = `http://127.0.0.1:${server.port}`;
    env.PUBLIC_FUNCTIONS_URL ??= `${baseUrl}/functions/v1`;

    const emulators: Record<string, { url: string }> = {};
    if (!env.UPSTASH_REDIS_REST_URL) {
      const redis = await startUpstashRedisEmulator({ token: env.UPSTASH_REDIS_REST_TOKEN!, redisUrl: env.REDIS_URL });
      closers.push(redis.close);
      emulators.redis = redis;
      env.UPSTASH_REDIS_REST_URL = redis.url;
    }
    if (!env.QSTASH_URL) {
      const qstash = await startQStashEmulator({
        token: env.QSTASH_TOKEN!,
        currentSigningKey: env.QSTASH_CURRENT_SIGNING_KEY!,
        nextSigningKey: env.QSTASH_NEXT_SIGNING_KEY!,
      });
      closers.push(qstash.close);
      emulators.qstash = qstash;
      env.QSTASH_URL = qstash.url;
    }
    if (!env.ANTHROPIC_BASE_URL && env.ANTHROPIC_API_KEY === DEV_DEFAULTS.ANTHROPIC_API_KEY) {
      const anthropic = await startAnthropicEmulator({ apiKey: env.ANTHROPIC_API_KEY });
      closers.push(anthropic.close);
      emulators.anthropic = anthropic;
      env.ANTHROPIC_BASE_URL = anthropic.url;
    }
    if (!env.OPENAI_BASE_URL && env.OPENAI_API_KEY === DEV_DEFAULTS.OPENAI_API_KEY) {
      const openai = await startOpenAIEmulator({ apiKey: env.OPENAI_API_KEY });
      closers.push(openai.close);
      emulators.openai = openai;
      env.OPENAI_BASE_URL = `${openai.url}/v1`;
    }
    const sql = createSql(env.DATABASE_URL, { max: Number(env.DATABASE_POOL_MAX ?? 4) });
    closers.push(() => sql.end({ timeout: 5 }));
    // The emulator shares the pool: the embedded database serves a single connection.
    const auth = await startAuthEmulator({
      sql,
      anonKey: env.SUPABASE_ANON_KEY!,
      serviceRoleKey: env.IDENTITY_SECRET_KEY!,
    });
    closers.push(auth.close);
    emulators.auth = auth;
    env.SUPABASE_URL ??= auth.url;
    env.SUPABASE_JWKS_URL ??= auth.jwksUrl;
    env.SUPABASE_JWT_ISSUER ??= auth.issuer;

    const config = loadConfig(env);
    const log = opts.log ?? createLogger({ level: config.LOG_LEVEL, silent: config.LOG_SILENT });
    const redis = createRedis(config);
    const publisher = publisherFromConfig(config);

    const apps: Record<string, { fetch: (req: Request) => Response | Promise<Response> }> = {
      api: createApiApp({ config, sql, log: log.child({ fn: 'api' }), redis, publisher }),
      health: createHealthApp({ config, sql, redis }),
      jobs: createJobsApp({ config, sql, log: log.child({ fn: 'jobs' }), handlers: { ...defaultHandlers, ...aiHandlersFromConfig(config) } }),
      cron: createCronApp({ config, sql, log: log.child({ fn: 'cron' }), publisher }),
    };
    // Like Supabase's gateway, /auth/v1/* on the same port reaches the identity backend.
    server.handle(async (req) =>
      new URL(req.url).pathname.startsWith('/auth/v1/') ? proxyTo(auth.url, req) : routeToFunction(req, apps),
    );

    if (opts.scheduler !== false) {
      const jobs = SCHEDULES.map(({ job, cron }) =>
        new Cron(cron, { protect: true }, async () => {
          await fetch(`${env.PUBLIC_FUNCTIONS_URL}/cron/${job}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${config.CRON_SECRET}` },
          }).catch((err) => log.warn('scheduled call failed', { job, error: String(err) }));
        }),
      );
      closers.push(async () => jobs.forEach((j) => j.stop()));
    }

    return { baseUrl, functionsUrl: `${baseUrl}/functions/v1`, config, auth, emulators, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** /functions/v1/<fn>/... (Supabase's layout) or /<fn>/... goes to the function named by the first segment. */
export async function routeToFunction(
  req: Request,
  apps: Record<string, { fetch: (req: Request) => Response | Promise<Response> }>,
): Promise<Response> {
  const url = new URL(req.url);
  if (url.pathname.startsWith('/functions/v1/')) {
    url.pathname = url.pathname.slice('/functions/v1'.length);
    req = new Request(url, req);
  }
  const app = apps[url.pathname.split('/')[1] ?? ''];
  if (!app) return Response.json({ error: { code: 'NOT_FOUND', message: 'Not found.' } }, { status: 404 });
  return app.fetch(req);
}

async function proxyTo(target: string, req: Request): Promise<Response> {
  const url = new URL(req.url);
  const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : await req.arrayBuffer();
  const res = await fetch(`${target}${url.pathname}${url.search}`, { method: req.method, headers: req.headers, body });
  return new Response(res.body, { status: res.status, headers: res.headers });
}

/** Binds the port now and takes the request handler once the apps exist. */
async function listenLater(port: number) {
  let handler: (req: Request) => Promise<Response> = async () => new Response('starting', { status: 503 });
  const server: ServerType = await new Promise((resolve, reject) => {
    const s = serve({ fetch: (req) => handler(req), port, hostname: '127.0.0.1' }, () => resolve(s));
    s.once('error', reject);
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    handle(next: (req: Request) => Promise<Response>) {
      handler = next;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
