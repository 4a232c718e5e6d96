// Two projects (STYLE.md, "A suite that answers in minutes"): isolated files run side by side on
// every core; the machine-heavy suites (their own server processes, database servers, Galera
// cluster, web servers, a browser) and the timing-sensitive races run one at a time, so they
// never compete with each other. `npm test` runs the two projects side by side (support/run-tests.mjs).

/** Suites that start processes or servers of their own, or race on timing: run serially. */
const SERIAL = [
  'integration/attendance-concurrency',
  'integration/caller-concurrency',
  'integration/database-servers',
  'integration/deploy-files',
  'integration/docs-browser',
  'integration/faults',
  'integration/galera-cluster',
  'integration/galera-node-failure',
  'integration/instance-directory',
  'integration/npm-start',
  'integration/pay-period-dates',
  'integration/pay-period-lock-race',
  'integration/server-cluster',
  'integration/server-process',
  'integration/schedule-sweep-process',
  'integration/server-terminal',
  'integration/tokens',
  'integration/web-server-configs',
  'integration/web-servers',
  'integration/webhooks-process',
  'unit/build-if-stale',
];
const serialMatch = SERIAL.map((name) => `<rootDir>/test/${name}.test.ts`);

const shared = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  // Transpile only (isolatedModules in tsconfig.json): npm test type-checks with tsc beside jest.
  transform: { '^.+\\.ts$': 'ts-jest' },
};

/** @type {import('jest').Config} */
module.exports = {
  globalSetup: '<rootDir>/test/helpers/global-setup.ts',
  reporters: ['default', '<rootDir>/test/helpers/database-report.js'],
  testTimeout: 30000,
  projects: [
    { ...shared, displayName: 'parallel', testMatch: ['**/*.test.ts'], testPathIgnorePatterns: ['/node_modules/', ...serialMatch] },
    {
      ...shared,
      displayName: 'serial',
      testMatch: serialMatch,
      // One Galera cluster for the run's Galera suites, started only when the run includes one.
      globalSetup: '<rootDir>/test/helpers/galera-global-setup.ts',
      globalTeardown: '<rootDir>/test/helpers/galera-global-teardown.ts',
    },
  ],
};
