-- Token counts written before the exact tokenizer was ready are upper bounds (one token
-- per byte at most). `provisional_counts_from_seq` is the lowest `seq` whose stored count
-- may be such a bound; NULL when every stored count is exact. A process with the
-- tokenizer recounts those rows and clears it.

ALTER TABLE conversations ADD COLUMN provisional_counts_from_seq INTEGER;

-- Messages had no count updates before; a recount changes token_count in place.
CREATE TRIGGER context_tokens_message_recount AFTER UPDATE OF token_count ON messages
WHEN new.replaced_by IS NULL AND old.replaced_by IS NULL
BEGIN
    UPDATE conversations SET context_tokens = context_tokens + new.token_count - old.token_count
    WHERE id = new.conversation_id AND new.seq > COALESCE(compressed_through_seq, 0);
END;
