// A valid configuration for tests: required variables filled with test values, overridable.
import { loadConfig, type Config } from '../../shared/config/env.ts';

export const TEST_API_KEY = 'test-api-key-000001';
export const TEST_ADMIN_TOKEN = 'test-admin-token-000001';
export const TEST_HEALTH_SECRET = 'test-health-secret-0001';

export function testConfig(overrides: Record<string, string | undefined> = {}): Config {
  return loadConfig({
    DATABASE_URL: 'postgres://unused',
    API_CLIENT_KEY: TEST_API_KEY,
    CONSOLE_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    HEALTH_SECRET: TEST_HEALTH_SECRET,
    SUPABASE_URL: 'http://127.0.0.1:9',
    SUPABASE_ANON_KEY: 'test-anon-key',
    IDENTITY_SECRET_KEY: 'test-service-role-key',
    LOG_SILENT: 'true',
    ...overrides,
  });
}
