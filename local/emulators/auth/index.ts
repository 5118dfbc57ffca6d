// Supabase Auth (GoTrue) emulator: the HTTP API that supabase-js calls for native sign-in with an
// ID token, refresh-token rotation, getUser, logout and the admin calls we use. State lives in the
// project database (auth.users, auth.identities, auth.sessions, auth.refresh_tokens), so the
// profile trigger on auth.users fires exactly as on Supabase.
import { createHash, randomBytes, randomInt } from 'node:crypto';
import { serve } from '@hono/node-server';
import type postgres from 'postgres';
import { Hono, type Context } from 'hono';
import {
  SignJWT,
  createLocalJWKSet,
  createRemoteJWKSet,
  exportJWK,
  generateKeyPair,
  jwtVerify,
  type CryptoKey,
  type JWK,
  type JWTPayload,
} from 'jose';
import { createSql, type Sql, type Tx } from '../../../shared/db/client.ts';
import {
  IDP_ISSUERS,
  IDP_PROVIDERS,
  createIdentityProviders,
  defaultSub,
  sha256Hex,
  type IdentityProviders,
  type IdpProvider,
} from './idp.ts';
import { listen } from './listen.ts';
import {
  createSession,
  deleteSessions,
  ensureSchema,
  findUser,
  identitiesOf,
  newRefreshToken,
  type UserRow,
} from './store.ts';

export interface AuthEmulatorOptions {
  port?: number;
  databaseUrl?: string;
  sql?: Sql;
  /** JWKS URLs of the providers. Without them the emulator hosts its own providers (see idp.ts). */
  jwks?: Partial<Record<IdpProvider, string>>;
  /** Expected `aud` of ID tokens: the app bundle id (Apple) and the client id (Google). */
  audiences?: Partial<Record<IdpProvider, string>>;
  /** Providers used by the dev route POST /auth/v1/_dev/id-token; built in when jwks is not given. */
  idp?: IdentityProviders;
  /** `iss` of access tokens; default `<url>/auth/v1`. */
  issuerUrl?: string;
  anonKey: string;
  serviceRoleKey: string;
  accessTokenTtl?: number;
}

export interface AuthEmulatorFaults {
  /** Every request answers 503, as an unreachable identity backend behind a gateway would. */
  down: boolean;
}

export interface AuthEmulator {
  url: string;
  jwksUrl: string;
  issuer: string;
  faults: AuthEmulatorFaults;
  /** Mints provider ID tokens (only when the emulator hosts its own providers or got `idp`). */
  idp: IdentityProviders | null;
  close(): Promise<void>;
}

export const DEFAULT_AUDIENCES: Record<IdpProvider, string> = {
  apple: 'app.journal.ios',
  google: 'app.journal.android',
};

const ZERO_UUID = '00000000-0000-0000-0000-000000000000';

class AuthFail extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 422,
    readonly errorCode: string,
    msg: string,
  ) {
    super(msg);
  }
}

/** GoTrue's error body: `{code, message}` for API version 2024-01-01 callers, else the legacy shape. */
function errorResponse(c: Context, err: AuthFail) {
  const version = c.req.header('x-supabase-api-version');
  if (version && version >= '2024-01-01') {
    c.header('X-Supabase-Api-Version', '2024-01-01');
    return c.json({ code: err.errorCode, error_code: err.errorCode, message: err.message }, err.status);
  }
  return c.json({ code: err.status, error_code: err.errorCode, msg: err.message }, err.status);
}

/** Go's time.ParseDuration subset GoTrue accepts for ban_duration ("24h", "1h30m", "none"). */
export function parseGoDuration(text: string): number | null {
  const units: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1e3, m: 6e4, h: 3.6e6 };
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let consumed = 0;
  for (const m of text.matchAll(re)) {
    total += Number(m[1]) * units[m[2]!]!;
    consumed += m[0].length;
  }
  return consumed === text.length && consumed > 0 ? total : null;
}

