// The journal's state machines, pure: every change of session status, impulse processual_status
// and ai_workload_status is decided here. Routes lock the rows, ask these functions, and write
// the answer; an error code means "change nothing" and becomes a 409.

export type SessionStatus = 'created' | 'active' | 'completed' | 'abandoned';
export type ProcessualStatus = 'captured' | 'transforming' | 'transformed';
export type AiWorkloadStatus = 'idle' | 'pending' | 'processing' | 'complete' | 'failed';

export const STEP_COUNT = 5;

export const SESSION_STEPS = [
  { step: 1, name: 'FEEL', purpose: 'somatic awareness' },
  { step: 2, name: 'OWN', purpose: 'acknowledging the energy investment' },
  { step: 3, name: 'SHIFT', purpose: 'state defines reality' },
  { step: 4, name: 'ENVISION', purpose: 'visualizing and anchoring a new state' },
  { step: 5, name: 'RELEASE', purpose: 'detaching and affirming' },
] as const;

export type TransitionError =
  | 'SESSION_STEP_OUT_OF_ORDER'
  | 'SESSION_STEP_ALREADY_SUBMITTED'
  | 'SESSION_NOT_ACTIVE'
  | 'SESSION_ALREADY_COMPLETED'
  | 'SESSION_INCOMPLETE'
  | 'SESSION_NOT_COMPLETED'
  | 'SESSION_ALREADY_OPEN'
  | 'AI_STATUS_TRANSITION_INVALID';

export type Result<T> = { ok: true; value: T } | { ok: false; error: TransitionError };
const ok = <T>(value: T): Result<T> => ({ ok: true, value });
const fail = <T>(error: TransitionError): Result<T> => ({ ok: false, error });

// --- Sessions -------------------------------------------------------------------------------

export interface SessionState {
  status: SessionStatus;
  currentStep: number;
  /** Which step inputs are stored, index 0 = step 1. */
  inputs: readonly boolean[];
}

export type SessionEvent =
  | { type: 'submit_step'; step: number }
  | { type: 'complete' }
  | { type: 'abandon' }
  | { type: 'reflect' };

export interface SessionTransition {
  state: SessionState;
  /** The step whose guidance must now be generated (ai_status idle → pending), if any. */
  guidanceStep: number | null;
}

/** A new session: created, at step 1, with step 1 guidance requested. */
export function newSession(): SessionTransition {
  return { state: { status: 'created', currentStep: 1, inputs: [false, false, false, false, false] }, guidanceStep: 1 };
}

const isOpen = (s: SessionStatus) => s === 'created' || s === 'active';

function closedError(status: SessionStatus): TransitionError {
  return status === 'completed' ? 'SESSION_ALREADY_COMPLETED' : 'SESSION_NOT_ACTIVE';
}

export function nextSessionState(current: SessionState, event: SessionEvent): Result<SessionTransition> {
  switch (event.type) {
    case 'submit_step': {
      if (!isOpen(current.status)) return fail(closedError(current.status));
      if (event.step !== current.currentStep) return fail('SESSION_STEP_OUT_OF_ORDER');
      if (current.inputs[event.step - 1]) return fail('SESSION_STEP_ALREADY_SUBMITTED');
      const inputs = current.inputs.map((v, i) => v || i === event.step - 1);
      const last = event.step === STEP_COUNT;
      return ok({
        state: { status: 'active', currentStep: last ? STEP_COUNT : event.step + 1, inputs },
        guidanceStep: last ? null : event.step + 1,
      });
    }
    case 'complete': {
      if (!isOpen(current.status)) return fail(closedError(current.status));
      if (!current.inputs.every(Boolean)) return fail('SESSION_INCOMPLETE');
      return ok({ state: { ...current, status: 'completed' }, guidanceStep: null });
    }
    case 'abandon': {
      if (!isOpen(current.status)) return fail(closedError(current.status));
      return ok({ state: { ...current, status: 'abandoned' }, guidanceStep: null });
    }
    case 'reflect': {
      if (current.status !== 'completed') return fail('SESSION_NOT_COMPLETED');
      return ok({ state: current, guidanceStep: null });
    }
  }
}

// --- Impulse processual_status --------------------------------------------------------------

export type ImpulseEvent =
  | { type: 'session_started' }
  | { type: 'session_completed' }
  /** hasCompletedSession: another session of the impulse was completed before. */
  | { type: 'session_abandoned'; hasCompletedSession: boolean };

export function nextImpulseStatus(current: ProcessualStatus, event: ImpulseEvent): Result<ProcessualStatus> {
  switch (event.type) {
    case 'session_started':
      // A transformed impulse may be worked on again; only one session may be open at a time.
      return current === 'transforming' ? fail('SESSION_ALREADY_OPEN') : ok('transforming');
    case 'session_completed':
      return current === 'transforming' ? ok('transformed') : fail('SESSION_NOT_ACTIVE');
    case 'session_abandoned':
      if (current !== 'transforming') return fail('SESSION_NOT_ACTIVE');
      return ok(event.hasCompletedSession ? 'transformed' : 'captured');
  }
}

// --- ai_workload_status ---------------------------------------------------------------------

export type AiEvent = 'request' | 'start' | 'succeed' | 'fail';

/**
 * request: the API asks for (re)generation → pending, from any state but processing is allowed
 * too (the worker of the newer job wins; the older result is overwritten). start: a worker picks
 * the job. succeed / fail: the worker finishes.
 */
export function nextAiStatus(current: AiWorkloadStatus, event: AiEvent): Result<AiWorkloadStatus> {
  switch (event) {
    case 'request':
      return ok('pending');
    case 'start':
      return current === 'pending' || current === 'failed' ? ok('processing') : fail('AI_STATUS_TRANSITION_INVALID');
    case 'succeed':
      return current === 'processing' ? ok('complete') : fail('AI_STATUS_TRANSITION_INVALID');
    case 'fail':
      return current === 'processing' || current === 'pending' ? ok('failed') : fail('AI_STATUS_TRANSITION_INVALID');
  }
}
