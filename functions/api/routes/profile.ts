// The caller's profile: read (with the access verdict), update of the user-changeable fields, and
// account deletion by the user.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../../shared/http/context.ts';
import { withService, withUser, type Sql } from '../../../shared/db/client.ts';
import type { Identity } from '../../../shared/identity/client.ts';
import { isSubscriptionActive } from '../../../shared/domain/access.ts';
import { notFound } from '../../../shared/http/errors.ts';
import { ok, okSchema } from '../../../shared/http/responses.ts';
import { errors, iso, isoRequired, json, userSecurity } from './openapi-helpers.ts';

const Profile = z
  .object({
    id: z.uuid(),
    email: z.string(),
    notification_email: z.string().nullable(),
    display_name: z.string().nullable(),
    auth_provider: z.string().nullable(),
    subscription_tier: z.enum(['trial', 'foundation', 'mastery', 'partner']),
    subscription_status: z.string(),
    subscription_end_date: z.string().nullable(),
    subscription_cancelled_at: z.string().nullable(),
    billing_period: z.string().nullable(),
    trial_started_at: z.string().nullable(),
    trial_ends_at: z.string().nullable(),
    trial_converted: z.boolean(),
    is_partner: z.boolean(),
    partner_source: z.string().nullable(),
    preferred_language: z.string().nullable(),
    gender: z.string().nullable(),
    birth_year: z.number().int().nullable(),
    ai_personalization_enabled: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
    access: z.object({ active: z.boolean() }),
  })
  .openapi('Profile');

/** Only the columns the database lets a user update (column grants); anything else is a 400. */
const ProfileUpdate = z
  .object({
    display_name: z.string().trim().min(1).max(100).nullable(),
    notification_email: z.email().max(320).nullable(),
    preferred_language: z.enum(['en', 'no']).nullable(),
    gender: z.string().trim().min(1).max(50).nullable(),
    birth_year: z.number().int().min(1900).max(new Date().getUTCFullYear()).nullable(),
    ai_personalization_enabled: z.boolean(),
  })
  .partial()
  .strict()
  .refine((v) => Object.keys(v).length > 0, { message: 'at least one field is required' })
  .openapi('ProfileUpdate');

const DeleteAccount = z.object({ confirm: z.literal(true) }).strict().openapi('DeleteAccountRequest');

const getRoute = createRoute({
  method: 'get',
  path: '/v1/profile',
  tags: ['profile'],
  summary: "The caller's profile and whether its access is active",
  security: userSecurity,
  responses: { 200: { description: 'Profile', ...json(okSchema(Profile)) }, ...errors([401, 'AUTH_*'], [404, 'NOT_FOUND']) },
});

const patchRoute = createRoute({
  method: 'patch',
  path: '/v1/profile',
  tags: ['profile'],
  summary: 'Update the user-changeable profile fields (tier and status never)',
  security: userSecurity,
  request: { body: { required: true, ...json(ProfileUpdate) } },
  responses: {
    200: { description: 'Updated profile', ...json(okSchema(Profile)) },
    ...errors([400, 'VALIDATION_FAILED'], [401, 'AUTH_*'], [404, 'NOT_FOUND']),
  },
});

const deleteRoute = createRoute({
  method: 'delete',
  path: '/v1/profile',
  tags: ['profile'],
  summary: 'Delete the account: soft-delete in the identity backend, then erase the profile and its journal',
  security: userSecurity,
  request: { body: { required: true, ...json(DeleteAccount) } },
  responses: {
    200: { description: 'Deleted', ...json(okSchema(z.object({ deleted: z.literal(true) }))) },
    ...errors([400, 'VALIDATION_FAILED'], [401, 'AUTH_*'], [404, 'NOT_FOUND'], [503, 'IDENTITY_UNAVAILABLE']),
  },
});

interface ProfileRow {
  id: string;
  email: string;
  notification_email: string | null;
  display_name: string | null;
  auth_provider: string | null;
  subscription_tier: 'trial' | 'foundation' | 'mastery' | 'partner';
  subscription_status: string;
  subscription_end_date: Date | null;
  subscription_cancelled_at: Date | null;
  billing_period: string | null;
  trial_started_at: Date | null;
  trial_ends_at: Date | null;
  trial_converted: boolean;
  is_partner: boolean;
  partner_source: string | null;
  preferred_language: string | null;
  gender: string | null;
  birth_year: number | null;
  ai_personalization_enabled: boolean;
  created_at: Date;
  updated_at: Date;
}

function toProfile(p: ProfileRow) {
  return {
    ...p,
    subscription_end_date: iso(p.subscription_end_date),
    subscription_cancelled_at: iso(p.subscription_cancelled_at),
    trial_started_at: iso(p.trial_started_at),
    trial_ends_at: iso(p.trial_ends_at),
    created_at: isoRequired(p.created_at),
    updated_at: isoRequired(p.updated_at),
    access: {
      active: isSubscriptionActive(p.subscription_tier, p.subscription_status, p.trial_ends_at, p.subscription_end_date, {
        isPartner: p.is_partner,
      }),
    },
  };
}

export function registerProfile(app: OpenAPIHono<AppEnv>, deps: { sql: Sql; identity: Identity }): void {
  const { sql, identity } = deps;

  app.openapi(getRoute, async (c) => {
    const user = c.var.user;
    const [p] = await withUser(sql, user, (tx) => tx<ProfileRow[]>`select * from public.profiles where id = ${user.sub}`);
    if (!p) throw notFound();
    return c.json(ok(toProfile(p)), 200);
  });

  app.openapi(patchRoute, async (c) => {
    const user = c.var.user;
    const changes = c.req.valid('json');
    const [p] = await withUser(sql, user, (tx) => tx<ProfileRow[]>`
      update public.profiles set ${tx(changes as Record<string, string | number | boolean | null>, Object.keys(changes))}
      where id = ${user.sub} returning *`);
    if (!p) throw notFound();
    return c.json(ok(toProfile(p)), 200);
  });

  app.openapi(deleteRoute, async (c) => {
    const user = c.var.user;
    const [exists] = await withUser(sql, user, (tx) => tx`select 1 from public.profiles where id = ${user.sub}`);
    if (!exists) throw notFound();
    // Identity first: when it fails nothing is erased and the user can try again.
    await identity.softDeleteUser(user.sub);
    await withService(sql, (tx) => tx`delete from public.profiles where id = ${user.sub}`);
    c.var.log.info('account deleted by user', { user_id: user.sub });
    return c.json(ok({ deleted: true as const }), 200);
  });
}
