DROP VIEW `slots`;--> statement-breakpoint
CREATE VIEW `slots` AS select "ns", "job", "scheduled_at", "outcome", "ledger_outcome", "node", "run_id", "reason", "finished_at", "attempts", "records", "id" from (select "ns", "job", "scheduled_at", CASE
  WHEN "outcome" IN ('success', 'failure', 'unknown', 'cancelled') AND "trigger" = 'catchup' THEN 'caught-up'
  WHEN "outcome" = 'skipped:gate' AND lower("fail_reason") LIKE '%quorum%' THEN 'no-quorum'
  WHEN "outcome" = 'skipped:gate' AND lower("fail_reason") LIKE '%paused%' THEN 'paused'
  WHEN "outcome" = 'running' THEN 'running'
  WHEN "outcome" = 'success' THEN 'ran'
  WHEN "outcome" IN ('failure', 'unknown') THEN 'failed'
  WHEN "outcome" = 'cancelled' THEN 'cancelled'
  WHEN "outcome" = 'skipped:overlap' THEN 'skipped-overlap'
  WHEN "outcome" IN ('skipped:gate', 'skipped:already-ran-this-boot') THEN 'skipped-gate'
  WHEN "outcome" = 'skipped:only-if-last-succeeded' THEN 'skipped-only-if-last-succeeded'
  WHEN "outcome" = 'claimed-elsewhere' THEN 'claimed-elsewhere'
  WHEN "outcome" = 'missed' THEN 'missed'
  WHEN "outcome" = 'missed-overload' THEN 'missed-overload'
  WHEN "outcome" = 'dst-shifted' THEN 'dst-shifted'
  WHEN "outcome" = 'dst-skipped' THEN 'dst-skipped'
  WHEN "outcome" = 'dst-repeated' THEN 'dst-repeated'
  WHEN "outcome" = 'no-quorum' THEN 'no-quorum'
  WHEN "outcome" IN ('paused', 'skipped') THEN 'paused'
  WHEN "outcome" = 'skipped:disabled' THEN 'disabled'
  WHEN "outcome" LIKE 'skipped:%' THEN 'skipped-gate'
  ELSE 'failed' END as "outcome", "outcome" as "ledger_outcome", "node", "run_id", "fail_reason" as "reason", "finished_at", sum("outcome" IN ('success', 'failure', 'unknown', 'cancelled')) as "attempts", count(*) as "records", "id", max(CASE
  WHEN "outcome" IN ('success', 'failure', 'unknown', 'cancelled') AND "trigger" = 'catchup' THEN 3
  WHEN "outcome" = 'skipped:gate' AND lower("fail_reason") LIKE '%quorum%' THEN 2
  WHEN "outcome" = 'skipped:gate' AND lower("fail_reason") LIKE '%paused%' THEN 2
  WHEN "outcome" = 'running' THEN 3
  WHEN "outcome" = 'success' THEN 3
  WHEN "outcome" IN ('failure', 'unknown') THEN 3
  WHEN "outcome" = 'cancelled' THEN 3
  WHEN "outcome" = 'skipped:overlap' THEN 2
  WHEN "outcome" IN ('skipped:gate', 'skipped:already-ran-this-boot') THEN 1
  WHEN "outcome" = 'skipped:only-if-last-succeeded' THEN 2
  WHEN "outcome" = 'claimed-elsewhere' THEN 1
  WHEN "outcome" = 'missed' THEN 2
  WHEN "outcome" = 'missed-overload' THEN 2
  WHEN "outcome" = 'dst-shifted' THEN 2
  WHEN "outcome" = 'dst-skipped' THEN 2
  WHEN "outcome" = 'dst-repeated' THEN 2
  WHEN "outcome" = 'no-quorum' THEN 2
  WHEN "outcome" IN ('paused', 'skipped') THEN 2
  WHEN "outcome" = 'skipped:disabled' THEN 2
  WHEN "outcome" LIKE 'skipped:%' THEN 1
  ELSE 3 END * 1000000000000 + "id") as "rank" from "runs" where "scheduled_at" IS NOT NULL group by "ns", "job", "scheduled_at");