import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '..', '..');

/** Every descendant pid (tsx runs the real program in a child node process). */
export function descendants(pid: number): number[] {
  let out = '';
  try {
    out = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' });
  } catch {
    return [];
  }
  const children = out.split('\n').map((s) => Number(s.trim())).filter((n) => n > 0);
  return children.flatMap((c) => [c, ...descendants(c)]);
}

/** kill -9 of a process and all it started: a crash, not a shutdown. Returns the pids killed. */
export function killTree(child: ChildProcess): number[] {
  if (!child.pid) return [];
  const pids = [...descendants(child.pid), child.pid];
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  return pids;
}

/** Runs `tsx <script>` with env; resolves once its output contains `ready`. */
export async function startTsx(script: string, env: NodeJS.ProcessEnv, ready: string, timeoutMs = 60_000): Promise<ChildProcess> {
  const child = spawn(path.join(ROOT, 'node_modules', '.bin', 'tsx'), [path.join(ROOT, script)], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} not ready in ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-8000);
      if (output.includes(ready)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code}:\n${output}`));
    });
  });
  child.removeAllListeners('exit');
  child.stdout!.resume();
  child.stderr!.resume();
  return child;
}
