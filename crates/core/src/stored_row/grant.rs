//! A row of [`grant_columns!`](crate::grant_columns): a permission grant.

use super::{StoredRow, opt_id, text, time};
use crate::RepositoryError;
use crate::entities::{GrantScope, PermissionGrant, UserRules};
use crate::repository::RepoResult;

/// The rules of a grant as stored: a JSON array of rule texts.
#[must_use]
pub fn grant_rules_text(rules: &[String]) -> String {
    serde_json::Value::from(rules.to_vec()).to_string()
}

/// A user's own rules from their stored `deny_rules` and `ask_rules` (JSON arrays of
/// rule texts, as [`grant_rules_text`] writes them).
///
/// # Errors
/// [`RepositoryError::Corrupt`] naming the column that is no such array.
pub fn user_rules(deny_rules: &str, ask_rules: &str) -> RepoResult<UserRules> {
    let list = |column: &str, text: &str| {
        serde_json::from_str::<Vec<String>>(text).map_err(|e| RepositoryError::corrupt(column, e))
    };
    Ok(UserRules {
        deny: list("deny_rules", deny_rules)?,
        ask: list("ask_rules", ask_rules)?,
    })
}

/// A row of [`grant_columns!`](crate::grant_columns).
///
/// # Errors
/// [`RepositoryError::Corrupt`] naming the column that does not decode.
pub fn permission_grant(row: &impl StoredRow) -> RepoResult<PermissionGrant> {
    let rules: Vec<String> = serde_json::from_str(&text(row, "rules")?)
        .map_err(|e| RepositoryError::corrupt("rules", e))?;
    let id = row
        .opt_int("id")?
        .ok_or_else(|| RepositoryError::corrupt("id", "NULL where an integer is required"))?;
    Ok(PermissionGrant {
        id,
        user_name: text(row, "user_name")?,
        scope: GrantScope::of(opt_id(row, "conversation_id")?),
        rules,
        call: text(row, "prompted_by")?,
        granted_at: time(row, "granted_at")?,
        revoked_at: row.opt_time("revoked_at")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_are_stored_as_a_json_array() {
        let rules = vec!["ExecuteCommand(ls)".to_owned(), "Read\"x".to_owned()];
        let text = grant_rules_text(&rules);
        assert_eq!(text, r#"["ExecuteCommand(ls)","Read\"x"]"#);
        assert_eq!(serde_json::from_str::<Vec<String>>(&text).unwrap(), rules);
        let user = user_rules(&text, "[]").unwrap();
        assert_eq!((user.deny, user.ask), (rules, Vec::new()));
        assert!(
            user_rules("[", "[]")
                .unwrap_err()
                .to_string()
                .contains("deny_rules")
        );
    }
}
