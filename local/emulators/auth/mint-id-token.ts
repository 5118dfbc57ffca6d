// Mints a provider ID token from the running local stack's auth emulator, for trying native sign-in:
//   npx tsx local/emulators/auth/mint-id-token.ts apple someone@example.com [--nonce <raw nonce>]
export {};
// The emulator address is SUPABASE_URL (the local stack's identity URL), default http://127.0.0.1:54321.
const [provider, email, ...rest] = process.argv.slice(2);
if ((provider !== 'apple' && provider !== 'google') || !email) {
  console.error('usage: mint-id-token.ts <apple|google> <email> [--nonce <raw nonce>]');
  process.exit(2);
}
const nonceAt = rest.indexOf('--nonce');
const nonce = nonceAt >= 0 ? rest[nonceAt + 1] : undefined;
const base = (process.env.SUPABASE_URL ?? 'http://127.0.0.1:54321').replace(/\/$/, '');
const key = process.env.SUPABASE_ANON_KEY ?? process.env.IDENTITY_SECRET_KEY ?? 'dev-anon-key';

const res = await fetch(`${base}/auth/v1/_dev/id-token`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', apikey: key },
  body: JSON.stringify({ provider, email, nonce }),
});
if (!res.ok) {
  console.error(`auth emulator answered ${res.status}: ${await res.text()}`);
  process.exit(1);
}
const { id_token } = (await res.json()) as { id_token: string };
console.log(id_token);
