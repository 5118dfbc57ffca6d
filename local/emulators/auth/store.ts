// The auth emulator's state in the project database: auth.users and auth.identities (from the
// shim) plus auth.sessions and auth.refresh_tokens with Supabase Auth's column names.
import { randomBytes } from 'node:crypto';
import type { Sql, Tx } from '../../../shared/db/client.ts';

const SCHEMA = `
create table if not exists auth.sessions (
  id uuid primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  created_at timestamptz default now(),
  updated_at timestamptz default now(),
  factor_id uuid,
  aal text default 'aal1',
  not_after timestamptz,
  refreshed_at timestamp,
  user_agent text,
  ip inet,
  tag text
);
create index if not exists sessions_user_id_idx on auth.sessions (user_id);
create table if not exists auth.refresh_tokens (
  instance_id uuid,
  id bigserial primary key,
  token varchar(255) unique,
  user_id varchar(255),
  revoked boolean,
  created_at timestamptz default now(),
  updated_at timestamptz default now(),
  parent varchar(255),
  session_id uuid references auth.sessions (id) on delete cascade
);
create index if not exists refresh_tokens_session_id_idx on auth.refresh_tokens (session_id);
grant all on auth.sessions, auth.refresh_tokens to service_role;
`;

export async function ensureSchema(sql: Sql): Promise<void> {
  // Several emulators may start against one database at once: create the tables one at a time.
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtext('auth_emulator_schema'))`;
    await tx.unsafe(SCHEMA);
  });
}

export interface UserRow {
  id: string;
  aud: string | null;
  role: string | null;
  email: string | null;
  email_confirmed_at: Date | null;
  last_sign_in_at: Date | null;
  raw_app_meta_data: Record<string, unknown> | null;
  raw_user_meta_data: Record<string, unknown> | null;
  created_at: Date;
  updated_at: Date;
  phone: string | null;
  banned_until: Date | null;
  deleted_at: Date | null;
  is_anonymous: boolean;
  recovery_sent_at: Date | null;
}

export interface IdentityRow {
  id: string;
  provider_id: string;
  user_id: string;
  identity_data: Record<string, unknown>;
  provider: string;
  last_sign_in_at: Date | null;
  created_at: Date;
  updated_at: Date;
  email: string | null;
}

export const newRefreshToken = () => randomBytes(24).toString('base64url');

export async function findUser(tx: Tx | Sql, id: string): Promise<UserRow | undefined> {
  const [user] = await tx<UserRow[]>`select * from auth.users where id = ${id}`;
  return user;
}

export async function identitiesOf(tx: Tx | Sql, userId: string): Promise<IdentityRow[]> {
  return tx<IdentityRow[]>`select * from auth.identities where user_id = ${userId} order by created_at`;
}

/** A new session with its first refresh token. */
export async function createSession(tx: Tx, userId: string): Promise<{ sessionId: string; refreshToken: string }> {
  const sessionId = crypto.randomUUID();
  const refreshToken = newRefreshToken();
  await tx`insert into auth.sessions (id, user_id, aal) values (${sessionId}, ${userId}, 'aal1')`;
  await tx`insert into auth.refresh_tokens (token, user_id, revoked, session_id)
           values (${refreshToken}, ${userId}, false, ${sessionId})`;
  return { sessionId, refreshToken };
}

export async function deleteSessions(tx: Tx | Sql, userId: string, keepSessionId?: string): Promise<void> {
  if (keepSessionId) await tx`delete from auth.sessions where user_id = ${userId} and id <> ${keepSessionId}`;
  else await tx`delete from auth.sessions where user_id = ${userId}`;
}
