//! Table tests for grouping tokens into pipelines and function definitions.

use super::*;

/// Each pipeline as stages of word texts joined by spaces.
fn shape(source: &str) -> Vec<Vec<String>> {
    parse_script(source)
        .unwrap()
        .pipelines
        .iter()
        .map(|p| p.stages.iter().map(|s| s.texts().join(" ")).collect())
        .collect()
}

#[test]
fn pipelines_and_separators() {
    // (script, pipelines as stages)
    let cases: &[(&str, &[&[&str]])] = &[
        ("ls", &[&["ls"]]),
        ("ls -la | wc -l", &[&["ls -la", "wc -l"]]),
        (
            "a; b && c || d & e",
            &[&["a"], &["b"], &["c"], &["d"], &["e"]],
        ),
        ("a\nb", &[&["a"], &["b"]]),
        ("(cd x; ls) | cat", &[&["cd x"], &["ls"], &["cat"]]),
        ("{ rm x; }", &[&["rm x"]]),
        ("if true; then rm -rf /; fi", &[&["true"], &["rm -rf /"]]),
        ("while :; do echo do; done", &[&[":"], &["echo do"]]),
        (
            "for f in a b; do echo $f; done",
            &[&["f in a b"], &["echo $f"]],
        ),
        ("! grep x f", &[&["grep x f"]]),
        ("echo '{' }", &[&["echo { }"]]),
        ("", &[]),
        ("  ;; ", &[]),
    ];
    for &(source, expected) in cases {
        let expected: Vec<Vec<String>> = expected
            .iter()
            .map(|p| p.iter().map(|s| (*s).to_owned()).collect())
            .collect();
        assert_eq!(shape(source), expected, "{source:?}");
    }
}

#[test]
fn background_flag() {
    let script = parse_script("sleep 1 | cat & ls").unwrap();
    let flags: Vec<bool> = script.pipelines.iter().map(|p| p.background).collect();
    assert_eq!(flags, [true, false]);
}

#[test]
fn function_definitions() {
    // (script, function name, body pipelines as stage texts)
    let cases: &[(&str, &str, &[&[&str]])] = &[
        (":(){ :|:& };:", ":", &[&[":", ":"]]),
        ("bomb(){ bomb|bomb& };bomb", "bomb", &[&["bomb", "bomb"]]),
        ("f() ( ls; pwd )", "f", &[&["ls"], &["pwd"]]),
        ("function g { echo hi; }", "g", &[&["echo hi"]]),
        ("function h() { h | h & }", "h", &[&["h", "h"]]),
    ];
    for &(source, name, body) in cases {
        let script = parse_script(source).unwrap();
        let function = &script.functions[0];
        assert_eq!(function.name, name, "{source}");
        let got: Vec<Vec<String>> = function
            .body
            .iter()
            .map(|p| p.stages.iter().map(|s| s.texts().join(" ")).collect())
            .collect();
        assert_eq!(
            got,
            body.iter().map(|p| p.to_vec()).collect::<Vec<_>>(),
            "{source}"
        );
    }
}

#[test]
fn simple_commands_keep_assignments_and_redirects() {
    let commands = parse_simple_commands("A=1 B=2 cmd x > out 2>&1").unwrap();
    assert_eq!(commands.len(), 1);
    assert_eq!(commands[0].texts(), ["A=1", "B=2", "cmd", "x"]);
    assert_eq!(commands[0].redirects.len(), 2);
    let only_redirect = parse_simple_commands("> /dev/sda").unwrap();
    assert!(only_redirect[0].words.is_empty());
}

#[test]
fn errors_come_from_the_tokenizer() {
    assert!(parse_simple_commands("echo 'x").is_err());
    assert!(parse_script("echo $(ls").is_err());
}

#[test]
fn parses_pipelines_and_flattens_simple_commands() {
    let script = parse_script("cd x && ls | wc -l").unwrap();
    assert_eq!(script.pipelines.len(), 2);
    assert_eq!(script.pipelines[1].stages.len(), 2);
    let commands = parse_simple_commands("FOO=1 make -j4; (cd a && ls)").unwrap();
    assert_eq!(commands[0].texts(), ["FOO=1", "make", "-j4"]);
    assert_eq!(commands.len(), 3);
}
