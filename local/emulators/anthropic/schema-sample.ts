// Generates a value that satisfies a JSON Schema (the subset zod's toJSONSchema emits), the way
// the emulated model fills in a forced tool call. Text is built from words of the request.
export type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  not?: JsonSchema;
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  definitions?: Record<string, JsonSchema>;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  format?: string;
};

export interface SampleContext {
  rng: () => number;
  /** Words to build text from (from the request), never empty. */
  words: string[];
  root: JsonSchema;
}

const pick = <T>(rng: () => number, list: readonly T[]): T => list[Math.floor(rng() * list.length)]!;

function resolveRef(ref: string, root: JsonSchema): JsonSchema {
  const parts = ref.replace(/^#\/?/, '').split('/').filter(Boolean);
  let node: unknown = root;
  for (const p of parts) node = (node as Record<string, unknown> | undefined)?.[p];
  return (node as JsonSchema | undefined) ?? {};
}

const isNever = (s: JsonSchema | undefined) => !!s?.not && Object.keys(s.not).length === 0;

export function sampleSchema(schema: JsonSchema, ctx: SampleContext, key = ''): unknown {
  if (schema.$ref) return sampleSchema(resolveRef(schema.$ref, ctx.root), ctx, key);
  if ('const' in schema) return schema.const;
  if (schema.enum && schema.enum.length > 0) return pick(ctx.rng, schema.enum);
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches && branches.length > 0) {
    const usable = branches.filter((b) => b.type !== 'null' && !isNever(b));
    return sampleSchema(usable[0] ?? branches[0]!, ctx, key);
  }
  if (schema.allOf && schema.allOf.length > 0) return sampleSchema(schema.allOf[0]!, ctx, key);

  const type = Array.isArray(schema.type) ? (schema.type.find((t) => t !== 'null') ?? 'null') : schema.type;
  switch (type ?? (schema.properties ? 'object' : 'string')) {
    case 'object':
      return sampleObject(schema, ctx);
    case 'array':
      return sampleArray(schema, ctx, key);
    case 'integer':
      return sampleInteger(schema, ctx);
    case 'number':
      return sampleNumber(schema, ctx);
    case 'boolean':
      return ctx.rng() < 0.5;
    case 'null':
      return null;
    default:
      return sampleString(schema, ctx, key);
  }
}

function sampleObject(schema: JsonSchema, ctx: SampleContext): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const required = new Set(schema.required ?? []);
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    // Optional members appear about half of the time, decided by the request's seed.
    if (required.has(name) || ctx.rng() < 0.5) out[name] = sampleSchema(prop, ctx, name);
  }
  return out;
}

function sampleArray(schema: JsonSchema, ctx: SampleContext, key: string): unknown[] {
  if (isNever(schema.items)) return [];
  const min = schema.minItems ?? 1;
  const max = Math.max(min, Math.min(schema.maxItems ?? 3, 3));
  const count = min + Math.floor(ctx.rng() * (max - min + 1));
  const items = schema.items ?? { type: 'string' };
  const out: unknown[] = [];
  // Enum items (ids) are picked without repetition where the enum allows it.
  const pool = items.enum ? [...items.enum] : null;
  for (let i = 0; i < count; i++) {
    if (pool && pool.length > 0) out.push(pool.splice(Math.floor(ctx.rng() * pool.length), 1)[0]);
    else out.push(sampleSchema(items, ctx, key));
  }
  return out;
}

function bounds(schema: JsonSchema, step: number): [number, number] {
  const lo = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + step : 0);
  const hi = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - step : lo + 100);
  return [lo, Math.max(lo, hi)];
}

function sampleNumber(schema: JsonSchema, ctx: SampleContext): number {
  const [lo, hi] = bounds(schema, 0.01);
  const v = Math.round((lo + ctx.rng() * (hi - lo)) * 100) / 100;
  return Math.min(hi, Math.max(lo, v));
}

function sampleInteger(schema: JsonSchema, ctx: SampleContext): number {
  const [lo, hi] = bounds(schema, 1);
  const a = Math.ceil(lo);
  const b = Math.floor(hi);
  return a + Math.floor(ctx.rng() * (b - a + 1));
}

const hex = (rng: () => number, n: number) =>
  Array.from({ length: n }, () => Math.floor(rng() * 16).toString(16)).join('');

function sampleString(schema: JsonSchema, ctx: SampleContext, key: string): string {
  switch (schema.format) {
    case 'uuid':
      return `${hex(ctx.rng, 8)}-${hex(ctx.rng, 4)}-4${hex(ctx.rng, 3)}-${pick(ctx.rng, ['8', '9', 'a', 'b'])}${hex(ctx.rng, 3)}-${hex(ctx.rng, 12)}`;
    case 'date-time':
      return new Date(Date.UTC(2025, 0, 1) + Math.floor(ctx.rng() * 365) * 86_400_000).toISOString();
    case 'date':
      return new Date(Date.UTC(2025, 0, 1) + Math.floor(ctx.rng() * 365) * 86_400_000).toISOString().slice(0, 10);
    case 'email':
      return `${pick(ctx.rng, ctx.words)}@example.com`;
  }
  const short = /title|name|label/i.test(key);
  const count = short ? 2 + Math.floor(ctx.rng() * 3) : 6 + Math.floor(ctx.rng() * 8);
  const words = Array.from({ length: count }, () => pick(ctx.rng, ctx.words));
  let text = words.join(' ');
  text = text.charAt(0).toUpperCase() + text.slice(1) + (short ? '' : '.');
  const max = schema.maxLength ?? 400;
  if (text.length > max) text = text.slice(0, max).trimEnd();
  const min = schema.minLength ?? 0;
  while (text.length < min) text += ` ${pick(ctx.rng, ctx.words)}`;
  return text.length > max ? text.slice(0, max) : text;
}

/**
 * Breaks a valid tool input the way a misbehaving model would: drops the first required member
 * and gives the second one a value of the wrong type.
 */
export function corrupt(input: Record<string, unknown>, schema: JsonSchema): Record<string, unknown> {
  const out = { ...input };
  const [first, second] = schema.required ?? Object.keys(out);
  if (first !== undefined) delete out[first];
  if (second !== undefined) out[second] = typeof out[second] === 'number' ? 'not a number' : 42;
  return out;
}
