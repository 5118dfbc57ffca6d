// Quota status of the calling user, read from public.check_impulse_quota (the same SQL the insert
// trigger enforces with), so what the client is shown and what the server enforces cannot drift.
import type { Tx } from '../db/client.ts';

export const QUOTA_KINDS = ['impulse', 'check_in'] as const;
export type QuotaKind = (typeof QUOTA_KINDS)[number];

export interface QuotaStatus {
  used: number;
  /** null = unlimited */
  limit: number | null;
  period: 'total' | 'month';
  period_start: string;
  resets_at: string | null;
  allowed: boolean;
  active: boolean;
}

interface QuotaRow {
  allowed: boolean;
  active: boolean;
  used: number;
  quota_limit: number | null;
  period: 'total' | 'month';
  period_start: Date;
  resets_at: Date | null;
}

/** Must run inside withUser: check_impulse_quota answers for auth.uid(). Null without a profile. */
export async function readQuota(tx: Tx, kind: QuotaKind): Promise<QuotaStatus | null> {
  const [r] = await tx<QuotaRow[]>`
    select allowed, active, used, quota_limit, period, period_start, resets_at
    from public.check_impulse_quota(${kind})`;
  if (!r) return null;
  return {
    used: r.used,
    limit: r.quota_limit,
    period: r.period,
    period_start: r.period_start.toISOString(),
    resets_at: r.resets_at?.toISOString() ?? null,
    allowed: r.allowed,
    active: r.active,
  };
}
