//! `smallebot permissions` and chat's `/permissions`: the grants people gave when asked
//! ("always in this conversation", "always") listed — id, when, scope, the rules they
//! added, the call that prompted them — and revoked by id (the binary opens the store).

use std::fmt::Write as _;

use smallebot_core::entities::{GrantFilter, GrantId, GrantScope, PermissionGrant};
use smallebot_core::repository::PermissionGrantRepository;
use smallebot_core::rules::terminal_text::escape_line;
use smallebot_core::time::format_timestamp;

use crate::TerminalError;

/// `smallebot permissions …`
#[derive(Debug, Clone, clap::Subcommand)]
pub enum PermissionsCommand {
    /// The grants given when asked: id, when, user, scope, the rules added, the call
    /// that prompted it (revoked ones only with --all).
    List {
        /// Only this user's grants.
        #[arg(long)]
        user: Option<String>,
        /// Revoked grants too.
        #[arg(long)]
        all: bool,
        /// One JSON array on standard output instead of the table.
        #[arg(long)]
        json: bool,
    },
    /// Revokes the grant ID (from `permissions list`): calls like it are asked about
    /// again.
    Revoke {
        /// The grant's id.
        id: GrantId,
    },
}

/// How a grant's scope reads: `always` or `conversation <first 8 of the id>`.
#[must_use]
pub fn scope_text(scope: GrantScope) -> String {
    match scope {
        GrantScope::Always => "always".to_owned(),
        GrantScope::Conversation(id) => {
            let id = id.to_string();
            format!("conversation {}", id.get(..8).unwrap_or(&id))
        }
    }
}

/// The grants as a table: a header and a line per grant (`revoked` marked); a sentence
/// when there are none.
#[must_use]
pub fn grants_table(grants: &[PermissionGrant]) -> String {
    if grants.is_empty() {
        return "no permission grants (they are added when you answer \"always\" to a question)\n"
            .to_owned();
    }
    let rows: Vec<[String; 6]> = grants
        .iter()
        .map(|g| {
            let mut scope = scope_text(g.scope);
            if g.revoked_at.is_some() {
                scope.push_str(" (revoked)");
            }
            [
                g.id.to_string(),
                format_timestamp(&g.granted_at),
                escape_line(&g.user_name).into_owned(),
                scope,
                escape_line(&g.rules.join(", ")).into_owned(),
                escape_line(&g.call).into_owned(),
            ]
        })
        .collect();
    let header = ["id", "when", "user", "scope", "rules", "call"];
    let mut widths = header.map(str::len);
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let mut line = |cells: [&str; 6]| {
        let mut text = String::new();
        for (cell, width) in cells.iter().zip(widths) {
            let _ = write!(text, "{cell:<width$}  ");
        }
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line(header);
    for row in &rows {
        line(row.each_ref().map(String::as_str));
    }
    out
}

/// Revokes grant `id` (only `user`'s, when given); what to tell the person.
///
/// # Errors
/// [`TerminalError::NoSuchGrant`] for an id no grant (of `user`) has; the store fails.
pub async fn revoke(
    store: &dyn PermissionGrantRepository,
    id: GrantId,
    user: Option<&str>,
) -> Result<String, TerminalError> {
    let now = chrono::Utc::now();
    let grant = store
        .revoke_permission_grant(id, user, now)
        .await?
        .ok_or(TerminalError::NoSuchGrant(id))?;
    let what = format!(
        "{}, {}",
        escape_line(&grant.rules.join(", ")),
        scope_text(grant.scope)
    );
    // A grant revoked before keeps its first revocation time (the stores keep
    // milliseconds or microseconds of `now`, so a revocation now reads within 1 ms).
    Ok(match grant.revoked_at {
        Some(at) if now - at > chrono::Duration::milliseconds(1) => format!(
            "grant {id} ({what}) was already revoked at {}: nothing changed",
            format_timestamp(&at)
        ),
        _ => format!("revoked grant {id} ({what}): calls like it are asked about again"),
    })
}

/// Runs `command` on `store`.
///
/// # Errors
/// An unknown grant id; the store fails, or the output cannot be written.
pub async fn run(
    store: &dyn PermissionGrantRepository,
    command: &PermissionsCommand,
) -> Result<(), TerminalError> {
    match command {
        PermissionsCommand::List { user, all, json } => {
            let filter = GrantFilter {
                user: user.clone(),
                revoked: *all,
                ..GrantFilter::default()
            };
            let grants = store.permission_grants(&filter).await?;
            if *json {
                outln!("{}", serde_json::to_string(&grants).unwrap_or_default())?;
            } else {
                out!("{}", grants_table(&grants))?;
            }
        }
        PermissionsCommand::Revoke { id } => {
            outln!("{}", revoke(store, *id, None).await?)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use smallebot_core::ids::ConversationId;

    fn grant(id: i64, scope: GrantScope, revoked: bool) -> PermissionGrant {
        let at = smallebot_core::time::parse_timestamp("2026-03-01T10:00:00.000Z").unwrap();
        PermissionGrant {
            id,
            user_name: "ann".into(),
            scope,
            rules: vec!["ExecuteCommand(git status)".into()],
            call: "git status".into(),
            granted_at: at,
            revoked_at: revoked.then_some(at),
        }
    }

    #[test]
    fn the_table_shows_each_grant_and_marks_the_revoked() {
        let conversation: ConversationId = "0192f0aa-0000-7000-8000-000000000000".parse().unwrap();
        let table = grants_table(&[
            grant(1, GrantScope::Always, false),
            grant(12, GrantScope::Conversation(conversation), true),
        ]);
        assert_eq!(
            table,
            "id  when                      user  scope                            rules                       call\n\
             1   2026-03-01T10:00:00.000Z  ann   always                           ExecuteCommand(git status)  git status\n\
             12  2026-03-01T10:00:00.000Z  ann   conversation 0192f0aa (revoked)  ExecuteCommand(git status)  git status\n"
        );
    }

    #[test]
    fn no_grants_say_how_they_come() {
        assert!(grants_table(&[]).starts_with("no permission grants"));
    }
}
