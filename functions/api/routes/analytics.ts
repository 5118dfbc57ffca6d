// Analytics: the dashboard (computed in SQL, cached an hour), the AI insights list, and a request
// to regenerate insights (a queued job, at most once per 24 hours per user).
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../../shared/http/context.ts';
import { withService, withUser, type Sql } from '../../../shared/db/client.ts';
import { readDashboard } from '../../../shared/domain/analytics.ts';
import { AppError } from '../../../shared/http/errors.ts';
import { CURSOR_AT, decodeCursor, pageInfo, pageQuery, toCursorPage } from '../../../shared/http/pagination.ts';
import { ok, okSchema } from '../../../shared/http/responses.ts';
import { requireActiveSubscription } from '../../../shared/http/subscription.ts';
import { publishRecorded, recordJob, type JobPublisher } from '../../../shared/queue/index.ts';
import { errors, isoRequired, json, userSecurity } from './openapi-helpers.ts';
import { beforeCursor } from '../../../shared/db/cursor.ts';

export const INSIGHTS_REGENERATION_INTERVAL_SECONDS = 24 * 3600;
const KINDS = ['pattern', 'progress', 'guidance', 'synchronicity', 'shift'] as const;
const tags = ['analytics'];

// JSONB rule: summary, timeline, themes and data_points are open objects.
const OpenObject = z.record(z.string(), z.unknown());
const Dashboard = z
  .object({
    summary: OpenObject,
    timeline: OpenObject,
    themes: OpenObject,
    cached: z.boolean(),
    computed_at: z.string(),
    expires_at: z.string(),
  })
  .openapi('AnalyticsDashboard');
const Insight = z
  .object({ id: z.uuid(), kind: z.enum(KINDS), title: z.string(), content: z.string(), data_points: OpenObject, created_at: z.string() })
  .openapi('AnalyticsInsight');
const Regeneration = z
  .object({ job_id: z.uuid(), status: z.string(), created_at: z.string() })
  .openapi('InsightsRegeneration');

const dashboardRoute = createRoute({
  method: 'get', path: '/v1/analytics/dashboard', tags, security: userSecurity,
  summary: 'Counts, 30-day timeline and themes of the caller (cached for 1 hour)',
  responses: { 200: { description: 'Dashboard', ...json(okSchema(Dashboard)) }, ...errors([401, 'AUTH_*']) },
});
const insightsRoute = createRoute({
  method: 'get', path: '/v1/analytics/insights', tags, security: userSecurity,
  summary: 'AI insights, newest first',
  request: { query: z.object({ ...pageQuery, kind: z.enum(KINDS).optional() }) },
  responses: {
    200: { description: 'Insights', ...json(okSchema(z.object({ items: z.array(Insight), page: pageInfo }))) },
    ...errors([400, 'VALIDATION_FAILED'], [401, 'AUTH_*']),
  },
});
const regenerateRoute = createRoute({
  method: 'post', path: '/v1/analytics/insights/regenerate', tags, security: userSecurity,
  summary: 'Queue a regeneration of the insights (once per 24 hours)',
  responses: {
    202: { description: 'Queued', ...json(okSchema(Regeneration)) },
    ...errors([401, 'AUTH_*'], [403, 'SUBSCRIPTION_INACTIVE'], [429, 'INSIGHTS_RECENTLY_REGENERATED']),
  },
});

export function registerAnalytics(app: OpenAPIHono<AppEnv>, deps: { sql: Sql; publisher: JobPublisher | null }): void {
  const { sql, publisher } = deps;

  app.openapi(dashboardRoute, async (c) => {
    const user = c.var.user;
    const dashboard = await withUser(sql, user, (tx) => readDashboard(tx, user.sub));
    return c.json(ok(dashboard), 200);
  });

  app.openapi(insightsRoute, async (c) => {
    const user = c.var.user;
    const { limit, cursor, kind } = c.req.valid('query');
    const after = decodeCursor(cursor);
    const rows = await withUser(sql, user, (tx) => tx<{
      id: string; kind: (typeof KINDS)[number]; title: string; content: string; data_points: Record<string, unknown>; created_at: Date;
      cursor_at: string;
    }[]>`
      select id, kind, title, content, data_points, created_at, ${tx.unsafe(CURSOR_AT)} as cursor_at from public.analytics_insights
       where user_id = ${user.sub}
         ${kind ? tx`and kind = ${kind}` : tx``}
         ${beforeCursor(tx, after)}
       order by created_at desc, id desc
       limit ${limit + 1}`);
    const { items, page } = toCursorPage(rows, limit);
    return c.json(ok({ items: items.map(({ cursor_at: _c, ...i }) => ({ ...i, created_at: isoRequired(i.created_at) })), page }), 200);
  });

  app.use('/v1/analytics/insights/regenerate', requireActiveSubscription(sql));
  app.openapi(regenerateRoute, async (c) => {
    const user = c.var.user;
    // The ledger is service-only; the advisory lock serialises two taps of the same user.
    const recorded = await withService(sql, async (tx) => {
      await tx`select pg_advisory_xact_lock(hashtextextended(${`insights-regeneration:${user.sub}`}, 0))`;
      const [last] = await tx<{ created_at: Date }[]>`
        select created_at from public.jobs
         where queue = 'insights-regeneration' and user_id = ${user.sub} and status <> 'failed'
           and created_at > now() - make_interval(secs => ${INSIGHTS_REGENERATION_INTERVAL_SECONDS})
         order by created_at desc limit 1`;
      if (last) {
        const retryAfter = Math.max(1, Math.ceil((last.created_at.getTime() + INSIGHTS_REGENERATION_INTERVAL_SECONDS * 1000 - Date.now()) / 1000));
        throw new AppError(429, 'INSIGHTS_RECENTLY_REGENERATED', { retry_after_seconds: retryAfter }, { 'Retry-After': String(retryAfter) });
      }
      return recordJob(tx, 'insights-regeneration', { userId: user.sub }, { userId: user.sub });
    });
    // After the commit; without a publisher (or when QStash is down) the sweeper publishes it.
    const job = publisher ? (await publishRecorded(sql, publisher, recorded, c.var.log)).job : recorded.job;
    return c.json(ok({ job_id: job.id, status: job.status, created_at: isoRequired(job.created_at) }), 202);
  });
}
