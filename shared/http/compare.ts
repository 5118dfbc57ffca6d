// Constant-time comparison of secrets (API keys, admin token, health secret). Both sides are
// hashed first so that neither the length nor the content leaks through timing.
const encoder = new TextEncoder();

async function digest(value: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(value)));
}

export async function timingSafeEqual(a: string, b: string): Promise<boolean> {
  const [x, y] = await Promise.all([digest(a), digest(b)]);
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= x[i]! ^ y[i]!;
  return diff === 0;
}

/** The first candidate equal to the value, compared against every candidate. */
export async function matchAny(value: string, candidates: readonly string[]): Promise<string | null> {
  let found: string | null = null;
  for (const candidate of candidates) {
    if ((await timingSafeEqual(value, candidate)) && found === null) found = candidate;
  }
  return found;
}
