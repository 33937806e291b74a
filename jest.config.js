/**
 * Three projects: unit specs beside the code; medium specs of one component against real
 * PostgreSQL (test/medium); end-to-end specs over HTTP against real PostgreSQL.
 */
const tsJest = ['ts-jest', { diagnostics: false }];
/** .ci/run keeps a Node.js release under .cache/: nothing there is the project's code. */
const notOurs = ['<rootDir>/.cache/'];

module.exports = {
  testTimeout: 180000,
  globalSetup: '<rootDir>/test/support/global-setup.js',
  globalTeardown: '<rootDir>/test/support/global-teardown.js',
  projects: [
    {
      displayName: 'unit',
      rootDir: __dirname,
      testEnvironment: 'node',
      testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/architecture/**/*.spec.ts'],
      transform: { '^.+\\.ts$': tsJest },
      modulePathIgnorePatterns: notOurs,
    },
    {
      displayName: 'medium',
      rootDir: __dirname,
      testEnvironment: 'node',
      testMatch: ['<rootDir>/test/medium/**/*.medium-spec.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/support/response-conformance.setup.ts'],
      transform: { '^.+\\.ts$': tsJest },
      modulePathIgnorePatterns: notOurs,
    },
    {
      displayName: 'e2e',
      rootDir: __dirname,
      testEnvironment: 'node',
      testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/support/response-conformance.setup.ts'],
      transform: { '^.+\\.ts$': tsJest },
      modulePathIgnorePatterns: notOurs,
    },
  ],
};
