import { z } from '@hono/zod-openapi';

/** The /api/v1 success wrapper. */
export const ok = <T>(data: T) => ({ success: true as const, data });
export const okSchema = <T extends z.ZodTypeAny>(data: T) => z.object({ success: z.literal(true), data });

export const ErrorEnvelope = z
  .object({
    success: z.literal(false),
    error: z.object({ code: z.string(), message: z.string(), details: z.unknown().optional() }),
  })
  .openapi('Error');
