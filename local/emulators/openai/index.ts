// Emulator of OpenAI's embeddings endpoint (POST /v1/embeddings). The official SDK asks for
// encoding_format 'base64' unless the caller sets one, so both encodings are served.
import { FaultInjector, approxTokens, emulatorHandle, listen } from '../anthropic/common.ts';
import { embedText, toBase64 } from './embedding.ts';

export interface OpenAIEmulatorOptions {
  port?: number;
  apiKey: string;
}

/** Models and their native (maximum) dimensions; only the v3 models accept `dimensions`. */
const models: Record<string, { dimensions: number; shortening: boolean }> = {
  'text-embedding-3-small': { dimensions: 1536, shortening: true },
  'text-embedding-3-large': { dimensions: 3072, shortening: true },
  'text-embedding-ada-002': { dimensions: 1536, shortening: false },
};

const limits = { requests: 3000, tokens: 1_000_000 };

function error(status: number, message: string, type: string, code: string | null, param: string | null = null, headers: Record<string, string> = {}) {
  return Response.json(
    { error: { message, type, param, code } },
    { status, headers: { 'x-request-id': `req_${crypto.randomUUID().replace(/-/g, '')}`, ...headers } },
  );
}

interface EmbeddingsRequest {
  input: string | string[];
  model: string;
  dimensions?: number;
  encoding_format?: 'float' | 'base64';
}

function validate(body: unknown): Response | null {
  const b = (body ?? {}) as Partial<EmbeddingsRequest>;
  if (typeof b.model !== 'string') return error(400, "'model' is a required property", 'invalid_request_error', null, 'model');
  const model = models[b.model];
  if (!model) {
    return error(404, `The model \`${b.model}\` does not exist or you do not have access to it.`, 'invalid_request_error', 'model_not_found');
  }
  const inputs = typeof b.input === 'string' ? [b.input] : b.input;
  if (!Array.isArray(inputs) || inputs.length === 0 || inputs.length > 2048 || inputs.some((s) => typeof s !== 'string' || s.length === 0)) {
    return error(400, "'$.input' is invalid. Please check the API reference.", 'invalid_request_error', null, 'input');
  }
  if (b.dimensions !== undefined) {
    if (!model.shortening) return error(400, 'This model does not support specifying dimensions.', 'invalid_request_error', null, 'dimensions');
    if (!Number.isInteger(b.dimensions) || b.dimensions < 1 || b.dimensions > model.dimensions) {
      return error(400, `Invalid value for 'dimensions' = ${b.dimensions}.`, 'invalid_request_error', null, 'dimensions');
    }
  }
  if (b.encoding_format !== undefined && b.encoding_format !== 'float' && b.encoding_format !== 'base64') {
    return error(400, "Invalid value for 'encoding_format'.", 'invalid_request_error', null, 'encoding_format');
  }
  return null;
}

export function createOpenAIEmulator(opts: Omit<OpenAIEmulatorOptions, 'port'>) {
  const injector = new FaultInjector();
  let count = 0;
  let last: EmbeddingsRequest | null = null;
  let windowStart = 0;
  let used = { requests: 0, tokens: 0 };

  function rateHeaders(now: number): Record<string, string> {
    if (now - windowStart >= 60_000) {
      windowStart = now;
      used = { requests: 0, tokens: 0 };
    }
    const reset = `${Math.max(0, Math.ceil((windowStart + 60_000 - now) / 1000))}s`;
    return {
      'x-ratelimit-limit-requests': String(limits.requests),
      'x-ratelimit-remaining-requests': String(Math.max(0, limits.requests - used.requests)),
      'x-ratelimit-reset-requests': reset,
      'x-ratelimit-limit-tokens': String(limits.tokens),
      'x-ratelimit-remaining-tokens': String(Math.max(0, limits.tokens - used.tokens)),
      'x-ratelimit-reset-tokens': reset,
    };
  }

  async function handleEmbeddings(req: Request): Promise<Response> {
    count += 1;
    await injector.delay();
    const auth = req.headers.get('authorization') ?? '';
    if (auth !== `Bearer ${opts.apiKey}`) {
      return error(401, 'Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key');
    }
    const f = injector.faults;
    if (injector.roll(f.rateLimitRate)) {
      return error(429, 'Rate limit reached for requests (emulated).', 'requests', 'rate_limit_exceeded', null, {
        'retry-after': String(f.retryAfterSeconds),
        ...rateHeaders(Date.now()),
      });
    }
    if (injector.roll(f.overloadedRate)) {
      return error(503, 'The engine is currently overloaded, please try again later.', 'server_error', null);
    }
    if (injector.roll(f.serverErrorRate)) {
      return error(500, 'The server had an error while processing your request. Sorry about that!', 'server_error', null);
    }
    let body: unknown;
    try {
      body = await req.json();
    } catch {
      return error(400, 'We could not parse the JSON body of your request.', 'invalid_request_error', null);
    }
    const invalid = validate(body);
    if (invalid) return invalid;

    const request = body as EmbeddingsRequest;
    last = request;
    const inputs = typeof request.input === 'string' ? [request.input] : request.input;
    const dimensions = request.dimensions ?? models[request.model]!.dimensions;
    const base64 = request.encoding_format === 'base64';
    const data = inputs.map((text, index) => {
      const vector = embedText(text, dimensions);
      return { object: 'embedding', index, embedding: base64 ? toBase64(vector) : vector };
    });
    const tokens = inputs.reduce((sum, text) => sum + approxTokens(text), 0);
    const now = Date.now();
    rateHeaders(now);
    used.requests += 1;
    used.tokens += tokens;
    return Response.json(
      { object: 'list', data, model: request.model, usage: { prompt_tokens: tokens, total_tokens: tokens } },
      {
        headers: {
          'x-request-id': `req_${crypto.randomUUID().replace(/-/g, '')}`,
          'openai-model': request.model,
          'openai-processing-ms': '1',
          ...rateHeaders(now),
        },
      },
    );
  }

  return emulatorHandle({
    injector,
    requests: () => count,
    lastRequest: () => last,
    route: '/v1/embeddings',
    handle: handleEmbeddings,
    notFound: (method, path) => error(404, `Invalid URL (${method} ${path})`, 'invalid_request_error', null),
  });
}

export type OpenAIEmulator = ReturnType<typeof createOpenAIEmulator>;

export async function startOpenAIEmulator(opts: OpenAIEmulatorOptions) {
  const emulator = createOpenAIEmulator(opts);
  const server = await listen(emulator.fetch, opts.port);
  return { ...emulator, url: server.url, close: server.close };
}
