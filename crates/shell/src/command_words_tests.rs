use super::*;

/// A word written as in the tables: a leading `~` marks a word that is not literal.
fn shown(word: &ShellWord) -> String {
    if word.literal {
        word.text.clone()
    } else {
        format!("~{}", word.text)
    }
}

fn commands(line: &str) -> Vec<Vec<String>> {
    match command_words(line) {
        Ok(commands) => commands
            .iter()
            .map(|command| command.words.iter().map(shown).collect())
            .collect(),
        Err(error) => vec![vec![format!("error: {error}")]],
    }
}

#[test]
fn each_simple_command_gives_its_normalized_words() {
    // (line, the words of each command it runs; `~` marks a word that is not literal)
    let cases: &[(&str, &[&[&str]])] = &[
        ("git status", &[&["git", "status"]]),
        ("  git   status  ", &[&["git", "status"]]),
        ("'git' \"status\"", &[&["git", "status"]]),
        ("/usr/bin/curl x", &[&["curl", "x"]]),
        ("\\rm -rf x", &[&["rm", "-rf", "x"]]),
        ("GIT status", &[&["git", "status"]]),
        (
            "git status; rm -rf x",
            &[&["git", "status"], &["rm", "-rf", "x"]],
        ),
        ("true && curl x", &[&["true"], &["curl", "x"]]),
        ("a || b | c & d", &[&["a"], &["b"], &["c"], &["d"]]),
        ("(cd x && make)\nls", &[&["cd", "x"], &["make"], &["ls"]]),
        ("{ git status; }", &[&["git", "status"]]),
        // Wrappers are looked through.
        ("sudo bash -c 'git status'", &[&["git", "status"]]),
        ("sudo -u bob git status", &[&["git", "status"]]),
        ("nice -n 5 timeout 10 cargo test", &[&["cargo", "test"]]),
        ("env -i PATH=/bin git log", &[&["git", "log"]]),
        ("command git status", &[&["git", "status"]]),
        // Scripts run by a shell, eval, su, watch, a here-document or a pipe.
        (
            "bash -c 'git status; rm -rf x'",
            &[&["git", "status"], &["rm", "-rf", "x"]],
        ),
        ("sh -c \"sh -c 'curl x'\"", &[&["curl", "x"]]),
        ("eval 'curl x'", &[&["curl", "x"]]),
        ("su -c 'curl x' bob", &[&["curl", "x"]]),
        ("watch -n 1 curl x", &[&["curl", "x"]]),
        ("bash <<EOF\ncurl x\nEOF", &[&["curl", "x"]]),
        ("bash <<< 'curl x'", &[&["curl", "x"]]),
        ("echo 'curl x' | sh", &[&["echo", "curl x"], &["curl", "x"]]),
        ("bash script.sh", &[&["bash", "script.sh"]]),
        ("bash", &[&["bash"]]),
        // Substitutions run first and are commands of their own.
        ("echo $(curl x)", &[&["curl", "x"], &["echo", "~$(curl x)"]]),
        ("cat <(curl x)", &[&["curl", "x"], &["cat", "~<(curl x)"]]),
        ("git log > `mktemp`", &[&["mktemp"], &["git", "log"]]),
        // `find -exec` runs a command of its own.
        (
            "find . -exec rm {} \\;",
            &[&["find", ".", "-exec", "rm", "{}", ";"], &["rm", "{}"]],
        ),
        // Expansions stay as written, not literal.
        ("rm -rf $DIR", &[&["rm", "-rf", "~$DIR"]]),
        ("git \"$SUB\" x", &[&["git", "~$SUB", "x"]]),
        ("$CMD status", &[&["~$CMD", "status"]]),
        ("ls *.rs", &[&["ls", "~*.rs"]]),
        ("ls '*.rs'", &[&["ls", "*.rs"]]),
        ("sh -c \"$SCRIPT\"", &[&["~$SCRIPT"]]),
        ("echo a | xargs rm", &[&["echo", "a"], &["rm", "~a"]]),
        // Nothing to run.
        ("", &[]),
        ("# a comment", &[]),
        ("FOO=1", &[]),
    ];
    for &(line, expected) in cases {
        let expected: Vec<Vec<String>> = expected
            .iter()
            .map(|words| words.iter().map(|w| (*w).to_owned()).collect())
            .collect();
        assert_eq!(commands(line), expected, "{line:?}");
    }
}

#[test]
fn assignments_and_wrappers_are_kept_beside_the_words() {
    // (line, assignments, wrapper levels) of the only command that runs
    let cases: &[(&str, &[&str], &[&str])] = &[
        ("git status", &[], &[]),
        ("FOO=1 git status", &["FOO=1"], &[]),
        (
            "env FOO=1 BAR=\"$X\" git status",
            &["FOO=1", "~BAR=$X"],
            &["env FOO=1 ~BAR=$X git status"],
        ),
        (
            "sudo nice git status",
            &[],
            &["sudo nice git status", "nice git status"],
        ),
        (
            "/usr/bin/sudo bash -c 'git status'",
            &[],
            &["sudo bash -c git status", "bash -c git status"],
        ),
    ];
    for &(line, assignments, wrappers) in cases {
        let Ok(found) = command_words(line) else {
            panic!("{line:?} does not parse");
        };
        assert_eq!(found.len(), 1, "{line:?}");
        let got_assignments: Vec<String> = found[0].assignments.iter().map(shown).collect();
        let got_wrappers: Vec<String> = found[0]
            .wrappers
            .iter()
            .map(|level| level.iter().map(shown).collect::<Vec<_>>().join(" "))
            .collect();
        assert_eq!(got_assignments, assignments, "{line:?}");
        assert_eq!(got_wrappers, wrappers, "{line:?}");
    }
}

