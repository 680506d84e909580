/** One jest run covers unit, API, workflow and browser tests. The global setup
 * starts the real stack once (embedded PostgreSQL, Temporal dev server, worker). */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // Chaos scenarios run separately: npm run test:chaos (jest.chaos.config.js).
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/chaos/'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } }] },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 120000,
  maxWorkers: 2,
};
