//! `smallebot users add NAME [--admin] | set NAME [--budget-monthly N] [--deny RULE]
//! [--ask RULE] [--clear-rules] | remove NAME | list`: the web app's users (`remove`
//! also revokes and deletes their MCP sign-ins).

use smallebot_agent::assembly::Home;
use smallebot_core::rules::cost::format_amount;
use smallebot_terminal::users::{self, MonthlyBudget, RulesChange};
use smallebot_web::auth::{new_token, token_digest};

use super::open_store;
use crate::cli::UsersCommand;
use crate::database::Database;
use crate::error::HostError;

/// The longest user name accepted.
const MAX_NAME_CHARS: usize = 64;

/// Runs a `users` command.
pub async fn run(home: &Home, command: UsersCommand) -> Result<(), HostError> {
    let store = open_store(home).await?;
    let result = match command {
        UsersCommand::Add { name, admin } => add(&store, &name, admin).await,
        UsersCommand::Set {
            name,
            budget_monthly,
            rules,
        } => set(&store, &name, budget_monthly, &rules).await,
        UsersCommand::Remove { name } => remove(home, &store, &name).await,
        UsersCommand::List => match store.user_accounts().await {
            Ok(accounts) => accounts
                .iter()
                .try_for_each(|user| outln!("{}", users::list_line(user)))
                .map_err(HostError::from),
            Err(err) => Err(err.into()),
        },
    };
    store.close().await;
    result
}

/// `users remove`: their MCP sign-ins revoked and deleted first (each problem said,
/// none stops the removal; an mcp.json that does not load does), then the user.
async fn remove(home: &Home, store: &Database, name: &str) -> Result<(), HostError> {
    let env = |key: &str| std::env::var(key).ok();
    let settings = smallebot_agent::config::load_mcp_settings(home.root(), &env)?;
    let sign_ins = smallebot_mcp::McpSignIns::from_env(store.store(), name, &env);
    match smallebot_mcp::forget_user(&settings, &sign_ins).await {
        Ok(warnings) => warnings.iter().for_each(|w| errln!("warning: {w}")),
        Err(error) => errln!("warning: {error}"),
    }
    match store.remove_user(name).await {
        Ok(true) => {
            errln!("user '{name}' removed: their token no longer works");
            Ok(())
        }
        Ok(false) => Err(HostError::UnknownUser(name.to_owned())),
        Err(err) => Err(err.into()),
    }
}

/// `users set`: the budget, then the rules (each says what it changed).
async fn set(
    store: &Database,
    name: &str,
    budget: Option<MonthlyBudget>,
    rules: &RulesChange,
) -> Result<(), HostError> {
    let unknown = || HostError::UnknownUser(name.to_owned());
    if let Some(MonthlyBudget(budget)) = budget {
        if !store.set_user_budget(name, budget).await? {
            return Err(unknown());
        }
        match budget {
            Some(picos) => errln!(
                "user '{name}' may now spend {} a month (in the models' price currency), \
                 whatever agent.json's budgets.perUserMonthly says",
                format_amount(picos, "").trim_end()
            ),
            None => errln!(
                "user '{name}' has no monthly budget of their own now: agent.json's \
                 budgets.perUserMonthly applies"
            ),
        }
    }
    if !rules.is_empty() {
        let rules = users::change_rules(store.store().as_ref(), name, rules).await?;
        errln!(
            "{}",
            users::rules_changed_text(name, &rules.ok_or_else(unknown)?)
        );
    }
    Ok(())
}

async fn add(store: &Database, name: &str, admin: bool) -> Result<(), HostError> {
    let name = name.trim();
    let valid = !name.is_empty()
        && !name.starts_with('.')
        && name.chars().count() <= MAX_NAME_CHARS
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !valid {
        return Err(HostError::InvalidUserName(name.to_owned()));
    }
    let token = new_token();
    store.add_user(name, &token_digest(&token), admin).await?;
    outln!("{token}")?;
    let role = if admin {
        " as an admin (they see every user's usage)"
    } else {
        ""
    };
    errln!(
        "user '{name}' added{role}. The line above is their token: give it to them now, it is not \
         stored and cannot be shown again. The page asks for it once."
    );
    Ok(())
}
