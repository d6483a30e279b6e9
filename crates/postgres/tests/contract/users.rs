//! Contract: the users of a multi-user server — a name is taken once, and the refusal
//! reads the same on both engines; admins and monthly budgets are kept with the user.
//! Runs on SQLite and PostgreSQL.

use smallebot_core::RepositoryError;
use smallebot_core::entities::UserAccount;

use crate::backends::{self, Kind, OrFail};

#[tokio::test]
async fn a_taken_user_name_is_refused_in_the_same_words() {
    for b in backends::each("a_taken_user_name_is_refused").await {
        let name = b.name;
        let add = |token: &'static str| {
            let kind = b.kind.clone();
            async move {
                match kind {
                    Kind::Sqlite(store) => store.add_user("ann", token, false).await,
                    Kind::Postgres(store, _) => store.add_user("ann", token, false).await,
                }
            }
        };
        add("first").await.or_fail(name);
        let err = add("second").await.unwrap_err();
        assert!(matches!(err, RepositoryError::Conflict(_)), "{name}: {err}");
        assert_eq!(
            err.to_string(),
            "rejected: a user named 'ann' exists already; pick another name, or \
             `smallebot users remove ann` first to give them a new token",
            "{name}"
        );
    }
}

#[tokio::test]
async fn admins_and_monthly_budgets_are_kept_with_the_user() {
    for b in backends::each("admins_and_monthly_budgets_are_kept").await {
        let name = b.name;
        let account = |name: &str, admin, budget_monthly| UserAccount {
            name: name.to_owned(),
            admin,
            budget_monthly,
        };
        let (accounts, ann, budget_set, unknown_set, cleared) = match &b.kind {
            Kind::Sqlite(store) => {
                store.add_user("boss", "d1", true).await.or_fail(name);
                store.add_user("ann", "d2", false).await.or_fail(name);
                let set = store.set_user_budget("ann", Some(5)).await.or_fail(name);
                let unknown = store.set_user_budget("nobody", Some(5)).await.or_fail(name);
                let accounts = store.user_accounts().await.or_fail(name);
                let ann = store.user_account("ann").await.or_fail(name);
                store.set_user_budget("ann", None).await.or_fail(name);
                let cleared = store.user_account("ann").await.or_fail(name);
                (accounts, ann, set, unknown, cleared)
            }
            Kind::Postgres(store, _) => {
                store.add_user("boss", "d1", true).await.or_fail(name);
                store.add_user("ann", "d2", false).await.or_fail(name);
                let set = store.set_user_budget("ann", Some(5)).await.or_fail(name);
                let unknown = store.set_user_budget("nobody", Some(5)).await.or_fail(name);
                let accounts = store.user_accounts().await.or_fail(name);
                let ann = store.user_account("ann").await.or_fail(name);
                store.set_user_budget("ann", None).await.or_fail(name);
                let cleared = store.user_account("ann").await.or_fail(name);
                (accounts, ann, set, unknown, cleared)
            }
        };
        assert!(budget_set && !unknown_set, "{name}");
        assert_eq!(
            accounts,
            [account("ann", false, Some(5)), account("boss", true, None)],
            "{name}"
        );
        assert_eq!(ann, Some(account("ann", false, Some(5))), "{name}");
        assert_eq!(cleared, Some(account("ann", false, None)), "{name}");
    }
}
