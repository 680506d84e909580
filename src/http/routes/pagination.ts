import { z } from '../zod';

/** limit 1–100 (default 20) and a bare-UUID cursor, shared by every list endpoint. */
export const paginationQuery = {
  limit: z.coerce.number().int().min(1).max(100).default(20).openapi({ description: 'Page size, 1–100.' }),
  cursor: z.string().uuid().optional().openapi({ description: 'The nextCursor of the previous page (a bare UUID).' }),
};

export function envelope<T>(items: T[], hasMore: boolean, lastId: string | undefined) {
  return { ok: true as const, data: { items, nextCursor: hasMore && lastId ? lastId : null, hasMore } };
}
