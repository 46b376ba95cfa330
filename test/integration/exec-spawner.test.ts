// exec through the spawner process (launch's choice during a burst where perl exists): the same suite.
import { afterAll } from 'vitest';
import { SpawnerProcess } from '../../src/exec/index.ts';
import { execSuite } from './exec-suite.ts';

const spawner = new SpawnerProcess({ idleMs: 1000 });
afterAll(() => spawner.close());

execSuite('spawner-process spawn', spawner.spawn);
