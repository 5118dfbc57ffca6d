import type { Cursor } from '../http/pagination.ts';
import type { Tx } from './client.ts';

/**
 * `and (created_at, id) < cursor` for newest-first keyset pages, or nothing without a cursor.
 * The timestamp travels as text and is cast in SQL: postgres.js serializes a timestamptz parameter
 * through a JavaScript Date, which drops the microseconds and skips rows created within one.
 */
export function beforeCursor(tx: Tx, cursor: Cursor | null, alias?: string) {
  if (!cursor) return tx``;
  const column = (name: string) => tx(alias ? `${alias}.${name}` : name);
  return tx`and (${column('created_at')}, ${column('id')}) < (${cursor.createdAt}::text::timestamptz, ${cursor.id}::uuid)`;
}
