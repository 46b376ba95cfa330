// exec through the worker-pool spawn path (launch's choice during a burst): the same suite.
import { afterAll } from 'vitest';
import { SpawnPool } from '../../src/exec/index.ts';
import { execSuite } from './exec-suite.ts';

const pool = new SpawnPool({ size: 2 });
afterAll(() => pool.close());

execSuite('worker-pool spawn', pool.spawn);
