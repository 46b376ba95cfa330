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
  },
});
