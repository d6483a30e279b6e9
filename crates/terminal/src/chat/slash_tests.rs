use super::*;

#[test]
fn parses_commands_and_explains_mistakes() {
    let cases: &[(&str, Option<Result<Slash, &str>>)] = &[
        ("hello", None),
        ("  /new ", Some(Ok(Slash::New))),
        ("/list", Some(Ok(Slash::List))),
        ("/switch abc123", Some(Ok(Slash::Switch("abc123".into())))),
        ("/switch", Some(Err("usage: /switch ID"))),
        ("/usage", Some(Ok(Slash::Usage))),
        ("/permissions", Some(Ok(Slash::Permissions(None)))),
        (
            "/permissions revoke 12",
            Some(Ok(Slash::Permissions(Some(12)))),
        ),
        (
            "/permissions revoke x",
            Some(Err(
                "usage: /permissions [revoke ID] (the id from /permissions)",
            )),
        ),
        ("/compact", Some(Ok(Slash::Compact(None)))),
        (
            "/compact focus on the API",
            Some(Ok(Slash::Compact(Some("focus on the API".into())))),
        ),
        (
            "/search  disk \"full\" -x ",
            Some(Ok(Slash::Search("disk \"full\" -x".into()))),
        ),
        ("/search", Some(Err("usage: /search QUERY"))),
        ("/tasks", Some(Ok(Slash::Tasks))),
        ("/mcp", Some(Ok(Slash::Mcp))),
        ("/mcp x", Some(Err("/mcp takes no argument"))),
        ("/skills", Some(Ok(Slash::Skills))),
        ("/skills x", Some(Err("/skills takes no argument"))),
        ("/agents", Some(Ok(Slash::Agents))),
        ("/agents x", Some(Err("/agents takes no argument"))),
        ("/model", Some(Ok(Slash::Model(None)))),
        ("/model large", Some(Ok(Slash::Model(Some("large".into()))))),
        ("/retry", Some(Ok(Slash::Retry))),
        ("/retry now", Some(Err("/retry takes no argument"))),
        (
            "/edit  say it better ",
            Some(Ok(Slash::Edit("say it better".into()))),
        ),
        (
            "/edit",
            Some(Err("usage: /edit NEW TEXT (replaces your last message)")),
        ),
        ("/clear", Some(Ok(Slash::Clear))),
        ("/attach", Some(Ok(Slash::Attached))),
        ("/attach clear", Some(Ok(Slash::AttachClear))),
        (
            "/attach 'my notes.txt'",
            Some(Ok(Slash::Attach("my notes.txt".into()))),
        ),
        ("/attach ./clear", Some(Ok(Slash::Attach("./clear".into())))),
        ("/copy", Some(Ok(Slash::Copy))),
        ("/resume", Some(Ok(Slash::Resume))),
        ("/history", Some(Ok(Slash::History))),
        ("/changes", Some(Ok(Slash::Changes))),
        ("/rewind", Some(Ok(Slash::Rewind(RewindSlash::default())))),
        (
            "/rewind 2 both force",
            Some(Ok(Slash::Rewind(RewindSlash {
                to: Some("2".into()),
                scope: Some("both".into()),
                force: true,
                undo: false,
            }))),
        ),
        (
            "/rewind undo",
            Some(Ok(Slash::Rewind(RewindSlash {
                undo: true,
                ..RewindSlash::default()
            }))),
        ),
        ("/show 2", Some(Ok(Slash::Show(2)))),
        (
            "/show",
            Some(Err("usage: /show N (the number on the tool call's line)")),
        ),
        (
            "/show 0",
            Some(Err("usage: /show N (the number on the tool call's line)")),
        ),
        ("/copy all", Some(Err("/copy takes no argument"))),
        (
            "/export md",
            Some(Ok(Slash::Export(ExportFormat::Md, None))),
        ),
        (
            "/export JSON  my notes.json ",
            Some(Ok(Slash::Export(
                ExportFormat::Json,
                Some("my notes.json".into()),
            ))),
        ),
        ("/export", Some(Err("usage: /export md|json [FILE]"))),
        ("/verbose", Some(Ok(Slash::Verbose(None)))),
        ("/verbose on", Some(Ok(Slash::Verbose(Some(true))))),
        ("/verbose off", Some(Ok(Slash::Verbose(Some(false))))),
        ("/verbose loud", Some(Err("usage: /verbose [on|off]"))),
        (
            "/export pdf out.pdf",
            Some(Err(
                "/export writes md or json, not 'pdf' (usage: /export md|json [FILE])",
            )),
        ),
        ("/undo", Some(Ok(Slash::Undo))),
        ("/undo 2", Some(Err("/undo takes no argument"))),
        ("/tasks all", Some(Err("/tasks takes no argument"))),
        ("/HELP", Some(Ok(Slash::Help))),
        (
            "/t:Review  the parser ",
            Some(Ok(Slash::McpPrompt {
                server: "t".into(),
                prompt: "Review".into(),
                args: "the parser".into(),
            })),
        ),
        (
            "/t:",
            Some(Err(
                "usage: /SERVER:PROMPT [ARGS] (an MCP server's prompt; /help lists them)",
            )),
        ),
        ("/quit", Some(Ok(Slash::Quit))),
        ("/exit", Some(Ok(Slash::Quit))),
        ("/new now", Some(Err("/new takes no argument"))),
        (
            "/frobnicate",
            Some(Err("unknown command /frobnicate; type /help for the list")),
        ),
    ];
    for (line, expected) in cases {
        let got = parse_slash(line);
        let expected = expected.clone().map(|r| r.map_err(str::to_owned));
        assert_eq!(got, expected, "{line:?}");
    }
}
