-- A sub-agent's conversation: the parent conversation whose turn ran it, the model's id
-- of that `Delegate` call, and the agent's name. All three are set for a sub-agent's
-- conversation and NULL for every other; they never change. No foreign key: deleting a
-- parent keeps its sub-agents' conversations (`conversations list --all` shows them).
ALTER TABLE conversations ADD COLUMN parent_conversation_id TEXT NULL;
ALTER TABLE conversations ADD COLUMN parent_tool_call_id TEXT NULL;
ALTER TABLE conversations ADD COLUMN agent_name TEXT NULL;
CREATE INDEX conversations_by_parent ON conversations (parent_conversation_id)
    WHERE parent_conversation_id IS NOT NULL;
