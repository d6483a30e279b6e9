//! The columns of the stored entities, listed once for both stores: SQLite and
//! PostgreSQL name them alike, and each store's decoder reads a row of them by name.
//! Macros, so a store's statement can be built with `concat!` at compile time
//! (`concat!("SELECT ", turn_columns!(), " FROM turns WHERE id = ?1")`).

/// The columns of a `conversations` row.
#[macro_export]
macro_rules! conversation_columns {
    () => {
        "id, user_name, title, created_at, updated_at, compressed_context, compressed_at, \
         compressed_through_seq, context_tokens, model_id, provisional_counts_from_seq, \
         parent_conversation_id, parent_tool_call_id, agent_name"
    };
}

/// The start of the statement reading a parent's sub-agents (a store adds
/// `WHERE parent_conversation_id = <its placeholder> ORDER BY created_at, id`): each
/// sub-agent conversation's columns with its latest turn's `latest_status`,
/// `latest_error` and `latest_tool_calls`, in one statement.
#[macro_export]
macro_rules! sub_agent_runs_select {
    () => {
        concat!(
            "SELECT ",
            $crate::conversation_columns!(),
            ", (SELECT t.status FROM turns t WHERE t.conversation_id = conversations.id \
               ORDER BY t.seq DESC LIMIT 1) AS latest_status, \
             (SELECT t.error FROM turns t WHERE t.conversation_id = conversations.id \
               ORDER BY t.seq DESC LIMIT 1) AS latest_error, \
             (SELECT COUNT(*) FROM tool_calls tc WHERE tc.turn_id = \
               (SELECT t.id FROM turns t WHERE t.conversation_id = conversations.id \
                ORDER BY t.seq DESC LIMIT 1)) AS latest_tool_calls \
             FROM conversations "
        )
    };
}

/// The columns of a `turns` row.
#[macro_export]
macro_rules! turn_columns {
    () => {
        "id, conversation_id, seq, thinking_mode, status, error, created_at, completed_at, \
         owner_pid, owner_host, owner_started_at, heartbeat_at, undone_at, cut"
    };
}

/// The columns of a `messages` row.
#[macro_export]
macro_rules! message_columns {
    () => {
        "id, conversation_id, turn_id, seq, role, content, token_count, created_at, \
         replaced_by, is_edited"
    };
}

/// The columns of a `tool_calls` row.
#[macro_export]
macro_rules! tool_call_columns {
    () => {
        "id, conversation_id, turn_id, seq, call_id, tool_name, arguments, result, status, \
         token_count, started_at, completed_at"
    };
}

/// The columns of an `attachments` row, of the table named `a` (the stores join
/// attachments with their messages).
#[macro_export]
macro_rules! attachment_columns {
    () => {
        "a.id, a.conversation_id, a.message_id, a.name, a.media_type, a.kind, a.size, \
         a.sha256, a.image_width, a.image_height, a.created_at"
    };
}

/// The columns of a `model_requests` row (one per model request: usage).
#[macro_export]
macro_rules! usage_columns {
    () => {
        "user_name, conversation_id, turn_id, sub_conversation_id, step, purpose, model, \
         prompt_tokens, cached_prompt_tokens, completion_tokens, reasoning_tokens, cost_picos, \
         currency, first_token_ms, duration_ms, retries, outcome, ended_at"
    };
}

/// The columns of a `hook_runs` row.
#[macro_export]
macro_rules! hook_run_columns {
    () => {
        "conversation_id, turn_id, event, tool_name, call_id, command, exit_code, \
         duration_ms, decision, ended_at"
    };
}

/// The columns of a `permission_grants` row (a person's lasting "yes"; `rules` is a
/// JSON array of rule texts, `conversation_id` NULL for always).
#[macro_export]
macro_rules! grant_columns {
    () => {
        "id, user_name, conversation_id, rules, prompted_by, granted_at, revoked_at"
    };
}

/// The columns of an `mcp_credentials` row (a person's sealed sign-in to an MCP
/// server; `sealed` is base64).
#[macro_export]
macro_rules! mcp_credential_columns {
    () => {
        "user_name, server, sealed, updated_at"
    };
}

/// The columns of a `turn_file_changes` row, of the table named `f`.
#[macro_export]
macro_rules! file_change_columns {
    () => {
        "f.turn_id, f.path, f.from_path, f.kind, f.sha256_before, f.size_before, \
         f.sha256_after, f.size_after, f.not_captured, f.rewind_id"
    };
}

#[cfg(test)]
mod tests {
    /// Each list names each column once, and no list is empty.
    #[test]
    fn each_list_names_its_columns_once() {
        let lists = [
            conversation_columns!(),
            turn_columns!(),
            file_change_columns!(),
            message_columns!(),
            tool_call_columns!(),
            attachment_columns!(),
            usage_columns!(),
            hook_run_columns!(),
            grant_columns!(),
            mcp_credential_columns!(),
        ];
        for list in lists {
            let names: Vec<&str> = list.split(',').map(str::trim).collect();
            let unique: std::collections::BTreeSet<&str> = names.iter().copied().collect();
            assert_eq!(unique.len(), names.len(), "{list}");
            assert!(
                names.iter().all(|n| !n.is_empty() && !n.contains(' ')),
                "{list}"
            );
        }
    }
}
