// Sessions: the 5-step process on an impulse. Every transition locks the session (and its impulse)
// `for update`, asks shared/domain/session-machine.ts, and writes the answer in the same
// transaction; a refused transition is a 409 with the machine's code and changes nothing.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../../shared/http/context.ts';
import { AppError, conflict } from '../../../shared/http/errors.ts';
import { ok, okSchema } from '../../../shared/http/responses.ts';
import { pageInfo, pageQuery, pageRequest, toCursorPage } from '../../../shared/http/pagination.ts';
import type { Tx } from '../../../shared/db/client.ts';
import { journalRead, journalTx, type EnqueueJob, type JournalDeps } from '../../../shared/domain/journal-tx.ts';
import {
  AiWorkloadStatus, IdParam, ImpulseClassification, OpaqueObject, SessionStatus, Uuid, errorResponses, iso, isoReq, json,
  security, userText,
} from '../../../shared/domain/journal-schemas.ts';
import {
  SESSION_STEPS, newSession, nextImpulseStatus, nextSessionState, type ProcessualStatus, type Result,
  type SessionState,
} from '../../../shared/domain/session-machine.ts';
import {
  listSessionsQuery, lockSession, type SessionRow, type SessionSummaryRow,
} from '../../../shared/db/queries/sessions.ts';

export const STEP_INPUT_MAX = 5000;
export const REFLECTION_MAX = 5000;

