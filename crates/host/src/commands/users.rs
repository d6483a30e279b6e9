//! `smallebot users add NAME | remove NAME | list`: the web app's users.

use smallebot_agent::assembly::Home;
use smallebot_web::auth::{new_token, token_digest};

use super::open_store;
use crate::cli::UsersCommand;
use crate::error::HostError;

/// The longest user name accepted.
const MAX_NAME_CHARS: usize = 64;

/// Runs a `users` command.
pub async fn run(home: &Home, command: UsersCommand) -> Result<(), HostError> {
    let store = open_store(home).await?;
    let result = match command {
        UsersCommand::Add { name } => add(&store, &name).await,
        UsersCommand::Remove { name } => match store.remove_user(&name).await {
            Ok(true) => {
                errln!("user '{name}' removed: their token no longer works");
                Ok(())
            }
            Ok(false) => Err(HostError::UnknownUser(name)),
            Err(err) => Err(err.into()),
        },
        UsersCommand::List => match store.user_names().await {
            Ok(names) => names
                .iter()
                .try_for_each(|name| outln!("{name}"))
                .map_err(HostError::from),
            Err(err) => Err(err.into()),
        },
    };
    store.close().await;
    result
}

async fn add(store: &crate::database::Database, name: &str) -> Result<(), HostError> {
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
    store.add_user(name, &token_digest(&token)).await?;
    outln!("{token}")?;
    errln!(
        "user '{name}' added. The line above is their token: give it to them now, it is not \
         stored and cannot be shown again. The page asks for it once."
    );
    Ok(())
}
