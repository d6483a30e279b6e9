-- Leases of running turns: which process runs a turn and when it last said so, so
-- recovery marks only turns whose owner is gone, and one conversation has at most one
-- running turn across every process that shares the database.

ALTER TABLE turns ADD COLUMN owner_pid INTEGER;
ALTER TABLE turns ADD COLUMN owner_host TEXT;
ALTER TABLE turns ADD COLUMN owner_started_at TEXT;
ALTER TABLE turns ADD COLUMN heartbeat_at TEXT;

CREATE INDEX turns_running_by_conversation ON turns(conversation_id) WHERE status = 'running';
