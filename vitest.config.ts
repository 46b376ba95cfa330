import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two files at a time: most of the suite waits on real daemons and timers, so a second worker
    // halves the wall time on CI's 2 cores (vitest's default is cores - 1 = one file at a time).
    maxWorkers: 2,
    // A test that fails is run once more: a handful of end-to-end tests race real daemons and
    // timers on a loaded CI machine. A pass on the retry is still listed, with the first failure,
    // by the flaky reporter, so a flake is seen and fixed rather than hidden.
    retry: 1,
    reporters: ['default', './test/helpers/flaky-reporter.ts'],
  },
});
