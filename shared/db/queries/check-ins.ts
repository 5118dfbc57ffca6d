// Check-in queries (see impulses.ts for the conventions).
import type { Tx } from '../client.ts';
import { type PageRequest, CURSOR_AT } from '../../http/pagination.ts';
import { beforeCursor } from '../cursor.ts';

export const CHECK_IN_COLUMNS = `id, content, classification, ai_assessment, ai_assessment_status, created_at, updated_at,
  (select i.id from public.impulses i where i.source_check_in_id = c.id) as converted_impulse_id`;

export interface CheckInRow {
  id: string;
  content: string;
  classification: 'contraction' | 'expansion' | 'neutral' | null;
  ai_assessment: Record<string, unknown> | null;
  ai_assessment_status: 'idle' | 'pending' | 'processing' | 'complete' | 'failed';
  converted_impulse_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export function listCheckInsQuery(tx: Tx, userId: string, page: PageRequest) {
  return tx<Array<CheckInRow & { cursor_at: string }>>`
    select ${tx.unsafe(CHECK_IN_COLUMNS)}, ${tx.unsafe(CURSOR_AT.replace('created_at', 'c.created_at'))} as cursor_at
    from public.check_ins c
    where c.user_id = ${userId}
      ${beforeCursor(tx, page.cursor, 'c')}
    order by c.created_at desc, c.id desc
    limit ${page.limit + 1}`;
}

export function getCheckInQuery(tx: Tx, userId: string, id: string) {
  return tx<CheckInRow[]>`select ${tx.unsafe(CHECK_IN_COLUMNS)} from public.check_ins c where c.id = ${id} and c.user_id = ${userId}`;
}
