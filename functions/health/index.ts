import { createHealthApp } from './app.ts';
import { loadConfig } from '../../shared/config/env.ts';
import { createSql } from '../../shared/db/client.ts';
import { createRedis } from '../../shared/cache/redis.ts';

const config = loadConfig(Deno.env.toObject());
const app = createHealthApp({ config, sql: createSql(config.DATABASE_URL, { max: 1 }), redis: createRedis(config) });

// PORT only matters outside Supabase (the Deno smoke test); the edge runtime ignores it.
Deno.serve({ port: Number(Deno.env.get('PORT') ?? 8000) }, app.fetch);
