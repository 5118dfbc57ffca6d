// Push notification preferences of the caller, the silent week, the app-foreground device sync and
// the history of delivered messages. The APNs token itself is never returned (only has_token).
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../../shared/http/context.ts';
import { withUser, type Sql, type Tx } from '../../../shared/db/client.ts';
import { isValidTimeZone } from '../../../shared/domain/timezone.ts';
import { notFound } from '../../../shared/http/errors.ts';
import { CURSOR_AT, decodeCursor, pageInfo, pageQuery, toCursorPage } from '../../../shared/http/pagination.ts';
import { ok, okSchema } from '../../../shared/http/responses.ts';
import { errors, iso, isoRequired, json, userSecurity } from './openapi-helpers.ts';
import { beforeCursor } from '../../../shared/db/cursor.ts';

const CATEGORIES = ['reminder', 'campaign', 'lifecycle'] as const;
const PERMISSION = ['not_determined', 'granted', 'denied', 'provisional', 'ephemeral'] as const;
const DEFAULT_SILENCE_DAYS = 7;

const TimeZone = z.string().min(1).max(64).refine(isValidTimeZone, { message: 'not an IANA time zone name' })
  .openapi({ example: 'Europe/Oslo' });

const CategoryState = z.object({ enabled: z.boolean(), lastSentAt: z.string().nullable() });
const Preferences = z
  .object({
    consent: z.boolean(),
    categories: z.object({ reminder: CategoryState, campaign: CategoryState, lifecycle: CategoryState }),
    timezone: z.string(),
    silence_until: z.string().nullable(),
    ios_permission_status: z.enum(PERMISSION),
    has_token: z.boolean(),
  })
  .openapi('NotificationPreferences');

// Lifecycle (account alerts) is always on: sending it is a 400 (strict object).
const PreferencesUpdate = z
  .object({
    consent: z.boolean().optional(),
    categories: z.object({ reminder: z.boolean().optional(), campaign: z.boolean().optional() }).strict().optional(),
    timezone: TimeZone.optional(),
  })
  .strict()
  .openapi('NotificationPreferencesUpdate');

const SilenceBody = z.object({ days: z.number().int().min(1).max(30).default(DEFAULT_SILENCE_DAYS) }).strict();

const DeviceSync = z
  .object({
    apns_token: z.string().regex(/^[0-9a-fA-F]{32,200}$/, 'hex APNs device token').nullable().optional()
      .openapi({ description: 'absent: unchanged; null: cleared' }),
    ios_permission_status: z.enum(PERMISSION),
    timezone: TimeZone,
  })
  .strict()
  .openapi('NotificationDeviceSync');

const Message = z
  .object({
    id: z.uuid(),
    category: z.enum(CATEGORIES),
    title: z.string().nullable(),
    body: z.string(),
    deeplink: z.string().nullable(),
    sent_at: z.string(),
    opened_at: z.string().nullable(),
  })
  .openapi('NotificationMessage');
const History = z.object({ items: z.array(Message), page: pageInfo });

const okPrefs = { 200: { description: 'Preferences', ...json(okSchema(Preferences)) } };
const tags = ['notifications'];

const getRoute = createRoute({
  method: 'get', path: '/v1/notifications/preferences', tags, security: userSecurity,
  summary: 'Notification preferences of the caller',
  responses: { ...okPrefs, ...errors([401, 'AUTH_*'], [404, 'NOT_FOUND']) },
});
const patchRoute = createRoute({
  method: 'patch', path: '/v1/notifications/preferences', tags, security: userSecurity,
  summary: 'Change consent, category toggles (reminder, campaign) or the time zone',
  request: { body: { required: true, ...json(PreferencesUpdate) } },
  responses: { ...okPrefs, ...errors([400, 'VALIDATION_FAILED'], [401, 'AUTH_*'], [404, 'NOT_FOUND']) },
});
const silenceRoute = createRoute({
  method: 'post', path: '/v1/notifications/silence', tags, security: userSecurity,
  summary: 'Silence notifications for some days (default 7)',
  request: { body: { required: false, ...json(SilenceBody) } },
  responses: { ...okPrefs, ...errors([400, 'VALIDATION_FAILED'], [401, 'AUTH_*'], [404, 'NOT_FOUND']) },
});
const unsilenceRoute = createRoute({
  method: 'delete', path: '/v1/notifications/silence', tags, security: userSecurity,
  summary: 'End the silence now',
  responses: { ...okPrefs, ...errors([401, 'AUTH_*'], [404, 'NOT_FOUND']) },
});
const deviceRoute = createRoute({
  method: 'post', path: '/v1/notifications/device', tags, security: userSecurity,
  summary: 'App-foreground sync: APNs token, iOS permission status and time zone',
  request: { body: { required: true, ...json(DeviceSync) } },
  responses: { ...okPrefs, ...errors([400, 'VALIDATION_FAILED'], [401, 'AUTH_*'], [404, 'NOT_FOUND']) },
});
const historyRoute = createRoute({
  method: 'get', path: '/v1/notifications/history', tags, security: userSecurity,
  summary: 'Delivered messages, newest first',
  request: { query: z.object(pageQuery) },
  responses: {
    200: { description: 'Messages', ...json(okSchema(History)) },
    ...errors([400, 'VALIDATION_FAILED'], [401, 'AUTH_*']),
  },
});

