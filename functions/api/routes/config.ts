import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../../shared/http/context.ts';
import type { Config } from '../../../shared/config/env.ts';
import { policyFor, versionPolicies } from '../../../shared/domain/versions.ts';
import { ok, okSchema } from '../../../shared/http/responses.ts';

const VersionPolicy = z.object({ min_version: z.string(), latest_version: z.string() });
const AppConfig = VersionPolicy.extend({
  platform: z.enum(['ios', 'android']).nullable(),
  platforms: z.object({ ios: VersionPolicy, android: VersionPolicy }),
}).openapi('AppConfig');

const route = createRoute({
  method: 'get',
  path: '/v1/config',
  tags: ['config'],
  summary: 'Version policy for the calling platform (X-API-Key only, no JWT)',
  security: [{ apiKey: [] }],
  responses: { 200: { description: 'Version policy', content: { 'application/json': { schema: okSchema(AppConfig) } } } },
});

export function registerConfig(app: OpenAPIHono<AppEnv>, config: Config): void {
  app.openapi(route, (c) => {
    const platform = c.get('appPlatform');
    return c.json(ok({ platform, ...policyFor(config, platform), platforms: versionPolicies(config) }), 200);
  });
}
