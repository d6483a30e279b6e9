//! Tool call ids as stored: unique within a turn even when a provider repeats or omits
//! them (llama.cpp and Ollama do), so results are always matched to the right call.

use std::collections::HashSet;

use smallebot_core::ids::TurnId;

/// Hands out the stored call id for each requested call of one turn.
#[derive(Debug, Default)]
pub(crate) struct ToolCallIds {
    used: HashSet<String>,
}

impl ToolCallIds {
    /// The model's id when usable, else a generated `call_<turn>_<n>`.
    pub(crate) fn assign(&mut self, turn_id: TurnId, requested: &str) -> String {
        let requested = requested.trim();
        if !requested.is_empty() && self.used.insert(requested.to_owned()) {
            return requested.to_owned();
        }
        let prefix = turn_id.simple();
        let short = prefix
            .get(prefix.len().saturating_sub(8)..)
            .unwrap_or(&prefix);
        let mut n = self.used.len();
        loop {
            let candidate = format!("call_{short}_{n}");
            if self.used.insert(candidate.clone()) {
                return candidate;
            }
            n += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_and_empty_ids_get_unique_replacements() {
        let turn = TurnId::new();
        let mut ids = ToolCallIds::default();
        let a = ids.assign(turn, "call_0");
        let b = ids.assign(turn, "call_0");
        let c = ids.assign(turn, "");
        let d = ids.assign(turn, "  ");
        assert_eq!(a, "call_0");
        let all: HashSet<_> = [&a, &b, &c, &d].into_iter().collect();
        assert_eq!(all.len(), 4);
        assert!(b.starts_with("call_"));
    }
}
