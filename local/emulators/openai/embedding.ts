// Deterministic text vectors by feature hashing: each (lightly stemmed) content word adds ±1 to
// one of `dimensions` buckets, then the vector is normalized. Texts that share words point in
// similar directions; texts with no words in common are close to orthogonal.
import { contentWords, hash32 } from '../anthropic/common.ts';

const suffixes = ['ing', 'ed', 'ly', 'ness', 'es', 'ene', 'en', 'et', 'er', 's'];

function stem(word: string): string {
  for (const s of suffixes) {
    if (word.length - s.length >= 4 && word.endsWith(s)) return word.slice(0, -s.length);
  }
  return word;
}

export function embedText(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  const tokens = contentWords(text).map(stem);
  // Text made only of stopwords or symbols still gets a stable, non-zero vector.
  if (tokens.length === 0) tokens.push(`#${text.trim().toLowerCase()}`);
  for (const token of tokens) {
    const bucket = hash32(token) % dimensions;
    const sign = hash32(token, 0x9e3779b9) & 1 ? 1 : -1;
    vector[bucket] = vector[bucket]! + sign;
  }
  const norm = Math.sqrt(vector.reduce((sum, v) => sum + v * v, 0));
  return vector.map((v) => v / norm);
}

/** The `base64` encoding_format: little-endian float32 values, base64 encoded. */
export function toBase64(vector: number[]): string {
  return Buffer.from(new Float32Array(vector).buffer).toString('base64');
}
