// The access rule exists twice: isSubscriptionActive (TypeScript, used by the subscription
// middleware) and public.is_subscription_active (SQL, used by the quota functions). Every row of the
// spec's access table, plus edge cases and random inputs, must give the same answer in both.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSubscriptionActive } from '../../shared/domain/access.ts';
import { freshDatabase, type TestDatabase } from '../helpers/db.ts';

const NOW = new Date('2027-03-01T12:00:00Z');
const FUTURE = new Date('2027-03-08T12:00:00Z');
const PAST = new Date('2027-02-22T12:00:00Z');

interface Case {
  name: string;
  tier: string;
  status: string | null;
  trialEndsAt: Date | null;
  endDate: Date | null;
  isPartner: boolean;
  expected: boolean;
}

const c = (name: string, tier: string, status: string | null, trialEndsAt: Date | null, endDate: Date | null, isPartner: boolean, expected: boolean): Case =>
  ({ name, tier, status, trialEndsAt, endDate, isPartner, expected });

const TABLE: Case[] = [
  // The spec's access table, row by row.
  c('trial with trial_ends_at in the future', 'trial', 'active', FUTURE, null, false, true),
  c('trial with trial_ends_at passed', 'trial', 'active', PAST, null, false, false),
  c('partner with is_partner true and status active', 'partner', 'active', null, null, true, true),
  c('paid foundation, status active', 'foundation', 'active', null, FUTURE, false, true),
  c('paid mastery, status active', 'mastery', 'active', null, null, false, true),
  c('cancelled, subscription_end_date in the future', 'foundation', 'cancelled', null, FUTURE, false, true),
  c('cancelled mastery, end date in the future', 'mastery', 'cancelled', null, FUTURE, false, true),
  c('cancelled, subscription_end_date passed', 'foundation', 'cancelled', null, PAST, false, false),
  c('expired trial', 'trial', 'expired', FUTURE, null, false, false),
  c('inactive trial', 'trial', 'inactive', FUTURE, null, false, false),
  c('expired partner', 'partner', 'expired', null, null, true, false),
  c('inactive partner', 'partner', 'inactive', null, null, true, false),
  c('expired paid', 'mastery', 'expired', null, FUTURE, false, false),
  c('inactive paid', 'foundation', 'inactive', null, FUTURE, false, false),
  // Partner case: the flag is required.
  c('partner tier without is_partner', 'partner', 'active', null, null, false, false),
  // Edges.
  c('trial without trial_ends_at', 'trial', 'active', null, null, false, false),
  c('trial ending exactly now', 'trial', 'active', NOW, null, false, false),
  c('cancelled without end date', 'mastery', 'cancelled', null, null, false, false),
  c('paid past_due', 'foundation', 'past_due', null, FUTURE, false, false),
  c('trial cancelled', 'trial', 'cancelled', FUTURE, FUTURE, false, false),
  c('no status', 'foundation', null, null, FUTURE, false, false),
  c('unknown tier', 'platinum', 'active', FUTURE, FUTURE, true, false),
];

let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(() => db.drop());

async function sqlRule(k: Omit<Case, 'name' | 'expected'>): Promise<boolean> {
  const [row] = await db.sql<{ active: boolean }[]>`
    select public.is_subscription_active(${k.tier}, ${k.status}, ${k.trialEndsAt}, ${k.endDate}, ${k.isPartner}, ${NOW}) as active`;
  return row!.active;
}

describe('access rule: TypeScript and SQL agree', () => {
  it.each(TABLE)('$name → $expected', async (k) => {
    const ts = isSubscriptionActive(k.tier, k.status, k.trialEndsAt, k.endDate, { isPartner: k.isPartner, now: NOW });
    expect(ts).toBe(k.expected);
    expect(await sqlRule(k)).toBe(k.expected);
  });

  it('agrees on random combinations', async () => {
    const date = fc.option(fc.date({ min: PAST, max: FUTURE, noInvalidDate: true }), { nil: null });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('trial', 'partner', 'foundation', 'mastery'),
        fc.constantFrom('active', 'expired', 'inactive', 'cancelled', 'past_due', null),
        date,
        date,
        fc.boolean(),
        async (tier, status, trialEndsAt, endDate, isPartner) => {
          const ts = isSubscriptionActive(tier, status, trialEndsAt, endDate, { isPartner, now: NOW });
          expect(await sqlRule({ tier, status, trialEndsAt, endDate, isPartner })).toBe(ts);
        },
      ),
      { numRuns: 200, seed: 42 },
    );
  });
});
