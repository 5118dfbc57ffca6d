// AI accounting: ai_usage rows (one per AI call, cost from the price table), the monthly limit
// per tier (ai_rate_limits vs the month's ai_usage), and the latest Anthropic rate-limit headers
// per model class (ai_rate_limit_snapshots, read by the admin AI-health endpoint).
// Rows hold identifiers, model names and numbers only: never prompts or journal text.
import type postgres from 'postgres';
import { costOf } from './pricing.ts';
import type { RateLimitSnapshot } from './rate-limits.ts';

type Queryable = postgres.ISql;

export type AiWorkload =
  | 'impulse-classification'
  | 'unified-guidance'
  | 'session-summary'
  | 'insights-regeneration'
  | 'check-in-assessment'
  | 'embedding';

export interface AiCall {
  workload: AiWorkload;
  model: string;
  inputTokens: number;
  outputTokens: number;
}

export interface UsageTotals {
  inputTokens: number;
  outputTokens: number;
  cost: number;
}

/**
 * Inserts one ai_usage row per call and returns the totals (cost rounded like the column).
 * `wasted`: billed calls whose result was not kept.
 */
export async function recordUsage(
  db: Queryable,
  calls: readonly AiCall[],
  ids: { userId: string; sessionId?: string | null; jobId?: string | null },
  outcome: 'used' | 'wasted' = 'used',
): Promise<UsageTotals> {
  const totals: UsageTotals = { inputTokens: 0, outputTokens: 0, cost: 0 };
  if (calls.length === 0) return totals;
  const rows = calls.map((c) => {
    const cost = Math.round(costOf(c.model, c.inputTokens, c.outputTokens) * 1e6) / 1e6;
    totals.inputTokens += c.inputTokens;
    totals.outputTokens += c.outputTokens;
    totals.cost += cost;
    return {
      user_id: ids.userId,
      workload: c.workload,
      model: c.model,
      input_tokens: c.inputTokens,
      output_tokens: c.outputTokens,
      cost,
      session_id: ids.sessionId ?? null,
      job_id: ids.jobId ?? null,
      outcome,
    };
  });
  await db`insert into public.ai_usage ${db(rows)}`;
  totals.cost = Math.round(totals.cost * 1e6) / 1e6;
  return totals;
}

export interface MonthlyLimitCheck {
  exceeded: boolean;
  /** Which limit is reached, when one is. */
  limit?: 'requests' | 'tokens' | 'cost';
  used: { requests: number; tokens: number; cost: number };
}

/**
 * The user's AI use this UTC calendar month against the limits of the user's tier. A limit is
 * exceeded when it is reached: the next call would go over it. A tier without a row is unlimited.
 */
export async function checkMonthlyLimit(db: Queryable, userId: string, tier: string): Promise<MonthlyLimitCheck> {
  const [row] = await db<
    { requests: number; tokens: string; cost: string; monthly_requests: number | null; monthly_tokens: string | null; monthly_cost_usd: string | null }[]
  >`
    select u.requests::int as requests, u.tokens::text as tokens, u.cost::text as cost,
           l.monthly_requests, l.monthly_tokens::text as monthly_tokens, l.monthly_cost_usd::text as monthly_cost_usd
      from (select count(*) as requests,
                   coalesce(sum(input_tokens + output_tokens), 0) as tokens,
                   coalesce(sum(cost), 0) as cost
              from public.ai_usage
             where user_id = ${userId}
               and created_at >= date_trunc('month', now() at time zone 'utc') at time zone 'utc') u
      left join public.ai_rate_limits l on l.tier = ${tier}`;
  const used = { requests: row!.requests, tokens: Number(row!.tokens), cost: Number(row!.cost) };
  if (row!.monthly_requests === null) return { exceeded: false, used };
  if (used.requests >= row!.monthly_requests) return { exceeded: true, limit: 'requests', used };
  if (used.tokens >= Number(row!.monthly_tokens)) return { exceeded: true, limit: 'tokens', used };
  if (used.cost >= Number(row!.monthly_cost_usd)) return { exceeded: true, limit: 'cost', used };
  return { exceeded: false, used };
}

/** opus, sonnet or haiku for Claude models (the classes Anthropic's rate limits apply to); else the model. */
export function modelClassOf(model: string): string {
  return /(opus|sonnet|haiku)/.exec(model)?.[1] ?? model;
}

/** Stores the latest headers of a model class; headers the response did not carry keep their last value. */
export async function saveRateLimitSnapshot(db: Queryable, model: string, s: RateLimitSnapshot): Promise<void> {
  if (Object.values(s).every((v) => v === null)) return;
  await db`
    insert into public.ai_rate_limit_snapshots
      (model_class, model, rpm_limit, rpm_remaining, rpm_reset_at, itpm_limit, itpm_remaining, itpm_reset_at,
       otpm_limit, otpm_remaining, otpm_reset_at, updated_at)
    values (${modelClassOf(model)}, ${model}, ${s.rpmLimit}, ${s.rpmRemaining}, ${s.rpmResetAt}, ${s.itpmLimit},
            ${s.itpmRemaining}, ${s.itpmResetAt}, ${s.otpmLimit}, ${s.otpmRemaining}, ${s.otpmResetAt}, now())
    on conflict (model_class) do update set
      model = excluded.model,
      rpm_limit = coalesce(excluded.rpm_limit, ai_rate_limit_snapshots.rpm_limit),
      rpm_remaining = coalesce(excluded.rpm_remaining, ai_rate_limit_snapshots.rpm_remaining),
      rpm_reset_at = coalesce(excluded.rpm_reset_at, ai_rate_limit_snapshots.rpm_reset_at),
      itpm_limit = coalesce(excluded.itpm_limit, ai_rate_limit_snapshots.itpm_limit),
      itpm_remaining = coalesce(excluded.itpm_remaining, ai_rate_limit_snapshots.itpm_remaining),
      itpm_reset_at = coalesce(excluded.itpm_reset_at, ai_rate_limit_snapshots.itpm_reset_at),
      otpm_limit = coalesce(excluded.otpm_limit, ai_rate_limit_snapshots.otpm_limit),
      otpm_remaining = coalesce(excluded.otpm_remaining, ai_rate_limit_snapshots.otpm_remaining),
      otpm_reset_at = coalesce(excluded.otpm_reset_at, ai_rate_limit_snapshots.otpm_reset_at),
      updated_at = now()`;
}

export interface RateLimitSnapshotRow {
  model_class: string;
  model: string;
  rpm_limit: number | null;
  rpm_remaining: number | null;
  rpm_reset_at: Date | null;
  itpm_limit: number | null;
  itpm_remaining: number | null;
  itpm_reset_at: Date | null;
  otpm_limit: number | null;
  otpm_remaining: number | null;
  otpm_reset_at: Date | null;
  updated_at: Date;
}

/** Every model class's latest snapshot, for GET /admin/monitoring/ai-health. */
export async function latestRateLimitSnapshots(db: Queryable): Promise<RateLimitSnapshotRow[]> {
  return db<RateLimitSnapshotRow[]>`select * from public.ai_rate_limit_snapshots order by model_class`;
}
