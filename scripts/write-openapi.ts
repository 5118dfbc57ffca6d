// npm run openapi: writes docs/openapi.json from the api app's route schemas.
import { writeFile } from 'node:fs/promises';
import { openApiDocument } from '../functions/api/openapi.ts';
import { buildDocumentApp, OPENAPI_FILE } from './openapi-app.ts';

const app = buildDocumentApp();
await writeFile(OPENAPI_FILE, JSON.stringify(openApiDocument(app), null, 2) + '\n');
console.log(`wrote ${OPENAPI_FILE}`);
process.exit(0);
