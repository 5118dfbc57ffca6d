// Subscription middleware: 403 SUBSCRIPTION_INACTIVE unless the caller's profile passes the single
// access rule (shared/domain/access.ts). Apply it after the JWT middleware, to the routes that spend
// AI or create content (list in docs/decisions.md, "App API"); never to profile, quota, config, auth,
// notification preferences, feedback, subscriptions sync or reads of one's own data.
import type { MiddlewareHandler } from 'hono';
import { isSubscriptionActive } from '../domain/access.ts';
import { withUser, type Sql, type Tx } from '../db/client.ts';
import type { AppEnv } from './context.ts';
import { AppError } from './errors.ts';

interface AccessRow {
  subscription_tier: string;
  subscription_status: string;
  trial_ends_at: Date | null;
  subscription_end_date: Date | null;
  is_partner: boolean;
}

/** Whether the user's profile grants access; false when there is no profile. One query. */
export async function hasActiveAccess(tx: Tx, userId: string): Promise<boolean> {
  const [p] = await tx<AccessRow[]>`
    select subscription_tier, subscription_status, trial_ends_at, subscription_end_date, is_partner
    from public.profiles where id = ${userId}`;
  return p != null && isSubscriptionActive(p.subscription_tier, p.subscription_status, p.trial_ends_at,
    p.subscription_end_date, { isPartner: p.is_partner });
}

export function requireActiveSubscription(sql: Sql): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const user = c.var.user;
    const active = await withUser(sql, user, (tx) => hasActiveAccess(tx, user.sub));
    if (!active) throw new AppError(403, 'SUBSCRIPTION_INACTIVE');
    await next();
  };
}
