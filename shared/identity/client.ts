// Supabase Auth calls through supabase-js (the local auth emulator speaks the same HTTP API).
// Every failure becomes an AppError with a stable code; an unreachable identity backend is a 503.
import { AuthAdminApi, AuthClient, isAuthError, type AuthError, type Session, type User } from '@supabase/supabase-js';
import { decodeJwt } from 'jose';
import type { Sql } from '../db/client.ts';
import { withService } from '../db/client.ts';
import { AppError } from '../http/errors.ts';

export type NativeProvider = 'apple' | 'google';

export interface IdentityOptions {
  url: string;
  anonKey: string;
  /** Service-role key (IDENTITY_SECRET_KEY), for the admin calls only. */
  secretKey: string;
  /** Used to tell a first sign-in from a returning one (see isNewUser below). */
  sql: Sql;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export interface SignInResult {
  session: Session;
  user: User;
  /** True when no account existed for this provider account before this sign-in. */
  isNewUser: boolean;
}

export interface Identity {
  signInWithIdToken(provider: NativeProvider, idToken: string, nonce?: string): Promise<SignInResult>;
  refresh(refreshToken: string): Promise<Session>;
  getUser(accessToken: string): Promise<User>;
  /** Go duration ("24h", "876000h") or "none" to lift the ban. */
  banUser(userId: string, banDuration: string): Promise<User>;
  recoveryLink(email: string, redirectTo?: string): Promise<{ actionLink: string; user: User }>;
  /** Ends every session of the token's user (refresh tokens die; access tokens live until exp). */
  signOutAll(accessToken: string): Promise<void>;
  softDeleteUser(userId: string): Promise<void>;
}

const UNREACHABLE_STATUS = 599;

/**
 * supabase-js retries a refresh with backoff for up to 30 s on network errors and 5xx (made for
 * a browser's auto-refresh). On the server we want a quick 503 instead, so network failures,
 * timeouts and 5xx reach supabase-js as a non-retryable error response of our own.
 */
function failFastFetch(timeoutMs: number, base: typeof fetch): typeof fetch {
  const unreachable = (reason: string) =>
    new Response(JSON.stringify({ code: UNREACHABLE_STATUS, error_code: 'identity_unreachable', msg: reason }), {
      status: UNREACHABLE_STATUS,
      headers: { 'content-type': 'application/json' },
    });
  return async (input, init) => {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    try {
      const res = await base(input, { ...init, signal });
      if (res.status >= 500) {
        await res.body?.cancel();
        return unreachable(`identity backend answered ${res.status}`);
      }
      return res;
    } catch (err) {
      return unreachable(err instanceof Error ? err.name : 'fetch failed');
    }
  };
}

type Operation = 'id_token' | 'refresh' | 'user' | 'admin';

/** Maps a supabase-js failure to the API's codes; never a 500. */
export function identityError(err: unknown, op: Operation): AppError {
  if (err instanceof AppError) return err;
  if (!isAuthError(err)) return new AppError(503, 'IDENTITY_UNAVAILABLE');
  const e = err as AuthError;
  const status = e.status ?? 0;
  if (status === 0 || status >= 500) return new AppError(503, 'IDENTITY_UNAVAILABLE');
  if (e.code === 'user_banned') return new AppError(403, 'ACCOUNT_SUSPENDED');
  switch (op) {
    case 'id_token':
      return new AppError(401, 'AUTH_PROVIDER_TOKEN_INVALID');
    case 'refresh':
      return new AppError(401, 'REFRESH_TOKEN_INVALID');
    case 'user':
      return new AppError(401, 'AUTH_INVALID');
    case 'admin':
      if (e.code === 'user_not_found' || status === 404) return new AppError(404, 'NOT_FOUND');
      // A rejected admin call means our service key or request is wrong: the backend is unusable to us.
      return new AppError(503, 'IDENTITY_UNAVAILABLE', { identity_code: e.code ?? String(status) });
  }
}

export function createIdentity(opts: IdentityOptions): Identity {
  const fetchImpl = failFastFetch(opts.timeoutMs ?? 8000, opts.fetch ?? fetch);
  // supabase-js's auth client (what createClient(...).auth is), without the realtime client that
  // createClient also builds and that needs a WebSocket global Node 20 lacks.
  const authUrl = `${opts.url.replace(/\/+$/, '')}/auth/v1`;
  const headersFor = (key: string) => ({ apikey: key, Authorization: `Bearer ${key}` });
  // A fresh anon client per call: a client holds the session it signed in, and requests must not share one.
  const userClient = () => ({
    auth: new AuthClient({
      url: authUrl,
      headers: headersFor(opts.anonKey),
      fetch: fetchImpl,
      persistSession: false,
      autoRefreshToken: false,
      detectSessionInUrl: false,
    }),
  });
  const admin = new AuthAdminApi({ url: authUrl, headers: headersFor(opts.secretKey), fetch: fetchImpl });

  type Outcome = { data: unknown; error: AuthError | null };
  async function call<R extends Outcome>(op: Operation, run: () => Promise<R>): Promise<Extract<R, { error: null }>['data']> {
    let result: R;
    try {
      result = await run();
    } catch (err) {
      throw identityError(err, op);
    }
    if (result.error) throw identityError(result.error, op);
    return result.data as Extract<R, { error: null }>['data'];
  }

  async function identityExists(provider: NativeProvider, idToken: string): Promise<boolean> {
    let sub: string | undefined;
    try {
      sub = decodeJwt(idToken).sub;
    } catch {
      return false; // the identity backend rejects it right after
    }
    if (!sub) return false;
    const rows = await withService(opts.sql, (tx) =>
      tx`select 1 from auth.identities where provider = ${provider} and provider_id = ${sub}`);
    return rows.length > 0;
  }

  return {
    async signInWithIdToken(provider, idToken, nonce) {
      // Unverified sub, used only for this yes/no; the identity backend verifies the token next.
      const existed = await identityExists(provider, idToken);
      const data = await call('id_token', () =>
        userClient().auth.signInWithIdToken({ provider, token: idToken, ...(nonce ? { nonce } : {}) }));
      if (!data.session || !data.user) throw new AppError(503, 'IDENTITY_UNAVAILABLE');
      // Automatic linking by email attaches a new provider account to an existing user: not new.
      const isNewUser = !existed && (data.user.identities?.length ?? 1) <= 1;
      return { session: data.session, user: data.user, isNewUser };
    },

    async refresh(refreshToken) {
      const data = await call('refresh', () => userClient().auth.refreshSession({ refresh_token: refreshToken }));
      if (!data.session) throw new AppError(401, 'REFRESH_TOKEN_INVALID');
      return data.session;
    },

    async getUser(accessToken) {
      const data = await call('user', () => userClient().auth.getUser(accessToken));
      return data.user;
    },

    async banUser(userId, banDuration) {
      const data = await call('admin', () => admin.updateUserById(userId, { ban_duration: banDuration }));
      return data.user;
    },

    async recoveryLink(email, redirectTo) {
      const data = await call('admin', () =>
        admin.generateLink({ type: 'recovery', email, ...(redirectTo ? { options: { redirectTo } } : {}) }));
      return { actionLink: data.properties.action_link, user: data.user };
    },

    async signOutAll(accessToken) {
      await call('admin', () => admin.signOut(accessToken, 'global'));
    },

    async softDeleteUser(userId) {
      await call('admin', () => admin.deleteUser(userId, true));
    },
  };
}
