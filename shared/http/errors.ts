import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { message, pickLocale } from '../i18n/messages.ts';

/** A failure with a stable upper-case code that the client may switch on. */
export class AppError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    readonly details?: unknown,
    readonly headers?: Record<string, string>,
  ) {
    super(code);
  }
}

export const notFound = (code = 'NOT_FOUND') => new AppError(404, code);
export const conflict = (code: string, details?: unknown) => new AppError(409, code, details);

export type Surface = 'api' | 'admin';

/** The error envelope: `{ success: false, error }` on /api/v1, `{ error }` on admin surfaces. */
export function errorBody(surface: Surface, code: string, msg: string, details?: unknown) {
  const error = details === undefined ? { code, message: msg } : { code, message: msg, details };
  return surface === 'api' ? { success: false as const, error } : { error };
}

export function errorResponse(c: Context, surface: Surface, err: AppError) {
  const locale = pickLocale(c.req.header('accept-language'));
  for (const [k, v] of Object.entries(err.headers ?? {})) c.header(k, v);
  return c.json(errorBody(surface, err.code, message(err.code, locale), err.details), err.status);
}
