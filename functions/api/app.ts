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

export interface ApiDeps {
  config: Config;
  sql: Sql;
  log: Logger;
  /** Upstash Redis for rate limits; absent or null: no rate limiting. */
  redis?: Redis | null;
}

export function createApiApp(deps: ApiDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook }).basePath('/api');
  handleErrors(app, 'api', deps.log);
  app.use('*', requestContext(deps.log));
  app.use('/v1/*', requireApiKey(deps.config.API_CLIENT_KEY));
  // rateLimits.user belongs right after the JWT middleware on authenticated routes.
  const rateLimits = createRateLimits({ redis: deps.redis ?? null, config: deps.config, log: deps.log });
  app.use('/v1/*', rateLimits.ip);
  app.use('/v1/*', limitBody(deps.config.MAX_BODY_BYTES));

  registerConfig(app, deps.config);

  app.openAPIRegistry.registerComponent('securitySchemes', 'apiKey', { type: 'apiKey', in: 'header', name: 'X-API-Key' });
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  return app;
}
