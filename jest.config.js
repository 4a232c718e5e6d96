/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // Transpile only (isolatedModules in tsconfig.json): npm test type-checks with tsc before jest runs.
  transform: { '^.+\\.ts$': 'ts-jest' },
  globalSetup: '<rootDir>/test/helpers/global-setup.ts',
  reporters: ['default', '<rootDir>/test/helpers/database-report.js'],
  testTimeout: 30000,
};
