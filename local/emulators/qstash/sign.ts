// The Upstash-Signature QStash puts on every delivery: an HS256 JWT over the destination URL and
// the SHA-256 of the body, signed with the current (or, during rotation, the next) signing key.
import { createHash, randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';

export interface SignOptions {
  key: string;
  /** The destination URL; becomes `sub`. */
  url: string;
  body: string | Uint8Array;
  /** Milliseconds since the epoch; defaults to now (tests pass the past to get expired tokens). */
  now?: number;
  ttlSeconds?: number;
}

export async function signQStashJwt(opts: SignOptions): Promise<string> {
  const iat = Math.floor((opts.now ?? Date.now()) / 1000);
  // base64url without padding, as QStash sends it.
  const body = createHash('sha256').update(opts.body).digest('base64url');
  return new SignJWT({ body })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer('Upstash')
    .setSubject(opts.url)
    .setIssuedAt(iat)
    .setNotBefore(iat)
    .setExpirationTime(iat + (opts.ttlSeconds ?? 300))
    .setJti(`jwt_${randomBytes(12).toString('hex')}`)
    .sign(new TextEncoder().encode(opts.key));
}
