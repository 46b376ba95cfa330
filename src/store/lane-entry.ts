// Lane worker entry when running from TypeScript sources (tests, tsx): ./lanes.ts starts it
// through tsx's loader. The bundle does not use this file: there the worker is the bundle
// itself and src/main.ts routes `workerData.task === 'cronstable:store-lane'` to runStoreLane.
import { parentPort, workerData } from 'node:worker_threads';
import { runStoreLane } from './lane.ts';
import { type LaneWorkerData, STORE_LANE_TASK } from './protocol.ts';

const data = workerData as LaneWorkerData | undefined;
if (parentPort && data?.task === STORE_LANE_TASK) runStoreLane(data, parentPort);
