// DAG orchestration, the pure core (spec 04): run documents, the state machine, the planner and its
// reducers, run keys, catch-up/backfill planning, reload rules. The store, the advance loop and the HTTP
// routes build on these.
export * from './backfill.ts';
export * from './expand.ts';
export { type DagGraph, graphOf } from './graph.ts';
export * from './model.ts';
export * from './planner.ts';
export * from './reducer.ts';
export * from './reload.ts';
export * from './runkey.ts';
export * from './trigger-rules.ts';
