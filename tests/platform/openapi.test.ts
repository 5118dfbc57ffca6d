import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../functions/api/openapi.ts';
import { buildDocumentApp, OPENAPI_FILE } from '../../scripts/openapi-app.ts';

describe('OpenAPI document', () => {
  it('docs/openapi.json is what the routes generate (run `npm run openapi` after changing a route)', async () => {
    const generated = JSON.parse(JSON.stringify(openApiDocument(buildDocumentApp())));
    const committed = JSON.parse(await readFile(OPENAPI_FILE, 'utf8'));
    expect(committed).toEqual(generated);
  });

  it('is served at /api/v1/openapi.json with the API key only and documents the config route', async () => {
    const app = buildDocumentApp();
    const res = await app.request('/api/v1/openapi.json', { headers: { 'x-api-key': 'openapi-generator' } });
    expect(res.status).toBe(200);
    const doc = await res.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toContain('/api/v1/config');
  });
});
