// Cursor pages for the journal lists. The cursor carries created_at with microseconds (as text
// from SQL, `cursor_at`): a millisecond Date would skip rows created within the same millisecond.
import { decodeCursor, encodeCursor, type Cursor } from '../http/pagination.ts';

/** SQL expression for the `cursor_at` column of a list query. */
export const CURSOR_AT = `to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

export interface PageRequest {
  limit: number;
  cursor: Cursor | null;
}

export const pageRequest = (q: { limit: number; cursor?: string }): PageRequest => ({
  limit: q.limit,
  cursor: decodeCursor(q.cursor),
});

/** Rows were fetched with limit + 1; returns the page and its cursor. */
export function toCursorPage<T extends { id: string; cursor_at: string }>(rows: T[], limit: number) {
  const has_more = rows.length > limit;
  const items = has_more ? rows.slice(0, limit) : rows;
  const last = items[items.length - 1];
  return {
    items,
    page: { next_cursor: has_more && last ? encodeCursor({ created_at: last.cursor_at, id: last.id }) : null, has_more },
  };
}
