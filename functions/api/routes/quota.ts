// Remaining quota for impulses and check-ins, and the access verdict, from check_impulse_quota.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../../shared/http/context.ts';
import { withUser, type Sql } from '../../../shared/db/client.ts';
import { readQuota } from '../../../shared/domain/quota.ts';
import { notFound } from '../../../shared/http/errors.ts';
import { ok, okSchema } from '../../../shared/http/responses.ts';
import { errors, json, userSecurity } from './openapi-helpers.ts';

const QuotaItem = z
  .object({
    used: z.number().int(),
    limit: z.number().int().nullable().openapi({ description: 'null = unlimited' }),
    period: z.enum(['total', 'month']),
    period_start: z.string(),
    resets_at: z.string().nullable(),
    allowed: z.boolean(),
  })
  .openapi('QuotaItem');

const Quota = z
  .object({ impulse: QuotaItem, check_in: QuotaItem, access: z.object({ active: z.boolean() }) })
  .openapi('Quota');

const route = createRoute({
  method: 'get',
  path: '/v1/quota',
  tags: ['quota'],
  summary: 'Used and remaining impulse and check-in quota of the caller',
  security: userSecurity,
  responses: { 200: { description: 'Quota', ...json(okSchema(Quota)) }, ...errors([401, 'AUTH_*'], [404, 'NOT_FOUND']) },
});

export function registerQuota(app: OpenAPIHono<AppEnv>, sql: Sql): void {
  app.openapi(route, async (c) => {
    const [impulse, checkIn] = await withUser(sql, c.var.user, async (tx) => [
      await readQuota(tx, 'impulse'),
      await readQuota(tx, 'check_in'),
    ]);
    if (!impulse || !checkIn) throw notFound();
    const { active, ...impulseItem } = impulse;
    const { active: _same, ...checkInItem } = checkIn;
    return c.json(ok({ impulse: impulseItem, check_in: checkInItem, access: { active } }), 200);
  });
}
