//! The readers agree: what the policy looks through, written-file detection and the
//! command words look through too (same parser, same wrappers, same nesting limit).

use super::*;

#[test]
fn both_readers_look_through_the_same_nesting() {
    let policy = CommandPolicy::with_defaults();
    // (command, the rule that refuses it)
    let refused: &[(&str, &str)] = &[
        ("sudo bash -c \"rm -rf /\"", "sudo"),
        ("env nice timeout 5 bash -c 'rm -rf /'", "rm -r /"),
        ("bash <<EOF\nrm -rf /\nEOF", "rm -r /"),
    ];
    for &(command, rule) in refused {
        assert!(
            matches!(policy.check(command), CommandVerdict::Denied { rule: r, .. } if r == rule),
            "{command:?}"
        );
    }
    // (command, files written when run in /ws)
    let written: &[(&str, &[&str])] = &[
        ("sudo bash -c 'echo x > out.txt'", &["/ws/out.txt"]),
        ("env nice timeout 5 tee a.txt", &["/ws/a.txt"]),
        ("env nice timeout 5 bash -c 'touch b.txt'", &["/ws/b.txt"]),
        ("bash <<EOF\ntouch c.txt\nEOF", &["/ws/c.txt"]),
    ];
    for &(command, files) in written {
        assert_eq!(written_files(command, "/ws"), files, "{command:?}");
    }
    // (command, the words of the command that runs)
    let words: &[(&str, &[&str])] = &[
        ("sudo bash -c \"rm -rf /\"", &["rm", "-rf", "/"]),
        ("env nice timeout 5 bash -c 'rm -rf /'", &["rm", "-rf", "/"]),
        ("bash <<EOF\nrm -rf /\nEOF", &["rm", "-rf", "/"]),
    ];
    for &(command, expected) in words {
        let found = command_words(command)
            .map(|c| c.iter().map(|c| c.texts().join(" ")).collect::<Vec<_>>());
        assert_eq!(found, Ok(vec![expected.join(" ")]), "{command:?}");
    }
}

#[test]
fn both_readers_stop_at_the_same_depth() {
    let policy = CommandPolicy::with_defaults();
    let within = nest_sh("touch deep.txt", wrappers::MAX_SCRIPT_DEPTH);
    let beyond = nest_sh("touch deep.txt", wrappers::MAX_SCRIPT_DEPTH + 1);
    assert!(policy.check(&within).is_allowed());
    assert_eq!(written_files(&within, "/ws"), ["/ws/deep.txt"]);
    assert!(!policy.check(&beyond).is_allowed());
    assert!(written_files(&beyond, "/ws").is_empty());
    let within_words =
        command_words(&within).map(|c| c.iter().map(|c| c.texts().join(" ")).collect::<Vec<_>>());
    assert_eq!(within_words, Ok(vec!["touch deep.txt".to_owned()]));
    assert_eq!(command_words(&beyond), Err(CommandWordsError::TooDeep));
}

/// `command` wrapped in `levels` levels of `sh -c "…"`, quoted properly.
fn nest_sh(command: &str, levels: usize) -> String {
    let mut command = command.to_owned();
    for _ in 0..levels {
        command = format!(
            "sh -c \"{}\"",
            command.replace('\\', "\\\\").replace('"', "\\\"")
        );
    }
    command
}
