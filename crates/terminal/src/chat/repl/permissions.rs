//! `/permissions`: the grants of this chat's user listed, or one of them revoked.

use std::io::Write;

use smallebot_core::entities::GrantFilter;

use super::Repl;
use crate::error::TerminalError;
use crate::permissions::{grants_table, revoke};

impl<W: Write> Repl<W> {
    /// `/permissions`: this user's live grants as `permissions list` shows them;
    /// `/permissions revoke ID`: revokes their grant ID.
    pub(super) async fn permissions(&mut self, revoked: Option<i64>) -> Result<(), TerminalError> {
        let store = self.service.store();
        if let Some(id) = revoked {
            let said = revoke(store.as_ref(), id, Some(&self.user)).await?;
            return self.say(&said);
        }
        let grants = store
            .permission_grants(&GrantFilter {
                user: Some(self.user.clone()),
                ..GrantFilter::default()
            })
            .await?;
        self.say(grants_table(&grants).trim_end())
    }
}
