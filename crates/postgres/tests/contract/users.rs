//! Contract: the users of a multi-user server — a name is taken once, and the refusal
//! reads the same on both engines. Runs on SQLite and PostgreSQL.

use smallebot_core::RepositoryError;

use crate::backends::{self, Kind, OrFail};

#[tokio::test]
async fn a_taken_user_name_is_refused_in_the_same_words() {
    for b in backends::each("a_taken_user_name_is_refused").await {
        let name = b.name;
        let add = |token: &'static str| {
            let kind = b.kind.clone();
            async move {
                match kind {
                    Kind::Sqlite(store) => store.add_user("ann", token).await,
                    Kind::Postgres(store, _) => store.add_user("ann", token).await,
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
