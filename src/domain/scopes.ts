/** API key scopes (decisions §6). */
export const ALL_SCOPES = [
  'payments:read',
  'payments:write',
  'payment_links:read',
  'payment_links:write',
  'events:read',
  'webhooks:read',
  'webhooks:write',
] as const;
export type Scope = (typeof ALL_SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (ALL_SCOPES as readonly string[]).includes(value);
}