interface PrefsRow {
  consent: boolean;
  categories: Record<string, { enabled?: boolean; lastSentAt?: string | null } | undefined>;
  timezone: string;
  silence_until: Date | null;
  ios_permission_status: (typeof PERMISSION)[number];
  has_token: boolean;
}

const PREFS_COLUMNS = 'consent, categories, timezone, silence_until, ios_permission_status, apns_token is not null as has_token';

function toPreferences(row: PrefsRow) {
  const category = (id: (typeof CATEGORIES)[number]) => ({
    // Lifecycle cannot be switched off, whatever the stored map says.
    enabled: id === 'lifecycle' ? true : row.categories[id]?.enabled ?? true,
    lastSentAt: row.categories[id]?.lastSentAt ?? null,
  });
  return {
    consent: row.consent,
    categories: { reminder: category('reminder'), campaign: category('campaign'), lifecycle: category('lifecycle') },
    timezone: row.timezone,
    silence_until: iso(row.silence_until),
    ios_permission_status: row.ios_permission_status,
    has_token: row.has_token,
  };
}

async function readPrefs(tx: Tx, userId: string, lock = false): Promise<PrefsRow> {
  const [row] = lock
    ? await tx.unsafe<PrefsRow[]>(`select ${PREFS_COLUMNS} from public.user_notification_preferences where user_id = $1 for update`, [userId])
    : await tx.unsafe<PrefsRow[]>(`select ${PREFS_COLUMNS} from public.user_notification_preferences where user_id = $1`, [userId]);
  if (!row) throw notFound();
  return row;
}

export function registerNotifications(app: OpenAPIHono<AppEnv>, sql: Sql): void {
  app.openapi(getRoute, async (c) => {
    const user = c.var.user;
    const row = await withUser(sql, user, (tx) => readPrefs(tx, user.sub));
    return c.json(ok(toPreferences(row)), 200);
  });

  app.openapi(patchRoute, async (c) => {
    const user = c.var.user;
    const body = c.req.valid('json');
    const row = await withUser(sql, user, async (tx) => {
      const current = await readPrefs(tx, user.sub, true);
      const categories = { ...current.categories };
      for (const [id, enabled] of Object.entries(body.categories ?? {})) {
        if (enabled !== undefined) categories[id] = { lastSentAt: null, ...categories[id], enabled };
      }
      await tx`
        update public.user_notification_preferences set
          consent = ${body.consent ?? current.consent},
          categories = ${tx.json(categories as never)},
          timezone = ${body.timezone ?? current.timezone}
        where user_id = ${user.sub}`;
      return readPrefs(tx, user.sub);
    });
    return c.json(ok(toPreferences(row)), 200);
  });

  app.openapi(silenceRoute, async (c) => {
    const user = c.var.user;
    // Without a body the validator hands over {}: the default week.
    const days = (c.req.valid('json') as { days?: number } | undefined)?.days ?? DEFAULT_SILENCE_DAYS;
    const row = await withUser(sql, user, async (tx) => {
      await tx`update public.user_notification_preferences set silence_until = now() + make_interval(days => ${days})
               where user_id = ${user.sub}`;
      return readPrefs(tx, user.sub);
    });
    return c.json(ok(toPreferences(row)), 200);
  });

  app.openapi(unsilenceRoute, async (c) => {
    const user = c.var.user;
    const row = await withUser(sql, user, async (tx) => {
      await tx`update public.user_notification_preferences set silence_until = null where user_id = ${user.sub}`;
      return readPrefs(tx, user.sub);
    });
    return c.json(ok(toPreferences(row)), 200);
  });

  app.openapi(deviceRoute, async (c) => {
    const user = c.var.user;
    const { apns_token, ios_permission_status, timezone } = c.req.valid('json');
    const row = await withUser(sql, user, async (tx) => {
      if (apns_token === undefined) {
        await tx`update public.user_notification_preferences
                 set ios_permission_status = ${ios_permission_status}, timezone = ${timezone}
                 where user_id = ${user.sub}`;
      } else {
        const token = apns_token?.toLowerCase() ?? null;
        // apns_token_updated_at moves only when the token changes (the 410 timestamp comparison uses it).
        await tx`update public.user_notification_preferences
                 set ios_permission_status = ${ios_permission_status}, timezone = ${timezone}, apns_token = ${token},
                     apns_token_updated_at = case when apns_token is distinct from ${token} then now() else apns_token_updated_at end
                 where user_id = ${user.sub}`;
      }
      return readPrefs(tx, user.sub);
    });
    return c.json(ok(toPreferences(row)), 200);
  });

  app.openapi(historyRoute, async (c) => {
    const user = c.var.user;
    const { limit, cursor } = c.req.valid('query');
    const after = decodeCursor(cursor);
    const rows = await withUser(sql, user, (tx) => tx<{
      id: string; category: (typeof CATEGORIES)[number]; title: string | null; body: string; deeplink: string | null;
      sent_at: Date; opened_at: Date | null; cursor_at: string;
    }[]>`
      select id, category, title, body, deeplink, sent_at, opened_at, ${tx.unsafe(CURSOR_AT)} as cursor_at
      from public.notification_messages
      where user_id = ${user.sub}
        ${beforeCursor(tx, after)}
      order by created_at desc, id desc
      limit ${limit + 1}`);
    const { items, page } = toCursorPage(rows, limit);
    return c.json(ok({
      items: items.map(({ cursor_at: _c, ...m }) => ({ ...m, sent_at: isoRequired(m.sent_at), opened_at: iso(m.opened_at) })),
      page,
    }), 200);
  });
}
