import { z } from '../zod';

/** Query parameters shared by every cursor-paginated list (decisions §1). */
export const LimitParam = z.coerce
  .number()
  .int()
  .min(1)
  .max(100)
  .optional()
  .openapi({ description: 'Page size, 1 to 100.', example: 20 });

export const CursorParam = z
  .string()
  .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'must be a bare lower-case UUID (the nextCursor of the previous page)')
  .optional()
  .openapi({ description: 'The nextCursor of the previous page (a bare UUID).' });

export const DEFAULT_LIMIT = 20;

/** Builds the envelope of spec 2.4 from a page fetched with limit+1 rows. */
export function page<T>(items: T[], hasMore: boolean, cursorOf: (item: T) => string) {
  return { ok: true as const, data: { items, nextCursor: hasMore && items.length ? cursorOf(items[items.length - 1]) : null, hasMore } };
}

/** limit (default 20) and cursor, for list endpoints whose handler wants the default applied. */
export const paginationQuery = {
  limit: LimitParam.default(DEFAULT_LIMIT),
  cursor: CursorParam,
};

/** The envelope when the caller already holds the last row's bare UUID. */
export function envelope<T>(items: T[], hasMore: boolean, lastId: string | undefined) {
  return { ok: true as const, data: { items, nextCursor: hasMore && lastId ? lastId : null, hasMore } };
}
