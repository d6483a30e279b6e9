//! Contract: the users of a multi-user server — a name is taken once, and the refusal
//! reads the same on both engines; admins, monthly budgets and own permission rules are
//! kept with the user.
//! Runs on SQLite and PostgreSQL.

use smallebot_core::RepositoryError;
use smallebot_core::entities::{UserAccount, UserRules};

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
            rules: UserRules::default(),
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

#[tokio::test]
async fn a_users_own_permission_rules_are_kept_with_them() {
    for b in backends::each("a_users_own_permission_rules_are_kept").await {
        let name = b.name;
        match &b.kind {
            Kind::Sqlite(store) => store.add_user("ann", "d1", false).await.or_fail(name),
            Kind::Postgres(store, _) => store.add_user("ann", "d1", false).await.or_fail(name),
        }
        let store = b.store.as_ref();
        assert_eq!(
            store.user_rules("ann").await.or_fail(name),
            UserRules::default()
        );
        assert_eq!(
            store.user_rules("nobody").await.or_fail(name),
            UserRules::default()
        );
        let rules = UserRules {
            deny: vec![
                "ExecuteCommand(touch:*)".to_owned(),
                "WriteFile(\"x\")".to_owned(),
            ],
            ask: vec!["mcp__files__*".to_owned()],
        };
        assert!(
            store.set_user_rules("ann", &rules).await.or_fail(name),
            "{name}"
        );
        assert!(
            !store.set_user_rules("nobody", &rules).await.or_fail(name),
            "{name}: no such user"
        );
        assert_eq!(store.user_rules("ann").await.or_fail(name), rules, "{name}");
        let listed = match &b.kind {
            Kind::Sqlite(store) => store.user_account("ann").await,
            Kind::Postgres(store, _) => store.user_account("ann").await,
        };
        assert_eq!(listed.or_fail(name).or_fail(name).rules, rules, "{name}");
        let accounts = match &b.kind {
            Kind::Sqlite(store) => store.user_accounts().await,
            Kind::Postgres(store, _) => store.user_accounts().await,
        };
        assert_eq!(accounts.or_fail(name)[0].rules, rules, "{name}");
        store
            .set_user_rules("ann", &UserRules::default())
            .await
            .or_fail(name);
        assert_eq!(
            store.user_rules("ann").await.or_fail(name),
            UserRules::default()
        );
    }
}
