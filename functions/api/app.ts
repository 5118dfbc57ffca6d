// The `api` function: /api/v1/*. Built from shared pieces; runtime-neutral.
import { OpenAPIHono } from '@hono/zod-openapi';
import type { Config } from '../../shared/config/env.ts';
import type { Sql } from '../../shared/db/client.ts';
import type { AppEnv } from '../../shared/http/context.ts';
import type { Logger } from '../../shared/http/logger.ts';
import { handleErrors, limitBody, requestContext, validationHook } from '../../shared/http/pipeline.ts';
import { requireApiKey } from '../../shared/http/api-key.ts';
import { createRateLimits } from '../../shared/http/rate-limit.ts';
import type { Redis } from '@upstash/redis';
import { registerConfig } from './routes/config.ts';
import { registerOpenApi } from './openapi.ts';
import { registerAuth } from './routes/auth.ts';
import { createJwtVerifier, jwtOptionsFromConfig, requireUser } from '../../shared/http/auth.ts';
import { requireDevToken } from '../../shared/http/dev-token.ts';
import { createIdentity, type Identity } from '../../shared/identity/client.ts';
import { registerProfile } from './routes/profile.ts';
import { registerQuota } from './routes/quota.ts';
import { registerNotifications } from './routes/notifications.ts';
import { registerFeedback } from './routes/feedback.ts';
import { registerSearch } from './routes/search.ts';
import { registerAnalytics } from './routes/analytics.ts';
import { createQueryEmbedder, type QueryEmbedder } from '../../shared/domain/embedder.ts';
import { publisherFromConfig, type JobPublisher } from '../../shared/queue/publisher.ts';
import { registerImpulses } from './routes/impulses.ts';
import { registerSessions } from './routes/sessions.ts';
import { registerNotes } from './routes/notes.ts';
import { registerCheckIns } from './routes/check-ins.ts';
import { requireActiveSubscription } from '../../shared/http/subscription.ts';

export interface ApiDeps {
  config: Config;
  sql: Sql;
  log: Logger;
  /** Upstash Redis for rate limits; absent or null: no rate limiting. */
  redis?: Redis | null;
  /** Supabase Auth client; built from config when absent. */
  identity?: Identity;
  /** Query embeddings for search; built from config (OPENAI_API_KEY) when absent, null: search answers 503. */
  embedder?: QueryEmbedder | null;
  /** QStash publisher for jobs; built from config when absent, null: jobs wait for the sweeper. */
  publisher?: JobPublisher | null;
}

/** /api/v1 routes without a JWT (spec: Request routing of the API). */
const NO_JWT_PATHS = new Set(['/api/v1/auth/native', '/api/v1/auth/refresh', '/api/v1/config', '/api/v1/openapi.json']);

export function createApiApp(deps: ApiDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook }).basePath('/api');
  handleErrors(app, 'api', deps.log);
  app.use('*', requestContext(deps.log));
  // The IP limit comes before the API key check, so a flood of requests with wrong keys is
  // throttled too; the user limit comes right after the JWT middleware.
  const rateLimits = createRateLimits({ redis: deps.redis ?? null, config: deps.config, log: deps.log });
  app.use('/v1/*', rateLimits.ip);
  app.use('/v1/*', requireApiKey(deps.config.API_CLIENT_KEY));
  app.use('/v1/*', limitBody(deps.config.MAX_BODY_BYTES));
  // Dev endpoints do not exist without DEV_API_TOKEN: 404 before any JWT check.
  app.use('/v1/notifications/dev/*', requireDevToken(deps.config));
  const authenticate = requireUser({ config: deps.config, sql: deps.sql, verify: createJwtVerifier(jwtOptionsFromConfig(deps.config)) });
  app.use('/v1/*', (c, next) => (NO_JWT_PATHS.has(c.req.path) ? next() : authenticate(c, next)));
  app.use('/v1/*', rateLimits.user);

  const identity = deps.identity ?? createIdentityFromConfig(deps);
  registerConfig(app, deps.config);
  registerOpenApi(app);
  registerAuth(app, identity);
  registerProfile(app, { sql: deps.sql, identity });
  registerQuota(app, deps.sql);
  registerNotifications(app, deps.sql);
  registerFeedback(app, deps.sql);
  registerSearch(app, { sql: deps.sql, embedder: deps.embedder !== undefined ? deps.embedder : createQueryEmbedder(deps.config) });
  const publisher = deps.publisher !== undefined ? deps.publisher : publisherOrNull(deps.config);
  registerAnalytics(app, { sql: deps.sql, publisher });
  // Routes that start AI work need an active subscription: session start, step submission,
  // impulse edits (classification runs again), completion (summary) and the reflection (its job).
  const requireAccess = requireActiveSubscription(deps.sql);
  app.post('/v1/sessions', requireAccess);
  app.post('/v1/sessions/:id/steps/:step', requireAccess);
  app.patch('/v1/impulses/:id', requireAccess);
  app.post('/v1/sessions/:id/complete', requireAccess);
  app.put('/v1/sessions/:id/reflection', requireAccess);
  const journal = { sql: deps.sql, publisher };
  registerImpulses(app, journal);
  registerSessions(app, journal);
  registerNotes(app, journal);
  registerCheckIns(app, journal);

  app.openAPIRegistry.registerComponent('securitySchemes', 'apiKey', { type: 'apiKey', in: 'header', name: 'X-API-Key' });
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  return app;
}

export function createIdentityFromConfig(deps: Pick<ApiDeps, 'config' | 'sql'>): Identity {
  const { config, sql } = deps;
  return createIdentity({
    url: config.SUPABASE_URL,
    anonKey: config.SUPABASE_ANON_KEY,
    secretKey: config.IDENTITY_SECRET_KEY,
    sql,
    timeoutMs: config.IDENTITY_TIMEOUT_MS,
  });
}

/** The QStash publisher where QStash is configured; otherwise recorded jobs wait for the sweeper. */
function publisherOrNull(config: Config): JobPublisher | null {
  return config.QSTASH_TOKEN && config.PUBLIC_FUNCTIONS_URL ? publisherFromConfig(config) : null;
}
