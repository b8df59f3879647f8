import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    // Two files at a time: vitest's default on a 2-CPU machine is one (CPUs - 1), and most test files wait on
    // servers, databases and browsers rather than compute; each app test has its own database (schema), so files
    // are independent. Keeps the CI run (both databases) under its 20 minutes on this machine.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
