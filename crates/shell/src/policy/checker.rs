//! Walks a command line and every script nested in it, matching each simple command
//! (at every wrapper level) and each pipeline against the blacklist rules.

use super::expand::{ShellState, expand_word, expand_words, substitute};
use super::invocation::{Arg, Invocation, RedirectTarget, normalize_path};
use super::pattern::{Rule, RuleKind, command_matches, is_fork_bomb, pipeline_matches};
use crate::piped_text::output_text;
use crate::syntax::{
    Pipeline, RedirectOp, SimpleCommand, SubstitutionKind, assignment, parse_script,
};
use crate::wrappers::{MAX_SCRIPT_DEPTH, Nested, basename, unwrap_command};

/// The rule text reported for a command that cannot be parsed.
pub(super) const UNPARSABLE_RULE: &str = "(the command must be valid shell syntax)";

/// The rule text reported for scripts nested deeper than [`MAX_SCRIPT_DEPTH`].
pub(super) const TOO_DEEP_RULE: &str = "(nesting limit)";

/// Why a command is refused: the rule and what matched it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Violation {
    pub(super) rule: String,
    pub(super) matched: String,
}

/// One pipeline stage: the invocations of each wrapper level.
type Stage = Vec<Invocation>;

/// Checks commands against a set of rules.
pub(super) struct Checker<'a> {
    pub(super) rules: &'a [Rule],
}

impl Checker<'_> {
    /// Checks a whole command line.
    pub(super) fn check(&self, command: &str) -> Result<(), Violation> {
        self.check_source(command, &mut ShellState::default(), 0)
            .map(|_| ())
    }

    /// Checks a script; returns the stages of its pipelines.
    fn check_source(
        &self,
        source: &str,
        state: &mut ShellState,
        depth: usize,
    ) -> Result<Vec<Vec<Stage>>, Violation> {
        if depth > MAX_SCRIPT_DEPTH {
            return Err(too_deep());
        }
        let script = parse_script(source).map_err(|error| Violation {
            rule: UNPARSABLE_RULE.to_owned(),
            matched: format!("could not parse `{}`: {error}", source.trim()),
        })?;
        if let Some(rule) = self.rules.iter().find(|r| r.kind == RuleKind::ForkBomb)
            && let Some(bomb) = script.functions.iter().find(|f| is_fork_bomb(f))
        {
            return Err(Violation {
                rule: rule.text.clone(),
                matched: format!("function `{}` calling itself in a pipe", bomb.name),
            });
        }
        script
            .pipelines
            .iter()
            .map(|pipeline| self.check_pipeline(pipeline, state, depth))
            .collect()
    }

    fn check_pipeline(
        &self,
        pipeline: &Pipeline,
        state: &mut ShellState,
        depth: usize,
    ) -> Result<Vec<Stage>, Violation> {
        let mut stages = Vec::new();
        let mut piped_text: Option<String> = None;
        for command in &pipeline.stages {
            let (stage, output) = self.check_command(command, piped_text.take(), state, depth)?;
            piped_text = output;
            stages.push(stage);
        }
        self.check_pipeline_rules(&stages)?;
        Ok(stages)
    }

    /// Checks one simple command; returns its stage and the text it is known to write
    /// to its standard output (`echo` arguments, a `cat` here-document).
    fn check_command(
        &self,
        command: &SimpleCommand,
        stdin: Option<String>,
        state: &mut ShellState,
        depth: usize,
    ) -> Result<(Stage, Option<String>), Violation> {
        // Scripts in substitutions run first; keep their stages for feeding checks.
        let mut fed: Vec<(SubstitutionKind, Vec<Stage>)> = Vec::new();
        let targets = command.redirects.iter().map(|r| &r.target);
        for word in command.words.iter().chain(targets) {
            for substitution in &word.substitutions {
                let mut inner_state = state.clone();
                let pipelines =
                    self.check_source(&substitution.script, &mut inner_state, depth + 1)?;
                if let Some(last) = pipelines.into_iter().last() {
                    fed.push((substitution.kind, last));
                }
            }
        }
        let words = expand_words(&command.words, state);
        let redirects = redirect_targets(command, state);
        let own_input = command.redirects.iter().find_map(|r| match r.op {
            RedirectOp::HereDoc { .. } => r.heredoc_body.clone(),
            RedirectOp::HereString => Some(substitute(&r.target.text, state).0),
            _ => None,
        });
        let stdin = own_input.clone().or(stdin);
        let (stage, effective) =
            self.check_words(&words, &redirects, stdin.as_deref(), state, depth)?;
        self.check_fed_output(&fed, &stage)?;
        update_state(&words, &effective, state);
        Ok((stage, output_text(&effective, own_input)))
    }

    /// Checks expanded words at every wrapper level and the scripts nested in them;
    /// returns the stage and the innermost level's words.
    fn check_words(
        &self,
        words: &[String],
        redirects: &[RedirectTarget],
        stdin: Option<&str>,
        state: &ShellState,
        depth: usize,
    ) -> Result<(Stage, Vec<String>), Violation> {
        if depth > MAX_SCRIPT_DEPTH {
            return Err(too_deep());
        }
        let unwrapped = unwrap_command(words, stdin);
        let cwd = state.cwd.as_deref();
        let mut stage: Stage = unwrapped
            .chain
            .iter()
            .map(|level| Invocation::new(level, redirects, cwd))
            .collect();
        if stage.is_empty() && !redirects.is_empty() {
            stage.push(Invocation::new(&[], redirects, cwd));
        }
        for invocation in &stage {
            self.check_invocation(invocation)?;
        }
        for nested in &unwrapped.nested {
            match nested {
                Nested::Script(script) => {
                    self.check_source(script, &mut state.clone(), depth + 1)?;
                }
                Nested::Command(words) => {
                    self.check_words(words, &[], None, state, depth + 1)?;
                }
            }
        }
        let effective = unwrapped.chain.last().cloned().unwrap_or_default();
        Ok((stage, effective))
    }

    /// Output of substitutions that ends up run as code forms a pipeline into a shell:
    /// `$(curl …)` as the program, or `<(curl …)` read by a shell (`bash <(…)`).
    fn check_fed_output(
        &self,
        fed: &[(SubstitutionKind, Vec<Stage>)],
        stage: &Stage,
    ) -> Result<(), Violation> {
        let shell = || vec![Invocation::new(&["sh".to_owned()], &[], None)];
        let effective = stage.last();
        let dynamic_program = effective.is_some_and(|inv| inv.display.starts_with(['$', '`']));
        let sources =
            effective.is_some_and(|inv| matches!(inv.program.as_deref(), Some("source" | ".")));
        for (kind, inner) in fed {
            let consumer = match kind {
                SubstitutionKind::Command if dynamic_program => shell(),
                SubstitutionKind::ProcessInput if sources => shell(),
                // `bash <(curl …)` runs the file like `curl … | bash` runs stdin.
                SubstitutionKind::ProcessInput => without_process_inputs(stage),
                _ => continue,
            };
            let mut stages = inner.clone();
            stages.push(consumer);
            self.check_pipeline_rules(&stages)?;
        }
        Ok(())
    }

    fn check_invocation(&self, invocation: &Invocation) -> Result<(), Violation> {
        for rule in self.rules {
            if let RuleKind::Command(pattern) = &rule.kind
                && command_matches(pattern, invocation)
            {
                return Err(Violation {
                    rule: rule.text.clone(),
                    matched: invocation.display.clone(),
                });
            }
        }
        Ok(())
    }

    fn check_pipeline_rules(&self, stages: &[Stage]) -> Result<(), Violation> {
        for rule in self.rules {
            if let RuleKind::Pipeline(patterns) = &rule.kind
                && pipeline_matches(patterns, stages)
            {
                let shown: Vec<&str> = stages
                    .iter()
                    .filter_map(|levels| levels.first().map(|inv| inv.display.as_str()))
                    .collect();
                return Err(Violation {
                    rule: rule.text.clone(),
                    matched: shown.join(" | "),
                });
            }
        }
        Ok(())
    }
}

