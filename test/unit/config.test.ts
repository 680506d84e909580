import { loadConfig, ConfigError } from '../../src/config';

describe('config', () => {
  const base = { DATABASE_URL: 'postgres://u:p@localhost:5432/db' };

  it('applies defaults', () => {
    const c = loadConfig(base);
    expect(c.port).toBe(3000);
    expect(c.temporal).toMatchObject({ address: 'localhost:7233', namespace: 'default', taskQueue: 'payments' });
    expect(c.publicBaseUrl).toBe('http://localhost:3000');
    expect(c.basePath).toBe('');
    expect(c.rateLimitPerSecond).toBe(1000);
  });

  it('derives the mount path from PUBLIC_BASE_URL, and lets BASE_PATH override it', () => {
    expect(loadConfig({ ...base, PUBLIC_BASE_URL: 'https://pay.example.com/api/' }).basePath).toBe('/api');
    expect(loadConfig({ ...base, PUBLIC_BASE_URL: 'https://pay.example.com/api', BASE_PATH: '' }).basePath).toBe('');
  });

  it('fails fast naming each bad variable', () => {
    expect(() => loadConfig({})).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, PORT: 'abc', LOG_LEVEL: 'loud' })).toThrow(/PORT[\s\S]*LOG_LEVEL|LOG_LEVEL[\s\S]*PORT/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL: must be a postgres/);
  });
});
