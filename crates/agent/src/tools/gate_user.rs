//! The user's part of the [`PermissionGate`](super::PermissionGate): in multi-user
//! `serve`, the own rules of the user whose turn makes a call (`smallebot users set NAME
//! --deny RULE --ask RULE`, read when the turn started: [`TurnUserRules`]) are decided
//! beside the home's. They only narrow them: a user's deny rule refuses a call whatever
//! the home allows, a user's ask rule asks about a call the home would run.

use smallebot_application::ports::{ToolContext, ToolOutcome, TurnUserRules};
use smallebot_core::entities::ToolCallStatus;
use smallebot_core::rules::permission::{CallSubject, PermissionRules, Verdict, decide};

use super::call_view::what;
use crate::config::parse_permission_rule;

/// What a user's own rules say of a call when one of them matches it: `ask` and the
/// rule, as the person is told (a deny is the call's result instead).
pub(super) struct UserAsks(pub(super) String);

/// What the own rules of the user in `context` say of the call seen as `subject`:
/// `Ok(None)` when none matches (or there are none), `Ok(Some)` when one asks, the
/// result the model gets when one denies — or when one cannot be read (stored before a
/// tool it names was renamed): no call runs past a rule that might refuse it.
pub(super) fn user_ruling(
    subject: &CallSubject,
    context: &ToolContext,
) -> Result<Option<UserAsks>, ToolOutcome> {
    let Some(own) = context.user_rules.as_deref() else {
        return Ok(None);
    };
    let rules = parsed(own).map_err(|why| refused(subject, &why))?;
    let decision = decide(&rules, subject);
    let Some(rule) = decision.rule else {
        return Ok(None);
    };
    match decision.verdict {
        Verdict::Deny => Err(refused(
            subject,
            &format!(
                "user {}'s own permission rule `deny {rule}` (set for them with `smallebot \
                 users set {} --deny`)",
                own.user, own.user
            ),
        )),
        Verdict::Ask => Ok(Some(UserAsks(format!(
            "ask {rule} (user {}'s own rule)",
            own.user
        )))),
        Verdict::Allow => Ok(None),
    }
}

/// The user's rules parsed as agent.json's are; what is wrong with the first that
/// does not parse.
fn parsed(own: &TurnUserRules) -> Result<PermissionRules, String> {
    let list = |texts: &[String]| {
        texts
            .iter()
            .map(|text| parse_permission_rule(text))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|why| {
                format!(
                    "user {}'s own permission rules, which cannot be read ({why}); the \
                     server's owner can replace them with `smallebot users set {} \
                     --clear-rules …`",
                    own.user, own.user
                )
            })
    };
    Ok(PermissionRules {
        deny: list(&own.rules.deny)?,
        ask: list(&own.rules.ask)?,
        ..PermissionRules::default()
    })
}

/// The result of a call `by` refused.
fn refused(subject: &CallSubject, by: &str) -> ToolOutcome {
    ToolOutcome {
        content: format!(
            "Error: this {} was denied by {by}; it was not run. Do not retry it: do the \
             task another way, or ask the server's owner to change the rule.",
            what(subject)
        ),
        status: ToolCallStatus::Denied,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use smallebot_application::ports::{ToolContext, TurnUserRules};
    use smallebot_core::entities::UserRules;
    use smallebot_core::rules::permission::CallSubject;

    use super::user_ruling;

    fn context(deny: &[&str], ask: &[&str]) -> ToolContext {
        let owned = |list: &[&str]| list.iter().map(|r| (*r).to_owned()).collect();
        ToolContext::outside_conversation().with_user_rules(Some(Arc::new(TurnUserRules {
            user: "ann".to_owned(),
            rules: UserRules {
                deny: owned(deny),
                ask: owned(ask),
            },
        })))
    }

    /// What the user's rules say of `line`: `deny: …`, `ask: …` or `none`.
    fn said(context: &ToolContext, line: &str) -> String {
        match user_ruling(&CallSubject::command("ExecuteCommand", line), context) {
            Ok(None) => "none".to_owned(),
            Ok(Some(asks)) => format!("ask: {}", asks.0),
            Err(outcome) => format!("deny: {}", outcome.content),
        }
    }

    #[test]
    fn a_users_rules_deny_or_ask_and_say_whose_they_are() {
        let rules = context(
            &["ExecuteCommand(touch:*)"],
            &["ExecuteCommand(git push:*)"],
        );
        let cases = [
            ("ls", "none"),
            (
                "true && /usr/bin/touch x",
                "deny: Error: this command was denied by user ann's own permission rule `deny ExecuteCommand(touch:*)`",
            ),
            (
                "git push origin",
                "ask: ask ExecuteCommand(git push:*) (user ann's own rule)",
            ),
            (
                "touch x; git push",
                "deny: Error: this command was denied by user ann's own",
            ),
            ("echo 'unclosed", "none"),
        ];
        for (line, want) in cases {
            let got = said(&rules, line);
            assert!(got.starts_with(want), "{line}: {got}");
        }
        assert_eq!(
            said(&ToolContext::outside_conversation(), "touch x"),
            "none"
        );
    }

    #[test]
    fn a_rule_that_cannot_be_read_refuses_every_call_naming_it() {
        let broken = context(&["Bash(ls)"], &[]);
        let got = said(&broken, "ls");
        assert!(got.starts_with("deny: Error: this command was denied by user ann's own permission rules, which cannot be read (permission rule `Bash(ls)` names the tool `Bash`"), "{got}");
        assert!(
            got.contains("smallebot users set ann --clear-rules"),
            "{got}"
        );
    }
}
