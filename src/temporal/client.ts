import { Client, Connection } from '@temporalio/client';
import { SearchAttributeType } from '@temporalio/common';
import type { Config } from '../config';
import { ALL_SEARCH_ATTRIBUTES } from './search-attributes';

/** A lazy connection: the API starts (and answers 503) even while Temporal is down. */
export function createTemporalClient(config: Config): Client {
  const connection = Connection.lazy({ address: config.temporal.address });
  return new Client({ connection, namespace: config.temporal.namespace });
}

const INDEXED_VALUE_TYPE = { [SearchAttributeType.KEYWORD]: 2, [SearchAttributeType.BOOL]: 6 } as Record<string, number>;

/**
 * Registers the custom search attributes on a cluster that lacks them (the dev server gets them
 * as flags). Already-registered attributes are left alone.
 */
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<void> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = ALL_SEARCH_ATTRIBUTES.filter((k) => !(k.name in (existing.customAttributes ?? {})));
  if (missing.length === 0) return;
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(missing.map((k) => [k.name, INDEXED_VALUE_TYPE[k.type]])),
  });
}
