// Pieces both AI emulators share (the OpenAI emulator imports them from here): deterministic
// hashing and randomness, word extraction, fault switches and a tiny listener.
import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';

/** FNV-1a, 32 bit. Stable across runs and platforms. */
export function hash32(text: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** mulberry32: a small seeded PRNG returning numbers in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const stopwords = new Set(
  (
    'a an and are as at be but by for from has have he her his i if in into is it its me my of on or our ' +
    'she so that the their them then there these they this to was we were what when which who will with ' +
    'you your am do does did not no can just very all any about ' +
    'og i jeg du det er en et som på til av for med har ikke de den meg min mitt mine seg sin var vi '
  )
    .split(/\s+/)
    .filter(Boolean),
);

/** Lower-cased word tokens (letters and digits, any script) without stopwords. */
export function contentWords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 1 && !stopwords.has(w));
}

/** Rough token count: about four characters per token, at least one. */
export const approxTokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

export interface FaultSwitches {
  /** Seed of the PRNG that decides which requests fail; setting it restarts the sequence. */
  seed: number;
  /** Share of requests (0..1) answered 429 with a retry-after header. */
  rateLimitRate: number;
  /** Share of requests answered 500. */
  serverErrorRate: number;
  /** Share of requests answered "overloaded" (Anthropic 529, OpenAI 503). */
  overloadedRate: number;
  /** Anthropic only: share of tool answers whose input breaks the tool's schema. */
  invalidOutputRate: number;
  /** Delay before answering, in ms (for timeouts). */
  delayMs: number;
  /** Value of the retry-after header on injected 429s. */
  retryAfterSeconds: number;
}

export const defaultFaults = (): FaultSwitches => ({
  seed: 1,
  rateLimitRate: 0,
  serverErrorRate: 0,
  overloadedRate: 0,
  invalidOutputRate: 0,
  delayMs: 0,
  retryAfterSeconds: 1,
});

/**
 * Fault switches as a plain mutable object plus a PRNG seeded from `faults.seed`. A rate of 0
 * never fires, 1 always fires, anything between follows the seeded sequence, so a test that
 * sets the same seed sees the same requests fail.
 */
export class FaultInjector {
  readonly faults: FaultSwitches = defaultFaults();
  private rng = seededRandom(this.faults.seed);
  private rngSeed = this.faults.seed;

  /** Merges switches (from the exported object or POST /_emulator/faults) and restarts the sequence. */
  set(patch: Partial<FaultSwitches>): FaultSwitches {
    for (const [k, v] of Object.entries(patch)) {
      if (k in this.faults && typeof v === 'number' && Number.isFinite(v)) {
        (this.faults as unknown as Record<string, number>)[k] = v;
      }
    }
    this.rng = seededRandom(this.faults.seed);
    this.rngSeed = this.faults.seed;
    return { ...this.faults };
  }

  reset(): void {
    this.set(defaultFaults());
  }

  roll(rate: number): boolean {
    if (this.rngSeed !== this.faults.seed) {
      this.rng = seededRandom(this.faults.seed);
      this.rngSeed = this.faults.seed;
    }
    if (rate <= 0) return false;
    if (rate >= 1) return true;
    return this.rng() < rate;
  }

  async delay(): Promise<void> {
    if (this.faults.delayMs > 0) await new Promise((r) => setTimeout(r, this.faults.delayMs));
  }

  /** Handles GET/POST /_emulator/faults; returns null for other paths. */
  async handleControl(req: Request): Promise<Response | null> {
    if (!new URL(req.url).pathname.endsWith('/_emulator/faults')) return null;
    if (req.method === 'POST') {
      let patch: unknown;
      try {
        patch = await req.json();
      } catch {
        return Response.json({ error: 'body must be JSON' }, { status: 400 });
      }
      if (patch && typeof patch === 'object' && (patch as { reset?: unknown }).reset === true) this.reset();
      return Response.json(this.set((patch ?? {}) as Partial<FaultSwitches>));
    }
    return Response.json(this.faults);
  }
}

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 (port 0 = a free port) and serves a fetch handler. */
export function listen(fetch: (req: Request) => Promise<Response>, port = 0): Promise<RunningServer> {
  return new Promise((resolve) => {
    const server: ServerType = serve({ fetch, port, hostname: '127.0.0.1' }, (info: AddressInfo) => {
      resolve({
        url: `http://127.0.0.1:${info.port}`,
        close: () =>
          new Promise<void>((done) => {
            const s = server as ServerType & { closeAllConnections?: () => void };
            server.close(() => done());
            s.closeAllConnections?.();
          }),
      });
    });
  });
}

/**
 * The shared face of an emulator: fault switches, request counters for tests, and a fetch handler
 * that serves the fault-control route first, then the one API route (anything else is `notFound`).
 */
export function emulatorHandle<T>(opts: {
  injector: FaultInjector;
  /** Requests received on the API route (including failed ones). */
  requests: () => number;
  /** The last well-formed request body, for tests that inspect what the client sent. */
  lastRequest: () => T | null;
  route: string;
  handle: (req: Request) => Promise<Response>;
  notFound: (method: string, path: string) => Response;
}) {
  const { injector } = opts;
  return {
    faults: injector.faults,
    setFaults: (patch: Partial<FaultSwitches>) => injector.set(patch),
    resetFaults: () => injector.reset(),
    requests: opts.requests,
    lastRequest: opts.lastRequest,
    async fetch(req: Request): Promise<Response> {
      const control = await injector.handleControl(req);
      if (control) return control;
      const path = new URL(req.url).pathname;
      if (req.method === 'POST' && path.endsWith(opts.route)) return opts.handle(req);
      return opts.notFound(req.method, path);
    },
  };
}
