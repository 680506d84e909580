import type { Queryable } from '../../src/db/pool';
import { errors } from '../../src/http/errors';
import { defineRoute, type RouteDef } from '../../src/http/route';
import { z } from '../../src/http/zod';
import { newUuid } from '../../src/ids';

/**
 * Test-only POST routes that create something, mounted with startTestApi(…, { extraRoutes: widgetRoutes }),
 * so idempotency can be tested on a real route without a fake production one.
 * `delay_ms` keeps the handler (and its transaction) running, so in-flight races are observable;
 * `fail` makes the handler throw a client error (stored) or a crash (not stored).
 */
export const WidgetCreateSchema = z
  .object({
    name: z.string().min(1),
    delay_ms: z.number().int().min(0).max(60_000).optional(),
    fail: z.enum(['not_found', 'crash']).optional(),
    tags: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export const WidgetSchema = z.object({ id: z.string(), object: z.literal('test_widget'), kind: z.string(), name: z.string(), livemode: z.boolean() });

export async function ensureWidgetTable(db: Queryable): Promise<void> {
  await db.query(`CREATE TABLE IF NOT EXISTS test_widgets (
    id uuid PRIMARY KEY,
    account_id uuid NOT NULL,
    livemode boolean NOT NULL,
    kind text NOT NULL,
    name text NOT NULL,
    -- How many times the handler's afterCommit hook ran for this widget.
    hooks_run integer NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT now()
  )`);
}

function widgetRoute(kind: string, path: string): RouteDef<any, any, any> {
  return defineRoute({
    method: 'post',
    path,
    operationId: `createTest${kind}`,
    summary: `Create a test ${kind} (tests only)`,
    tag: 'Test',
    body: WidgetCreateSchema,
    responses: { 200: { description: 'The widget.', schema: WidgetSchema }, 404: { description: 'Asked to fail.' } },
    async handler({ body, auth, db, services, afterCommit }) {
      const id = newUuid();
      await db.query('INSERT INTO test_widgets (id, account_id, livemode, kind, name) VALUES ($1, $2, $3, $4, $5)', [
        id,
        auth.accountId,
        auth.livemode,
        kind,
        body.name,
      ]);
      if (body.delay_ms) await new Promise((resolve) => setTimeout(resolve, body.delay_ms));
      if (body.fail === 'not_found') throw errors.notFound('widget', 'wdg_missing');
      if (body.fail === 'crash') throw new Error('widget handler crashed');
      afterCommit(async () => {
        await services.db.query('UPDATE test_widgets SET hooks_run = hooks_run + 1 WHERE id = $1', [id]);
      });
      // Keys in a deliberate, non-alphabetical order: a replay must keep it.
      return { body: { object: 'test_widget', id: `wdg_${id}`, name: body.name, kind, livemode: auth.livemode } };
    },
  });
}

export const widgetRoutes = [widgetRoute('widget', '/v1/test-widgets'), widgetRoute('gadget', '/v1/test-gadgets')];
