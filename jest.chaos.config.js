/** `npm run test:chaos`: crash and outage scenarios under load, each with its own real stack. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test/chaos'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } }] },
  testTimeout: 900000,
  maxWorkers: 1,
};
