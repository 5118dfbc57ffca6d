// Emulator of Anthropic's Messages API (POST /v1/messages, non-streaming) with forced tool use.
// Answers are deterministic: the same request gives the same answer. Routes are matched by
// suffix so the handler can also be mounted under a prefix by the local stack.
import {
  emulatorHandle,
  FaultInjector,
  approxTokens,
  contentWords,
  hash32,
  listen,
  seededRandom,
} from './common.ts';
import { corrupt, sampleSchema, type JsonSchema } from './schema-sample.ts';

export interface AnthropicEmulatorOptions {
  port?: number;
  apiKey: string;
  /** Per-minute limits reported in the anthropic-ratelimit-* headers and enforced with 429. */
  limits?: { requests?: number; inputTokens?: number; outputTokens?: number };
}

type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'not_found_error'
  | 'rate_limit_error'
  | 'api_error'
  | 'overloaded_error';

interface Tool {
  name: string;
  description?: string;
  input_schema: JsonSchema;
}
interface MessageParam {
  role: 'user' | 'assistant';
  content: string | { type: string; text?: string; content?: unknown }[];
}
interface MessagesRequest {
  model: string;
  max_tokens: number;
  messages: MessageParam[];
  system?: string | { type: 'text'; text: string }[];
  tools?: Tool[];
  tool_choice?: { type: 'auto' | 'any' | 'tool' | 'none'; name?: string };
  stream?: boolean;
}

const fallbackWords = ['calm', 'breath', 'clarity', 'presence', 'trust', 'space', 'step', 'light'];

const newId = (prefix: string) => `${prefix}_emu${crypto.randomUUID().replace(/-/g, '').slice(0, 21)}`;

function blockText(content: MessageParam['content'] | unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b: { text?: unknown; content?: unknown }) =>
      typeof b?.text === 'string' ? b.text : b?.content !== undefined ? blockText(b.content) : '',
    )
    .join(' ');
}

function validate(body: unknown): string | null {
  if (!body || typeof body !== 'object') return 'body: must be a JSON object';
  const b = body as Partial<MessagesRequest>;
  if (typeof b.model !== 'string' || b.model.length === 0) return 'model: Field required';
  if (!Number.isInteger(b.max_tokens) || (b.max_tokens as number) < 1) return 'max_tokens: Field required';
  if (!Array.isArray(b.messages) || b.messages.length === 0) return 'messages: at least one message is required';
  for (const [i, m] of b.messages.entries()) {
    if (m?.role !== 'user' && m?.role !== 'assistant') return `messages.${i}.role: Input should be 'user' or 'assistant'`;
    if (typeof m.content !== 'string' && !Array.isArray(m.content)) return `messages.${i}.content: Field required`;
  }
  if (b.stream) return 'stream: streaming is not supported by this emulator';
  if (b.tools !== undefined) {
    if (!Array.isArray(b.tools)) return 'tools: Input should be a valid list';
    for (const [i, t] of b.tools.entries()) {
      if (typeof t?.name !== 'string' || !/^[a-zA-Z0-9_-]{1,128}$/.test(t.name)) return `tools.${i}.name: invalid`;
      if (t.input_schema?.type !== 'object') return `tools.${i}.input_schema.type: Input should be 'object'`;
    }
  }
  const choice = b.tool_choice;
  if (choice) {
    if (!['auto', 'any', 'tool', 'none'].includes(choice.type)) return 'tool_choice.type: invalid';
    if (choice.type === 'tool' && !b.tools?.some((t) => t.name === choice.name)) {
      return `tool_choice: tool '${choice.name}' not found in tools`;
    }
    if ((choice.type === 'tool' || choice.type === 'any') && !b.tools?.length) return 'tool_choice: requires tools';
  }
  return null;
}

/** A per-minute window of usage, reported as Anthropic's rate-limit headers. */
class RateWindow {
  private start = 0;
  private used = { requests: 0, inputTokens: 0, outputTokens: 0 };
  constructor(readonly limits: { requests: number; inputTokens: number; outputTokens: number }) {}

