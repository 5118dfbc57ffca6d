// Notes: standalone, on an impulse, or on a step of a session. Links are checked by the composite
// foreign keys (id, user_id): a link to another user's row fails like a missing one (404).
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../../shared/http/context.ts';
import { AppError } from '../../../shared/http/errors.ts';
import { ok, okSchema } from '../../../shared/http/responses.ts';
import { pageInfo, pageQuery, pageRequest, toCursorPage } from '../../../shared/http/pagination.ts';
import { journalRead, journalTx, type JournalDeps } from '../../../shared/domain/journal-tx.ts';
import { IdParam, NoteType, Uuid, errorResponses, iso, isoReq, json, security, userText } from '../../../shared/domain/journal-schemas.ts';
import { NOTE_COLUMNS, listNotesQuery, type NoteRow } from '../../../shared/db/queries/notes.ts';

export const NOTE_CONTENT_MAX = 10000;

export const NoteSchema = z
  .object({
    id: Uuid,
    content: z.string(),
    note_type: NoteType,
    impulse_id: Uuid.nullable(),
    session_id: Uuid.nullable(),
    session_step: z.number().int().nullable(),
    archived_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Note');

export const toNote = (r: NoteRow): z.infer<typeof NoteSchema> => ({
  id: r.id,
  content: r.content,
  note_type: r.note_type,
  impulse_id: r.impulse_id,
  session_id: r.session_id,
  session_step: r.session_step,
  archived_at: iso(r.archived_at),
  created_at: isoReq(r.created_at),
  updated_at: isoReq(r.updated_at),
});

const CreateBody = z
  .object({
    content: userText(NOTE_CONTENT_MAX),
    note_type: NoteType.optional(),
    impulse_id: Uuid.optional(),
    session_id: Uuid.optional(),
    session_step: z.number().int().min(1).max(5).optional(),
  })
  .refine((b) => b.session_step === undefined || b.session_id !== undefined, {
    message: 'session_step requires session_id',
    path: ['session_step'],
  })
  .openapi('CreateNoteRequest');

const UpdateBody = z
  .object({ content: userText(NOTE_CONTENT_MAX).optional(), note_type: NoteType.optional() })
  .refine((b) => b.content !== undefined || b.note_type !== undefined, { message: 'content or note_type is required' })
  .openapi('UpdateNoteRequest');

const ListQuery = z.object({
  ...pageQuery,
  note_type: NoteType.optional(),
  impulse_id: Uuid.optional(),
  session_id: Uuid.optional(),
  include_archived: z.enum(['true', 'false']).optional().openapi({ description: 'true: archived notes are listed too' }),
  archived: z.enum(['only']).optional().openapi({ description: 'only: archived notes only' }),
});

const tags = ['notes'];
const noteResponse = (description: string) => ({ description, ...json(okSchema(NoteSchema)) });
const byIdErrors = errorResponses([400, 'VALIDATION_FAILED'], [404, 'NOT_FOUND']);

const createRouteDef = createRoute({
  method: 'post', path: '/v1/notes', tags, security, summary: 'Write a note (optionally on an impulse or a session step)',
  request: { body: { required: true, ...json(CreateBody) } },
  responses: { 201: noteResponse('Created'), ...errorResponses([400, 'VALIDATION_FAILED'], [404, 'LINKED_ENTITY_NOT_FOUND']) },
});
const listRoute = createRoute({
  method: 'get', path: '/v1/notes', tags, security, summary: 'List notes, newest first (archived excluded by default)',
  request: { query: ListQuery },
  responses: {
    200: { description: 'A page of notes', ...json(okSchema(z.object({ items: z.array(NoteSchema), page: pageInfo }))) },
    ...errorResponses([400, 'VALIDATION_FAILED or INVALID_CURSOR']),
  },
});
const getRoute = createRoute({
  method: 'get', path: '/v1/notes/{id}', tags, security, summary: 'A note (archived or not)',
  request: { params: IdParam },
  responses: { 200: noteResponse('The note'), ...byIdErrors },
});
const patchRoute = createRoute({
  method: 'patch', path: '/v1/notes/{id}', tags, security, summary: 'Edit the content or type of a note',
  request: { params: IdParam, body: { required: true, ...json(UpdateBody) } },
  responses: { 200: noteResponse('Updated'), ...byIdErrors },
});
const archiveRoute = (action: 'archive' | 'unarchive') => createRoute({
  method: 'post', path: `/v1/notes/{id}/${action}`, tags, security,
  summary: action === 'archive' ? 'Archive a note (soft delete; idempotent)' : 'Restore an archived note (idempotent)',
  request: { params: IdParam },
  responses: { 200: noteResponse(action === 'archive' ? 'Archived' : 'Restored'), ...byIdErrors },
});

export function registerNotes(app: OpenAPIHono<AppEnv>, deps: JournalDeps): void {
  app.openapi(createRouteDef, async (c) => {
    const b = c.req.valid('json');
    const row = await journalTx(deps, c.var.user, c.var.log, async (tx) => {
      const [inserted] = await tx<NoteRow[]>`
        insert into public.notes (user_id, content, note_type, impulse_id, session_id, session_step)
        values (${c.var.user.sub}, ${b.content}, ${b.note_type ?? 'reflection'}::public.note_type, ${b.impulse_id ?? null},
                ${b.session_id ?? null}, ${b.session_step ?? null})
        returning ${tx.unsafe(NOTE_COLUMNS)}`;
      return inserted!;
    });
    return c.json(ok(toNote(row)), 201);
  });

  app.openapi(listRoute, async (c) => {
    const q = c.req.valid('query');
    const page = pageRequest(q);
    const archived = q.archived === 'only' ? 'only' : q.include_archived === 'true' ? 'include' : 'exclude';
    const rows = await journalRead(deps, c.var.user, (tx) => listNotesQuery(tx, c.var.user.sub, {
      note_type: q.note_type, impulse_id: q.impulse_id, session_id: q.session_id, archived,
    }, page));
    const { items, page: info } = toCursorPage(rows, page.limit);
    return c.json(ok({ items: items.map(toNote), page: info }), 200);
  });

  app.openapi(getRoute, async (c) => {
    const { id } = c.req.valid('param');
    const [row] = await journalRead(deps, c.var.user, (tx) =>
      tx<NoteRow[]>`select ${tx.unsafe(NOTE_COLUMNS)} from public.notes where id = ${id} and user_id = ${c.var.user.sub}`);
    if (!row) throw new AppError(404, 'NOT_FOUND');
    return c.json(ok(toNote(row)), 200);
  });

  app.openapi(patchRoute, async (c) => {
    const { id } = c.req.valid('param');
    const b = c.req.valid('json');
    const [row] = await journalTx(deps, c.var.user, c.var.log, (tx) => tx<NoteRow[]>`
      update public.notes
      set content = coalesce(${b.content ?? null}, content),
          note_type = coalesce(${b.note_type ?? null}::public.note_type, note_type)
      where id = ${id} and user_id = ${c.var.user.sub}
      returning ${tx.unsafe(NOTE_COLUMNS)}`);
    if (!row) throw new AppError(404, 'NOT_FOUND');
    return c.json(ok(toNote(row)), 200);
  });

  for (const action of ['archive', 'unarchive'] as const) {
    app.openapi(archiveRoute(action), async (c) => {
      const { id } = c.req.valid('param');
      const [row] = await journalTx(deps, c.var.user, c.var.log, (tx) => tx<NoteRow[]>`
        update public.notes
        set archived_at = ${action === 'archive' ? tx`coalesce(archived_at, now())` : tx`null`}
        where id = ${id} and user_id = ${c.var.user.sub}
        returning ${tx.unsafe(NOTE_COLUMNS)}`);
      if (!row) throw new AppError(404, 'NOT_FOUND');
      return c.json(ok(toNote(row)), 200);
    });
  }
}