export async function startAuthEmulator(opts: AuthEmulatorOptions): Promise<AuthEmulator> {
  const ownSql = !opts.sql;
  const sql = opts.sql ?? createSql(requireUrl(opts.databaseUrl), { max: 4 });
  await ensureSchema(sql);

  const audiences = { ...DEFAULT_AUDIENCES, ...opts.audiences };
  const idp = opts.idp ?? (opts.jwks ? null : await createIdentityProviders(audiences));
  const ttl = opts.accessTokenTtl ?? 3600;
  const faults: AuthEmulatorFaults = { down: false };

  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const signingJwk: JWK = { ...(await exportJWK(publicKey)), kid: `emulator-${randomBytes(4).toString('hex')}`, alg: 'ES256', use: 'sig', key_ops: ['verify'] };
  const ownJwks = createLocalJWKSet({ keys: [signingJwk] });

  let baseUrl = '';
  const issuer = () => opts.issuerUrl ?? `${baseUrl}/auth/v1`;
  const providerJwks = new Map<IdpProvider, ReturnType<typeof createRemoteJWKSet> | ReturnType<typeof createLocalJWKSet>>();
  const jwksFor = (provider: IdpProvider) => {
    let set = providerJwks.get(provider);
    if (!set) {
      const url = opts.jwks?.[provider];
      if (url) set = createRemoteJWKSet(new URL(url));
      else if (idp) set = createLocalJWKSet(idp.jwks(provider));
      else throw new AuthFail(400, 'provider_disabled', `Unsupported provider: ${provider} is disabled`);
      providerJwks.set(provider, set);
    }
    return set;
  };

  const app = new Hono().basePath('/auth/v1');

  app.use('*', async (c, next) => {
    if (faults.down) return c.json({ message: 'An invalid response was received from the upstream server' }, 503);
    const path = c.req.path;
    if (path.endsWith('/.well-known/jwks.json') || path.endsWith('/health') || path.includes('/_dev/idp/')) return next();
    const key = c.req.header('apikey');
    if (!key) return c.json({ message: 'No API key found in request' }, 401);
    if (key !== opts.anonKey && key !== opts.serviceRoleKey) return c.json({ message: 'Invalid API key' }, 401);
    await next();
  });

  app.onError((err, c) => {
    if (err instanceof AuthFail) return errorResponse(c, err);
    console.error('[auth-emulator]', err);
    return c.json({ code: 500, error_code: 'unexpected_failure', msg: 'Unexpected failure' }, 500);
  });

  app.get('/health', (c) => c.json({ name: 'GoTrue', description: 'auth emulator' }));
  app.get('/.well-known/jwks.json', (c) => c.json({ keys: [signingJwk] }));
  app.get('/_dev/idp/:provider/jwks.json', (c) => {
    const provider = c.req.param('provider') as IdpProvider;
    if (!idp || !IDP_PROVIDERS.includes(provider)) return c.notFound();
    return c.json(idp.jwks(provider));
  });

  // --- tokens ---------------------------------------------------------------------------------

  async function signAccessToken(user: UserRow, sessionId: string, signedInAt: number) {
    const now = Math.floor(Date.now() / 1000);
    const exp = now + ttl;
    const token = await new SignJWT({
      email: user.email ?? '',
      phone: user.phone ?? '',
      app_metadata: user.raw_app_meta_data ?? {},
      user_metadata: user.raw_user_meta_data ?? {},
      role: 'authenticated',
      aal: 'aal1',
      amr: [{ method: 'oauth', timestamp: signedInAt }],
      session_id: sessionId,
      is_anonymous: user.is_anonymous,
    })
      .setProtectedHeader({ alg: 'ES256', kid: signingJwk.kid!, typ: 'JWT' })
      .setIssuer(issuer())
      .setAudience('authenticated')
      .setSubject(user.id)
      .setIssuedAt(now)
      .setExpirationTime(exp)
      .sign(privateKey as CryptoKey);
    return { token, exp };
  }

  async function userJson(db: Tx | Sql, user: UserRow) {
    const identities = await identitiesOf(db, user.id);
    const iso = (d: Date | null) => (d ? d.toISOString() : undefined);
    return {
      id: user.id,
      aud: user.aud ?? 'authenticated',
      role: user.role ?? 'authenticated',
      email: user.email ?? '',
      email_confirmed_at: iso(user.email_confirmed_at),
      phone: user.phone ?? '',
      confirmed_at: iso(user.email_confirmed_at),
      last_sign_in_at: iso(user.last_sign_in_at),
      recovery_sent_at: iso(user.recovery_sent_at),
      app_metadata: user.raw_app_meta_data ?? {},
      user_metadata: user.raw_user_meta_data ?? {},
      identities: identities.map((i) => ({
        identity_id: i.id,
        id: i.provider_id,
        user_id: i.user_id,
        identity_data: i.identity_data,
        provider: i.provider,
        last_sign_in_at: iso(i.last_sign_in_at),
        created_at: iso(i.created_at),
        updated_at: iso(i.updated_at),
        email: i.email ?? undefined,
      })),
      created_at: user.created_at.toISOString(),
      updated_at: user.updated_at.toISOString(),
      banned_until: iso(user.banned_until),
      is_anonymous: user.is_anonymous,
    };
  }

  async function sessionJson(tx: Tx, user: UserRow, sessionId: string, refreshToken: string, signedInAt: number) {
    const { token, exp } = await signAccessToken(user, sessionId, signedInAt);
    return {
      access_token: token,
      token_type: 'bearer',
      expires_in: ttl,
      expires_at: exp,
      refresh_token: refreshToken,
      user: await userJson(tx, user),
    };
  }

  const isBanned = (u: UserRow) => u.banned_until !== null && u.banned_until.getTime() > Date.now();

  async function verifyIdToken(provider: IdpProvider, idToken: string, nonce: string | undefined) {
    let claims: JWTPayload;
    try {
      ({ payload: claims } = await jwtVerify(idToken, jwksFor(provider), {
        issuer: IDP_ISSUERS[provider],
        audience: audiences[provider],
        algorithms: ['RS256', 'ES256'],
      }));
    } catch (err) {
      if (err instanceof AuthFail) throw err;
      const reason = err instanceof Error ? err.message : 'invalid';
      throw new AuthFail(400, 'bad_jwt', `Bad ID token: ${reason}`);
    }
    const tokenNonce = typeof claims.nonce === 'string' ? claims.nonce : undefined;
    if (tokenNonce !== undefined || nonce !== undefined) {
      if (tokenNonce === undefined || nonce === undefined) {
        throw new AuthFail(400, 'validation_failed', 'Passed nonce and nonce in id_token should either both exist or not.');
      }
      if (sha256Hex(nonce) !== tokenNonce) throw new AuthFail(400, 'validation_failed', 'Nonces mismatch');
    }
    if (!claims.sub) throw new AuthFail(400, 'bad_jwt', 'Bad ID token: missing sub');
    return claims;
  }

  async function signInWithIdToken(provider: IdpProvider, claims: JWTPayload) {
    const sub = claims.sub!;
    const email = typeof claims.email === 'string' ? claims.email.toLowerCase() : null;
    const identityData = { sub, iss: claims.iss, email, email_verified: claims.email_verified === true, provider_id: sub };
    const signedInAt = Math.floor(Date.now() / 1000);
    return sql.begin(async (tx) => {
      const [identity] = await tx<{ user_id: string }[]>`
        select user_id from auth.identities where provider = ${provider} and provider_id = ${sub} for update`;
      let userId = identity?.user_id;
      if (userId) {
        await tx`update auth.identities set identity_data = ${tx.json(identityData)}, last_sign_in_at = now(), updated_at = now()
                 where provider = ${provider} and provider_id = ${sub}`;
      } else {
        // Same verified email as an existing account: link the identity to it (Supabase's automatic linking).
        const [linked] = email && claims.email_verified === true
          ? await tx<{ id: string }[]>`select id from auth.users where lower(email) = ${email} and deleted_at is null order by created_at limit 1`
          : [];
        userId = linked?.id;
        if (userId) {
          await tx`update auth.users set raw_app_meta_data = jsonb_set(coalesce(raw_app_meta_data, '{}'), '{providers}',
                     (select coalesce(jsonb_agg(distinct p), '[]') from (select jsonb_array_elements_text(coalesce(raw_app_meta_data->'providers', '[]')) p
                      union select ${provider}) s))
                   where id = ${userId}`;
        } else {
          const [created] = await tx<{ id: string }[]>`
            insert into auth.users (instance_id, aud, role, email, email_confirmed_at, raw_app_meta_data, raw_user_meta_data)
            values (${ZERO_UUID}, 'authenticated', 'authenticated', ${email}, ${claims.email_verified === true ? new Date() : null},
                    ${tx.json({ provider, providers: [provider] })}, ${tx.json(identityData)})
            returning id`;
          userId = created!.id;
        }
        await tx`insert into auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at)
                 values (${sub}, ${userId}, ${tx.json(identityData)}, ${provider}, now())`;
      }
      const user = await findUser(tx, userId);
      if (!user || user.deleted_at) throw new AuthFail(404, 'user_not_found', 'User not found');
      if (isBanned(user)) throw new AuthFail(400, 'user_banned', 'User is banned');
      await tx`update auth.users set last_sign_in_at = now(), updated_at = now() where id = ${userId}`;
      const fresh = (await findUser(tx, userId))!;
      const { sessionId, refreshToken } = await createSession(tx, userId);
      return sessionJson(tx, fresh, sessionId, refreshToken, signedInAt);
    });
  }

  async function refresh(refreshToken: string) {
    type Row = { id: string; token: string; revoked: boolean; session_id: string; user_id: string };
    const outcome = await sql.begin(async (tx) => {
      const [row] = await tx<Row[]>`
        select id, token, revoked, session_id, user_id from auth.refresh_tokens where token = ${refreshToken} for update`;
      if (!row) return { fail: new AuthFail(400, 'refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found') };
      if (row.revoked) {
        // Reuse of a rotated token: someone else may hold the family, so the whole session dies.
        await tx`update auth.refresh_tokens set revoked = true, updated_at = now() where session_id = ${row.session_id}`;
        return { fail: new AuthFail(400, 'refresh_token_already_used', 'Invalid Refresh Token: Already Used') };
      }
      const user = await findUser(tx, row.user_id);
      if (!user || user.deleted_at) return { fail: new AuthFail(400, 'user_not_found', 'Invalid Refresh Token: User Not Found') };
      if (isBanned(user)) return { fail: new AuthFail(400, 'user_banned', 'Invalid Refresh Token: User Banned') };
      const child = newRefreshToken();
      await tx`update auth.refresh_tokens set revoked = true, updated_at = now() where id = ${row.id}`;
      await tx`insert into auth.refresh_tokens (token, user_id, revoked, parent, session_id)
               values (${child}, ${row.user_id}, false, ${row.token}, ${row.session_id})`;
      await tx`update auth.sessions set refreshed_at = now(), updated_at = now() where id = ${row.session_id}`;
      const [session] = await tx<{ created_at: Date }[]>`select created_at from auth.sessions where id = ${row.session_id}`;
      const signedInAt = Math.floor((session?.created_at.getTime() ?? Date.now()) / 1000);
      return { session: await sessionJson(tx, user, row.session_id, child, signedInAt) };
    });
    // The family revocation commits before the error is reported.
    if ('fail' in outcome) throw outcome.fail;
    return outcome.session;
  }

  /** The caller's access token, verified against our own key, with its session still alive. */
  async function requireUserToken(c: Context) {
    const bearer = c.req.header('authorization')?.replace(/^Bearer\s+/i, '');
    if (!bearer) throw new AuthFail(401, 'no_authorization', 'This endpoint requires a valid Bearer token');
    let claims: JWTPayload;
    try {
      ({ payload: claims } = await jwtVerify(bearer, ownJwks, { issuer: issuer(), audience: 'authenticated', algorithms: ['ES256'] }));
    } catch (err) {
      throw new AuthFail(403, 'bad_jwt', `invalid JWT: unable to parse or verify signature, ${err instanceof Error ? err.message : ''}`);
    }
    const sessionId = typeof claims.session_id === 'string' ? claims.session_id : null;
    if (sessionId) {
      const [alive] = await sql`select 1 from auth.sessions where id = ${sessionId}`;
      if (!alive) throw new AuthFail(403, 'session_not_found', 'Session from session_id claim in JWT does not exist');
    }
    const user = await findUser(sql, claims.sub!);
    if (!user || user.deleted_at) throw new AuthFail(403, 'user_not_found', 'User from sub claim in JWT does not exist');
    return { user, sessionId };
  }

  function requireServiceRole(c: Context) {
    const bearer = c.req.header('authorization')?.replace(/^Bearer\s+/i, '');
    if (bearer !== opts.serviceRoleKey && c.req.header('apikey') !== opts.serviceRoleKey) {
      throw new AuthFail(403, 'not_admin', 'User not allowed');
    }
  }

  async function readBody(c: Context): Promise<Record<string, unknown>> {
    try {
      const body = await c.req.json();
      return body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
    } catch {
      throw new AuthFail(400, 'bad_json', 'Could not parse request body as JSON');
    }
  }

  async function adminUser(id: string) {
    if (!/^[0-9a-f-]{36}$/i.test(id)) throw new AuthFail(404, 'user_not_found', 'User not found');
    const user = await findUser(sql, id);
    if (!user) throw new AuthFail(404, 'user_not_found', 'User not found');
    return user;
  }

  // --- routes ---------------------------------------------------------------------------------

  app.post('/token', async (c) => {
    const grant = c.req.query('grant_type');
    const body = await readBody(c);
    if (grant === 'id_token') {
      const provider = body.provider as IdpProvider;
      if (!IDP_PROVIDERS.includes(provider)) throw new AuthFail(400, 'validation_failed', `Custom OIDC provider "${String(body.provider)}" not allowed`);
      if (typeof body.id_token !== 'string' || !body.id_token) throw new AuthFail(400, 'validation_failed', 'id_token required');
      const nonce = typeof body.nonce === 'string' && body.nonce ? body.nonce : undefined;
      const claims = await verifyIdToken(provider, body.id_token, nonce);
      return c.json(await signInWithIdToken(provider, claims));
    }
    if (grant === 'refresh_token') {
      if (typeof body.refresh_token !== 'string' || !body.refresh_token) throw new AuthFail(400, 'validation_failed', 'refresh_token required');
      return c.json(await refresh(body.refresh_token));
    }
    throw new AuthFail(400, 'validation_failed', 'unsupported_grant_type');
  });

  app.get('/user', async (c) => {
    const { user } = await requireUserToken(c);
    return c.json(await userJson(sql, user));
  });

  app.post('/logout', async (c) => {
    const scope = c.req.query('scope') ?? 'global';
    const { user, sessionId } = await requireUserToken(c);
    if (scope === 'local') {
      if (sessionId) await sql`delete from auth.sessions where id = ${sessionId}`;
    } else if (scope === 'others') {
      await deleteSessions(sql, user.id, sessionId ?? undefined);
    } else {
      await deleteSessions(sql, user.id);
    }
    return c.body(null, 204);
  });

  app.get('/admin/users/:id', async (c) => {
    requireServiceRole(c);
    return c.json(await userJson(sql, await adminUser(c.req.param('id'))));
  });

  app.put('/admin/users/:id', async (c) => {
    requireServiceRole(c);
    const user = await adminUser(c.req.param('id'));
    const body = await readBody(c);
    if (typeof body.ban_duration === 'string') {
      if (body.ban_duration === 'none') {
        await sql`update auth.users set banned_until = null, updated_at = now() where id = ${user.id}`;
      } else {
        const ms = parseGoDuration(body.ban_duration);
        if (ms === null) throw new AuthFail(400, 'validation_failed', 'invalid format for ban duration');
        await sql`update auth.users set banned_until = ${new Date(Date.now() + ms)}, updated_at = now() where id = ${user.id}`;
      }
    }
    if (typeof body.email === 'string') await sql`update auth.users set email = ${body.email.toLowerCase()}, updated_at = now() where id = ${user.id}`;
    if (body.user_metadata && typeof body.user_metadata === 'object') {
      await sql`update auth.users set raw_user_meta_data = coalesce(raw_user_meta_data, '{}') || ${sql.json(body.user_metadata as postgres.JSONValue)}, updated_at = now() where id = ${user.id}`;
    }
    if (body.app_metadata && typeof body.app_metadata === 'object') {
      await sql`update auth.users set raw_app_meta_data = coalesce(raw_app_meta_data, '{}') || ${sql.json(body.app_metadata as postgres.JSONValue)}, updated_at = now() where id = ${user.id}`;
    }
    return c.json(await userJson(sql, (await findUser(sql, user.id))!));
  });

  app.delete('/admin/users/:id', async (c) => {
    requireServiceRole(c);
    const user = await adminUser(c.req.param('id'));
    const body = await readBody(c).catch(() => ({}) as Record<string, unknown>);
    if (body.should_soft_delete === true) {
      // As GoTrue: the row stays (so foreign keys hold), personal data and identities are obfuscated,
      // sessions end, and a later sign-in with the same provider account creates a new user.
      await sql.begin(async (tx) => {
        await tx`update auth.users set deleted_at = now(), email = null, phone = null, raw_user_meta_data = '{}',
                   raw_app_meta_data = '{}', updated_at = now() where id = ${user.id}`;
        await tx`update auth.identities set provider_id = 'deleted:' || id::text, identity_data = '{}', updated_at = now()
                 where user_id = ${user.id}`;
        await deleteSessions(tx, user.id);
      });
    } else {
      await sql`delete from auth.users where id = ${user.id}`;
    }
    return c.json({});
  });

  app.post('/admin/generate_link', async (c) => {
    requireServiceRole(c);
    const body = await readBody(c);
    const type = body.type;
    if (type !== 'recovery' && type !== 'magiclink') throw new AuthFail(400, 'validation_failed', 'Invalid email action link type requested');
    const email = typeof body.email === 'string' ? body.email.toLowerCase() : '';
    const [user] = await sql<UserRow[]>`select * from auth.users where lower(email) = ${email} and deleted_at is null limit 1`;
    if (!user) throw new AuthFail(404, 'user_not_found', 'User with this email not found');
    const otp = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const hashed = createHash('sha224').update(email + otp).digest('hex');
    await sql`update auth.users set recovery_token = ${hashed}, recovery_sent_at = now() where id = ${user.id}`;
    const redirectTo = c.req.query('redirect_to') ?? (typeof body.redirect_to === 'string' ? body.redirect_to : baseUrl);
    const actionLink = `${baseUrl}/auth/v1/verify?token=${hashed}&type=${type}&redirect_to=${encodeURIComponent(redirectTo)}`;
    return c.json({
      ...(await userJson(sql, (await findUser(sql, user.id))!)),
      action_link: actionLink,
      email_otp: otp,
      hashed_token: hashed,
      redirect_to: redirectTo,
      verification_type: type,
    });
  });

  // Dev only (the emulator is never deployed): an ID token from the built-in providers.
  app.post('/_dev/id-token', async (c) => {
    if (!idp) throw new AuthFail(404, 'not_found', 'No built-in identity provider');
    const body = await readBody(c);
    const provider = body.provider as IdpProvider;
    if (!IDP_PROVIDERS.includes(provider) || typeof body.email !== 'string') {
      throw new AuthFail(400, 'validation_failed', 'provider (apple|google) and email are required');
    }
    const sub = typeof body.sub === 'string' ? body.sub : defaultSub(provider, body.email);
    const nonce = typeof body.nonce === 'string' ? body.nonce : undefined;
    const id_token = await idp.mintIdToken({ provider, email: body.email, sub, nonce });
    return c.json({ id_token, sub, provider });
  });

  const server = await listen(serve, app.fetch, opts.port ?? 0);
  baseUrl = server.url;
  return {
    url: server.url,
    jwksUrl: `${server.url}/auth/v1/.well-known/jwks.json`,
    issuer: issuer(),
    faults,
    idp,
    async close() {
      await server.close();
      if (ownSql) await sql.end({ timeout: 5 });
    },
  };
}

function requireUrl(url: string | undefined): string {
  if (!url) throw new Error('startAuthEmulator needs databaseUrl or sql');
  return url;
}
