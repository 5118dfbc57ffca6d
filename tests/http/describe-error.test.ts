// Error logs carry the error's name and code only: a message may quote values (a row, a token),
// so it never reaches a log line, not even through the pipeline's unhandled-error log.
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, describeError, setLogSink, type LogSink } from '../../shared/http/logger.ts';
import { handleErrors } from '../../shared/http/pipeline.ts';
import type { AppEnv } from '../../shared/http/context.ts';

const SECRET = 'value-from-a-row-4f1c9e';

class CodedError extends Error {
  override name = 'CodedError';
  constructor(message: string, readonly code: string) {
    super(message);
  }
}

const lines: string[] = [];
let restore: LogSink;
beforeAll(() => {
  restore = setLogSink((line) => lines.push(line));
});
afterAll(() => {
  setLogSink(restore);
});

describe('describeError', () => {
  it('keeps the name and the code, never the message', () => {
    expect(describeError(new CodedError(`duplicate key (${SECRET})`, 'XX001'))).toEqual({ error: 'CodedError', error_code: 'XX001' });
    expect(describeError(new TypeError(SECRET))).toEqual({ error: 'TypeError', error_code: undefined });
    expect(describeError(SECRET)).toEqual({ error: 'string' });
  });

  it('an unhandled error is logged without its message', async () => {
    const app = new Hono<AppEnv>();
    handleErrors(app, 'api', createLogger({ level: 'debug' }));
    app.get('/boom', () => {
      throw new CodedError(`failing on ${SECRET}`, 'XX002');
    });
    const res = await app.request('/boom');
    expect(res.status).toBe(500);
    const logged = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'unhandled error');
    expect(logged).toMatchObject({ level: 'error', error: 'CodedError', error_code: 'XX002' });
    expect(lines.join('\n')).not.toContain(SECRET);
  });
});
