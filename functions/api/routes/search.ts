// Semantic search over the caller's impulses, sessions and check-ins (pgvector cosine similarity
// in the find_similar_* functions). POST, so the query text never appears in URLs or access logs.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv, UserClaims } from '../../../shared/http/context.ts';
import { recordUsage } from '../../../shared/ai/accounting.ts';
import { withService, withUser, type Sql, type Tx } from '../../../shared/db/client.ts';
import { toVectorLiteral, type QueryEmbedder, type QueryEmbedding } from '../../../shared/domain/embedder.ts';
import { AppError, notFound } from '../../../shared/http/errors.ts';
import { ok, okSchema } from '../../../shared/http/responses.ts';
import { requireActiveSubscription } from '../../../shared/http/subscription.ts';
import { describeError } from '../../../shared/http/logger.ts';
import { errors, isoRequired, json, userSecurity } from './openapi-helpers.ts';

const TYPES = ['impulses', 'sessions', 'check_ins'] as const;
const DEFAULT_THRESHOLD = 0.7;
const DEFAULT_LIMIT = 10;

const SearchBody = z
  .object({
    query: z.string().trim().min(1).max(500),
    types: z.array(z.enum(TYPES)).min(1).max(3).default([...TYPES]),
    threshold: z.number().min(0).max(1).default(DEFAULT_THRESHOLD),
    limit: z.number().int().min(1).max(50).default(DEFAULT_LIMIT),
  })
  .strict()
  .openapi('SearchRequest');

const SimilarQuery = z.object({
  threshold: z.coerce.number().min(0).max(1).default(DEFAULT_THRESHOLD),
  limit: z.coerce.number().int().min(1).max(50).default(DEFAULT_LIMIT),
});
const IdParam = z.object({ id: z.uuid().openapi({ param: { name: 'id', in: 'path' } }) });

const ImpulseHit = z.object({
  id: z.uuid(), classification: z.string(), processual_status: z.string(), title: z.string().nullable(),
  created_at: z.string(), similarity: z.number(),
}).openapi('ImpulseHit');
const SessionHit = z.object({
  id: z.uuid(), impulse_id: z.uuid(), classification: z.string(), status: z.string(), created_at: z.string(), similarity: z.number(),
}).openapi('SessionHit');
const CheckInHit = z.object({
  id: z.uuid(), classification: z.string().nullable(), created_at: z.string(), similarity: z.number(),
}).openapi('CheckInHit');

const SearchResult = z
  .object({ impulses: z.array(ImpulseHit), sessions: z.array(SessionHit), check_ins: z.array(CheckInHit) })
  .openapi('SearchResult');

const searchRoute = createRoute({
  method: 'post', path: '/v1/search', tags: ['search'], security: userSecurity,
  summary: 'Semantic search over impulses, sessions and check-ins (types not asked for come back empty)',
  request: { body: { required: true, ...json(SearchBody) } },
  responses: {
    200: { description: 'Matches, most similar first', ...json(okSchema(SearchResult)) },
    ...errors([400, 'VALIDATION_FAILED'], [401, 'AUTH_*'], [403, 'SUBSCRIPTION_INACTIVE'], [503, 'AI_UNAVAILABLE']),
  },
});
const similarRoute = createRoute({
  method: 'get', path: '/v1/impulses/{id}/similar', tags: ['search'], security: userSecurity,
  summary: 'Impulses similar to one of the caller\'s impulses',
  request: { params: IdParam, query: SimilarQuery },
  responses: {
    200: { description: 'Similar impulses', ...json(okSchema(z.object({ items: z.array(ImpulseHit) }))) },
    ...errors([400, 'VALIDATION_FAILED'], [401, 'AUTH_*'], [404, 'NOT_FOUND']),
  },
});
const similarSessionsRoute = createRoute({
  method: 'get', path: '/v1/impulses/{id}/similar-sessions', tags: ['search'], security: userSecurity,
  summary: 'Sessions similar to one of the caller\'s impulses',
  request: { params: IdParam, query: SimilarQuery },
  responses: {
    200: { description: 'Similar sessions', ...json(okSchema(z.object({ items: z.array(SessionHit) }))) },
    ...errors([400, 'VALIDATION_FAILED'], [401, 'AUTH_*'], [404, 'NOT_FOUND']),
  },
});

