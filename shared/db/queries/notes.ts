// Note queries (see impulses.ts for the conventions).
import type { Tx } from '../client.ts';
import { type PageRequest, CURSOR_AT } from '../../http/pagination.ts';
import { beforeCursor } from '../cursor.ts';

export const NOTE_COLUMNS = 'id, content, note_type, impulse_id, session_id, session_step, archived_at, created_at, updated_at';

export interface NoteRow {
  id: string;
  content: string;
  note_type: 'gratitude' | 'reflection';
  impulse_id: string | null;
  session_id: string | null;
  session_step: number | null;
  archived_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface NoteFilters {
  note_type?: string;
  impulse_id?: string;
  session_id?: string;
  /** exclude (default): active notes only; include: all; only: archived only. */
  archived: 'exclude' | 'include' | 'only';
}

export function listNotesQuery(tx: Tx, userId: string, f: NoteFilters, page: PageRequest) {
  const none = tx``;
  return tx<Array<NoteRow & { cursor_at: string }>>`
    select ${tx.unsafe(NOTE_COLUMNS)}, ${tx.unsafe(CURSOR_AT)} as cursor_at
    from public.notes n
    where n.user_id = ${userId}
      ${f.archived === 'exclude' ? tx`and n.archived_at is null` : f.archived === 'only' ? tx`and n.archived_at is not null` : none}
      ${f.note_type ? tx`and n.note_type = ${f.note_type}::public.note_type` : none}
      ${f.impulse_id ? tx`and n.impulse_id = ${f.impulse_id}::uuid` : none}
      ${f.session_id ? tx`and n.session_id = ${f.session_id}::uuid` : none}
      ${beforeCursor(tx, page.cursor, 'n')}
    order by n.created_at desc, n.id desc
    limit ${page.limit + 1}`;
}
