// Typed AI failures. `retryable` tells the job worker whether to let the queue retry (429, 5xx,
// timeouts, connection failures) or to fail the job for good (other 4xx, invalid output).

export type AiProvider = 'anthropic' | 'openai';
export type AiErrorKind =
  | 'rate_limited'
  | 'overloaded'
  | 'server_error'
  | 'timeout'
  | 'connection'
  | 'aborted'
  | 'auth'
  | 'bad_request'
  | 'not_configured'
  | 'invalid_output';

const retryableKinds = new Set<AiErrorKind>(['rate_limited', 'overloaded', 'server_error', 'timeout', 'connection']);

export class AiError extends Error {
  readonly retryable: boolean;
  constructor(
    readonly provider: AiProvider,
    readonly kind: AiErrorKind,
    message: string,
    readonly status?: number,
    /** Seconds the provider asked us to wait (retry-after), when it said so. */
    readonly retryAfterSeconds?: number,
    readonly requestId?: string,
  ) {
    super(message);
    this.name = 'AiError';
    this.retryable = retryableKinds.has(kind);
  }
}

export interface AiUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface OutputIssue {
  path: string;
  message: string;
}

/**
 * The model's tool input did not match the schema after every attempt. Permanent: asking again
 * with the same input is unlikely to help, and the tokens were spent (see `usage`).
 */
export class InvalidAiOutputError extends AiError {
  constructor(
    readonly toolName: string,
    readonly issues: OutputIssue[],
    readonly attempts: number,
    readonly usage: AiUsage,
  ) {
    super('anthropic', 'invalid_output', `invalid output for tool ${toolName} after ${attempts} attempt(s)`);
    this.name = 'InvalidAiOutputError';
  }
}

export const isRetryableAiError = (err: unknown): boolean => err instanceof AiError && err.retryable;

/** Seconds from a retry-after header: delta-seconds or an HTTP date. */
export function parseRetryAfter(headers: Headers | undefined, now = Date.now()): number | undefined {
  const ms = Number(headers?.get('retry-after-ms'));
  if (Number.isFinite(ms) && ms > 0) return Math.ceil(ms / 1000);
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, Math.ceil(seconds));
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

function kindOfStatus(status: number): AiErrorKind {
  if (status === 429) return 'rate_limited';
  if (status === 529 || status === 503) return 'overloaded';
  if (status === 408) return 'timeout';
  if (status >= 500) return 'server_error';
  if (status === 401 || status === 403) return 'auth';
  return 'bad_request';
}

// deno-lint-ignore no-explicit-any
type ErrorClass = abstract new (...args: any[]) => Error;
/** The error classes both SDKs export; passed in so that this module imports neither SDK. */
export interface SdkErrorClasses {
  APIUserAbortError: ErrorClass;
  APIConnectionTimeoutError: ErrorClass;
  APIConnectionError: ErrorClass;
  APIError: ErrorClass;
}

/** Maps an SDK error to an AiError; other errors pass through unchanged. */
export function toAiError(err: unknown, provider: AiProvider, sdk: SdkErrorClasses): unknown {
  if (err instanceof AiError) return err;
  if (err instanceof sdk.APIUserAbortError) return new AiError(provider, 'aborted', 'request aborted');
  if (err instanceof sdk.APIConnectionTimeoutError) return new AiError(provider, 'timeout', 'request timed out');
  if (err instanceof sdk.APIConnectionError) return new AiError(provider, 'connection', 'connection failed');
  const apiError = err as Error & { status?: unknown; headers?: unknown };
  if (err instanceof sdk.APIError && typeof apiError.status === 'number') {
    const status = apiError.status;
    const headers = apiError.headers instanceof Headers ? apiError.headers : undefined;
    // 409 is a lock timeout at Anthropic; the SDKs treat it as retryable too.
    const kind = status === 409 ? 'server_error' : kindOfStatus(status);
    const requestId = (err as { requestID?: string | null }).requestID ?? undefined;
    return new AiError(provider, kind, `${provider} answered ${status}`, status, parseRetryAfter(headers), requestId);
  }
  return err;
}
