// Access-token (Supabase JWT) verification with jose. Asymmetric tokens (ES256/RS256) are checked
// against the identity backend's JWKS; HS256 only when the legacy SUPABASE_JWT_SECRET is configured.
// The algorithm allowed is decided from our configuration, never from the token alone.
import type { MiddlewareHandler } from 'hono';
import { createRemoteJWKSet, decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from 'jose';
import type { Config } from '../config/env.ts';
import type { Sql } from '../db/client.ts';
import type { AppEnv, UserClaims } from './context.ts';
import { devTokenUser } from './dev-token.ts';
import { AppError } from './errors.ts';

const ASYMMETRIC = ['ES256', 'RS256'];
const AUDIENCE = 'authenticated';

export interface JwtVerifierOptions {
  jwksUrl: string;
  /** Legacy shared secret; enables HS256 in addition to the JWKS. */
  secret?: string;
  issuer: string;
}

export type JwtVerifier = (token: string) => Promise<UserClaims>;

export function jwtOptionsFromConfig(
  config: Pick<Config, 'SUPABASE_URL' | 'SUPABASE_JWKS_URL' | 'SUPABASE_JWT_SECRET' | 'SUPABASE_JWT_ISSUER'>,
): JwtVerifierOptions {
  const base = config.SUPABASE_URL.replace(/\/+$/, '');
  return {
    jwksUrl: config.SUPABASE_JWKS_URL ?? `${base}/auth/v1/.well-known/jwks.json`,
    secret: config.SUPABASE_JWT_SECRET,
    issuer: config.SUPABASE_JWT_ISSUER ?? `${base}/auth/v1`,
  };
}

export function createJwtVerifier(opts: JwtVerifierOptions): JwtVerifier {
  const jwks = createRemoteJWKSet(new URL(opts.jwksUrl));
  const secret = opts.secret ? new TextEncoder().encode(opts.secret) : null;
  const claimsChecked = { issuer: opts.issuer, audience: AUDIENCE, requiredClaims: ['exp', 'sub'] };

  return async (token) => {
    let alg: string | undefined;
    try {
      alg = decodeProtectedHeader(token).alg;
    } catch {
      throw new AppError(401, 'AUTH_INVALID');
    }
    let payload: JWTPayload;
    try {
      if (alg && ASYMMETRIC.includes(alg)) {
        ({ payload } = await jwtVerify(token, jwks, { ...claimsChecked, algorithms: ASYMMETRIC }));
      } else if (alg === 'HS256' && secret) {
        ({ payload } = await jwtVerify(token, secret, { ...claimsChecked, algorithms: ['HS256'] }));
      } else {
        // "none", HS256 without a configured secret (key confusion), or anything else.
        throw new AppError(401, 'AUTH_ALG_NOT_ALLOWED');
      }
    } catch (err) {
      throw jwtError(err);
    }
    if (payload.role !== 'authenticated' || typeof payload.sub !== 'string') throw new AppError(401, 'AUTH_INVALID');
    return payload as UserClaims;
  };
}

function jwtError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof errors.JWTExpired) return new AppError(401, 'AUTH_EXPIRED');
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === 'aud') return new AppError(401, 'AUTH_AUDIENCE');
    if (err.claim === 'iss') return new AppError(401, 'AUTH_ISSUER');
    return new AppError(401, 'AUTH_INVALID');
  }
  if (err instanceof errors.JOSEAlgNotAllowed) return new AppError(401, 'AUTH_ALG_NOT_ALLOWED');
  // The key set could not be fetched: the identity backend is down, not the caller's token.
  if (err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid || !(err instanceof errors.JOSEError)) {
    return new AppError(503, 'IDENTITY_UNAVAILABLE');
  }
  return new AppError(401, 'AUTH_INVALID');
}

/**
 * Authenticates an /api/v1 request: the dev token where configured, else the bearer JWT.
 * Sets c.var.user to the verified claims.
 */
export function requireUser(deps: {
  config: Pick<Config, 'DEV_API_TOKEN'>;
  sql: Sql;
  verify: JwtVerifier;
}): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const dev = await devTokenUser(c, deps.config, deps.sql);
    if (dev) {
      c.set('user', dev);
      return next();
    }
    const match = c.req.header('authorization')?.match(/^Bearer\s+(\S+)\s*$/i);
    if (!match) throw new AppError(401, 'AUTH_MISSING');
    c.set('user', await deps.verify(match[1]!));
    await next();
  };
}
