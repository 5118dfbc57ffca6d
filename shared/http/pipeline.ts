// The request pipeline every function uses: request id, JSON access log, app version headers,
// body limit, error envelope and not-found handling. Auth layers are added per surface.
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { bodyLimit } from 'hono/body-limit';
import { AppError, errorResponse, type Surface } from './errors.ts';
import { mapDbError } from '../db/errors.ts';
import { describeError, type Logger } from './logger.ts';
import type { AppEnv } from './context.ts';

const REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;

export function requestContext(log: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const incoming = c.req.header('x-request-id');
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
    const platform = c.req.header('x-app-platform')?.toLowerCase();
    c.set('requestId', requestId);
    c.set('appVersion', c.req.header('x-app-version')?.slice(0, 32) ?? null);
    c.set('appPlatform', platform === 'ios' || platform === 'android' ? platform : null);
    c.set('log', log.child({ request_id: requestId }));
    c.header('X-Request-Id', requestId);
    const started = performance.now();
    await next();
    // The route pattern, not the URL: paths may carry secrets (health) and query strings may carry text.
    c.get('log').info('request', {
      method: c.req.method,
      route: c.req.routePath,
      status: c.res.status,
      ms: Math.round(performance.now() - started),
      app_version: c.get('appVersion'),
      app_platform: c.get('appPlatform'),
      user_id: c.var.user?.sub,
    });
  };
}

export function limitBody(maxBytes: number): MiddlewareHandler<AppEnv> {
  return bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw new AppError(413, 'BODY_TOO_LARGE', { max_bytes: maxBytes });
    },
  });
}

/**
 * Turns every failure into the envelope; database errors that are the client's input (mapDbError)
 * become their 4xx on every route; unknown errors become a logged 500 without details.
 */
export function handleErrors(app: Hono<AppEnv>, surface: Surface, log: Logger): void {
  app.onError((thrown, c) => {
    const err = mapDbError(thrown);
    if (err instanceof AppError) return errorResponse(c, surface, err);
    if (err instanceof HTTPException) return errorResponse(c, surface, fromHttpException(err));
    (c.var.log ?? log).error('unhandled error', { ...describeError(err), route: c.req.routePath });
    return errorResponse(c, surface, new AppError(500, 'INTERNAL'));
  });
  app.notFound((c) => errorResponse(c, surface, new AppError(404, 'NOT_FOUND')));
}

function fromHttpException(err: HTTPException): AppError {
  if (err.status === 400 && /json/i.test(err.message)) return new AppError(400, 'INVALID_JSON');
  if (err.status === 401) return new AppError(401, 'AUTH_INVALID');
  if (err.status === 413) return new AppError(413, 'BODY_TOO_LARGE');
  if (err.status === 405) return new AppError(405, 'METHOD_NOT_ALLOWED');
  if (err.status >= 500) return new AppError(500, 'INTERNAL');
  return new AppError(err.status as 400, 'VALIDATION_FAILED');
}

/** Hook for @hono/zod-openapi: a failed validation is a 400 with field paths. */
export function validationHook(
  result: { success: boolean; error?: { issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string; code?: string }> }; target?: string },
  _c: Context,
): void {
  if (result.success) return;
  const fields = (result.error?.issues ?? []).map((i) => ({
    path: i.path.map(String).join('.'),
    message: i.message,
    in: result.target,
  }));
  throw new AppError(400, 'VALIDATION_FAILED', { fields });
}
