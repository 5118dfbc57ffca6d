// The one price table: USD per million tokens. Dated snapshots resolve to their family
// ("claude-sonnet-4-5-20250929" -> "claude-sonnet-4-5").
export interface ModelPrice {
  input: number;
  output: number;
}

export const pricesPerMillion: Record<string, ModelPrice> = {
  'claude-opus-4-1': { input: 15, output: 75 },
  'claude-opus-4': { input: 15, output: 75 },
  'claude-opus-4-5': { input: 5, output: 25 },
  'claude-opus-4-6': { input: 5, output: 25 },
  'claude-sonnet-4': { input: 3, output: 15 },
  'claude-sonnet-4-5': { input: 3, output: 15 },
  'claude-sonnet-4-6': { input: 3, output: 15 },
  'claude-sonnet-5': { input: 3, output: 15 },
  'claude-haiku-4-5': { input: 1, output: 5 },
  'claude-3-5-haiku': { input: 0.8, output: 4 },
  'text-embedding-3-small': { input: 0.02, output: 0 },
  'text-embedding-3-large': { input: 0.13, output: 0 },
  'text-embedding-ada-002': { input: 0.1, output: 0 },
};

/** Unknown models are charged at the highest price in the table: overstating spend is safer than hiding it. */
const fallbackPrice: ModelPrice = Object.values(pricesPerMillion).reduce((a, b) => (b.output > a.output ? b : a));

export function priceOf(model: string): { price: ModelPrice; known: boolean } {
  const family = model.replace(/-\d{8}$/, '').replace(/-latest$/, '');
  const price = pricesPerMillion[model] ?? pricesPerMillion[family];
  return price ? { price, known: true } : { price: fallbackPrice, known: false };
}

/** Cost in USD, rounded to 1e-9 to drop floating-point noise (the columns keep 6 decimals). */
export function costOf(model: string, inputTokens: number, outputTokens = 0): number {
  const { price } = priceOf(model);
  const usd = (inputTokens * price.input + outputTokens * price.output) / 1_000_000;
  return Math.round(usd * 1e9) / 1e9;
}
