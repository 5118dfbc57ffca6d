// Text embeddings for similarity search: vector(512) columns, so always 512 dimensions.
import OpenAI from 'openai';
import type { Config } from '../config/env.ts';
import { AiError, toAiError } from './errors.ts';

export type EmbeddingConfig = Pick<Config, 'OPENAI_API_KEY' | 'OPENAI_BASE_URL' | 'AI_REQUEST_TIMEOUT_MS'>;

// Here rather than in clients.ts: the api function embeds search queries and must not load the
// text-generation SDK.
export function createEmbeddingClient(config: EmbeddingConfig): OpenAI {
  if (!config.OPENAI_API_KEY) throw new AiError('openai', 'not_configured', 'OPENAI_API_KEY is not set');
  return new OpenAI({
    apiKey: config.OPENAI_API_KEY,
    baseURL: config.OPENAI_BASE_URL ?? 'https://api.openai.com/v1',
    organization: null,
    project: null,
    webhookSecret: null,
    maxRetries: 0,
    timeout: config.AI_REQUEST_TIMEOUT_MS,
    logLevel: 'warn',
  });
}

export const EMBEDDING_DIMENSIONS = 512;

export interface EmbedInput {
  client: OpenAI;
  model: string;
  texts: string[];
  dimensions?: number;
  signal?: AbortSignal;
}

export interface EmbedResult {
  /** One vector per text, in input order. */
  vectors: number[][];
  usage: { inputTokens: number };
  model: string;
}

export async function embed(input: EmbedInput): Promise<EmbedResult> {
  if (input.texts.length === 0) return { vectors: [], usage: { inputTokens: 0 }, model: input.model };
  const dimensions = input.dimensions ?? EMBEDDING_DIMENSIONS;
  let response;
  try {
    // No encoding_format: the SDK then requests base64 and decodes it to numbers itself.
    response = await input.client.embeddings.create(
      { model: input.model, input: input.texts, dimensions },
      { signal: input.signal },
    );
  } catch (err) {
    throw toAiError(err, 'openai', OpenAI);
  }
  const vectors = [...response.data].sort((a, b) => a.index - b.index).map((d) => Array.from(d.embedding));
  if (vectors.length !== input.texts.length || vectors.some((v) => v.length !== dimensions)) {
    throw new AiError('openai', 'invalid_output', `embedding response is not ${input.texts.length} x ${dimensions}`);
  }
  return { vectors, usage: { inputTokens: response.usage.prompt_tokens }, model: response.model };
}
