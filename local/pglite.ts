// Embedded PostgreSQL for the local stack when DATABASE_URL is unset: PGlite with pgvector,
// persisted under .data/, served over the wire protocol so postgres.js talks to it unchanged.
import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EmbeddedPostgres {
  url: string;
  close(): Promise<void>;
}

export async function startEmbeddedPostgres(opts: { dataDir: string; port?: number }): Promise<EmbeddedPostgres> {
  await mkdir(opts.dataDir, { recursive: true });
  const db = await PGlite.create({ dataDir: opts.dataDir, extensions: { vector } });
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: opts.port ?? 0 });
  await server.start();
  const port = (server as unknown as { server?: { address(): { port: number } } }).server?.address().port ?? opts.port;
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    async close() {
      await server.stop();
      await db.close();
    },
  };
}
