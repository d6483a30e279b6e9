//! `smallebot users …`'s arguments, and what `users set` and `users list` do with a
//! user's own permission rules (the binary opens the store, adds and removes users).

use smallebot_core::RepositoryError;
use smallebot_core::entities::{UserAccount, UserRules};
use smallebot_core::repository::UserRuleRepository;
use smallebot_core::rules::cost::format_amount;

/// `smallebot users …`
#[derive(Debug, clap::Subcommand)]
pub enum UsersCommand {
    /// Add a user and print their token — once: only its digest is stored.
    Add {
        /// The user's name (their conversations are stored under it).
        name: String,
        /// An admin: sees every user's usage (on the web page and `GET /api/usage`).
        #[arg(long)]
        admin: bool,
    },
    /// Change a user's settings: their monthly budget, their own permission rules
    /// (at least one option).
    #[command(group(clap::ArgGroup::new("change")
        .required(true)
        .multiple(true)
        .args(["budget_monthly", "deny", "ask", "clear_rules"])))]
    Set {
        /// The user's name.
        name: String,
        /// Their own monthly budget in the models' price currency (overrides agent.json
        /// budgets.perUserMonthly for them), or `none` to clear it.
        #[arg(long, value_name = "AMOUNT|none", value_parser = monthly_budget)]
        budget_monthly: Option<MonthlyBudget>,
        /// What their turns may do, beside agent.json's `permissions`: which they only
        /// narrow (there is no --allow).
        #[command(flatten)]
        rules: RulesChange,
    },
    /// Remove a user: their token stops working at once; their conversations stay.
    Remove {
        /// The user's name.
        name: String,
    },
    /// List the users: name, `admin` for admins, their own monthly budget and their
    /// own permission rules if set.
    List,
}

/// A `--budget-monthly` value: picos, or `None` to clear it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MonthlyBudget(pub Option<i64>);

fn monthly_budget(text: &str) -> Result<MonthlyBudget, String> {
    smallebot_core::rules::budget::parse_budget_setting(text).map(MonthlyBudget)
}

/// `users set`'s options for a user's own permission rules, each rule checked as
/// agent.json's are.
#[derive(Debug, Clone, Default, PartialEq, Eq, clap::Args)]
pub struct RulesChange {
    /// A rule their tool calls must never match, as in agent.json's permissions.deny
    /// (`ExecuteCommand(curl:*)`, `WriteFile(secrets/**)`); added to theirs. Repeatable.
    #[arg(long, value_name = "RULE", value_parser = permission_rule)]
    pub deny: Vec<String>,
    /// A rule of calls to ask about first, as in agent.json's permissions.ask; added to
    /// theirs. Repeatable.
    #[arg(long, value_name = "RULE", value_parser = permission_rule)]
    pub ask: Vec<String>,
    /// Remove their own rules first (before any --deny or --ask given with it).
    #[arg(long)]
    pub clear_rules: bool,
}

impl RulesChange {
    /// Whether it changes nothing.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        !self.clear_rules && self.deny.is_empty() && self.ask.is_empty()
    }
}

/// A rule of `--deny` or `--ask`, checked as agent.json's are; its text trimmed.
fn permission_rule(text: &str) -> Result<String, String> {
    smallebot_agent::config::parse_permission_rule(text).map(|rule| rule.text().to_owned())
}

/// Applies `change` to user `name`'s own rules in `store`: their rules now, `None` when
/// there is no such user.
///
/// # Errors
/// Storage failures.
pub async fn change_rules<S: UserRuleRepository + ?Sized>(
    store: &S,
    name: &str,
    change: &RulesChange,
) -> Result<Option<UserRules>, RepositoryError> {
    let rules =
        store
            .user_rules(name)
            .await?
            .changed(change.clear_rules, &change.deny, &change.ask);
    Ok(store.set_user_rules(name, &rules).await?.then_some(rules))
}

/// What `users set` says after changing user `name`'s rules to `rules`.
#[must_use]
pub fn rules_changed_text(name: &str, rules: &UserRules) -> String {
    if rules.is_empty() {
        return format!(
            "user '{name}' has no permission rules of their own now: agent.json's apply to \
             their turns"
        );
    }
    format!(
        "user '{name}': their turns are decided by agent.json's permissions and their own \
         rules from their next turn:{}",
        rules_text(rules)
    )
}

/// A `users list` line: the name, then `admin`, `budget-monthly AMOUNT` and each own
/// rule (`deny RULE`, `ask RULE`) when they apply, separated by two spaces.
#[must_use]
pub fn list_line(user: &UserAccount) -> String {
    let mut line = user.name.clone();
    if user.admin {
        line.push_str("  admin");
    }
    if let Some(picos) = user.budget_monthly {
        line.push_str("  budget-monthly ");
        line.push_str(format_amount(picos, "").trim_end());
    }
    line.push_str(&rules_text(&user.rules));
    line
}

/// `  deny RULE` and `  ask RULE` for each rule.
fn rules_text(rules: &UserRules) -> String {
    let deny = rules.deny.iter().map(|rule| format!("  deny {rule}"));
    let ask = rules.ask.iter().map(|rule| format!("  ask {rule}"));
    deny.chain(ask).collect()
}

#[cfg(test)]
mod tests {
    use smallebot_core::entities::{UserAccount, UserRules};

    use super::{list_line, permission_rule};

    #[test]
    fn a_list_line_shows_what_applies() {
        let user = |admin, budget_monthly, deny: &[&str], ask: &[&str]| UserAccount {
            name: "ann".to_owned(),
            admin,
            budget_monthly,
            rules: UserRules {
                deny: deny.iter().map(|r| (*r).to_owned()).collect(),
                ask: ask.iter().map(|r| (*r).to_owned()).collect(),
            },
        };
        let cases = [
            (user(false, None, &[], &[]), "ann"),
            (
                user(true, Some(100_000_000), &[], &[]),
                "ann  admin  budget-monthly 0.000100",
            ),
            (
                user(false, None, &["ExecuteCommand(touch:*)"], &["WriteFile"]),
                "ann  deny ExecuteCommand(touch:*)  ask WriteFile",
            ),
        ];
        for (account, want) in cases {
            assert_eq!(list_line(&account), want);
        }
    }

    #[test]
    fn rules_are_checked_as_agent_json_s() {
        assert_eq!(
            permission_rule(" ExecuteCommand(touch:*) "),
            Ok("ExecuteCommand(touch:*)".to_owned())
        );
        let unknown = permission_rule("Bash(ls)").unwrap_err();
        assert!(
            unknown.contains("`Bash(ls)` names the tool `Bash`"),
            "{unknown}"
        );
        let malformed = permission_rule("ExecuteCommand(ls").unwrap_err();
        assert!(malformed.contains("`ExecuteCommand(ls`"), "{malformed}");
    }
}
