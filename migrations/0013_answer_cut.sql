-- An answer cut by a limit: the model stopped because the request's output limit was
-- reached (`output_limit`, finish_reason "length") or the server's context was full
-- (`context_full`). The answer is kept as far as it came; this marks the turn so that
-- no one takes it for whole. NULL for every other turn.
ALTER TABLE turns ADD COLUMN cut TEXT NULL CHECK (cut IN ('output_limit', 'context_full'));
