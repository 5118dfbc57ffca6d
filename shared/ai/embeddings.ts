// Text embeddings for similarity search: vector(512) columns, so always 512 dimensions.
import type OpenAI from 'openai';
import { AiError, toAiError } from './errors.ts';

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
    throw toAiError(err, 'openai');
  }
  const vectors = [...response.data].sort((a, b) => a.index - b.index).map((d) => Array.from(d.embedding));
  if (vectors.length !== input.texts.length || vectors.some((v) => v.length !== dimensions)) {
    throw new AiError('openai', 'invalid_output', `embedding response is not ${input.texts.length} x ${dimensions}`);
  }
  return { vectors, usage: { inputTokens: response.usage.prompt_tokens }, model: response.model };
}
