/** Dated API versions (decisions §7). The newest is pinned on new accounts. */
export const API_VERSIONS = ['2026-11-01'] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];
export const LATEST_API_VERSION: ApiVersion = API_VERSIONS[API_VERSIONS.length - 1];

export function isApiVersion(value: string): value is ApiVersion {
  return (API_VERSIONS as readonly string[]).includes(value);
}

/**
 * The one place where a response body is shaped for an older version.
 * There is only one version so far, so every body passes through unchanged.
 */
export function shapeForVersion(_version: ApiVersion, body: unknown): unknown {
  return body;
}
