// Stand-in identity providers (Sign in with Apple, Google) for tests and the local stack: one RS256
// keypair per provider, their JWKS served over HTTP, and ID tokens minted the way the platforms do.
import { createHash, randomUUID } from 'node:crypto';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import { listen } from './listen.ts';

export type IdpProvider = 'apple' | 'google';
export const IDP_PROVIDERS: readonly IdpProvider[] = ['apple', 'google'];

export const IDP_ISSUERS: Record<IdpProvider, string> = {
  apple: 'https://appleid.apple.com',
  google: 'https://accounts.google.com',
};

export interface MintIdTokenOptions {
  provider: IdpProvider;
  email: string;
  /** Defaults to a stable value derived from provider and email, so one email is one account. */
  sub?: string;
  /** The raw nonce; the token carries its SHA-256 hex, as Apple and Google do for native sign-in. */
  nonce?: string;
  audience?: string;
  issuer?: string;
  /** Negative values mint an already expired token. */
  expiresInSeconds?: number;
}

export interface IdentityProviders {
  audiences: Record<IdpProvider, string>;
  jwks(provider: IdpProvider): { keys: JWK[] };
  mintIdToken(opts: MintIdTokenOptions): Promise<string>;
}

export const sha256Hex = (value: string) => createHash('sha256').update(value).digest('hex');

export const defaultSub = (provider: IdpProvider, email: string) =>
  `${provider === 'apple' ? '000' : '1'}${sha256Hex(`${provider}:${email.toLowerCase()}`).slice(0, 20)}`;

export async function createIdentityProviders(audiences: Record<IdpProvider, string>): Promise<IdentityProviders> {
  const keys = {} as Record<IdpProvider, { privateKey: CryptoKey; jwk: JWK }>;
  for (const provider of IDP_PROVIDERS) {
    const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
    const jwk = { ...(await exportJWK(publicKey)), kid: `${provider}-${randomUUID().slice(0, 8)}`, alg: 'RS256', use: 'sig' };
    keys[provider] = { privateKey, jwk };
  }
  return {
    audiences,
    jwks: (provider) => ({ keys: [keys[provider].jwk] }),
    async mintIdToken(opts) {
      const { provider, email } = opts;
      const now = Math.floor(Date.now() / 1000);
      const claims: Record<string, unknown> = { email, email_verified: true };
      if (opts.nonce !== undefined) claims.nonce = sha256Hex(opts.nonce);
      if (provider === 'apple') claims.is_private_email = false;
      if (provider === 'google') claims.name = email.split('@')[0];
      return new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: keys[provider].jwk.kid!, typ: 'JWT' })
        .setIssuer(opts.issuer ?? IDP_ISSUERS[provider])
        .setAudience(opts.audience ?? audiences[provider])
        .setSubject(opts.sub ?? defaultSub(provider, email))
        .setIssuedAt(now)
        .setExpirationTime(now + (opts.expiresInSeconds ?? 600))
        .sign(keys[provider].privateKey);
    },
  };
}

/** The providers' JWKS endpoints as an HTTP server: `<url>/<provider>/jwks.json`. */
export async function startIdentityProviders(opts: { port?: number; audiences: Record<IdpProvider, string> }) {
  const idp = await createIdentityProviders(opts.audiences);
  const app = new Hono();
  app.get('/:provider/jwks.json', (c) => {
    const provider = c.req.param('provider') as IdpProvider;
    if (!IDP_PROVIDERS.includes(provider)) return c.notFound();
    return c.json(idp.jwks(provider));
  });
  const { url, close } = await listen(serve, app.fetch, opts.port ?? 0);
  return {
    ...idp,
    url,
    jwksUrls: { apple: `${url}/apple/jwks.json`, google: `${url}/google/jwks.json` } as Record<IdpProvider, string>,
    close,
  };
}
