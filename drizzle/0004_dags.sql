CREATE TABLE `dag_runs` (
	`ns` text NOT NULL,
	`dag` text NOT NULL,
	`run_key` text NOT NULL,
	`run_id` text NOT NULL,
	`logical_date` text,
	`kind` text NOT NULL,
	`state` text NOT NULL,
	`created_at` real NOT NULL,
	`updated_at` real NOT NULL,
	`mapped` text NOT NULL,
	`version` integer NOT NULL,
	PRIMARY KEY(`ns`, `dag`, `run_key`)
);
--> statement-breakpoint
CREATE INDEX `dag_runs_ns_dag_created` ON `dag_runs` (`ns`,`dag`,`created_at`);--> statement-breakpoint
CREATE INDEX `dag_runs_ns_state` ON `dag_runs` (`ns`,`state`);--> statement-breakpoint
CREATE TABLE `dag_tasks` (
	`ns` text NOT NULL,
	`dag` text NOT NULL,
	`run_key` text NOT NULL,
	`task_key` text NOT NULL,
	`task_id` text NOT NULL,
	`map_index` integer,
	`map_item` text,
	`mapped` integer NOT NULL,
	`state` text NOT NULL,
	`attempt` integer NOT NULL,
	`proc` text,
	`pid` integer,
	`host` text,
	`started_at` real,
	`finished_at` real,
	`exit_code` integer,
	`fail_reason` text,
	`resources` text,
	`updated_at` real NOT NULL,
	`next_retry_at` real,
	`poke_count` integer,
	`next_poke_at` real,
	`first_poke_at` real,
	`awaiting_approval` integer NOT NULL,
	`is_approval` integer NOT NULL,
	`decision` text,
	`decided_by` text,
	`decided_at` real,
	PRIMARY KEY(`ns`, `dag`, `run_key`, `task_key`)
);
--> statement-breakpoint
CREATE VIEW `xcom` AS select r."ns", d."dag", d."run_key", d."run_id", substr(json_extract(r."data", '$.name'), 1, instr(json_extract(r."data", '$.name'), '/') - 1) as "task_key", substr(json_extract(r."data", '$.name'), instr(json_extract(r."data", '$.name'), '/') + 1) as "key", json_extract(r."data", '$.sha256') as "sha256", json_extract(r."data", '$.size') as "size", json_extract(r."data", '$.at') as "put_at", count(*) as "versions", max(r."id") as "id" from "dag_runs" d join "records" r on r."ns" = d."ns" and r."stream" = 'artifacts/dagxcom/' || d."dag" || '/' || d."run_id" and r."schema_version" = 'v1' group by r."ns", r."stream", json_extract(r."data", '$.name');