// The AI workers' test stack: a fresh database, the QStash emulator, the jobs function on a real
// HTTP server with the AI handlers, and the Anthropic and OpenAI emulators (the Anthropic one
// behind a recorder of the system prompts it received). Everything listens on port 0.
import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import type { Hono } from 'hono';
import { freshDatabase, type TestDatabase } from '../helpers/db.ts';
import { startQStashEmulator, type QStashEmulator } from '../../local/emulators/qstash/index.ts';
import { createAnthropicEmulator, type AnthropicEmulator } from '../../local/emulators/anthropic/index.ts';
import { listen, type RunningServer } from '../../local/emulators/anthropic/common.ts';
import { startOpenAIEmulator } from '../../local/emulators/openai/index.ts';
import { createJobsApp } from '../../functions/jobs/app.ts';
import { createAiHandlers } from '../../functions/jobs/routes/handlers.ts';
import { createAnthropicClient, createEmbeddingClient } from '../../shared/ai/clients.ts';
import { createLogger, setLogSink } from '../../shared/http/logger.ts';
import type { AppEnv } from '../../shared/http/context.ts';
import { createQStashPublisher, enqueue, findJob, type JobPayload, type JobPublisher, type QueueName } from '../../shared/queue/index.ts';

const TOKEN = 'workers-test-qstash-token';
const CURRENT = 'sig_current_workers_test';
const NEXT = 'sig_next_workers_test';
const ANTHROPIC_KEY = 'sk-ant-workers-test';
const OPENAI_KEY = 'sk-openai-workers-test';
export const MODEL = 'claude-sonnet-4-6';
export const EMBEDDING_MODEL = 'text-embedding-3-small';

export interface Stack {
  db: TestDatabase;
  qstash: QStashEmulator;
  anthropic: AnthropicEmulator;
  openai: Awaited<ReturnType<typeof startOpenAIEmulator>>;
  publisher: JobPublisher;
  /** System prompts of every well-formed /v1/messages request, in arrival order. */
  systemPrompts: string[];
  logLines: string[];
  close(): Promise<void>;
}

export async function startStack(opts: { retryBaseMs?: number } = {}): Promise<Stack> {
  const logLines: string[] = [];
  const restoreSink = setLogSink((line) => logLines.push(line));
  const db = await freshDatabase();
  const qstash = await startQStashEmulator({
    token: TOKEN,
    currentSigningKey: CURRENT,
    nextSigningKey: NEXT,
    retryBaseMs: opts.retryBaseMs ?? 10,
    delayScale: 0.01,
  });

  const anthropic = createAnthropicEmulator({ apiKey: ANTHROPIC_KEY });
  const systemPrompts: string[] = [];
  const anthropicServer: RunningServer = await listen(async (req) => {
    if (req.method === 'POST' && new URL(req.url).pathname.endsWith('/v1/messages')) {
      const body = (await req.clone().json().catch(() => null)) as { system?: unknown } | null;
      if (typeof body?.system === 'string') systemPrompts.push(body.system);
    }
    return anthropic.fetch(req);
  });
  const openai = await startOpenAIEmulator({ port: 0, apiKey: OPENAI_KEY });

  let jobsApp: Hono<AppEnv> | undefined;
  const server: ServerType = serve({ fetch: (req) => jobsApp!.fetch(req), port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((resolve) => (server.listening ? resolve() : server.once('listening', () => resolve())));
  const publicUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const handlers = createAiHandlers({
    anthropic: createAnthropicClient({ ANTHROPIC_API_KEY: ANTHROPIC_KEY, ANTHROPIC_BASE_URL: anthropicServer.url, AI_REQUEST_TIMEOUT_MS: 10_000 }),
    openai: createEmbeddingClient({ OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: `${openai.url}/v1`, AI_REQUEST_TIMEOUT_MS: 10_000 }),
    model: MODEL,
    embeddingModel: EMBEDDING_MODEL,
  });
  jobsApp = createJobsApp({
    config: { QSTASH_CURRENT_SIGNING_KEY: CURRENT, QSTASH_NEXT_SIGNING_KEY: NEXT, PUBLIC_FUNCTIONS_URL: publicUrl, MAX_BODY_BYTES: 65536 },
    sql: db.sql,
    log: createLogger({ level: 'debug' }),
    handlers,
  });
  const publisher = createQStashPublisher({ baseUrl: qstash.url, token: TOKEN, publicFunctionsUrl: publicUrl });

  return {
    db,
    qstash,
    anthropic,
    openai,
    publisher,
    systemPrompts,
    logLines,
    async close() {
      await qstash.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await anthropicServer.close();
      await openai.close();
      await db.drop();
      setLogSink(restoreSink);
    },
  };
}

// ---------------------------------------------------------------- fixtures (service access)

export async function createUser(db: TestDatabase, opts: { tier?: string; language?: 'en' | 'no' } = {}): Promise<string> {
  const id = crypto.randomUUID();
  await db.sql`
    insert into auth.users (id, aud, role, email, email_confirmed_at, raw_app_meta_data, raw_user_meta_data)
    values (${id}, 'authenticated', 'authenticated', ${`w-${id}@example.test`}, now(),
            '{"provider":"apple","providers":["apple"]}', '{}')`;
  await db.sql`
    update public.profiles set subscription_tier = ${opts.tier ?? 'mastery'}, subscription_status = 'active',
      preferred_language = ${opts.language ?? 'en'}
    where id = ${id}`;
  return id;
}

export async function createImpulse(
  db: TestDatabase,
  userId: string,
  content: string,
  classification: 'contraction' | 'expansion' = 'contraction',
): Promise<string> {
  const [row] = await db.sql<{ id: string }[]>`
    insert into public.impulses (user_id, content, classification) values (${userId}, ${content}, ${classification})
    returning id`;
  return row!.id;
}

export async function createSession(
  db: TestDatabase,
  userId: string,
  impulseId: string,
  classification: 'contraction' | 'expansion',
): Promise<string> {
  const [row] = await db.sql<{ id: string }[]>`
    insert into public.sessions (user_id, impulse_id, classification, status, started_at)
    values (${userId}, ${impulseId}, ${classification}, 'active', now()) returning id`;
  return row!.id;
}

export async function createCheckIn(db: TestDatabase, userId: string, content: string): Promise<string> {
  const [row] = await db.sql<{ id: string }[]>`
    insert into public.check_ins (user_id, content, ai_assessment_status) values (${userId}, ${content}, 'pending')
    returning id`;
  return row!.id;
}

/** Parses pgvector's text form. */
export const parseVector = (text: string): number[] => JSON.parse(text) as number[];

/** Enqueues a job, waits until QStash has nothing in flight, and returns the job's final ledger row. */
export async function runJob(stack: Stack, queue: QueueName, payload: JobPayload) {
  const { job } = await enqueue(stack.db.sql, stack.publisher, queue, payload);
  await stack.qstash.idle();
  return (await findJob(stack.db.sql, job.id))!;
}
