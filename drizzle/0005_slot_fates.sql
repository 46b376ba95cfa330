DROP VIEW `slots`;--> statement-breakpoint
CREATE VIEW `slots` AS select "ns", "job", "scheduled_at", "outcome", "ledger_outcome", "node", "run_id", "reason", "finished_at", "attempts", "records", "id" from (select "ns", "job", "scheduled_at", CASE
  WHEN "outcome" IN ('success', 'failure', 'cancelled', 'unknown') AND "trigger" = 'catchup' THEN 'caught-up'
  WHEN "outcome" = 'success' THEN 'ran'
  WHEN "outcome" IN ('failure', 'unknown') THEN 'failed'
  WHEN "outcome" = 'cancelled' THEN 'cancelled'
  WHEN "outcome" = 'skipped:overlap' THEN 'skipped-overlap'
  WHEN "outcome" = 'skipped:disabled' THEN 'disabled'
  WHEN "outcome" = 'skipped:only-if-last-succeeded' THEN 'skipped-only-if-last-succeeded'
  WHEN "outcome" = 'skipped:gate' AND lower("fail_reason") LIKE '%quorum%' THEN 'no-quorum'
  WHEN "outcome" = 'skipped:gate' AND lower("fail_reason") LIKE '%paused%' THEN 'paused'
  WHEN "outcome" LIKE 'skipped:%' THEN 'skipped-gate'
  WHEN "outcome" IN ('claimed-elsewhere', 'missed', 'missed-overload', 'dst-shifted', 'dst-skipped', 'dst-repeated', 'paused', 'no-quorum') THEN "outcome"
  ELSE 'failed' END as "outcome", "outcome" as "ledger_outcome", "node", "run_id", "fail_reason" as "reason", "finished_at", sum("outcome" IN ('success', 'failure', 'cancelled', 'unknown')) as "attempts", count(*) as "records", "id", max(CASE
  WHEN "outcome" IN ('success', 'failure', 'cancelled', 'unknown') THEN 3
  WHEN "outcome" IN ('claimed-elsewhere', 'skipped:gate') AND lower(coalesce("fail_reason", '')) NOT LIKE '%quorum%' AND lower(coalesce("fail_reason", '')) NOT LIKE '%paused%' THEN 1
  ELSE 2 END * 1000000000000 + "id") as "rank" from "runs" where "scheduled_at" IS NOT NULL group by "ns", "job", "scheduled_at");