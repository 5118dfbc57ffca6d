import type { MiddlewareHandler } from 'hono';
import { AppError } from './errors.ts';
import { matchAny } from './compare.ts';
import type { AppEnv } from './context.ts';

/** X-API-Key: any key of API_CLIENT_KEY is accepted; the key is logged by its first 8 characters only. */
export function requireApiKey(keys: readonly string[]): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const sent = c.req.header('x-api-key');
    if (!sent) throw new AppError(401, 'API_KEY_MISSING');
    const accepted = await matchAny(sent, keys);
    if (!accepted) throw new AppError(401, 'API_KEY_INVALID');
    c.set('log', c.var.log.child({ api_key: accepted.slice(0, 8) }));
    await next();
  };
}
