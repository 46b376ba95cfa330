// Every test file's setup (vitest `setupFiles`, run once per file even without isolation). Both
// projects run files without isolation, so helper and source modules are evaluated once per worker
// and shared by the files it runs: hooks a helper registered at its top level would fire for the
// first file only, and process-wide settings one file made would reach the next. Per-file hooks,
// and the reset of those settings, live here.
import { afterAll, afterEach } from 'vitest';
import { LEVELS, setLogLevel, setRouter, setSink } from '../../src/util/log.ts';
import { removeFileTrees, removeTestTrees } from './tmp.ts';

// Before the file is imported (not in a hook: a file may install its own sink at its top level), a
// `logging:` section an earlier file applied in-process (a file handler in a temp directory since
// removed, a level) is undone.
setRouter(null);
setSink(null);
setLogLevel(LEVELS.INFO);
afterEach(removeTestTrees);
afterAll(removeFileTrees);
