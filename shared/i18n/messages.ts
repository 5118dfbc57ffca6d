// Server message catalog keyed by locale. English is complete; other locales fall back to it
// key by key, so a missing translation never breaks a response.
export const LOCALES = [
  'en', 'no', 'sv', 'da', 'de', 'fr', 'es', 'it', 'nl', 'pt', 'fi', 'pl', 'ja', 'ko', 'zh', 'ar',
] as const;
export type Locale = (typeof LOCALES)[number];

const en = {
  API_KEY_MISSING: 'The X-API-Key header is required.',
  API_KEY_INVALID: 'The API key is not valid.',
  AUTH_MISSING: 'An access token is required.',
  AUTH_EXPIRED: 'The access token has expired. Refresh it and try again.',
  AUTH_INVALID: 'The access token is not valid.',
  AUTH_ALG_NOT_ALLOWED: 'The access token uses an algorithm that is not allowed.',
  AUTH_AUDIENCE: 'The access token was issued for another audience.',
  AUTH_ISSUER: 'The access token was issued by another issuer.',
  AUTH_PROVIDER_TOKEN_INVALID: 'The sign-in token from Apple or Google is not valid. Sign in again.',
  REFRESH_TOKEN_INVALID: 'The session has ended. Sign in again.',
  IDENTITY_UNAVAILABLE: 'Sign-in is temporarily unavailable. Try again shortly.',
  ACCOUNT_SUSPENDED: 'This account is suspended.',
  DEV_TOKEN_INVALID: 'A valid X-Dev-Token header is required.',
  DEV_USER_UNKNOWN: 'The X-Dev-User header does not name a seeded development user.',
  ADMIN_UNAUTHORIZED: 'A valid admin bearer token is required.',
  CRON_UNAUTHORIZED: 'A valid cron bearer token is required.',
  QSTASH_SIGNATURE_INVALID: 'The QStash signature is missing or not valid.',
  BODY_TOO_LARGE: 'The request body is too large.',
  INVALID_JSON: 'The request body is not valid JSON.',
  VALIDATION_FAILED: 'The request is not valid.',
  NOT_FOUND: 'Not found.',
  METHOD_NOT_ALLOWED: 'Method not allowed.',
  RATE_LIMITED: 'Too many requests. Try again later.',
  INTERNAL: 'Something went wrong on our side.',
  SERVICE_UNAVAILABLE: 'A service we depend on is unavailable. Try again shortly.',
  IMPULSE_QUOTA_EXCEEDED: 'You have used your quota, or your access is not active.',
  SUBSCRIPTION_INACTIVE: 'An active subscription is required.',
  INVALID_CURSOR: 'The cursor is not valid.',
  AI_UNAVAILABLE: 'The AI service is temporarily unavailable. Try again shortly.',
  INSIGHTS_RECENTLY_REGENERATED: 'Insights were regenerated recently. Try again later.',
  // Journal core
  LINKED_ENTITY_NOT_FOUND: 'A linked impulse or session was not found.',
  CONFLICT: 'This conflicts with existing data.',
  IMPULSE_HAS_SESSIONS: 'An impulse with sessions cannot be deleted.',
  CHECK_IN_ALREADY_CONVERTED: 'This check-in has already been turned into an impulse.',
  SESSION_ALREADY_OPEN: 'This impulse already has an open session.',
  SESSION_STEP_OUT_OF_ORDER: 'Only the current step of the session can be answered.',
  SESSION_STEP_ALREADY_SUBMITTED: 'This step has already been answered.',
  SESSION_NOT_ACTIVE: 'This session is no longer open.',
  SESSION_ALREADY_COMPLETED: 'This session is already completed.',
  SESSION_INCOMPLETE: 'Answer all five steps before completing the session.',
  SESSION_NOT_COMPLETED: 'A reflection can be written once the session is completed.',
} as const;
export type MessageKey = keyof typeof en;

const no: Partial<Record<MessageKey, string>> = {
  API_KEY_MISSING: 'X-API-Key-headeren mangler.',
  API_KEY_INVALID: 'API-nøkkelen er ikke gyldig.',
  AUTH_MISSING: 'Et tilgangstoken kreves.',
  AUTH_EXPIRED: 'Tilgangstokenet er utløpt. Forny det og prøv igjen.',
  AUTH_INVALID: 'Tilgangstokenet er ikke gyldig.',
  BODY_TOO_LARGE: 'Forespørselen er for stor.',
  INVALID_JSON: 'Forespørselen er ikke gyldig JSON.',
  VALIDATION_FAILED: 'Forespørselen er ikke gyldig.',
  NOT_FOUND: 'Ikke funnet.',
  RATE_LIMITED: 'For mange forespørsler. Prøv igjen senere.',
  INTERNAL: 'Noe gikk galt hos oss.',
  SERVICE_UNAVAILABLE: 'En tjeneste vi er avhengige av er utilgjengelig. Prøv igjen snart.',
  IMPULSE_QUOTA_EXCEEDED: 'Du har brukt opp kvoten din, eller tilgangen din er ikke aktiv.',
  SUBSCRIPTION_INACTIVE: 'Et aktivt abonnement kreves.',
};

const catalogs: Partial<Record<Locale, Partial<Record<string, string>>>> = { en, no };

/** Picks the first supported locale of an Accept-Language header (nb/nn map to no). */
export function pickLocale(acceptLanguage: string | null | undefined): Locale {
  for (const part of (acceptLanguage ?? '').split(',')) {
    const tag = part.split(';')[0]?.trim().toLowerCase().split('-')[0] ?? '';
    const mapped = tag === 'nb' || tag === 'nn' ? 'no' : tag;
    if ((LOCALES as readonly string[]).includes(mapped)) return mapped as Locale;
  }
  return 'en';
}

export function message(key: string, locale: Locale = 'en'): string {
  return catalogs[locale]?.[key] ?? (en as Record<string, string>)[key] ?? key;
}
