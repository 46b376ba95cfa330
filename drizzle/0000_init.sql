CREATE TABLE `blobs` (
	`ns` text NOT NULL,
	`sha256` text NOT NULL,
	`size` integer NOT NULL,
	`data` blob NOT NULL,
	`touched_at` real NOT NULL,
	PRIMARY KEY(`ns`, `sha256`)
);
--> statement-breakpoint
CREATE INDEX `blobs_ns_touched` ON `blobs` (`ns`,`touched_at`);--> statement-breakpoint
CREATE TABLE `documents` (
	`ns` text NOT NULL,
	`doc_ns` text NOT NULL,
	`key` text NOT NULL,
	`schema_version` text NOT NULL,
	`data` text NOT NULL,
	`updated_at` real NOT NULL,
	PRIMARY KEY(`ns`, `doc_ns`, `key`)
);
--> statement-breakpoint
CREATE TABLE `leases` (
	`ns` text NOT NULL,
	`name` text NOT NULL,
	`holder` text NOT NULL,
	`fence` integer NOT NULL,
	`expires_at` real NOT NULL,
	`updated_at` real NOT NULL,
	PRIMARY KEY(`ns`, `name`)
);
--> statement-breakpoint
CREATE TABLE `records` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`ns` text NOT NULL,
	`stream` text NOT NULL,
	`schema_version` text NOT NULL,
	`written_at` real NOT NULL,
	`writer` text NOT NULL,
	`data` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `records_ns_stream_id` ON `records` (`ns`,`stream`,`id`);--> statement-breakpoint
CREATE TABLE `store_meta` (
	`ns` text NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	PRIMARY KEY(`ns`, `key`)
);
--> statement-breakpoint
CREATE TABLE `stream_counts` (
	`ns` text NOT NULL,
	`stream` text NOT NULL,
	`v1_records` integer NOT NULL,
	PRIMARY KEY(`ns`, `stream`)
);
