// The pure state machines: every allowed and refused transition.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { newSession, nextAiStatus, nextImpulseStatus, nextSessionState, type SessionState } from '../../shared/domain/session-machine.ts';

const state = (status: SessionState['status'], currentStep: number, answered: number): SessionState => ({
  status,
  currentStep,
  inputs: [1, 2, 3, 4, 5].map((s) => s <= answered),
});

describe('session machine', () => {
  it('walks 1 → 5, requests the next guidance, completes', () => {
    let s = newSession();
    expect(s).toEqual({ state: state('created', 1, 0), guidanceStep: 1 });
    for (let step = 1; step <= 5; step++) {
      const r = nextSessionState(s.state, { type: 'submit_step', step });
      if (!r.ok) throw new Error(r.error);
      s = r.value;
      expect(s.state.status).toBe('active');
      expect(s.guidanceStep).toBe(step < 5 ? step + 1 : null);
    }
    expect(s.state).toEqual(state('active', 5, 5));
    expect(nextSessionState(s.state, { type: 'complete' })).toEqual({ ok: true, value: { state: state('completed', 5, 5), guidanceStep: null } });
  });

  it('refuses with stable codes', () => {
    const err = (st: SessionState, e: Parameters<typeof nextSessionState>[1]) => {
      const r = nextSessionState(st, e);
      return r.ok ? 'ok' : r.error;
    };
    expect(err(state('active', 2, 1), { type: 'submit_step', step: 3 })).toBe('SESSION_STEP_OUT_OF_ORDER');
    expect(err(state('active', 2, 1), { type: 'submit_step', step: 1 })).toBe('SESSION_STEP_OUT_OF_ORDER');
    expect(err(state('active', 5, 5), { type: 'submit_step', step: 6 })).toBe('SESSION_STEP_OUT_OF_ORDER');
    expect(err(state('active', 5, 5), { type: 'submit_step', step: 5 })).toBe('SESSION_STEP_ALREADY_SUBMITTED');
    expect(err(state('active', 5, 4), { type: 'complete' })).toBe('SESSION_INCOMPLETE');
    expect(err(state('created', 1, 0), { type: 'complete' })).toBe('SESSION_INCOMPLETE');
    expect(err(state('completed', 5, 5), { type: 'submit_step', step: 5 })).toBe('SESSION_ALREADY_COMPLETED');
    expect(err(state('completed', 5, 5), { type: 'complete' })).toBe('SESSION_ALREADY_COMPLETED');
    expect(err(state('completed', 5, 5), { type: 'abandon' })).toBe('SESSION_ALREADY_COMPLETED');
    expect(err(state('abandoned', 3, 2), { type: 'submit_step', step: 3 })).toBe('SESSION_NOT_ACTIVE');
    expect(err(state('abandoned', 5, 5), { type: 'complete' })).toBe('SESSION_NOT_ACTIVE');
    expect(err(state('active', 3, 2), { type: 'reflect' })).toBe('SESSION_NOT_COMPLETED');
    expect(err(state('completed', 5, 5), { type: 'reflect' })).toBe('ok');
    expect(err(state('created', 1, 0), { type: 'abandon' })).toBe('ok');
  });

  it('property: whatever the events, current_step stays 1..5 and only completes with five inputs', () => {
    const event = fc.oneof(
      fc.record({ type: fc.constant('submit_step' as const), step: fc.integer({ min: -2, max: 8 }) }),
      fc.constantFrom({ type: 'complete' as const }, { type: 'abandon' as const }, { type: 'reflect' as const }),
    );
    fc.assert(fc.property(fc.array(event, { maxLength: 30 }), (events) => {
      let s = newSession().state;
      for (const e of events) {
        const r = nextSessionState(s, e);
        if (r.ok) {
          if (r.value.state.status === 'completed' && s.status !== 'completed') expect(s.inputs.every(Boolean)).toBe(true);
          s = r.value.state;
        }
        expect(s.currentStep).toBeGreaterThanOrEqual(1);
        expect(s.currentStep).toBeLessThanOrEqual(5);
      }
    }));
  });
});

describe('impulse processual_status', () => {
  it('transitions', () => {
    expect(nextImpulseStatus('captured', { type: 'session_started' })).toEqual({ ok: true, value: 'transforming' });
    expect(nextImpulseStatus('transformed', { type: 'session_started' })).toEqual({ ok: true, value: 'transforming' });
    expect(nextImpulseStatus('transforming', { type: 'session_started' })).toEqual({ ok: false, error: 'SESSION_ALREADY_OPEN' });
    expect(nextImpulseStatus('transforming', { type: 'session_completed' })).toEqual({ ok: true, value: 'transformed' });
    expect(nextImpulseStatus('transforming', { type: 'session_abandoned', hasCompletedSession: false })).toEqual({ ok: true, value: 'captured' });
    expect(nextImpulseStatus('transforming', { type: 'session_abandoned', hasCompletedSession: true })).toEqual({ ok: true, value: 'transformed' });
    expect(nextImpulseStatus('captured', { type: 'session_completed' }).ok).toBe(false);
  });
});

describe('ai_workload_status', () => {
  it('transitions', () => {
    expect(nextAiStatus('idle', 'request')).toEqual({ ok: true, value: 'pending' });
    expect(nextAiStatus('complete', 'request')).toEqual({ ok: true, value: 'pending' });
    expect(nextAiStatus('pending', 'start')).toEqual({ ok: true, value: 'processing' });
    expect(nextAiStatus('processing', 'succeed')).toEqual({ ok: true, value: 'complete' });
    expect(nextAiStatus('processing', 'fail')).toEqual({ ok: true, value: 'failed' });
    expect(nextAiStatus('idle', 'start').ok).toBe(false);
    expect(nextAiStatus('complete', 'succeed').ok).toBe(false);
  });
});
