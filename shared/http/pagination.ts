// Cursor pagination for list endpoints, newest first: the cursor is the (created_at, id) of the
// last row returned, so a page is one index range scan on (user_id, created_at desc, id desc).
import { z } from '@hono/zod-openapi';
import { AppError } from './errors.ts';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export const pageQuery = {
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE)
    .openapi({ description: `Page size, 1-${MAX_PAGE_SIZE}` }),
  cursor: z.string().max(200).optional().openapi({ description: 'next_cursor of the previous page' }),
};

export const pageInfo = z.object({ next_cursor: z.string().nullable(), has_more: z.boolean() });

export interface Cursor {
  createdAt: string;
  id: string;
}

const encode = (s: string) => btoa(s).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
const decode = (s: string) => atob(s.replaceAll('-', '+').replaceAll('_', '/'));
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function encodeCursor(row: { created_at: Date | string; id: string }): string {
  const createdAt = row.created_at instanceof Date ? row.created_at.toISOString() : row.created_at;
  return encode(JSON.stringify([createdAt, row.id]));
}

/** A malformed cursor is the client's mistake: 400, never a 500. */
export function decodeCursor(cursor: string | undefined): Cursor | null {
  if (!cursor) return null;
  try {
    const [createdAt, id] = JSON.parse(decode(cursor)) as [unknown, unknown];
    if (typeof createdAt === 'string' && !Number.isNaN(Date.parse(createdAt)) && typeof id === 'string' && UUID.test(id)) {
      return { createdAt, id };
    }
  } catch {
    // falls through to the error below
  }
  throw new AppError(400, 'INVALID_CURSOR');
}

/**
 * SQL expression for the `cursor_at` column of a list query: created_at with microseconds, as
 * text. A JavaScript Date keeps milliseconds only and would skip rows created within one.
 */
export const CURSOR_AT = `to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

export interface PageRequest {
  limit: number;
  cursor: Cursor | null;
}

export const pageRequest = (q: { limit: number; cursor?: string }): PageRequest => ({
  limit: q.limit,
  cursor: decodeCursor(q.cursor),
});

/** Rows were fetched with limit + 1 (each with its `cursor_at`); returns the page and its cursor. */
export function toCursorPage<T extends { id: string; cursor_at: string }>(rows: T[], limit: number) {
  const has_more = rows.length > limit;
  const items = has_more ? rows.slice(0, limit) : rows;
  const last = items[items.length - 1];
  return {
    items,
    page: { next_cursor: has_more && last ? encodeCursor({ created_at: last.cursor_at, id: last.id }) : null, has_more },
  };
}
