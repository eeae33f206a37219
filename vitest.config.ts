import { defineConfig } from 'vitest/config';

// Two projects: "unit" needs nothing running; "integration" gets a real DynamoDB Local, s3rver and the
// local HTTP server started once by test/integration/global-setup.ts.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'scanner/test/**/*.test.ts', 'test/infra/**/*.test.ts'],
          globalSetup: ['test/synth-setup.ts'],
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'integration',
          // test/e2e: the dashboard in Chromium, against the same local stack.
          include: ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          globalSetup: ['test/synth-setup.ts', 'test/integration/global-setup.ts'],
          setupFiles: ['test/integration/setup-env.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
