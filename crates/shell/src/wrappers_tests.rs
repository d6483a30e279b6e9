//! Table tests for unwrapping wrappers and finding nested scripts.

use super::*;

fn words(text: &str) -> Vec<String> {
    split_words(text)
}

#[test]
fn chains() {
    // (command, the words of the innermost level)
    let cases: &[(&str, &str)] = &[
        ("rm -rf /", "rm -rf /"),
        ("FOO=1 BAR=2 rm -rf /", "rm -rf /"),
        ("env rm -rf /", "rm -rf /"),
        ("env -i -u HOME FOO=1 rm -rf /", "rm -rf /"),
        ("env -uHOME -- rm x", "rm x"),
        ("env -S 'rm -rf /'", "rm -rf /"),
        ("env --split-string='rm -rf' /", "rm -rf /"),
        ("nice -n 10 rm x", "rm x"),
        ("nice -10 rm x", "rm x"),
        ("nohup rm -rf /", "rm -rf /"),
        ("time -p rm x", "rm x"),
        ("command rm x", "rm x"),
        ("command -v sudo", "command -v sudo"),
        ("exec -a name rm x", "rm x"),
        ("timeout 5 rm x", "rm x"),
        ("timeout -s KILL -k 1 5s rm x", "rm x"),
        ("timeout --signal KILL 5 rm x", "rm x"),
        ("stdbuf -oL -e 0 rm x", "rm x"),
        ("sudo -u root -E rm x", "rm x"),
        ("sudo -- rm x", "rm x"),
        ("doas -u root rm x", "rm x"),
        ("busybox rm x", "rm x"),
        ("nice env sudo -u a timeout 1 rm x", "rm x"),
        ("xargs -0 -n 1 rm -rf", "rm -rf"),
        ("xargs", "echo"),
        ("ls -la", "ls -la"),
    ];
    for &(command, inner) in cases {
        let unwrapped = unwrap_command(&words(command), None);
        let last = unwrapped.chain.last().unwrap().join(" ");
        assert_eq!(last, inner, "{command}");
    }
}

/// (command, stdin, nested scripts or commands)
type NestedCase = (&'static str, Option<&'static str>, Vec<Nested<String>>);

#[test]
fn nested_scripts() {
    let script = |s: &str| Nested::<String>::Script(s.to_owned());
    let cases: &[NestedCase] = &[
        ("sh -c 'rm -rf /'", None, vec![script("rm -rf /")]),
        ("bash -lc 'sudo ls' x", None, vec![script("sudo ls")]),
        ("bash -o pipefail -c 'a | b'", None, vec![script("a | b")]),
        ("/bin/zsh -e -c -- 'ls'", None, vec![script("ls")]),
        ("sh script.sh", Some("rm -rf /"), vec![]),
        ("sh", Some("rm -rf /"), vec![script("rm -rf /")]),
        ("bash -s arg", Some("sudo x"), vec![script("sudo x")]),
        ("sh", None, vec![]),
        ("eval 'rm -rf' /", None, vec![script("rm -rf /")]),
        ("su -c 'rm x' root", None, vec![script("rm x")]),
        ("su --command=id", None, vec![script("id")]),
        ("watch -n 1 rm -rf /", None, vec![script("rm -rf /")]),
        ("sudo sh -c 'id'", None, vec![script("id")]),
        ("$SHELL -c 'rm x'", None, vec![script("rm x")]),
        (
            "find / -name x -exec rm -rf {} ; -execdir sudo id +",
            None,
            vec![
                Nested::Command(words("rm -rf {}")),
                Nested::Command(words("sudo id")),
            ],
        ),
    ];
    for (command, stdin, expected) in cases {
        let mut split = words(command);
        // The tokenizer ends words at `;`; put it back for the find case.
        if command.contains(" ; ") {
            split = command.split_whitespace().map(str::to_owned).collect();
        }
        let unwrapped = unwrap_command(&split, *stdin);
        assert_eq!(&unwrapped.nested, expected, "{command}");
    }
}

#[test]
fn xargs_appends_known_stdin() {
    let unwrapped = unwrap_command(&words("xargs rm -rf"), Some("/ \n"));
    assert_eq!(unwrapped.chain.last().unwrap().join(" "), "rm -rf /");
}

#[test]
fn parsed_words_keep_their_literal_flag() {
    // (command, the innermost level's words with whether each is literal)
    let cases: &[(&str, &[(&str, bool)])] = &[
        (
            "sudo tee \"$OUT\" a.txt",
            &[("tee", true), ("$OUT", false), ("a.txt", true)],
        ),
        ("env -S 'tee a.txt'", &[("tee", true), ("a.txt", true)]),
        ("env -S \"tee $F\"", &[("tee", false), ("$F", false)]),
        ("xargs touch", &[("touch", true)]),
        ("xargs", &[("echo", false)]),
    ];
    for &(command, expected) in cases {
        let commands = crate::syntax::parse_simple_commands(command).unwrap();
        let unwrapped = unwrap_command(&commands[0].words, None);
        let got: Vec<(&str, bool)> = unwrapped
            .chain
            .last()
            .unwrap()
            .iter()
            .map(|word| (word.text.as_str(), word.is_literal()))
            .collect();
        assert_eq!(got, expected, "{command}");
    }
}
