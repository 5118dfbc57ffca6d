// The single access rule (spec: "Access rule"). Used by the subscription middleware and the quota
// service; public.is_subscription_active in SQL mirrors it and a test runs both over the same cases.
export type Tier = 'trial' | 'partner' | 'foundation' | 'mastery';
export type SubscriptionStatus = 'active' | 'expired' | 'inactive' | 'cancelled' | 'past_due';

export interface AccessOptions {
  /** profiles.is_partner; only the partner tier reads it. */
  isPartner?: boolean;
  now?: Date;
}

const after = (date: Date | string | null | undefined, now: Date) =>
  date != null && new Date(date).getTime() > now.getTime();

export function isSubscriptionActive(
  tier: string,
  status: string | null | undefined,
  trialEndsAt: Date | string | null | undefined,
  subscriptionEndDate: Date | string | null | undefined,
  { isPartner = false, now = new Date() }: AccessOptions = {},
): boolean {
  if (!status || status === 'expired' || status === 'inactive') return false;
  switch (tier) {
    case 'trial':
      return status === 'active' && after(trialEndsAt, now);
    case 'partner':
      return isPartner && status === 'active';
    case 'foundation':
    case 'mastery':
      return status === 'active' || (status === 'cancelled' && after(subscriptionEndDate, now));
    default:
      return false;
  }
}
