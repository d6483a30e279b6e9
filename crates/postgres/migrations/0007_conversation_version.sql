-- A conversation's version: one more with every write of its rows (a turn started, a
-- step, a tool result, a turn ended or interrupted, an edit, an undo, a compression,
-- recounted tokens). A process that keeps a conversation's rows in memory reads the
-- version with them and uses its copy only while the version has not moved.
ALTER TABLE conversations ADD COLUMN version BIGINT NOT NULL DEFAULT 0;
