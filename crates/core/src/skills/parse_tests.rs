use super::*;

fn problems(text: &str, folder: &str) -> Vec<(Option<usize>, String)> {
    parse_skill(text, Some(folder))
        .1
        .into_iter()
        .map(|p| (p.line, p.rule))
        .collect()
}

#[test]
fn a_full_skill_parses() {
    let text = "---\nname: csv-report\ndescription: >\n  Turns CSV files into a short report.\n  Use when the person hands over a CSV.\nlicense: MIT\ncompatibility: needs python3\nmetadata:\n  author: someone\n  version: 1.2\nallowed-tools: ExecuteCommand ReadFile\n---\n# Steps\nRun it.\n";
    let (document, problems) = parse_skill(text, Some("csv-report"));
    assert_eq!(problems, vec![]);
    let document = document.expect("valid");
    assert_eq!(document.name, "csv-report");
    assert_eq!(
        document.description,
        "Turns CSV files into a short report. Use when the person hands over a CSV."
    );
    assert_eq!(
        document.metadata.get("version").map(String::as_str),
        Some("1.2")
    );
    assert_eq!(document.allowed_tools, vec!["ExecuteCommand", "ReadFile"]);
    assert_eq!(document.body, "# Steps\nRun it.\n");
    assert_eq!(document.license.as_deref(), Some("MIT"));
}

#[test]
fn each_broken_rule_names_its_line() {
    let long = "d".repeat(1025);
    let cases: Vec<(String, &str, Option<usize>, &str)> = vec![
        (
            "no front matter\n".into(),
            "x",
            Some(1),
            "must begin with a '---'",
        ),
        ("---\nname: x\n".into(), "x", None, "never closed"),
        (
            "---\nname: [x\n---\n".into(),
            "x",
            Some(2),
            "not a YAML map",
        ),
        (
            "---\n- a\n- b\n---\n".into(),
            "x",
            Some(2),
            "text fields: expected mapping",
        ),
        (
            "---\ndescription: d\n---\n".into(),
            "x",
            None,
            "'name' is missing",
        ),
        (
            "---\nname: y\ndescription: d\n---\n".into(),
            "x",
            Some(2),
            "differs from its folder",
        ),
        (
            "---\nname: x\ndescription: ".to_owned() + &long + "\n---\n",
            "x",
            Some(3),
            "1025 characters",
        ),
        (
            "---\nname: x\ndescription: d\nmetadata: [1]\n---\n".into(),
            "x",
            Some(4),
            "not a YAML map of text fields",
        ),
        (
            "---\nname: x\ndescription: d\nmetadata:\n  a: [1]\n---\n".into(),
            "x",
            Some(5),
            "not a YAML map of text fields",
        ),
        (
            "---\nname: x\ndescription: [5]\n---\n".into(),
            "x",
            Some(3),
            "not a YAML map of text fields",
        ),
        (
            "---\nname: x\ndescription: d\nallowed-tools: Bash(\n---\n".into(),
            "x",
            Some(4),
            "never closed",
        ),
    ];
    for (text, folder, line, part) in cases {
        let found = problems(&text, folder);
        assert!(
            found
                .iter()
                .any(|(l, rule)| *l == line && rule.contains(part)),
            "{text:?}: {found:?}"
        );
        assert!(parse_skill(&text, Some(folder)).0.is_none(), "{text:?}");
    }
}

#[test]
fn yaml_1_1_words_stay_text() {
    let (document, problems) = parse_skill("---\nname: y\ndescription: no\n---\n", Some("y"));
    assert_eq!(problems, vec![]);
    assert_eq!(document.map(|d| d.description), Some("no".to_owned()));
}

#[test]
fn an_unknown_key_is_noted_and_the_skill_loads() {
    let text = "---\nname: x\ndescription: d\nversion: 3\n---\nbody";
    let (document, problems) = parse_skill(text, Some("x"));
    assert!(document.is_some());
    assert_eq!(problems.len(), 1);
    assert!(!problems[0].fatal);
    assert_eq!(problems[0].line, Some(4));
    assert!(problems[0].rule.contains("unknown key 'version'"));
    assert_eq!(
        problems[0].located("s/x/SKILL.md"),
        format!("s/x/SKILL.md:4: {}", problems[0].rule)
    );
}

#[test]
fn crlf_and_a_byte_order_mark_are_read() {
    let text = "\u{feff}---\r\nname: x\r\ndescription: d\r\n---\r\nbody\r\n";
    let (document, problems) = parse_skill(text, Some("x"));
    assert_eq!(problems, vec![]);
    assert_eq!(document.map(|d| d.body), Some("body\r\n".to_owned()));
}
