import fs from 'node:fs';
import { stopChild } from '../../src/dev/temporal-dev-server';

export default async function globalTeardown(): Promise<void> {
  const stack = (globalThis as any).__STACK__;
  if (!stack) return;
  await stopChild(stack.worker);
  await stack.temporal.stop();
  await stack.pg.stop();
  fs.rmSync(stack.tmp, { recursive: true, force: true });
}
