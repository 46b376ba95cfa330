CREATE TABLE `fire_claims` (
	`ns` text NOT NULL,
	`job` text NOT NULL,
	`scheduled_at` text NOT NULL,
	`node` text NOT NULL,
	`claimed_at` real NOT NULL,
	PRIMARY KEY(`ns`, `job`, `scheduled_at`)
);
--> statement-breakpoint
CREATE INDEX `fire_claims_ns_claimed` ON `fire_claims` (`ns`,`claimed_at`);