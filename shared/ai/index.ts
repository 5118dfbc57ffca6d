export * from './clients.ts';
export * from './embeddings.ts';
export * from './errors.ts';
export * from './pricing.ts';
export * from './prompts.ts';
export * from './rate-limits.ts';
export * from './schemas.ts';
export * from './structured.ts';
