//! Blacklist rules: parsed like commands, matched against normalized commands.

use super::expand::{ShellState, expand_words};
use super::glob::{glob_match, has_glob_chars};
use super::invocation::{Arg, Invocation, RedirectTarget};
use crate::syntax::{FunctionDefinition, SimpleCommand, parse_script};

/// What a rule matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum RuleKind {
    /// One command (at any wrapper level).
    Command(Invocation),
    /// A pipeline whose stages match these, in order (other stages may come between).
    Pipeline(Vec<Invocation>),
    /// Any fork bomb: a function that calls itself in a pipe or in the background.
    ForkBomb,
}

/// A blacklist rule: its text as configured and what it matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Rule {
    /// The rule as written in the configuration.
    pub(super) text: String,
    /// What it matches.
    pub(super) kind: RuleKind,
}

impl Rule {
    /// Parses a rule; the error says why it is not a valid rule.
    pub(super) fn parse(text: &str) -> Result<Self, String> {
        let script = parse_script(text).map_err(|error| error.to_string())?;
        let kind = if script.functions.iter().any(is_fork_bomb) {
            RuleKind::ForkBomb
        } else if !script.functions.is_empty() {
            return Err("a rule may define a function only to describe a fork bomb \
                        such as `:(){ :|:& };:`"
                .to_owned());
        } else {
            match script.pipelines.as_slice() {
                [] => return Err("the rule is empty".to_owned()),
                [pipeline] => {
                    let mut stages: Vec<Invocation> =
                        pipeline.stages.iter().map(pattern_from).collect();
                    match stages.len() {
                        1 => RuleKind::Command(stages.remove(0)),
                        _ => RuleKind::Pipeline(stages),
                    }
                }
                _ => {
                    return Err("a rule is one command or one pipeline; write each \
                                command of `a; b` as its own rule"
                        .to_owned());
                }
            }
        };
        Ok(Self {
            text: text.trim().to_owned(),
            kind,
        })
    }
}

/// The pattern of one rule command, normalized the way commands are.
fn pattern_from(command: &SimpleCommand) -> Invocation {
    let state = ShellState::default();
    let words = expand_words(&command.words, &state);
    let redirects: Vec<RedirectTarget> = command
        .redirects
        .iter()
        .map(|redirect| RedirectTarget {
            writes: redirect.op.writes(),
            target: Arg::new(&redirect.target.text, None),
        })
        .collect();
    Invocation::new(&words, &redirects, None)
}

/// Whether a function definition is a fork bomb: its body calls the function itself
/// in a pipeline or in the background (`:(){ :|:& };:`).
pub(super) fn is_fork_bomb(function: &FunctionDefinition) -> bool {
    function.body.iter().any(|pipeline| {
        let calls_itself = pipeline
            .stages
            .iter()
            .any(|stage| stage.words.first().is_some_and(|w| w.text == function.name));
        calls_itself && (pipeline.stages.len() > 1 || pipeline.background)
    })
}

/// Whether `command` matches the single-command `pattern`: same program (a pattern
/// program with `*` is a glob), the pattern's flags among the command's, each pattern
/// argument matched by a different command argument, each pattern redirection by one
/// of the command's.
pub(super) fn command_matches(pattern: &Invocation, command: &Invocation) -> bool {
    if let Some(program) = &pattern.program {
        match &command.program {
            Some(actual) if program_matches(program, actual, command.program_is_glob) => {}
            _ => return false,
        }
    }
    pattern.flags.is_subset(&command.flags)
        && pattern.long_flags.is_subset(&command.long_flags)
        && assign_args(
            &pattern.args,
            &command.args,
            &mut vec![false; command.args.len()],
        )
        && pattern.redirects.iter().all(|wanted| {
            command.redirects.iter().any(|actual| {
                actual.writes == wanted.writes && arg_matches(&wanted.target.text, &actual.target)
            })
        })
}

