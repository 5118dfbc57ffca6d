import type { Logger } from './logger.ts';

/** Verified identity of the caller of an /api/v1 route. */
export interface UserClaims {
  sub: string;
  role: 'authenticated';
  email?: string;
  aud?: string | string[];
  exp?: number;
  session_id?: string;
  [claim: string]: unknown;
}

export interface AppVariables {
  requestId: string;
  log: Logger;
  appVersion: string | null;
  appPlatform: 'ios' | 'android' | null;
  user: UserClaims;
}

export type AppEnv = { Variables: AppVariables };
