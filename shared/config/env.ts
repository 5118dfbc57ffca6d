// The one place that reads environment variables. Every function entry calls loadConfig()
// once; everything else receives the parsed Config.
import { z } from 'zod';

const csv = z
  .string()
  .optional()
  .transform((v) => (v ?? '').split(',').map((s) => s.trim()).filter(Boolean));

const version = z
  .string()
  .regex(/^\d+(\.\d+){0,2}$/, 'must be a dotted version such as 1.4.0')
  .default('0.0.0');

const optionalUrl = z.url().optional();
const optionalText = z.string().min(1).optional();
const bool = z
  .enum(['true', 'false', '1', '0', ''])
  .optional()
  .transform((v) => v === 'true' || v === '1');
const int = (def: number) => z.coerce.number().int().positive().default(def);

export const envSchema = z.object({
  APP_ENV: z.enum(['development', 'staging', 'production']).default('development'),

  // Database: a pooler URL in production (transaction mode, port 6543).
  DATABASE_URL: z.string().min(1),
  DATABASE_POOL_MAX: int(4),

  // App surface
  API_CLIENT_KEY: csv.refine((keys) => keys.length > 0, 'at least one key is required'),
  CONSOLE_ADMIN_TOKEN: z.string().min(16),
  DEV_API_TOKEN: optionalText,
  HEALTH_SECRET: z.string().min(16),
  MAX_BODY_BYTES: int(64 * 1024),

  MIN_APP_VERSION_IOS: version,
  MIN_APP_VERSION_ANDROID: version,
  LATEST_APP_VERSION_IOS: version,
  LATEST_APP_VERSION_ANDROID: version,

  // Identity backend (Supabase Auth or the local emulator)
  SUPABASE_URL: z.url(),
  SUPABASE_ANON_KEY: z.string().min(1),
  IDENTITY_SECRET_KEY: z.string().min(1),
  SUPABASE_JWT_ISSUER: optionalText,
  SUPABASE_JWKS_URL: optionalUrl,
  SUPABASE_JWT_SECRET: optionalText,
  IDENTITY_TIMEOUT_MS: int(8000),

  // Upstash Redis (REST) for rate limits and counters
  UPSTASH_REDIS_REST_URL: optionalUrl,
  UPSTASH_REDIS_REST_TOKEN: optionalText,
  RATE_LIMIT_USER_PER_MINUTE: int(120),
  RATE_LIMIT_IP_PER_MINUTE: int(300),
  // Past this the limiter lets the request through (fail open) rather than slow every request.
  RATE_LIMIT_TIMEOUT_MS: int(500),

  // QStash
  QSTASH_URL: optionalUrl,
  QSTASH_TOKEN: optionalText,
  QSTASH_CURRENT_SIGNING_KEY: optionalText,
  QSTASH_NEXT_SIGNING_KEY: optionalText,
  PUBLIC_FUNCTIONS_URL: optionalUrl,
  CRON_SECRET: optionalText,

  // AI providers (the emulators locally)
  ANTHROPIC_API_KEY: optionalText,
  ANTHROPIC_BASE_URL: optionalUrl,
  ANTHROPIC_MODEL: z.string().default('claude-sonnet-4-6'),
  OPENAI_API_KEY: optionalText,
  OPENAI_BASE_URL: optionalUrl,
  EMBEDDING_MODEL: z.string().default('text-embedding-3-small'),
  // Per-request timeout of AI calls; the SDKs' own retries are off (the job queue retries).
  AI_REQUEST_TIMEOUT_MS: int(60_000),

  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  LOG_SILENT: bool,
});

export type Config = z.output<typeof envSchema>;

export class ConfigError extends Error {}

export function loadConfig(env: Record<string, string | undefined> = readEnv()): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid environment:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

/** The process environment on Deno or Node, read only here. */
export function readEnv(): Record<string, string | undefined> {
  const g = globalThis as unknown as {
    Deno?: { env: { toObject(): Record<string, string> } };
    process?: { env: Record<string, string | undefined> };
  };
  if (g.Deno) return g.Deno.env.toObject();
  return { ...(g.process?.env ?? {}) };
}
