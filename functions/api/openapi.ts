// The OpenAPI 3.1 document of /api/v1, generated from the same zod schemas that validate requests.
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../shared/http/context.ts';

export const OPENAPI_PATH = '/v1/openapi.json';

const documentConfig = {
  openapi: '3.1.0',
  info: {
    title: 'Transformation Journal API',
    version: '1.0.0',
    description:
      'App API of the journal backend. Every call sends X-API-Key; calls other than auth and config also send a bearer access token. ' +
      'Success bodies are { success: true, data }; errors are { success: false, error: { code, message, details? } }.',
  },
  servers: [{ url: '{base_url}', variables: { base_url: { default: 'http://127.0.0.1:54321/functions/v1' } } }],
};

export function openApiDocument(app: OpenAPIHono<AppEnv>) {
  return app.getOpenAPI31Document(documentConfig);
}

/** Serves the document (X-API-Key only, like config). */
export function registerOpenApi(app: OpenAPIHono<AppEnv>): void {
  app.get(OPENAPI_PATH, (c) => c.json(openApiDocument(app)));
}
