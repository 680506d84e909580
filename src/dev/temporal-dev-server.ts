import { spawn, type ChildProcess } from 'node:child_process';
import { Connection } from '@temporalio/client';
import { devServerSearchAttributeArgs, ALL_SEARCH_ATTRIBUTES } from '../temporal/search-attributes';
import { findBinary, installHint } from './temporal-binaries';

export interface TemporalDevServerHandle {
  address: string;
  uiUrl: string | null;
  stop(): Promise<void>;
}

/**
 * Runs `temporal server start-dev` with our search attributes registered.
 * dbFile persists workflows across restarts (SQLite); without it the server is in-memory.
 * When no binary can be found offline, falls back to the SDK's cached download (needs internet).
 */
export async function startTemporalDevServer(opts: { port: number; uiPort?: number; dbFile?: string; namespace?: string; log?: (line: string) => void }): Promise<TemporalDevServerHandle> {
  const cli = findBinary('cli');
  const namespace = opts.namespace ?? 'default';
  if (!cli) return startViaSdkDownload(opts, namespace);
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(opts.port), '--namespace', namespace, '--log-level', 'warn', ...devServerSearchAttributeArgs()];
  if (opts.dbFile) args.push('--db-filename', opts.dbFile);
  if (opts.uiPort) args.push('--ui-port', String(opts.uiPort), '--ui-ip', '127.0.0.1');
  else args.push('--headless');
  const child = spawn(cli, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const capture = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
    opts.log?.(chunk.toString());
  };
  child.stdout!.on('data', capture);
  child.stderr!.on('data', capture);
  const address = `127.0.0.1:${opts.port}`;
  await waitForFrontend(address, child, () => output);
  return {
    address,
    uiUrl: opts.uiPort ? `http://localhost:${opts.uiPort}` : null,
    stop: () => stopChild(child),
  };
}

async function waitForFrontend(address: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  let exited = false;
  child.once('exit', () => (exited = true));
  while (Date.now() < deadline) {
    if (exited) throw new Error(`temporal server start-dev exited early:\n${output()}`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      try {
        const health = await connection.healthService.check({});
        if (health.status === 1) return;
      } finally {
        await connection.close();
      }
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  child.kill('SIGKILL');
  throw new Error(`Temporal dev server did not become ready on ${address} within 60 s:\n${output()}`);
}

export function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

async function startViaSdkDownload(opts: { port: number; uiPort?: number; dbFile?: string }, namespace: string): Promise<TemporalDevServerHandle> {
  try {
    const { TestWorkflowEnvironment } = await import('@temporalio/testing');
    const env = await TestWorkflowEnvironment.createLocal({
      server: {
        executable: { type: 'cached-download' },
        ip: '127.0.0.1',
        port: opts.port,
        namespace,
        ui: Boolean(opts.uiPort),
        uiPort: opts.uiPort,
        dbFilename: opts.dbFile,
        searchAttributes: ALL_SEARCH_ATTRIBUTES,
      },
    });
    return { address: `127.0.0.1:${opts.port}`, uiUrl: opts.uiPort ? `http://localhost:${opts.uiPort}` : null, stop: () => env.teardown() };
  } catch (err) {
    throw new Error(`${installHint('cli')}\n(The SDK's download fallback failed too: ${(err as Error).message})`);
  }
}