/// The stage with its `<(…)` arguments removed.
fn without_process_inputs(stage: &Stage) -> Stage {
    let mut stage = stage.clone();
    for level in &mut stage {
        level.args.retain(|arg| !arg.text.starts_with("<("));
    }
    stage
}

/// The redirections that name a file (here-documents and here-strings do not).
fn redirect_targets(command: &SimpleCommand, state: &ShellState) -> Vec<RedirectTarget> {
    command
        .redirects
        .iter()
        .filter(|r| !matches!(r.op, RedirectOp::HereDoc { .. } | RedirectOp::HereString))
        .map(|r| RedirectTarget {
            writes: r.op.writes(),
            target: Arg::new(
                &expand_word(&r.target, state).join(" "),
                state.cwd.as_deref(),
            ),
        })
        .collect()
}

/// The violation for scripts nested deeper than [`MAX_SCRIPT_DEPTH`].
fn too_deep() -> Violation {
    Violation {
        rule: TOO_DEEP_RULE.to_owned(),
        matched: format!(
            "scripts nested more than {MAX_SCRIPT_DEPTH} levels deep (sh -c, eval, $(…)) cannot be \
             checked; run the inner command directly"
        ),
    }
}

/// Records what a command changes for the commands after it: variable assignments
/// (alone or through `export`/`declare`/…, removed by `unset`) and `cd`/`pushd`.
fn update_state(words: &[String], effective: &[String], state: &mut ShellState) {
    if effective.is_empty() {
        for (name, value) in words.iter().filter_map(|word| assignment(word)) {
            state.vars.insert(name.to_owned(), value.to_owned());
        }
        return;
    }
    let args = &effective[1..];
    match basename(&effective[0]) {
        "export" | "declare" | "typeset" | "local" | "readonly" => {
            for (name, value) in args.iter().filter_map(|word| assignment(word)) {
                state.vars.insert(name.to_owned(), value.to_owned());
            }
        }
        "unset" => {
            for name in args {
                state.vars.remove(name);
            }
        }
        "cd" | "pushd" => {
            let target = args.iter().find(|a| !a.starts_with('-') || *a == "-");
            state.cwd = match target.map(String::as_str) {
                None => Some("~".to_owned()),
                Some("-") => None,
                Some(dir) if dir.starts_with(['/', '~']) => Some(normalize_path(dir)),
                Some(dir) => {
                    let base = state.cwd.as_deref().unwrap_or(".");
                    Some(normalize_path(&format!("{base}/{dir}")))
                }
            };
        }
        _ => {}
    }
}
