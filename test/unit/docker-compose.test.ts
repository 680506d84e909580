import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { CONFIG_ENV_KEYS, loadConfig } from '../../src/config';

const root = path.resolve(__dirname, '..', '..');
const compose = parse(fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'), { merge: true });
const scripts = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).scripts;

describe('docker-compose.yml', () => {
  it('describes PostgreSQL, Temporal on that PostgreSQL, the UI, the API and the worker', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['api', 'postgres', 'temporal', 'temporal-ui', 'worker']);
    expect(compose.services.temporal.environment).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgres' });
    expect(compose.services['temporal-ui'].environment.TEMPORAL_ADDRESS).toBe('temporal:7233');
  });

  it.each([
    ['api', 'api'],
    ['worker', 'worker'],
  ])('runs the %s with `npm run %s` and only variables the config reads', (service, script) => {
    const svc = compose.services[service];
    expect(svc.command).toEqual(['npm', 'run', script]);
    expect(scripts[script]).toBe(`tsx src/${script}.ts`);
    const env = svc.environment as Record<string, string>;
    const unknown = Object.keys(env).filter((k) => !CONFIG_ENV_KEYS.includes(k));
    expect(unknown).toEqual([]);
    // The environment parses: a process started with it would not fail fast.
    const config = loadConfig(env);
    expect(new URL(config.databaseUrl.replace(/^postgres/, 'http')).hostname).toBe('postgres');
    expect(config.temporal.address).toBe('temporal:7233');
    expect(config.temporal.taskQueue).toBe('payments');
  });

  it('points the API and worker at the same database and task queue', () => {
    const api = compose.services.api.environment;
    const worker = compose.services.worker.environment;
    for (const key of ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', 'TEMPORAL_TASK_QUEUE']) expect(api[key]).toBe(worker[key]);
  });
});
