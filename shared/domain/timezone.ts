// IANA time zone names (user_notification_preferences.timezone), validated by the runtime's own
// time zone database, so Deno and Node accept exactly the zones they can convert with.
export function isValidTimeZone(name: string): boolean {
  if (name.length === 0 || name.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