#[test]
fn what_cannot_be_read_is_an_error() {
    assert!(matches!(
        command_words("echo 'unterminated"),
        Err(CommandWordsError::Unparsable { .. })
    ));
    assert!(matches!(
        command_words("sh -c 'echo \"x'"),
        Err(CommandWordsError::Unparsable { .. })
    ));
    // Substitutions nest without quoting: one level each.
    let nested = |levels: usize| {
        format!(
            "{}git status{}",
            "echo $(".repeat(levels),
            ")".repeat(levels)
        )
    };
    assert!(command_words(&nested(MAX_SCRIPT_DEPTH)).is_ok());
    assert_eq!(
        command_words(&nested(MAX_SCRIPT_DEPTH + 1)),
        Err(CommandWordsError::TooDeep)
    );
}

#[test]
fn one_command_words_reads_a_rules_words_without_unwrapping() {
    // (text, words or the error's start; `~` marks a word that is not literal)
    let cases: &[(&str, Result<&[&str], &str>)] = &[
        ("git status", Ok(&["git", "status"])),
        ("/usr/bin/CURL", Ok(&["curl"])),
        ("sudo git status", Ok(&["sudo", "git", "status"])),
        ("FOO=1 cargo test", Ok(&["FOO=1", "cargo", "test"])),
        ("grep 'a|b' \\;", Ok(&["grep", "a|b", ";"])),
        ("rm $DIR", Ok(&["rm", "~$DIR"])),
        ("", Err("`` is not one simple command")),
        ("git status; rm x", Err("`git status; rm x` is not one")),
        ("a && b", Err("`a && b` is not one")),
        ("a | b", Err("`a | b` is not one")),
        ("git log > x", Err("`git log > x` is not one")),
        ("echo $(date)", Err("`echo $(date)` is not one")),
        ("echo 'x", Err("could not parse")),
    ];
    for &(text, expected) in cases {
        let got = one_command_words(text)
            .map(|words| words.iter().map(shown).collect::<Vec<_>>())
            .map_err(|error| error.to_string());
        match (got, expected) {
            (Ok(words), Ok(want)) => assert_eq!(words, want, "{text:?}"),
            (Err(error), Err(want)) => assert!(error.starts_with(want), "{text:?}: {error}"),
            (got, _) => panic!("{text:?}: got {got:?}"),
        }
    }
}

#[test]
fn output_redirections_to_files_are_kept() {
    // (line, the redirect targets of each command)
    let cases: &[(&str, &[&[&str]])] = &[
        ("git status", &[&[]]),
        ("git status > out.txt", &[&["out.txt"]]),
        ("git log >> a 2> b &> c >| d", &[&["a", "b", "c", "d"]]),
        ("git log > \"$OUT\"", &[&["~$OUT"]]),
        ("git log 2>&1 >&- < in.txt", &[&[]]),
        ("git log > /dev/null 2>/dev/null", &[&[]]),
        ("git log >& all.txt", &[&["all.txt"]]),
        ("cat <<EOF\nx\nEOF", &[&[]]),
        ("a > x | b; c > y", &[&["x"], &[], &["y"]]),
    ];
    for &(line, expected) in cases {
        let Ok(found) = command_words(line) else {
            panic!("{line:?} does not parse");
        };
        let got: Vec<Vec<String>> = found
            .iter()
            .map(|command| command.redirects.iter().map(shown).collect())
            .collect();
        assert_eq!(got, expected, "{line:?}");
    }
}

#[test]
fn malformed_lines_never_panic() {
    // Deterministic pseudo-random strings over the characters the tokenizer cares about.
    let alphabet: Vec<char> = "ab1 -'\"\\$`()<>&|;#=\n\t{}[]*,é".chars().collect();
    let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
    for _ in 0..2000 {
        let mut line = String::new();
        for _ in 0..(seed % 40) {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let Ok(index) = usize::try_from(seed % alphabet.len() as u64) else {
                continue;
            };
            line.push(alphabet[index]);
        }
        seed = seed.wrapping_add(1);
        for prefix in [
            "",
            "sudo bash -c ",
            "env -S ",
            "echo x | sh ",
            "find . -exec ",
        ] {
            let text = format!("{prefix}{line}");
            if let Ok(commands) = command_words(&text) {
                assert!(commands.iter().all(|c| !c.words.is_empty()), "{text:?}");
            }
            let _ = one_command_words(&text);
        }
    }
}
