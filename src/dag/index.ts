// DAG orchestration, the pure core (spec 04): run documents, the state machine, the planner and its
// reducers, run keys, catch-up/backfill planning, reload rules. No I/O and no clock: every `now` is
// epoch seconds passed in (the document's unit), except the schedule functions, which take epoch ms.
//
// One advance pass on the lease holder (§7.4), built from these:
//   1. in a write txn: apply(run, dag, {type:'reconcile', proc, host, alive, now})
//   2. read the document; for each `expand` action of plan(run, dag, now), read the XCom payload and
//      decodeItems() it (a store *error* means: leave it out and retry later)
//   3. in a write txn: re-read, claimPass(run, dag, {now, proc, host, expansions}) -> write `touched`
//   4. spawn each of pass.launches; report apply(..., {type:'pid'}) and later {type:'complete'}
//      with the launch's attempt and pokeCount (fenced, so a retried write is harmless)
//   5. wake again at pass.wakeAt (null: terminal, release the lease)
// Decisions are apply(run, dag, {type:'decision'}) in a write txn on any node (409 on `rejected`).
export * from './backfill.ts';
export * from './expand.ts';
export * from './gc.ts';
export { type DagGraph, graphOf } from './graph.ts';
export * from './model.ts';
export * from './planner.ts';
export * from './reducer.ts';
export * from './reload.ts';
export * from './runkey.ts';
export * from './trigger-rules.ts';
