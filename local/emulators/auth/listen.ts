import type { AddressInfo } from 'node:net';
import type { serve as Serve } from '@hono/node-server';

/** Starts a Hono fetch handler on 127.0.0.1 (port 0 = a free port) and resolves once it listens. */
export function listen(
  serve: typeof Serve,
  fetch: (req: Request) => Response | Promise<Response>,
  port: number,
): Promise<{ url: string; close(): Promise<void> }> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch, port, hostname: '127.0.0.1' }, (info: AddressInfo) => {
      resolve({
        url: `http://127.0.0.1:${info.port}`,
        close: () =>
          new Promise<void>((done) => {
            const s = server as unknown as { closeAllConnections?(): void; close(cb: () => void): void };
            s.close(() => done());
            s.closeAllConnections?.();
          }),
      });
    });
    server.once('error', reject);
  });
}
