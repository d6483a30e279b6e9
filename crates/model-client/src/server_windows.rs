//! Context windows servers reported, for the models whose models.json gives none.

use std::collections::HashMap;
use std::sync::Mutex;

/// The context windows model servers reported for models whose models.json gives no
/// `contextWindow`, by the model a conversation names (`None`: the default model).
/// The client learns them when it first asks a server
/// ([`ChatModel::check_server`](smallebot_application::ports::ChatModel::check_server));
/// the history builder counts against them.
#[derive(Debug, Default)]
pub struct ServerWindows(Mutex<HashMap<Option<String>, u64>>);

impl ServerWindows {
    /// The window the server of the model `model` names reported, if it was asked.
    #[must_use]
    pub fn get(&self, model: Option<&str>) -> Option<u64> {
        let key = model.map(str::to_owned);
        self.0.lock().ok()?.get(&key).copied()
    }

    /// Remembers the window the server of the model `model` names reported.
    pub(crate) fn learn(&self, model: Option<&str>, window: u64) {
        if let Ok(mut windows) = self.0.lock() {
            windows.insert(model.map(str::to_owned), window);
        }
    }
}
