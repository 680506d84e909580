import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Custom search attributes, so operators can find a payment's or a delivery's workflow
 * in the Temporal UI (decisions §10). Registered by the dev launcher and by the worker at start-up.
 */
export const SA = {
  paymentId: defineSearchAttributeKey('PaymentId', SearchAttributeType.KEYWORD),
  accountId: defineSearchAttributeKey('AccountId', SearchAttributeType.KEYWORD),
  livemode: defineSearchAttributeKey('Livemode', SearchAttributeType.BOOL),
  eventId: defineSearchAttributeKey('EventId', SearchAttributeType.KEYWORD),
  eventType: defineSearchAttributeKey('EventType', SearchAttributeType.KEYWORD),
  endpointId: defineSearchAttributeKey('EndpointId', SearchAttributeType.KEYWORD),
} as const;

export const ALL_SEARCH_ATTRIBUTES = Object.values(SA);

/** Flags for `temporal server start-dev`. */
export function devServerSearchAttributeArgs(): string[] {
  return ALL_SEARCH_ATTRIBUTES.flatMap((k) => ['--search-attribute', `${k.name}=${k.type === SearchAttributeType.BOOL ? 'Bool' : 'Keyword'}`]);
}