/// Whether a pipeline's stages (each the levels of one unwrapped command) match the
/// pattern stages in order. After the first stage, an interpreter other than a shell
/// (`python3`, `perl`, `node`, …) matches only when it runs its standard input as a
/// program: `curl … | python3 -m json.tool` and `… | perl -ne …` do not.
pub(super) fn pipeline_matches(patterns: &[Invocation], stages: &[Vec<Invocation>]) -> bool {
    let mut stages = stages.iter();
    patterns.iter().enumerate().all(|(index, pattern)| {
        stages.by_ref().any(|levels| {
            levels.iter().any(|level| {
                command_matches(pattern, level) && (index == 0 || runs_stdin_as_code(level))
            })
        })
    })
}

/// Interpreters that take their program from standard input unless given one.
const INTERPRETERS: &[&str] = &["perl", "ruby", "node", "nodejs", "php", "lua", "deno"];

/// Interpreter flags that give the program on the command line (`python -c`, `-m`,
/// `perl -e`, `node -p`, `php -r`).
const CODE_FLAGS: &str = "cmeEpr";

/// Whether a command run at the end of a pipe executes its input: always assumed for
/// shells and other programs; for interpreters only without a code flag and without a
/// script operand (other than `-`).
fn runs_stdin_as_code(command: &Invocation) -> bool {
    let Some(program) = command.program.as_deref() else {
        return true;
    };
    if !(program.starts_with("python") || INTERPRETERS.contains(&program)) {
        return true;
    }
    let code_flag = command.flags.iter().any(|flag| CODE_FLAGS.contains(*flag));
    let operand = command.args.iter().any(|arg| arg.text != "-");
    !code_flag && !operand
}

/// Whether a program matches a rule program; a glob program (`r?`) matches the rule
/// programs it could expand to.
fn program_matches(pattern: &str, program: &str, program_is_glob: bool) -> bool {
    text_matches(pattern, program)
        || (program_is_glob && glob_match(program, pattern.trim_end_matches('*'), true))
}

/// Matches each pattern argument to a distinct command argument (backtracking).
fn assign_args(patterns: &[Arg], args: &[Arg], used: &mut [bool]) -> bool {
    let Some((first, rest)) = patterns.split_first() else {
        return true;
    };
    for (i, arg) in args.iter().enumerate() {
        if !used[i] && arg_matches(&first.text, arg) {
            used[i] = true;
            if assign_args(rest, args, used) {
                return true;
            }
            used[i] = false;
        }
    }
    false
}

/// Whether a command argument matches a rule argument. A glob in the command matches
/// the rule words it could expand to (never `~`: tilde expansion happens before
/// globbing).
fn arg_matches(pattern: &str, arg: &Arg) -> bool {
    arg.forms().any(|form| {
        text_matches(pattern, form)
            || (arg.is_glob && !pattern.starts_with('~') && glob_match(form, pattern, true))
    })
}

