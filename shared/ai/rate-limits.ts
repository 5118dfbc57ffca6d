// Anthropic's rate-limit response headers, in the shape of the admin endpoint's rate_limits
// (rpm = requests, itpm = input tokens, otpm = output tokens per minute).
export interface RateLimitSnapshot {
  rpmLimit: number | null;
  rpmRemaining: number | null;
  rpmResetAt: string | null;
  itpmLimit: number | null;
  itpmRemaining: number | null;
  itpmResetAt: string | null;
  otpmLimit: number | null;
  otpmRemaining: number | null;
  otpmResetAt: string | null;
}

function int(headers: Headers, name: string): number | null {
  const v = headers.get(name);
  if (v === null || v.trim() === '') return null;
  const n = Number(v);
  return Number.isInteger(n) ? n : null;
}

function time(headers: Headers, name: string): string | null {
  const v = headers.get(name);
  if (!v) return null;
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

export function parseAnthropicRateLimits(headers: Headers): RateLimitSnapshot {
  const p = 'anthropic-ratelimit-';
  return {
    rpmLimit: int(headers, `${p}requests-limit`),
    rpmRemaining: int(headers, `${p}requests-remaining`),
    rpmResetAt: time(headers, `${p}requests-reset`),
    itpmLimit: int(headers, `${p}input-tokens-limit`),
    itpmRemaining: int(headers, `${p}input-tokens-remaining`),
    itpmResetAt: time(headers, `${p}input-tokens-reset`),
    otpmLimit: int(headers, `${p}output-tokens-limit`),
    otpmRemaining: int(headers, `${p}output-tokens-remaining`),
    otpmResetAt: time(headers, `${p}output-tokens-reset`),
  };
}
