-- The model a conversation runs on: an id from models.json, NULL for the default.
-- An id that is no longer configured falls back to the default when a turn starts.

ALTER TABLE conversations ADD COLUMN model_id TEXT;
