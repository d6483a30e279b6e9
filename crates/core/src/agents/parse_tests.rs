use super::*;

fn problems(text: &str, stem: &str) -> Vec<(Option<usize>, String, bool)> {
    parse_agent(text, Some(stem))
        .1
        .into_iter()
        .map(|p| (p.line, p.rule, p.fatal))
        .collect()
}

#[test]
fn a_claude_code_agent_file_parses() {
    let text = "---\nname: code-reviewer\ndescription: Reviews code. Use after a change.\ntools: Read, Grep, ExecuteCommand\nmodel: inherit\n---\nYou review code.\n\nBe brief.\n";
    let (definition, problems) = parse_agent(text, Some("code-reviewer"));
    assert_eq!(problems, vec![]);
    let definition = definition.expect("valid");
    assert_eq!(definition.name, "code-reviewer");
    assert_eq!(definition.description, "Reviews code. Use after a change.");
    assert_eq!(
        definition.tools,
        AgentTools::Only(vec!["Read".into(), "Grep".into(), "ExecuteCommand".into()])
    );
    assert_eq!(definition.model, AgentModel::Inherit);
    assert_eq!(definition.sandbox, None);
    assert_eq!(definition.max_tool_steps, None);
    assert_eq!(definition.prompt, "You review code.\n\nBe brief.");
}

#[test]
fn our_own_keys_and_a_tool_list_parse() {
    let text = "---\nname: finder\ndescription: Finds files.\ntools:\n  - ListDirectory\n  - ReadFile\n  - ReadFile\nmodel: small-local\nsandbox: read-only\nmaxToolSteps: 12\n---\nFind.\n";
    let (definition, problems) = parse_agent(text, Some("finder"));
    assert_eq!(problems, vec![]);
    let definition = definition.expect("valid");
    assert_eq!(
        definition.tools,
        AgentTools::Only(vec!["ListDirectory".into(), "ReadFile".into()])
    );
    assert_eq!(definition.model, AgentModel::Id("small-local".into()));
    assert_eq!(definition.sandbox, Some(AgentSandbox::ReadOnly));
    assert_eq!(definition.max_tool_steps, Some(12));
}

#[test]
fn no_tools_key_inherits_and_an_empty_list_gives_none() {
    let inherit = "---\nname: a\ndescription: d\n---\np\n";
    let none = "---\nname: a\ndescription: d\ntools: []\n---\np\n";
    assert_eq!(
        parse_agent(inherit, Some("a")).0.map(|d| d.tools),
        Some(AgentTools::Inherit)
    );
    assert_eq!(
        parse_agent(none, Some("a")).0.map(|d| d.tools),
        Some(AgentTools::Only(vec![]))
    );
}

#[test]
fn an_unknown_key_is_a_note_that_keeps_the_agent() {
    let text = "---\nname: a\ndescription: d\ncolor: blue\n---\np\n";
    let (definition, _) = parse_agent(text, Some("a"));
    assert!(definition.is_some());
    let found = problems(text, "a");
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].0, Some(4));
    assert!(found[0].1.contains("unknown key 'color'"), "{found:?}");
    assert!(!found[0].2);
}

#[test]
fn each_broken_rule_names_its_line() {
    let long = "d".repeat(1025);
    let cases: Vec<(String, &str, Option<usize>, &str)> = vec![
        (
            "no front matter\n".into(),
            "a",
            Some(1),
            "must begin with a '---'",
        ),
        ("---\nname: a\n".into(), "a", None, "never closed"),
        (
            "---\nname: [a\n---\np\n".into(),
            "a",
            Some(2),
            "not a YAML map",
        ),
        (
            "---\ndescription: d\n---\np\n".into(),
            "a",
            Some(3),
            "'name' is missing",
        ),
        (
            "---\nname: a\n---\np\n".into(),
            "a",
            Some(3),
            "'description' is missing",
        ),
        (
            "---\nname: a\ntools: Read\nmodel: inherit\n---\np\n".into(),
            "a",
            Some(5),
            "'description' is missing",
        ),
        (
            "---\nname: Big\ndescription: d\n---\np\n".into(),
            "Big",
            Some(2),
            "lowercase",
        ),
        (
            "---\nname: b\ndescription: d\n---\np\n".into(),
            "a",
            Some(2),
            "differs from its file 'a.md'",
        ),
        (
            "---\nname: a\ndescription: \"\"\n---\np\n".into(),
            "a",
            Some(3),
            "'description' is empty",
        ),
        (
            format!("---\nname: a\ndescription: {long}\n---\np\n"),
            "a",
            Some(3),
            "1025 characters",
        ),
        (
            "---\nname: a\ndescription: d\ntools: Read, two words\n---\np\n".into(),
            "a",
            None,
            "",
        ),
        (
            "---\nname: a\ndescription: d\ntools:\n  - ''\n---\np\n".into(),
            "a",
            Some(4),
            "empty name",
        ),
        (
            "---\nname: a\ndescription: d\nmodel: ''\n---\np\n".into(),
            "a",
            Some(4),
            "'model' is empty",
        ),
        (
            "---\nname: a\ndescription: d\nsandbox: off\n---\np\n".into(),
            "a",
            Some(4),
            "'sandbox' 'off' is not a sandbox mode",
        ),
        (
            "---\nname: a\ndescription: d\nmaxToolSteps: 0\n---\np\n".into(),
            "a",
            Some(4),
            "from 1 to 500",
        ),
        (
            "---\nname: a\ndescription: d\nmaxToolSteps: 501\n---\np\n".into(),
            "a",
            Some(4),
            "from 1 to 500",
        ),
        (
            "---\nname: a\ndescription: d\nmaxToolSteps: many\n---\np\n".into(),
            "a",
            Some(4),
            "'many'",
        ),
        (
            "---\nname: a\ndescription: d\n---\n\n  \n".into(),
            "a",
            None,
            "body after the front matter is empty",
        ),
    ];
    for (text, stem, line, part) in cases {
        let (definition, found) = parse_agent(&text, Some(stem));
        if part.is_empty() {
            // "Read, two words" splits into three valid names: no problem at all.
            assert!(definition.is_some(), "{text}: {found:?}");
            continue;
        }
        assert!(definition.is_none(), "{text}");
        let fatal: Vec<_> = found.iter().filter(|p| p.fatal).collect();
        assert_eq!(fatal.len(), 1, "{text}: {found:?}");
        assert!(fatal[0].rule.contains(part), "{text}: {:?}", fatal[0]);
        assert_eq!(fatal[0].line, line, "{text}: {:?}", fatal[0]);
    }
}

#[test]
fn the_general_agent_inherits_everything() {
    let general = AgentDefinition::general();
    assert_eq!(general.name, super::super::GENERAL_AGENT);
    assert_eq!(general.tools, AgentTools::Inherit);
    assert_eq!(general.model, AgentModel::Inherit);
    assert_eq!(general.sandbox, None);
}
