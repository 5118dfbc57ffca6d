// Development token: where DEV_API_TOKEN is set, `X-Dev-Token: <token>` stands in for the JWT and
// the request acts as a seeded development user (`X-Dev-User: <email>`, default the trial user).
// Where it is unset the header is ignored and dev endpoints do not exist (404).
import type { Context, MiddlewareHandler } from 'hono';
import type { Config } from '../config/env.ts';
import { withService, type Sql } from '../db/client.ts';
import { timingSafeEqual } from './compare.ts';
import type { AppEnv, UserClaims } from './context.ts';
import { AppError } from './errors.ts';

export const DEV_USER_DOMAIN = '@journal.local';
export const DEFAULT_DEV_USER = 'dev-trial@journal.local';

/** The dev user's claims when a valid dev token is sent; null when the dev token does not apply. */
export async function devTokenUser(
  c: Context<AppEnv>,
  config: Pick<Config, 'DEV_API_TOKEN'>,
  sql: Sql,
): Promise<UserClaims | null> {
  const configured = config.DEV_API_TOKEN;
  const sent = c.req.header('x-dev-token');
  if (!configured || sent === undefined) return null;
  if (!(await timingSafeEqual(sent, configured))) throw new AppError(401, 'DEV_TOKEN_INVALID');

  // Only the seeded dev accounts: a leaked dev token must not act as a real user.
  const email = (c.req.header('x-dev-user') ?? DEFAULT_DEV_USER).trim().toLowerCase();
  if (!email.endsWith(DEV_USER_DOMAIN)) throw new AppError(401, 'DEV_USER_UNKNOWN');
  const [row] = await withService(sql, (tx) => tx<{ id: string; email: string }[]>`
    select id, email from auth.users where lower(email) = ${email} and deleted_at is null order by created_at limit 1`);
  if (!row) throw new AppError(401, 'DEV_USER_UNKNOWN');
  return {
    sub: row.id,
    role: 'authenticated',
    email: row.email,
    aud: 'authenticated',
    is_anonymous: false,
    amr: [{ method: 'dev_token', timestamp: Math.floor(Date.now() / 1000) }],
  };
}

/** Dev-only routes: 404 when DEV_API_TOKEN is unset, 401 without the matching X-Dev-Token. */
export function requireDevToken(config: Pick<Config, 'DEV_API_TOKEN'>): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const configured = config.DEV_API_TOKEN;
    if (!configured) throw new AppError(404, 'NOT_FOUND');
    const sent = c.req.header('x-dev-token');
    if (sent === undefined || !(await timingSafeEqual(sent, configured))) throw new AppError(401, 'DEV_TOKEN_INVALID');
    await next();
  };
}
