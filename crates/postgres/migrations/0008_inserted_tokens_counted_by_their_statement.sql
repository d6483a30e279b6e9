-- The rows a statement inserts are counted into `context_tokens` by that statement's
-- own UPDATE of the conversation (which hands out their seqs), not by a trigger per
-- row: a new row is never replaced, undone or before the boundary, so it counts its
-- tokens, and the conversation's row is changed once per statement instead of once
-- more per row. Changes and deletions of rows are still counted by the triggers.
DROP TRIGGER messages_context_tokens ON messages;
CREATE TRIGGER messages_context_tokens
AFTER DELETE OR UPDATE OF token_count, replaced_by, undone ON messages
FOR EACH ROW EXECUTE FUNCTION message_context_tokens();

DROP TRIGGER tool_calls_context_tokens ON tool_calls;
CREATE TRIGGER tool_calls_context_tokens
AFTER DELETE OR UPDATE OF token_count, undone ON tool_calls
FOR EACH ROW EXECUTE FUNCTION tool_call_context_tokens();
