-- A tool call can end `interrupted`: the turn ended (cancelled by a shutdown, failed,
-- or marked interrupted because its process stopped) before the call finished.
ALTER TABLE tool_calls DROP CONSTRAINT tool_calls_status_check;
ALTER TABLE tool_calls ADD CONSTRAINT tool_calls_status_check
    CHECK (status IN ('running', 'ok', 'error', 'denied', 'cancelled', 'interrupted'));

-- A turn that ends while some of its tool calls still run (every end: completed,
-- cancelled, failed, interrupted; by this process or by the recovery of another) ends
-- them `interrupted` in the same transaction: no call stays `running` for good. Their
-- result stays NULL (nothing came back).
CREATE FUNCTION tool_calls_end_with_turn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE tool_calls
    SET status = 'interrupted', completed_at = COALESCE(NEW.completed_at, now())
    WHERE turn_id = NEW.id AND status = 'running';
    RETURN NULL;
END;
$$;

CREATE TRIGGER tool_calls_end_with_turn
AFTER UPDATE OF status ON turns
FOR EACH ROW WHEN (OLD.status = 'running' AND NEW.status <> 'running')
EXECUTE FUNCTION tool_calls_end_with_turn();