export const SessionSummarySchema = z
  .object({
    id: Uuid,
    impulse_id: Uuid,
    classification: ImpulseClassification,
    status: SessionStatus,
    current_step: z.number().int(),
    summary_status: AiWorkloadStatus,
    reflection_status: AiWorkloadStatus,
    started_at: z.string().nullable(),
    completed_at: z.string().nullable(),
    abandoned_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('SessionSummary');

const StepSchema = z.object({
  step: z.number().int(),
  name: z.enum(['FEEL', 'OWN', 'SHIFT', 'ENVISION', 'RELEASE']),
  purpose: z.string(),
  input: z.string().nullable(),
  guidance: z.string().nullable(),
  ai_status: AiWorkloadStatus,
}).openapi('SessionStep');

const SessionSchema = SessionSummarySchema.extend({
  steps: z.array(StepSchema),
  summary_document: OpaqueObject,
  user_reflection: z.string().nullable(),
  reflection_conclusion: z.string().nullable(),
}).openapi('Session');

type AiStatus = z.infer<typeof AiWorkloadStatus>;

export const toSessionSummary = (r: SessionSummaryRow): z.infer<typeof SessionSummarySchema> => ({
  id: r.id,
  impulse_id: r.impulse_id,
  classification: r.classification,
  status: r.status,
  current_step: r.current_step,
  summary_status: r.summary_status as AiStatus,
  reflection_status: r.reflection_status as AiStatus,
  started_at: iso(r.started_at),
  completed_at: iso(r.completed_at),
  abandoned_at: iso(r.abandoned_at),
  created_at: isoReq(r.created_at),
  updated_at: isoReq(r.updated_at),
});

const toSession = (r: SessionRow): z.infer<typeof SessionSchema> => ({
  ...toSessionSummary(r),
  steps: SESSION_STEPS.map((s) => ({
    step: s.step,
    name: s.name,
    purpose: s.purpose,
    input: r[`step_${s.step}_input`] ?? null,
    guidance: r[`step_${s.step}_guidance`] ?? null,
    ai_status: (r[`step_${s.step}_ai_status`] ?? 'idle') as AiStatus,
  })),
  summary_document: r.summary_document,
  user_reflection: r.user_reflection,
  reflection_conclusion: r.reflection_conclusion,
});

const stateOf = (r: SessionRow): SessionState => ({
  status: r.status,
  currentStep: r.current_step,
  inputs: SESSION_STEPS.map((s) => r[`step_${s.step}_input`] != null),
});

function orConflict<T>(r: Result<T>): T {
  if (!r.ok) throw conflict(r.error);
  return r.value;
}

const tags = ['sessions'];
const SessionIdParam = IdParam;
const StepParams = IdParam.extend({
  // Any positive step is accepted here so that a step beyond 5 is the 409 of the state machine.
  step: z.coerce.number().int().min(1).max(99).openapi({ param: { name: 'step', in: 'path' }, description: '1-5' }),
});
const transitionErrors = (...codes: string[]) =>
  errorResponses([400, 'VALIDATION_FAILED'], [404, 'NOT_FOUND'], [409, codes.join(', ')]);
const sessionResponse = (description: string) => ({ description, ...json(okSchema(SessionSchema)) });

const startRoute = createRoute({
  method: 'post', path: '/v1/sessions', tags, security,
  summary: "Start a session on an impulse (type = the impulse's classification)",
  request: { body: { required: true, ...json(z.object({ impulse_id: Uuid }).openapi('StartSessionRequest')) } },
  responses: { 201: sessionResponse('Started'), ...transitionErrors('SESSION_ALREADY_OPEN') },
});
const listRoute = createRoute({
  method: 'get', path: '/v1/sessions', tags, security, summary: 'List sessions, newest first',
  request: { query: z.object({ ...pageQuery, status: SessionStatus.optional(), impulse_id: Uuid.optional() }) },
  responses: {
    200: { description: 'A page of sessions', ...json(okSchema(z.object({ items: z.array(SessionSummarySchema), page: pageInfo }))) },
    ...errorResponses([400, 'VALIDATION_FAILED or INVALID_CURSOR']),
  },
});
const getRoute = createRoute({
  method: 'get', path: '/v1/sessions/{id}', tags, security, summary: 'A session with its five steps',
  request: { params: SessionIdParam },
  responses: { 200: sessionResponse('The session'), ...errorResponses([400, 'VALIDATION_FAILED'], [404, 'NOT_FOUND']) },
});
const stepRoute = createRoute({
  method: 'post', path: '/v1/sessions/{id}/steps/{step}', tags, security,
  summary: 'Submit the input of the current step; the next step\'s guidance is generated',
  request: {
    params: StepParams,
    body: { required: true, ...json(z.object({ input: userText(STEP_INPUT_MAX) }).openapi('StepInputRequest')) },
  },
  responses: {
    200: sessionResponse('Step stored'),
    ...transitionErrors('SESSION_STEP_OUT_OF_ORDER', 'SESSION_STEP_ALREADY_SUBMITTED', 'SESSION_NOT_ACTIVE', 'SESSION_ALREADY_COMPLETED'),
  },
});
const completeRoute = createRoute({
  method: 'post', path: '/v1/sessions/{id}/complete', tags, security,
  summary: 'Complete a session whose five inputs are stored; the summary is generated',
  request: { params: SessionIdParam },
  responses: { 200: sessionResponse('Completed'), ...transitionErrors('SESSION_INCOMPLETE', 'SESSION_NOT_ACTIVE', 'SESSION_ALREADY_COMPLETED') },
});
const abandonRoute = createRoute({
  method: 'post', path: '/v1/sessions/{id}/abandon', tags, security, summary: 'Abandon an open session',
  request: { params: SessionIdParam },
  responses: { 200: sessionResponse('Abandoned'), ...transitionErrors('SESSION_NOT_ACTIVE', 'SESSION_ALREADY_COMPLETED') },
});
const reflectionRoute = createRoute({
  method: 'put', path: '/v1/sessions/{id}/reflection', tags, security,
  summary: 'Write the reflection of a completed session; the AI conclusion is generated',
  request: {
    params: SessionIdParam,
    body: { required: true, ...json(z.object({ reflection: userText(REFLECTION_MAX) }).openapi('ReflectionRequest')) },
  },
  responses: { 200: sessionResponse('Reflection stored'), ...transitionErrors('SESSION_NOT_COMPLETED') },
});

async function lockOrNotFound(tx: Tx, userId: string, id: string): Promise<SessionRow> {
  const row = await lockSession(tx, userId, id);
  if (!row) throw new AppError(404, 'NOT_FOUND');
  return row;
}

async function lockImpulseStatus(tx: Tx, userId: string, impulseId: string) {
  const [row] = await tx<{ id: string; classification: 'contraction' | 'expansion'; processual_status: ProcessualStatus }[]>`
    select id, classification, processual_status from public.impulses
    where id = ${impulseId} and user_id = ${userId} for update`;
  return row ?? null;
}

async function setImpulseStatus(tx: Tx, impulseId: string, status: ProcessualStatus) {
  await tx`update public.impulses set processual_status = ${status}::public.processual_status where id = ${impulseId}`;
}

async function startSession(tx: Tx, enqueue: EnqueueJob, userId: string, impulseId: string): Promise<SessionRow> {
  const impulse = await lockImpulseStatus(tx, userId, impulseId);
  if (!impulse) throw new AppError(404, 'NOT_FOUND');
  const impulseStatus = orConflict(nextImpulseStatus(impulse.processual_status, { type: 'session_started' }));
  const { state, guidanceStep } = newSession();
  const [session] = await tx<SessionRow[]>`
    insert into public.sessions (user_id, impulse_id, classification, status, current_step, step_1_ai_status)
    values (${userId}, ${impulseId}, ${impulse.classification}::public.session_type, ${state.status}::public.session_status,
            ${state.currentStep}, 'pending')
    returning *`;
  await setImpulseStatus(tx, impulseId, impulseStatus);
  enqueue('unified-guidance', { sessionId: session!.id, step: guidanceStep! });
  return session!;
}

export function registerSessions(app: OpenAPIHono<AppEnv>, deps: JournalDeps): void {
  app.openapi(startRoute, async (c) => {
    const { impulse_id } = c.req.valid('json');
    const row = await journalTx(deps, c.var.user, c.var.log, (tx, enqueue) => startSession(tx, enqueue, c.var.user.sub, impulse_id));
    return c.json(ok(toSession(row)), 201);
  });

  app.openapi(listRoute, async (c) => {
    const q = c.req.valid('query');
    const page = pageRequest(q);
    const rows = await journalRead(deps, c.var.user, (tx) =>
      listSessionsQuery(tx, c.var.user.sub, { status: q.status, impulse_id: q.impulse_id }, page));
    const { items, page: info } = toCursorPage(rows, page.limit);
    return c.json(ok({ items: items.map(toSessionSummary), page: info }), 200);
  });

  app.openapi(getRoute, async (c) => {
    const { id } = c.req.valid('param');
    const [row] = await journalRead(deps, c.var.user, (tx) =>
      tx<SessionRow[]>`select * from public.sessions where id = ${id} and user_id = ${c.var.user.sub}`);
    if (!row) throw new AppError(404, 'NOT_FOUND');
    return c.json(ok(toSession(row)), 200);
  });

  app.openapi(stepRoute, async (c) => {
    const { id, step } = c.req.valid('param');
    const { input } = c.req.valid('json');
    const row = await journalTx(deps, c.var.user, c.var.log, async (tx, enqueue) => {
      const current = await lockOrNotFound(tx, c.var.user.sub, id);
      const { state, guidanceStep } = orConflict(nextSessionState(stateOf(current), { type: 'submit_step', step }));
      const changes: Record<string, string | number> = {
        [`step_${step}_input`]: input,
        status: state.status,
        current_step: state.currentStep,
      };
      if (guidanceStep) changes[`step_${guidanceStep}_ai_status`] = 'pending';
      const [updated] = await tx<SessionRow[]>`
        update public.sessions set ${tx(changes)}, started_at = coalesce(started_at, now())
        where id = ${id} returning *`;
      if (guidanceStep) enqueue('unified-guidance', { sessionId: id, step: guidanceStep });
      return updated!;
    });
    return c.json(ok(toSession(row)), 200);
  });

  app.openapi(completeRoute, async (c) => {
    const { id } = c.req.valid('param');
    const uid = c.var.user.sub;
    const row = await journalTx(deps, c.var.user, c.var.log, async (tx, enqueue) => {
      const current = await lockOrNotFound(tx, uid, id);
      const { state } = orConflict(nextSessionState(stateOf(current), { type: 'complete' }));
      const impulse = await lockImpulseStatus(tx, uid, current.impulse_id);
      const impulseStatus = orConflict(nextImpulseStatus(impulse!.processual_status, { type: 'session_completed' }));
      const [updated] = await tx<SessionRow[]>`
        update public.sessions set status = ${state.status}::public.session_status, completed_at = now(), summary_status = 'pending'
        where id = ${id} returning *`;
      await setImpulseStatus(tx, current.impulse_id, impulseStatus);
      enqueue('session-summary', { sessionId: id });
      return updated!;
    });
    return c.json(ok(toSession(row)), 200);
  });

  app.openapi(abandonRoute, async (c) => {
    const { id } = c.req.valid('param');
    const uid = c.var.user.sub;
    const row = await journalTx(deps, c.var.user, c.var.log, async (tx) => {
      const current = await lockOrNotFound(tx, uid, id);
      const { state } = orConflict(nextSessionState(stateOf(current), { type: 'abandon' }));
      const impulse = await lockImpulseStatus(tx, uid, current.impulse_id);
      const [done] = await tx<{ completed: boolean }[]>`
        select exists (select 1 from public.sessions where impulse_id = ${current.impulse_id} and user_id = ${uid}
                       and status = 'completed') as completed`;
      const impulseStatus = orConflict(nextImpulseStatus(impulse!.processual_status, {
        type: 'session_abandoned',
        hasCompletedSession: done?.completed ?? false,
      }));
      const [updated] = await tx<SessionRow[]>`
        update public.sessions set status = ${state.status}::public.session_status, abandoned_at = now()
        where id = ${id} returning *`;
      await setImpulseStatus(tx, current.impulse_id, impulseStatus);
      return updated!;
    });
    return c.json(ok(toSession(row)), 200);
  });

  app.openapi(reflectionRoute, async (c) => {
    const { id } = c.req.valid('param');
    const { reflection } = c.req.valid('json');
    const row = await journalTx(deps, c.var.user, c.var.log, async (tx, enqueue) => {
      const current = await lockOrNotFound(tx, c.var.user.sub, id);
      orConflict(nextSessionState(stateOf(current), { type: 'reflect' }));
      const [updated] = await tx<SessionRow[]>`
        update public.sessions set user_reflection = ${reflection}, reflection_status = 'pending'
        where id = ${id} returning *`;
      enqueue('session-summary', { sessionId: id, reflection: true });
      return updated!;
    });
    return c.json(ok(toSession(row)), 200);
  });
}

