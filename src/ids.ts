import { v7 as uuidv7, validate as uuidValidate } from 'uuid';

/** Public id prefixes (decisions §1). Ids are time-ordered UUIDv7, so "newest first" is an index scan. */
export const ID_PREFIX = {
  payment: 'pmt',
  event: 'evt',
  paymentLink: 'plink',
  webhookEndpoint: 'we',
  deliveryAttempt: 'wha',
  webhookDelivery: 'whd',
  payout: 'po',
  account: 'acct',
  apiKey: 'key',
} as const;
export type IdKind = keyof typeof ID_PREFIX;

export function newUuid(): string {
  return uuidv7();
}

export function publicId(kind: IdKind, uuid: string): string {
  return `${ID_PREFIX[kind]}_${uuid}`;
}

/** Returns the bare UUID of a public id of the given kind, or null when it is not one. */
export function parsePublicId(kind: IdKind, id: string): string | null {
  const prefix = `${ID_PREFIX[kind]}_`;
  if (!id.startsWith(prefix)) return null;
  const uuid = id.slice(prefix.length);
  return isUuid(uuid) ? uuid : null;
}

export function isUuid(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(value) && uuidValidate(value);
}

/** Unix milliseconds: the timestamp embedded in a UUIDv7. */
export function uuidV7Millis(uuid: string): number {
  return parseInt(uuid.replace(/-/g, '').slice(0, 12), 16);
}

/** Unix seconds from the timestamp embedded in a UUIDv7. */
export function uuidV7Seconds(uuid: string): number {
  return Math.floor(uuidV7Millis(uuid) / 1000);
}

/** The smallest and largest UUIDv7 of a given Unix second, for range scans over time-ordered ids. */
export function uuidV7Bounds(seconds: number): { min: string; max: string } {
  const hex = (ms: number) => ms.toString(16).padStart(12, '0');
  const fmt = (h: string) => `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  return {
    min: fmt(hex(seconds * 1000) + '0'.repeat(20)),
    max: fmt(hex(seconds * 1000 + 999) + 'f'.repeat(20)),
  };
}
