// App version policy: below min_version is a hard block, below latest_version a soft nudge.
import type { Config } from '../config/env.ts';

export type Platform = 'ios' | 'android';
export interface VersionPolicy {
  min_version: string;
  latest_version: string;
}

export function versionPolicies(config: Config): Record<Platform, VersionPolicy> {
  return {
    ios: { min_version: config.MIN_APP_VERSION_IOS, latest_version: config.LATEST_APP_VERSION_IOS },
    android: { min_version: config.MIN_APP_VERSION_ANDROID, latest_version: config.LATEST_APP_VERSION_ANDROID },
  };
}

/** Numeric comparison of dotted versions; missing parts count as 0 ("1.2" == "1.2.0"). */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

/** The policy for a request: its platform's, or the lowest of both when the platform is unknown. */
export function policyFor(config: Config, platform: Platform | null): VersionPolicy {
  const all = versionPolicies(config);
  if (platform) return all[platform];
  const lower = (x: string, y: string) => (compareVersions(x, y) <= 0 ? x : y);
  return {
    min_version: lower(all.ios.min_version, all.android.min_version),
    latest_version: lower(all.ios.latest_version, all.android.latest_version),
  };
}
