// Impulses: capture, list, read, edit, delete. Quota and access are enforced by the database
// trigger on insert; classification runs as an `impulse-classification` job.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv, UserClaims } from '../../../shared/http/context.ts';
import { AppError } from '../../../shared/http/errors.ts';
import { ok, okSchema } from '../../../shared/http/responses.ts';
import { pageInfo, pageQuery, pageRequest, toCursorPage } from '../../../shared/http/pagination.ts';
import type { Tx } from '../../../shared/db/client.ts';
import { journalRead, journalTx, type JournalDeps } from '../../../shared/domain/journal-tx.ts';
import {
  AiWorkloadStatus, ContentValidity, IdParam, ImpulseClassification, OpaqueObject, ProcessualStatus, SessionStatus,
  Uuid, errorResponses, isoReq, json, likePattern, security, userText,
} from '../../../shared/domain/journal-schemas.ts';
import { IMPULSE_COLUMNS, listImpulsesQuery, type ImpulseRow } from '../../../shared/db/queries/impulses.ts';
import { SESSION_SUMMARY_COLUMNS, type SessionSummaryRow } from '../../../shared/db/queries/sessions.ts';
import { NOTE_COLUMNS, type NoteRow } from '../../../shared/db/queries/notes.ts';
import { NoteSchema, toNote } from './notes.ts';
import { SessionSummarySchema, toSessionSummary } from './sessions.ts';

/** Provisional classification when the client sends none; the AI job confirms or corrects it. */
export const PROVISIONAL_CLASSIFICATION = 'contraction' as const;
export const IMPULSE_CONTENT_MAX = 2000;

