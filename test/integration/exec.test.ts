// exec through the in-thread spawn path (launch's choice while launches are few).
import { spawnInThread } from '../../src/exec/index.ts';
import { execSuite } from './exec-suite.ts';

execSuite('in-thread spawn', spawnInThread);