  private roll(now: number) {
    if (now - this.start >= 60_000) {
      this.start = now;
      this.used = { requests: 0, inputTokens: 0, outputTokens: 0 };
    }
  }
  /** Seconds until the window resets when a request of `inputTokens` would exceed a limit. */
  exceeded(now: number, inputTokens: number): number | null {
    this.roll(now);
    const over =
      this.used.requests + 1 > this.limits.requests || this.used.inputTokens + inputTokens > this.limits.inputTokens;
    return over ? Math.max(1, Math.ceil((this.start + 60_000 - now) / 1000)) : null;
  }
  record(now: number, inputTokens: number, outputTokens: number) {
    this.roll(now);
    this.used.requests += 1;
    this.used.inputTokens += inputTokens;
    this.used.outputTokens += outputTokens;
  }
  headers(now: number): Record<string, string> {
    this.roll(now);
    const reset = new Date(this.start + 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const rem = (limit: number, used: number) => String(Math.max(0, limit - used));
    const tokensLimit = this.limits.inputTokens + this.limits.outputTokens;
    const tokensUsed = this.used.inputTokens + this.used.outputTokens;
    return {
      'anthropic-ratelimit-requests-limit': String(this.limits.requests),
      'anthropic-ratelimit-requests-remaining': rem(this.limits.requests, this.used.requests),
      'anthropic-ratelimit-requests-reset': reset,
      'anthropic-ratelimit-input-tokens-limit': String(this.limits.inputTokens),
      'anthropic-ratelimit-input-tokens-remaining': rem(this.limits.inputTokens, this.used.inputTokens),
      'anthropic-ratelimit-input-tokens-reset': reset,
      'anthropic-ratelimit-output-tokens-limit': String(this.limits.outputTokens),
      'anthropic-ratelimit-output-tokens-remaining': rem(this.limits.outputTokens, this.used.outputTokens),
      'anthropic-ratelimit-output-tokens-reset': reset,
      'anthropic-ratelimit-tokens-limit': String(tokensLimit),
      'anthropic-ratelimit-tokens-remaining': rem(tokensLimit, tokensUsed),
      'anthropic-ratelimit-tokens-reset': reset,
    };
  }
}

export function createAnthropicEmulator(opts: Omit<AnthropicEmulatorOptions, 'port'>) {
  const injector = new FaultInjector();
  const window = new RateWindow({
    requests: opts.limits?.requests ?? 4000,
    inputTokens: opts.limits?.inputTokens ?? 2_000_000,
    outputTokens: opts.limits?.outputTokens ?? 400_000,
  });
  let count = 0;
  let last: MessagesRequest | null = null;

  const error = (status: number, type: ErrorType, message: string, headers: Record<string, string> = {}) => {
    const requestId = newId('req');
    return Response.json(
      { type: 'error', error: { type, message }, request_id: requestId },
      { status, headers: { 'request-id': requestId, ...headers } },
    );
  };

  function answer(body: MessagesRequest, invalid: boolean) {
    const system = blockText(body.system ?? '');
    const lastUser = [...body.messages].reverse().find((m) => m.role === 'user');
    const words = contentWords(blockText(lastUser?.content ?? ''));
    const seed = hash32(JSON.stringify([body.system ?? null, body.messages, body.tool_choice?.name ?? null]));
    const rng = seededRandom(seed);
    const vocabulary = words.length > 0 ? [...new Set(words)] : fallbackWords;

    const choice = body.tool_choice?.type ?? 'auto';
    const tool =
      choice === 'tool' ? body.tools!.find((t) => t.name === body.tool_choice!.name)
      : choice === 'any' ? body.tools![0]
      : undefined;

    let content: unknown[];
    let outputText: string;
    let truncated = false;
    if (tool) {
      let input = sampleSchema(tool.input_schema, { rng, words: vocabulary, root: tool.input_schema }) as Record<string, unknown>;
      if (invalid) input = corrupt(input, tool.input_schema);
      outputText = JSON.stringify(input);
      // Like the API, a tool call cut off by max_tokens arrives with an incomplete (here: empty) input.
      truncated = approxTokens(outputText) > body.max_tokens;
      if (truncated) input = {};
      content = [{ type: 'tool_use', id: newId('toolu'), name: tool.name, input, caller: { type: 'direct' } }];
    } else {
      const n = 5 + Math.floor(rng() * 10);
      outputText = Array.from({ length: n }, () => vocabulary[Math.floor(rng() * vocabulary.length)]).join(' ') + '.';
      content = [{ type: 'text', text: outputText, citations: null }];
    }
    const inputTokens = approxTokens(system + blockText(body.messages as never) + JSON.stringify(body.tools ?? []));
    const outputTokens = Math.min(body.max_tokens, approxTokens(outputText));
    return {
      message: {
        id: newId('msg'),
        type: 'message',
        role: 'assistant',
        model: body.model,
        content,
        stop_reason: truncated ? 'max_tokens' : tool ? 'tool_use' : 'end_turn',
        stop_sequence: null,
        usage: {
          input_tokens: inputTokens,
          output_tokens: outputTokens,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          service_tier: 'standard',
        },
      },
      inputTokens,
      outputTokens,
    };
  }

  async function handleMessages(req: Request): Promise<Response> {
    count += 1;
    await injector.delay();
    // SDK 1.x sends the key as a bearer token; older clients and curl send x-api-key.
    const key = req.headers.get('x-api-key') ?? req.headers.get('authorization')?.replace(/^Bearer\s+/i, '');
    if (key !== opts.apiKey) return error(401, 'authentication_error', 'invalid x-api-key');
    if (!req.headers.get('anthropic-version')) {
      return error(400, 'invalid_request_error', 'anthropic-version: header is required');
    }
    const f = injector.faults;
    if (injector.roll(f.rateLimitRate)) {
      return error(429, 'rate_limit_error', 'Number of requests has exceeded your rate limit (emulated).', {
        'retry-after': String(f.retryAfterSeconds),
        ...window.headers(Date.now()),
      });
    }
    if (injector.roll(f.overloadedRate)) return error(529, 'overloaded_error', 'Overloaded');
    if (injector.roll(f.serverErrorRate)) return error(500, 'api_error', 'Internal server error');

    let body: unknown;
    try {
      body = await req.json();
    } catch {
      return error(400, 'invalid_request_error', 'There was an issue with your request body: not valid JSON');
    }
    const problem = validate(body);
    if (problem) return error(400, 'invalid_request_error', problem);
    const request = body as MessagesRequest;
    if (!request.model.startsWith('claude-')) return error(404, 'not_found_error', `model: ${request.model}`);
    last = request;

    const now = Date.now();
    const { message, inputTokens, outputTokens } = answer(request, injector.roll(f.invalidOutputRate));
    const wait = window.exceeded(now, inputTokens);
    if (wait !== null) {
      return error(429, 'rate_limit_error', 'This request would exceed your rate limit (emulated).', {
        'retry-after': String(wait),
        ...window.headers(now),
      });
    }
    window.record(now, inputTokens, outputTokens);
    return Response.json(message, { headers: { 'request-id': newId('req'), ...window.headers(now) } });
  }

  return emulatorHandle({
    injector,
    requests: () => count,
    lastRequest: () => last,
    route: '/v1/messages',
    handle: handleMessages,
    notFound: (method, path) => error(404, 'not_found_error', `Not found: ${method} ${path}`),
  });
}

export type AnthropicEmulator = ReturnType<typeof createAnthropicEmulator>;

export async function startAnthropicEmulator(opts: AnthropicEmulatorOptions) {
  const emulator = createAnthropicEmulator(opts);
  const server = await listen(emulator.fetch, opts.port);
  return { ...emulator, url: server.url, close: server.close };
}