export const ImpulseSchema = z
  .object({
    id: Uuid,
    content: z.string(),
    classification: ImpulseClassification,
    processual_status: ProcessualStatus,
    content_validity: ContentValidity,
    ai_status: AiWorkloadStatus,
    ai_analysis: OpaqueObject,
    title: z.string().nullable(),
    source_check_in_id: Uuid.nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Impulse');

export const toImpulse = (r: ImpulseRow): z.infer<typeof ImpulseSchema> => ({
  id: r.id,
  content: r.content,
  classification: r.classification,
  processual_status: r.processual_status,
  content_validity: r.content_validity,
  ai_status: r.ai_status,
  ai_analysis: r.ai_analysis,
  title: r.title,
  source_check_in_id: r.source_check_in_id,
  created_at: isoReq(r.created_at),
  updated_at: isoReq(r.updated_at),
});

const ImpulseDetail = ImpulseSchema.extend({
  sessions: z.array(SessionSummarySchema),
  notes: z.array(NoteSchema),
}).openapi('ImpulseDetail');

const CreateBody = z
  .object({ content: userText(IMPULSE_CONTENT_MAX), classification: ImpulseClassification.optional() })
  .openapi('CreateImpulseRequest');
const UpdateBody = z.object({ content: userText(IMPULSE_CONTENT_MAX) }).openapi('UpdateImpulseRequest');

const ListFilters = {
  classification: ImpulseClassification.optional(),
  processual_status: ProcessualStatus.optional(),
  content_validity: ContentValidity.optional(),
  area: Uuid.optional().openapi({ description: 'Area id (assigned by the AI)' }),
};
const ListQuery = z.object({ ...pageQuery, ...ListFilters });
// The text filter travels in a body: journal text never goes into a URL (gateway and proxy logs).
const TextQueryBody = z
  .object({
    ...pageQuery,
    ...ListFilters,
    q: z.string().trim().min(1).max(100).openapi({ description: 'Text contained in the content (case-insensitive)' }),
  })
  .openapi('ImpulseTextQuery');

const tags = ['impulses'];
const notFoundAnd = (...more: Array<[number, string]>) =>
  errorResponses([400, 'VALIDATION_FAILED'], [404, 'NOT_FOUND'], ...more);

const createRouteDef = createRoute({
  method: 'post', path: '/v1/impulses', tags, security,
  summary: 'Capture an impulse (counts against the impulse quota; classification runs as an AI job)',
  request: { body: { required: true, ...json(CreateBody) } },
  responses: {
    201: { description: 'Captured', ...json(okSchema(ImpulseSchema)) },
    ...errorResponses([400, 'VALIDATION_FAILED'], [403, 'IMPULSE_QUOTA_EXCEEDED']),
  },
});
const listRoute = createRoute({
  method: 'get', path: '/v1/impulses', tags, security, summary: 'List impulses, newest first',
  request: { query: ListQuery },
  responses: {
    200: { description: 'A page of impulses', ...json(okSchema(z.object({ items: z.array(ImpulseSchema), page: pageInfo }))) },
    ...errorResponses([400, 'VALIDATION_FAILED or INVALID_CURSOR']),
  },
});
const textQueryRoute = createRoute({
  method: 'post', path: '/v1/impulses/query', tags, security,
  summary: 'List impulses whose content contains a text, newest first (the list filters apply too)',
  request: { body: { required: true, ...json(TextQueryBody) } },
  responses: {
    200: { description: 'A page of impulses', ...json(okSchema(z.object({ items: z.array(ImpulseSchema), page: pageInfo }))) },
    ...errorResponses([400, 'VALIDATION_FAILED or INVALID_CURSOR']),
  },
});
const getRoute = createRoute({
  method: 'get', path: '/v1/impulses/{id}', tags, security, summary: 'An impulse with its sessions and active notes',
  request: { params: IdParam },
  responses: { 200: { description: 'The impulse', ...json(okSchema(ImpulseDetail)) }, ...notFoundAnd() },
});
const patchRoute = createRoute({
  method: 'patch', path: '/v1/impulses/{id}', tags, security, summary: 'Edit the content (classification runs again)',
  request: { params: IdParam, body: { required: true, ...json(UpdateBody) } },
  responses: { 200: { description: 'Updated', ...json(okSchema(ImpulseSchema)) }, ...notFoundAnd() },
});
const deleteRoute = createRoute({
  method: 'delete', path: '/v1/impulses/{id}', tags, security, summary: 'Delete an impulse that has no sessions',
  request: { params: IdParam },
  responses: { 204: { description: 'Deleted' }, ...notFoundAnd([409, 'IMPULSE_HAS_SESSIONS']) },
});

/** Inserts an impulse and records its classification job (used by capture and check-in conversion). */
export async function insertImpulse(
  tx: Tx,
  enqueue: (queue: 'impulse-classification', payload: { impulseId: string }) => void,
  values: { userId: string; content: string; classification: 'contraction' | 'expansion'; sourceCheckInId?: string | null },
): Promise<ImpulseRow> {
  const [row] = await tx<ImpulseRow[]>`
    insert into public.impulses (user_id, content, classification, ai_status, source_check_in_id)
    values (${values.userId}, ${values.content}, ${values.classification}::public.impulse_classification, 'pending',
            ${values.sourceCheckInId ?? null})
    returning ${tx.unsafe(IMPULSE_COLUMNS)}`;
  enqueue('impulse-classification', { impulseId: row!.id });
  return row!;
}

export function registerImpulses(app: OpenAPIHono<AppEnv>, deps: JournalDeps): void {
  app.openapi(createRouteDef, async (c) => {
    const body = c.req.valid('json');
    const user = c.var.user;
    const row = await journalTx(deps, user, c.var.log, (tx, enqueue) =>
      insertImpulse(tx, enqueue, { userId: user.sub, content: body.content, classification: body.classification ?? PROVISIONAL_CLASSIFICATION }));
    return c.json(ok(toImpulse(row)), 201);
  });

  type ListRequest = z.output<typeof ListQuery> & { q?: string };
  const list = async (user: UserClaims, q: ListRequest) => {
    const page = pageRequest(q);
    const rows = await journalRead(deps, user, (tx) => listImpulsesQuery(tx, user.sub, {
      classification: q.classification,
      processual_status: q.processual_status,
      content_validity: q.content_validity,
      area_id: q.area,
      pattern: q.q ? likePattern(q.q) : undefined,
    }, page));
    const { items, page: info } = toCursorPage(rows, page.limit);
    return ok({ items: items.map(toImpulse), page: info });
  };
  app.openapi(listRoute, async (c) => c.json(await list(c.var.user, c.req.valid('query')), 200));
  app.openapi(textQueryRoute, async (c) => c.json(await list(c.var.user, c.req.valid('json')), 200));

  app.openapi(getRoute, async (c) => {
    const { id } = c.req.valid('param');
    const uid = c.var.user.sub;
    const detail = await journalRead(deps, c.var.user, async (tx) => {
      const [impulse] = await tx<ImpulseRow[]>`select ${tx.unsafe(IMPULSE_COLUMNS)} from public.impulses where id = ${id} and user_id = ${uid}`;
      if (!impulse) return null;
      const sessions = await tx<SessionSummaryRow[]>`
        select ${tx.unsafe(SESSION_SUMMARY_COLUMNS)} from public.sessions
        where impulse_id = ${id} and user_id = ${uid} order by created_at desc, id desc`;
      const notes = await tx<NoteRow[]>`
        select ${tx.unsafe(NOTE_COLUMNS)} from public.notes
        where impulse_id = ${id} and user_id = ${uid} and archived_at is null order by created_at desc, id desc`;
      return { impulse, sessions, notes };
    });
    if (!detail) throw new AppError(404, 'NOT_FOUND');
    return c.json(ok({
      ...toImpulse(detail.impulse),
      sessions: detail.sessions.map(toSessionSummary),
      notes: detail.notes.map(toNote),
    }), 200);
  });

  app.openapi(patchRoute, async (c) => {
    const { id } = c.req.valid('param');
    const { content } = c.req.valid('json');
    const row = await journalTx(deps, c.var.user, c.var.log, async (tx, enqueue) => {
      const [updated] = await tx<ImpulseRow[]>`
        update public.impulses set content = ${content}, ai_status = 'pending'
        where id = ${id} and user_id = ${c.var.user.sub}
        returning ${tx.unsafe(IMPULSE_COLUMNS)}`;
      if (updated) enqueue('impulse-classification', { impulseId: updated.id });
      return updated;
    });
    if (!row) throw new AppError(404, 'NOT_FOUND');
    return c.json(ok(toImpulse(row)), 200);
  });

  app.openapi(deleteRoute, async (c) => {
    const { id } = c.req.valid('param');
    const [res] = await journalRead(deps, c.var.user, (tx) => tx<{ result: string }[]>`select public.delete_impulse_safe(${id}::uuid) as result`);
    if (res?.result === 'has_sessions') throw new AppError(409, 'IMPULSE_HAS_SESSIONS');
    if (res?.result !== 'deleted') throw new AppError(404, 'NOT_FOUND');
    return c.body(null, 204);
  });
}

