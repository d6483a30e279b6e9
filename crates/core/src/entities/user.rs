//! A user of the web app as stored: their name, whether they administer the server,
//! their own monthly budget and their own permission rules.

use serde::{Deserialize, Serialize};

/// A stored user (`smallebot users add NAME [--admin]`, `users set NAME --budget-monthly
/// … --deny … --ask …`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserAccount {
    /// The user's name.
    pub name: String,
    /// Whether they see every user's usage (`users add --admin`).
    pub admin: bool,
    /// Their own monthly budget in picos of the price currency, overriding agent.json
    /// `budgets.perUserMonthly` for them; `None` leaves agent.json's.
    pub budget_monthly: Option<i64>,
    /// Their own permission rules, added to the home's for their turns.
    pub rules: UserRules,
}

/// A user's own permission rules, as written (`users set NAME --deny RULE --ask RULE`):
/// decided with the home's agent.json rules for the user's turns, they only narrow
/// them — there are no allow rules.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserRules {
    /// Calls these match never run.
    pub deny: Vec<String>,
    /// Calls these match are asked about (unless a deny rule matches too).
    pub ask: Vec<String>,
}

impl UserRules {
    /// Whether there are no rules.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.deny.is_empty() && self.ask.is_empty()
    }

    /// The rules after `users set … [--clear-rules] --deny … --ask …`: none first when
    /// `clear`, then `deny` and `ask` added, each rule once, in the order given.
    #[must_use]
    pub fn changed(self, clear: bool, deny: &[String], ask: &[String]) -> Self {
        let mut rules = if clear { Self::default() } else { self };
        let add = |list: &mut Vec<String>, new: &[String]| {
            for rule in new {
                let rule = rule.trim();
                if !list.iter().any(|kept| kept == rule) {
                    list.push(rule.to_owned());
                }
            }
        };
        add(&mut rules.deny, deny);
        add(&mut rules.ask, ask);
        rules
    }
}

#[cfg(test)]
mod tests {
    use super::UserRules;

    fn rules(deny: &[&str], ask: &[&str]) -> UserRules {
        let owned = |list: &[&str]| list.iter().map(|r| (*r).to_owned()).collect();
        UserRules {
            deny: owned(deny),
            ask: owned(ask),
        }
    }

    #[test]
    fn a_change_adds_rules_once_after_clearing_when_asked() {
        let kept = rules(&["A"], &["B"]);
        let owned = |list: &[&str]| list.iter().map(|r| (*r).to_owned()).collect::<Vec<_>>();
        let cases: [(bool, &[&str], &[&str], UserRules); 4] = [
            (false, &["C", " A "], &[], rules(&["A", "C"], &["B"])),
            (false, &[], &["B", "D"], rules(&["A"], &["B", "D"])),
            (true, &[], &[], rules(&[], &[])),
            (true, &["C"], &["C"], rules(&["C"], &["C"])),
        ];
        for (clear, deny, ask, want) in cases {
            let got = kept.clone().changed(clear, &owned(deny), &owned(ask));
            assert_eq!(got, want, "clear {clear}, deny {deny:?}, ask {ask:?}");
        }
        assert!(rules(&[], &[]).is_empty() && !kept.is_empty());
    }
}
