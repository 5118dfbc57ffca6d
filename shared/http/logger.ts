// JSON log lines. Callers pass identifiers and counts only: never journal content, request
// bodies or tokens. The sink is replaceable so tests can capture and scan every line.
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, string | number | boolean | null | undefined>;
export type LogSink = (line: string) => void;

const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

let sink: LogSink = (line) => console.log(line);
export function setLogSink(next: LogSink): LogSink {
  const previous = sink;
  sink = next;
  return previous;
}

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

export function createLogger(opts: { level?: LogLevel; silent?: boolean; base?: LogFields } = {}): Logger {
  const min = order[opts.level ?? 'info'];
  const write = (level: LogLevel, msg: string, fields?: LogFields) => {
    if (opts.silent || order[level] < min) return;
    sink(JSON.stringify({ time: new Date().toISOString(), level, msg, ...opts.base, ...fields }));
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    child: (fields) => createLogger({ ...opts, base: { ...opts.base, ...fields } }),
  };
}

/** The name and the code of an unknown error, for logs; never its message, which may quote values. */
export function describeError(err: unknown): LogFields {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return { error: err.name, error_code: typeof code === 'string' ? code : undefined };
  }
  return { error: typeof err };
}
