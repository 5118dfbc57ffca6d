// Native sign-in (Apple/Google ID token exchange) and refresh. No JWT: these routes issue it.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../../shared/http/context.ts';
import type { Identity } from '../../../shared/identity/client.ts';
import { ErrorEnvelope, ok, okSchema } from '../../../shared/http/responses.ts';

const NativeSignInBody = z
  .object({
    provider: z.enum(['apple', 'google']),
    id_token: z.string().min(1).max(8192),
    nonce: z.string().min(1).max(512).optional(),
  })
  .openapi('NativeSignInRequest');

const NativeSignInData = z
  .object({
    access_token: z.string(),
    refresh_token: z.string(),
    expires_in: z.number(),
    user: z.object({ id: z.uuid(), email: z.string(), is_new_user: z.boolean() }),
  })
  .openapi('NativeSignIn');

const RefreshBody = z.object({ refresh_token: z.string().min(1).max(1024) }).openapi('RefreshRequest');
const RefreshData = z
  .object({ access_token: z.string(), refresh_token: z.string(), expires_in: z.number() })
  .openapi('TokenRefresh');

const json = <T extends z.ZodTypeAny>(schema: T) => ({ content: { 'application/json': { schema } } });
const errors = (...codes: Array<[number, string]>) =>
  Object.fromEntries(codes.map(([status, description]) => [status, { description, ...json(ErrorEnvelope) }]));

const nativeRoute = createRoute({
  method: 'post',
  path: '/v1/auth/native',
  tags: ['auth'],
  summary: 'Exchange an Apple or Google ID token for an access token and a refresh token',
  security: [{ apiKey: [] }],
  request: { body: { required: true, ...json(NativeSignInBody) } },
  responses: {
    200: { description: 'Signed in', ...json(okSchema(NativeSignInData)) },
    ...errors(
      [400, 'VALIDATION_FAILED'],
      [401, 'AUTH_PROVIDER_TOKEN_INVALID'],
      [403, 'ACCOUNT_SUSPENDED'],
      [503, 'IDENTITY_UNAVAILABLE'],
    ),
  },
});

const refreshRoute = createRoute({
  method: 'post',
  path: '/v1/auth/refresh',
  tags: ['auth'],
  summary: 'Rotate the refresh token and issue a new access token',
  security: [{ apiKey: [] }],
  request: { body: { required: true, ...json(RefreshBody) } },
  responses: {
    200: { description: 'New tokens', ...json(okSchema(RefreshData)) },
    ...errors(
      [400, 'VALIDATION_FAILED'],
      [401, 'REFRESH_TOKEN_INVALID'],
      [403, 'ACCOUNT_SUSPENDED'],
      [503, 'IDENTITY_UNAVAILABLE'],
    ),
  },
});

/** The email the app sees: like the profile trigger, `<id>@users.invalid` when the provider gave none. */
export const signInEmail = (user: { id: string; email?: string | null }): string =>
  user.email ? user.email : `${user.id}@users.invalid`;

export function registerAuth(app: OpenAPIHono<AppEnv>, identity: Identity): void {
  app.openapi(nativeRoute, async (c) => {
    const { provider, id_token, nonce } = c.req.valid('json');
    const { session, user, isNewUser } = await identity.signInWithIdToken(provider, id_token, nonce);
    c.set('log', c.var.log.child({ user_id: user.id, provider, new_user: isNewUser }));
    return c.json(
      ok({
        access_token: session.access_token,
        refresh_token: session.refresh_token,
        expires_in: session.expires_in,
        user: { id: user.id, email: signInEmail(user), is_new_user: isNewUser },
      }),
      200,
    );
  });

  app.openapi(refreshRoute, async (c) => {
    const { refresh_token } = c.req.valid('json');
    const session = await identity.refresh(refresh_token);
    return c.json(
      ok({ access_token: session.access_token, refresh_token: session.refresh_token, expires_in: session.expires_in }),
      200,
    );
  });
}
