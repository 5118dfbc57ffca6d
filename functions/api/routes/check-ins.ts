// Check-ins: short entries with an AI assessment (`check-in-assessment` job). A check-in can be
// converted once into an impulse (source_check_in_id), which counts against the impulse quota.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../../shared/http/context.ts';
import { AppError } from '../../../shared/http/errors.ts';
import { ok, okSchema } from '../../../shared/http/responses.ts';
import { pageInfo, pageQuery, pageRequest, toCursorPage } from '../../../shared/http/pagination.ts';
import { journalRead, journalTx, type JournalDeps } from '../../../shared/domain/journal-tx.ts';
import {
  AiWorkloadStatus, CheckInClassification, IdParam, ImpulseClassification, OpaqueObject, Uuid, errorResponses, isoReq, json,
  security, userText,
} from '../../../shared/domain/journal-schemas.ts';
import { CHECK_IN_COLUMNS, getCheckInQuery, listCheckInsQuery, type CheckInRow } from '../../../shared/db/queries/check-ins.ts';
import { ImpulseSchema, PROVISIONAL_CLASSIFICATION, insertImpulse, toImpulse } from './impulses.ts';

export const CHECK_IN_CONTENT_MAX = 500;

const CheckInSchema = z
  .object({
    id: Uuid,
    content: z.string(),
    classification: CheckInClassification.nullable(),
    ai_assessment: OpaqueObject,
    ai_assessment_status: AiWorkloadStatus,
    converted_impulse_id: Uuid.nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('CheckIn');

const toCheckIn = (r: CheckInRow): z.infer<typeof CheckInSchema> => ({
  id: r.id,
  content: r.content,
  classification: r.classification,
  ai_assessment: r.ai_assessment,
  ai_assessment_status: r.ai_assessment_status,
  converted_impulse_id: r.converted_impulse_id,
  created_at: isoReq(r.created_at),
  updated_at: isoReq(r.updated_at),
});

const tags = ['check-ins'];
const checkInResponse = (description: string) => ({ description, ...json(okSchema(CheckInSchema)) });

const createRouteDef = createRoute({
  method: 'post', path: '/v1/check-ins', tags, security, summary: 'Write a check-in (counts against the check-in quota)',
  request: { body: { required: true, ...json(z.object({ content: userText(CHECK_IN_CONTENT_MAX) }).openapi('CreateCheckInRequest')) } },
  responses: { 201: checkInResponse('Created'), ...errorResponses([400, 'VALIDATION_FAILED'], [403, 'IMPULSE_QUOTA_EXCEEDED']) },
});
const listRoute = createRoute({
  method: 'get', path: '/v1/check-ins', tags, security, summary: 'List check-ins, newest first',
  request: { query: z.object(pageQuery) },
  responses: {
    200: { description: 'A page of check-ins', ...json(okSchema(z.object({ items: z.array(CheckInSchema), page: pageInfo }))) },
    ...errorResponses([400, 'VALIDATION_FAILED or INVALID_CURSOR']),
  },
});
const getRoute = createRoute({
  method: 'get', path: '/v1/check-ins/{id}', tags, security, summary: 'A check-in',
  request: { params: IdParam },
  responses: { 200: checkInResponse('The check-in'), ...errorResponses([400, 'VALIDATION_FAILED'], [404, 'NOT_FOUND']) },
});
const convertRoute = createRoute({
  method: 'post', path: '/v1/check-ins/{id}/convert', tags, security,
  summary: 'Turn a check-in into an impulse (counts against the impulse quota)',
  request: {
    params: IdParam,
    body: { required: false, ...json(z.object({ classification: ImpulseClassification.optional() }).openapi('ConvertCheckInRequest')) },
  },
  responses: {
    201: { description: 'The new impulse', ...json(okSchema(ImpulseSchema)) },
    ...errorResponses([400, 'VALIDATION_FAILED'], [403, 'IMPULSE_QUOTA_EXCEEDED'], [404, 'NOT_FOUND'], [409, 'CHECK_IN_ALREADY_CONVERTED']),
  },
});

export function registerCheckIns(app: OpenAPIHono<AppEnv>, deps: JournalDeps): void {
  app.openapi(createRouteDef, async (c) => {
    const { content } = c.req.valid('json');
    const row = await journalTx(deps, c.var.user, c.var.log, async (tx, enqueue) => {
      const [inserted] = await tx<CheckInRow[]>`
        insert into public.check_ins as c (user_id, content, ai_assessment_status)
        values (${c.var.user.sub}, ${content}, 'pending')
        returning ${tx.unsafe(CHECK_IN_COLUMNS)}`;
      enqueue('check-in-assessment', { checkInId: inserted!.id });
      return inserted!;
    });
    return c.json(ok(toCheckIn(row)), 201);
  });

  app.openapi(listRoute, async (c) => {
    const q = c.req.valid('query');
    const page = pageRequest(q);
    const rows = await journalRead(deps, c.var.user, (tx) => listCheckInsQuery(tx, c.var.user.sub, page));
    const { items, page: info } = toCursorPage(rows, page.limit);
    return c.json(ok({ items: items.map(toCheckIn), page: info }), 200);
  });

  app.openapi(getRoute, async (c) => {
    const { id } = c.req.valid('param');
    const [row] = await journalRead(deps, c.var.user, (tx) => getCheckInQuery(tx, c.var.user.sub, id));
    if (!row) throw new AppError(404, 'NOT_FOUND');
    return c.json(ok(toCheckIn(row)), 200);
  });

  app.openapi(convertRoute, async (c) => {
    const { id } = c.req.valid('param');
    // The body is optional: none means "no classification chosen".
    const chosen = (c.req.valid('json') as { classification?: 'contraction' | 'expansion' } | undefined)?.classification;
    const uid = c.var.user.sub;
    const impulse = await journalTx(deps, c.var.user, c.var.log, async (tx, enqueue) => {
      const [checkIn] = await tx<Array<{ content: string; classification: string | null }>>`
        select content, classification from public.check_ins where id = ${id} and user_id = ${uid} for update`;
      if (!checkIn) throw new AppError(404, 'NOT_FOUND');
      const [existing] = await tx`select 1 from public.impulses where source_check_in_id = ${id}`;
      if (existing) throw new AppError(409, 'CHECK_IN_ALREADY_CONVERTED');
      const assessed = checkIn.classification === 'contraction' || checkIn.classification === 'expansion' ? checkIn.classification : null;
      return insertImpulse(tx, enqueue, {
        userId: uid,
        content: checkIn.content,
        classification: chosen ?? assessed ?? PROVISIONAL_CLASSIFICATION,
        sourceCheckInId: id,
      });
    });
    return c.json(ok(toImpulse(impulse)), 201);
  });
}
