import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './test/helpers/longest-first.ts';

// The tests talk only to loopback servers, over TLS only with CAs they mint themselves. A
// NODE_EXTRA_CA_CERTS in the environment (a proxy's bundle, as on this project's dev machines) makes
// every Node process parse it as it starts: ~0.04 CPU-s each, and a run starts over a thousand
// (daemons, CLI runs, job verbs, vitest's forks). The forks and every process a test starts
// inherit this environment, so they start without it (bench/RESULTS.md, "Suite time").
delete process.env.NODE_EXTRA_CA_CERTS;

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // The JSON report feeds scripts/test-durations.mjs (the sequencer's table below).
    reporters: [
      'default',
      './test/helpers/flaky-reporter.ts',
      ['json', { outputFile: '.tmp/vitest-report.json' }],
    ],
    // Longest files first from test/durations.json, so no worker starts a 70 s file near the end.
    sequence: { sequencer: LongestFirstSequencer },
    // Per-file hooks (temp trees): a helper module is shared by the files of a worker (no isolation).
    setupFiles: ['./test/helpers/file-setup.ts'],
    projects: [
      {
        extends: true,
        test: {
          // Pure logic, fake clocks, golden vectors: threads, and no retry (a unit test that fails
          // once is wrong, not unlucky). Its group runs before the system one. Three threads on two
          // cores: alone, the group took 38.3 s at two (the cores 1.4-1.7 busy while a thread
          // waited on vitest's main process for a file's transforms), 33.8 s at three, 33.1 at
          // four, for the same 61 CPU-s.
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          // Store lanes start on the built lane bundle when it is current (test/helpers/dev-lane.ts).
          globalSetup: ['./test/helpers/dev-lane.ts'],
          pool: 'threads',
          isolate: false,
          maxWorkers: 3,
          retry: 0,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          // Real daemons, child processes, SQLite files, etcd, Chromium: forks, after the unit
          // group. Five files at a time on 2 cores: a system file spends much of its time waiting
          // on real timers and child processes. Sampled every 5 s (bench/RESULTS.md, "Suite time"),
          // four left the cores ~40% idle for minutes at a time while wait-bound files (lease
          // expiries, fleets) ran together; five kept them busy; six overran them (more CPU, a
          // failure and three retries). A test that fails is run once more: a
          // handful race real daemons on a loaded CI machine; a pass on the retry is still listed,
          // with the first failure, by the flaky reporter, so a flake is seen and fixed, not hidden.
          name: 'system',
          include: ['test/**/*.test.ts'],
          exclude: ['test/unit/**'],
          pool: 'forks',
          // A fork runs file after file with the modules it already loaded: a fresh process and
          // module graph per file cost ~0.8 CPU-s each, 116 CPU-s of a whole run (acct, bench/RESULTS.md
          // "Suite time"). Per-file hooks live in test/helpers/file-setup.ts.
          isolate: false,
          // One headless Chromium for the run, started when a file first asks for a page; the Bun
          // binary's build started in the background, on the cores the unit group leaves idle.
          globalSetup: [
            './test/helpers/chromium-broker.ts',
            './test/helpers/dev-lane.ts',
            './test/helpers/binary-prebuild.ts',
          ],
          maxWorkers: 5,
          // expect.poll's own default (1 s) is a unit-test figure: a page or daemon answering a
          // second late on a loaded CI machine is slow, not wrong.
          expect: { poll: { timeout: 5_000, interval: 100 } },
          retry: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
