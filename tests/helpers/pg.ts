// Where the test PostgreSQL is: PG* variables, defaulting to this machine's server.
const host = process.env.PGHOST ?? '127.0.0.1';
const port = process.env.PGPORT ?? '5432';
const user = process.env.PGUSER ?? 'postgres';
const password = process.env.PGPASSWORD ?? '';

export function dbUrl(database: string): string {
  const auth = password ? `${encodeURIComponent(user)}:${encodeURIComponent(password)}` : encodeURIComponent(user);
  return `postgres://${auth}@${host}:${port}/${database}`;
}

export const adminUrl = () => dbUrl(process.env.PGDATABASE ?? 'postgres');
