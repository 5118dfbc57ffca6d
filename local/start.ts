// `npm start`: the whole backend on one port with emulators for every hosted service.
import { existsSync } from 'node:fs';
import { DEV_USERS, startStack } from './stack.ts';

if (existsSync('.env')) process.loadEnvFile('.env');

const started = Date.now();
const stack = await startStack({ env: { ...process.env } });
const c = stack.config;
const lines = [
  '',
  'Journal backend (local stack) is running',
  `  functions base URL   ${stack.functionsUrl}`,
  `  health               ${stack.functionsUrl}/health/${c.HEALTH_SECRET}`,
  `  app config           ${stack.functionsUrl}/api/v1/config   (X-API-Key: ${c.API_CLIENT_KEY[0]})`,
  `  admin bearer token   ${c.CONSOLE_ADMIN_TOKEN}`,
  `  dev token            X-Dev-Token: ${c.DEV_API_TOKEN ?? '(unset)'}  with X-Dev-User: <email>`,
  `  identity (auth)      ${stack.auth.url}`,
  ...Object.entries(stack.emulators)
    .filter(([name]) => name !== 'auth')
    .map(([name, e]) => `  ${name.padEnd(20)} ${e.url}`),
  `  database             ${c.DATABASE_URL.replace(/:[^:@/]+@/, ':***@')}`,
  '  dev users:',
  ...DEV_USERS.map((u) => `    ${u.tier.padEnd(11)} ${u.email}  ${u.id}`),
  `  ready in ${((Date.now() - started) / 1000).toFixed(1)} s. Ctrl-C stops.`,
  '',
];
console.log(lines.join('\n'));

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  console.log('stopping...');
  await stack.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
