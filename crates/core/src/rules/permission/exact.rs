//! Rules allowing exactly the simple commands of a command line
//! ([`exact_command_rules`]): how a `commandWhitelist` entry, or a person's lasting
//! "yes" to a command, becomes allow rules.

use smallebot_shell::{CommandWords, ShellWord};

use super::rule::PermissionRule;

/// One `<tool>(<words>)` rule per simple command of `commands` (their assignments
/// first, as an allow rule matches them), each distinct once.
///
/// ```
/// use smallebot_core::rules::permission::exact_command_rules;
/// let commands = smallebot_shell::command_words("ls -la && FOO=1 git status").unwrap();
/// let rules = exact_command_rules("ExecuteCommand", &commands).unwrap();
/// let texts: Vec<&str> = rules.iter().map(|rule| rule.text()).collect();
/// assert_eq!(texts, ["ExecuteCommand(ls -la)", "ExecuteCommand(FOO=1 git status)"]);
/// assert!(exact_command_rules("ExecuteCommand", &smallebot_shell::command_words("ls $D").unwrap()).is_err());
/// ```
///
/// # Errors
/// Why no rule can allow one of the commands exactly: a word whose value is only
/// known when it runs (`$X`, `*.rs`), output written to a file, or a word no rule can
/// hold.
pub fn exact_command_rules(
    tool: &str,
    commands: &[CommandWords],
) -> Result<Vec<PermissionRule>, String> {
    let mut rules: Vec<PermissionRule> = Vec::new();
    for command in commands {
        let words: Vec<&ShellWord> = command.assignments.iter().chain(&command.words).collect();
        if let Some(word) = words.iter().find(|word| !word.literal) {
            return Err(format!(
                "`{}` is only known when the command runs",
                word.text
            ));
        }
        if let Some(target) = command.redirects.first() {
            return Err(format!(
                "it writes its output to `{}`, which no rule allows",
                target.text
            ));
        }
        let texts: Vec<&str> = words.iter().map(|word| word.text.as_str()).collect();
        let rule =
            PermissionRule::exact_command(tool, &texts).map_err(|error| error.to_string())?;
        if !rules.contains(&rule) {
            rules.push(rule);
        }
    }
    Ok(rules)
}
