// postgres.js access. Two ways in, with distinct names so that RLS bypass is greppable:
//   withUser(sql, claims, tx => ...)  one transaction as role `authenticated` with the JWT claims
//   withService(sql, tx => ...)       the connecting role (service), for admin, jobs, webhooks, cron
import postgres from 'postgres';
import type { UserClaims } from '../http/context.ts';

export type Sql = postgres.Sql;
export type Tx = postgres.TransactionSql;

export interface DbOptions {
  max?: number;
}

export function createSql(url: string, opts: DbOptions = {}): Sql {
  return postgres(url, {
    // The transaction pooler of Supabase does not keep prepared statements.
    prepare: false,
    max: opts.max ?? 4,
    idle_timeout: 20,
    connect_timeout: 10,
    onnotice: () => {},
  });
}

/**
 * Runs fn in one transaction as the verified user: the claims are set transaction-locally and
 * the role switched, so Postgres enforces RLS exactly as PostgREST would.
 */
export async function withUser<T>(sql: Sql, claims: UserClaims, fn: (tx: Tx) => Promise<T>): Promise<T> {
  if (claims.role !== 'authenticated') throw new Error('withUser accepts only authenticated claims');
  return (await sql.begin(async (tx) => {
    await tx`select set_config('request.jwt.claims', ${JSON.stringify(claims)}, true), set_config('role', 'authenticated', true)`;
    return fn(tx);
  })) as T;
}

/** Service access (bypasses RLS). Only for operator, job, webhook and cron code paths. */
export async function withService<T>(sql: Sql, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return (await sql.begin((tx) => fn(tx))) as T;
}
