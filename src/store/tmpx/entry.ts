import { parentPort, workerData } from 'node:worker_threads';
const x: number = 42;
parentPort!.postMessage({ x, wd: workerData });