type WithDate = { created_at: Date };
const dated = <T extends WithDate>(rows: T[]) => rows.map((r) => ({ ...r, created_at: isoRequired(r.created_at) }));

interface ImpulseRow extends WithDate { id: string; classification: string; processual_status: string; title: string | null; similarity: number }
interface SessionRow extends WithDate { id: string; impulse_id: string; classification: string; status: string; similarity: number }
interface CheckInRow extends WithDate { id: string; classification: string | null; similarity: number }

export function registerSearch(app: OpenAPIHono<AppEnv>, deps: { sql: Sql; embedder: QueryEmbedder | null }): void {
  const { sql, embedder } = deps;
  app.use('/v1/search', requireActiveSubscription(sql));

  app.openapi(searchRoute, async (c) => {
    const user = c.var.user;
    const { query, types, threshold, limit } = c.req.valid('json');
    if (!embedder) throw new AppError(503, 'AI_UNAVAILABLE');
    let embedding: QueryEmbedding;
    try {
      embedding = await embedder(query);
    } catch (err) {
      // The error class and status only: never the query text.
      const { kind, status } = err as { kind?: string; status?: number };
      c.var.log.warn('query embedding failed', { error: describeError(err).error, kind, status });
      throw new AppError(503, 'AI_UNAVAILABLE');
    }
    // The embedding call is billed: account it to the caller (ai_usage is written by the service only).
    await withService(sql, (tx) =>
      recordUsage(tx, [{ workload: 'embedding', model: embedding.model, inputTokens: embedding.inputTokens, outputTokens: 0 }], { userId: user.sub }),
    );
    const v = toVectorLiteral(embedding.vector);
    const want = new Set(types);
    const result = await withUser(sql, user, async (tx) => ({
      impulses: want.has('impulses')
        ? dated(await tx<ImpulseRow[]>`select * from public.find_similar_impulses(${v}::extensions.vector, ${threshold}, ${limit})`)
        : [],
      sessions: want.has('sessions')
        ? dated(await tx<SessionRow[]>`select * from public.find_similar_sessions(${v}::extensions.vector, ${threshold}, ${limit})`)
        : [],
      check_ins: want.has('check_ins')
        ? dated(await tx<CheckInRow[]>`select * from public.find_similar_check_ins(${v}::extensions.vector, ${threshold}, ${limit})`)
        : [],
    }));
    return c.json(ok(result), 200);
  });

  // Both "similar to one of my impulses" routes: 404 unless the impulse is the caller's.
  const similarToOwnImpulse = <R extends WithDate>(
    user: UserClaims, id: string, query: (tx: Tx) => Promise<R[]>,
  ) =>
    withUser(sql, user, async (tx) => {
      const [own] = await tx`select 1 from public.impulses where id = ${id} and user_id = ${user.sub}`;
      if (!own) throw notFound();
      return dated(await query(tx));
    });

  app.openapi(similarRoute, async (c) => {
    const { id } = c.req.valid('param');
    const { threshold, limit } = c.req.valid('query');
    const items = await similarToOwnImpulse(c.var.user, id, (tx) =>
      tx<ImpulseRow[]>`select * from public.find_similar_to_impulse(${id}, ${threshold}, ${limit})`);
    return c.json(ok({ items }), 200);
  });

  app.openapi(similarSessionsRoute, async (c) => {
    const { id } = c.req.valid('param');
    const { threshold, limit } = c.req.valid('query');
    const items = await similarToOwnImpulse(c.var.user, id, (tx) =>
      tx<SessionRow[]>`select * from public.find_sessions_similar_to_impulse(${id}, ${threshold}, ${limit})`);
    return c.json(ok({ items }), 200);
  });
}