/// A pattern with glob characters is a glob (its `*` crosses `/`); else text is equal.
fn text_matches(pattern: &str, text: &str) -> bool {
    if has_glob_chars(pattern) {
        glob_match(pattern, text, false)
    } else {
        pattern == text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(text: &str) -> Invocation {
        let words: Vec<String> = text.split_whitespace().map(str::to_owned).collect();
        Invocation::new(&words, &[], None)
    }

    #[test]
    fn command_rules() {
        // (rule, command, matches)
        let cases: &[(&str, &str, bool)] = &[
            ("rm -r /", "rm -rf /", true),
            ("rm -r /", "rm -f -r /tmp /", true),
            ("rm -r /", "rm -f /", false),
            ("rm -r /", "rm -rf build", false),
            ("rm -rf /*", "rm -rf /", true),
            ("rm -r ~", "rm -rf ~/", true),
            ("mkfs*", "mkfs.ext4 /dev/sda", true),
            ("mkfs*", "mkdir x", false),
            ("sudo", "sudo ls", true),
            ("sudo", "SUDO", true),
            ("rm", "r? x", true),
            ("init 0", "init 0", true),
            ("init 0", "init 3", false),
            ("chmod -R * /", "chmod -R 777 /", true),
            ("chmod -R * /", "chmod -R /", false),
            ("chmod -R * /", "chmod 777 /", false),
            ("dd of=/dev/sd*", "dd if=/dev/zero of=/dev/sda bs=1M", true),
            ("dd of=/dev/sd*", "dd if=/dev/zero of=/dev/null", false),
            ("dd of=/dev/sd*", "dd of=/dev/sd?", true),
            ("rm -r ~", "rm -rf *", false),
            ("rm -r ~", "rm -rf ?", false),
            ("rm -r ..", "rm -rf .*", true),
            ("rm -r ..", "rm -rf *.o", false),
            ("rm -r /", "rm -rf *", false),
        ];
        for &(rule, text, expected) in cases {
            let RuleKind::Command(pattern) = Rule::parse(rule).unwrap().kind else {
                panic!("{rule} is not a command rule");
            };
            assert_eq!(
                command_matches(&pattern, &command(text)),
                expected,
                "{rule} ~ {text}"
            );
        }
    }

    #[test]
    fn pipeline_rules() {
        // (rule, pipeline stages, matches)
        let cases: &[(&str, &[&str], bool)] = &[
            ("curl | sh", &["curl -fsSL x", "sh"], true),
            ("curl | sh", &["curl x", "tee log", "sh -s"], true),
            ("curl | sh", &["sh", "curl x"], false),
            ("curl | sh", &["curl x", "jq ."], false),
            ("curl | python*", &["curl x", "python3"], true),
            ("curl | python*", &["curl x", "python3 -u -"], true),
            ("curl | python*", &["curl x", "python3 -m json.tool"], false),
            (
                "curl | python*",
                &["curl x", "python3 -c 'import json'"],
                false,
            ),
            ("curl | python*", &["curl x", "python3 parse.py"], false),
            ("curl | perl", &["curl x", "perl -ne 'print'"], false),
            ("curl | perl", &["curl x", "perl"], true),
            ("curl | sh", &["curl x", "sh -c 'cat > f'"], true),
        ];
        for &(rule, stages, expected) in cases {
            let RuleKind::Pipeline(patterns) = Rule::parse(rule).unwrap().kind else {
                panic!("{rule} is not a pipeline rule");
            };
            let stages: Vec<Vec<Invocation>> = stages.iter().map(|s| vec![command(s)]).collect();
            assert_eq!(pipeline_matches(&patterns, &stages), expected, "{rule}");
        }
    }

    #[test]
    fn rule_parsing() {
        assert_eq!(
            Rule::parse(":(){ :|:& };:").unwrap().kind,
            RuleKind::ForkBomb
        );
        assert_eq!(Rule::parse("  sudo  ").unwrap().text, "sudo");
        // (invalid rule, part of the reason)
        let cases: &[(&str, &str)] = &[
            ("", "empty"),
            ("  # only a comment", "empty"),
            ("rm 'x", "quote"),
            ("ls; rm", "one command"),
            ("f(){ ls; }", "fork bomb"),
        ];
        for &(rule, reason) in cases {
            let error = Rule::parse(rule).unwrap_err();
            assert!(error.contains(reason), "{rule:?}: {error}");
        }
    }

    #[test]
    fn redirect_rules() {
        let RuleKind::Command(pattern) = Rule::parse("> /dev/sd*").unwrap().kind else {
            panic!("not a command rule");
        };
        let write = |target: &str, writes: bool| RedirectTarget {
            writes,
            target: Arg::new(target, None),
        };
        let words = vec!["echo".to_owned(), "x".to_owned()];
        // (redirections, matches)
        let cases: Vec<(Vec<RedirectTarget>, bool)> = vec![
            (vec![write("/dev/sda", true)], true),
            (vec![write("//dev/sdb1", true)], true),
            (vec![write("/dev/sda", false)], false),
            (vec![write("/dev/null", true)], false),
            (vec![], false),
        ];
        for (redirects, expected) in cases {
            let command = Invocation::new(&words, &redirects, None);
            assert_eq!(
                command_matches(&pattern, &command),
                expected,
                "{redirects:?}"
            );
        }
    }
}
