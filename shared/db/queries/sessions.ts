// Session queries (see impulses.ts for the conventions).
import type { Tx } from '../client.ts';
import { type PageRequest, CURSOR_AT } from '../../http/pagination.ts';
import { beforeCursor } from '../cursor.ts';

/** Summary fields: what a list or an impulse's detail shows. */
export const SESSION_SUMMARY_COLUMNS = `id, impulse_id, classification, status, current_step, summary_status,
  reflection_status, started_at, completed_at, abandoned_at, created_at, updated_at`;

export interface SessionSummaryRow {
  id: string;
  impulse_id: string;
  classification: 'contraction' | 'expansion';
  status: 'created' | 'active' | 'completed' | 'abandoned';
  current_step: number;
  summary_status: string;
  reflection_status: string;
  started_at: Date | null;
  completed_at: Date | null;
  abandoned_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface SessionRow extends SessionSummaryRow {
  [column: `step_${number}_${'input' | 'guidance' | 'ai_status'}`]: string | null;
  summary_document: Record<string, unknown> | null;
  user_reflection: string | null;
  reflection_conclusion: string | null;
  user_id: string;
}

export function listSessionsQuery(tx: Tx, userId: string, f: { status?: string; impulse_id?: string }, page: PageRequest) {
  const none = tx``;
  return tx<Array<SessionSummaryRow & { cursor_at: string }>>`
    select ${tx.unsafe(SESSION_SUMMARY_COLUMNS)}, ${tx.unsafe(CURSOR_AT)} as cursor_at
    from public.sessions s
    where s.user_id = ${userId}
      ${f.status ? tx`and s.status = ${f.status}::public.session_status` : none}
      ${f.impulse_id ? tx`and s.impulse_id = ${f.impulse_id}::uuid` : none}
      ${beforeCursor(tx, page.cursor, 's')}
    order by s.created_at desc, s.id desc
    limit ${page.limit + 1}`;
}

/** The session row locked for a transition (RLS hides other users' rows: absent → 404). */
export async function lockSession(tx: Tx, userId: string, id: string): Promise<SessionRow | null> {
  const [row] = await tx<SessionRow[]>`
    select * from public.sessions where id = ${id} and user_id = ${userId} for update`;
  return row ?? null;
}
