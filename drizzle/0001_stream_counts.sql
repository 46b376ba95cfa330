-- Custom SQL migration: triggers keeping stream_counts (v1 records per stream) exact, so
-- pruning a stream to its newest N after an append needs no O(N) index scan.
INSERT INTO `stream_counts` (`ns`, `stream`, `v1_records`)
  SELECT `ns`, `stream`, count(*) FROM `records` WHERE `schema_version` = 'v1' GROUP BY `ns`, `stream`;
--> statement-breakpoint
CREATE TRIGGER `records_count_insert` AFTER INSERT ON `records` WHEN NEW.`schema_version` = 'v1' BEGIN
  INSERT INTO `stream_counts` (`ns`, `stream`, `v1_records`) VALUES (NEW.`ns`, NEW.`stream`, 1)
    ON CONFLICT (`ns`, `stream`) DO UPDATE SET `v1_records` = `v1_records` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `records_count_delete` AFTER DELETE ON `records` WHEN OLD.`schema_version` = 'v1' BEGIN
  UPDATE `stream_counts` SET `v1_records` = `v1_records` - 1 WHERE `ns` = OLD.`ns` AND `stream` = OLD.`stream`;
END;
