use super::*;

#[test]
fn keys_typed_ahead_in_line_mode_mean_what_they_meant() {
    use crossterm::event::KeyEvent;
    use reedline::EditMode;
    use reedline::ReedlineRawEvent;
    let mut mode = Emacs::new(chat_keybindings());
    let mut event = |code, modifiers| {
        let raw = crossterm::event::Event::Key(KeyEvent::new(code, modifiers));
        mode.parse_event(ReedlineRawEvent::try_from(raw).unwrap())
    };
    let new_line = ReedlineEvent::Edit(vec![EditCommand::InsertNewline]);
    let cases = [
        // (key as read in raw mode, what it does)
        ((KeyCode::Enter, KeyModifiers::NONE), ReedlineEvent::Enter),
        // Enter typed ahead: a line feed.
        (
            (KeyCode::Char('j'), KeyModifiers::CONTROL),
            ReedlineEvent::Enter,
        ),
        ((KeyCode::Enter, KeyModifiers::ALT), new_line.clone()),
        ((KeyCode::Enter, KeyModifiers::SHIFT), new_line.clone()),
        // Alt+Enter typed ahead: escape + line feed, never a literal `j`.
        (
            (
                KeyCode::Char('j'),
                KeyModifiers::CONTROL | KeyModifiers::ALT,
            ),
            new_line,
        ),
        // A plain `j` is still a `j`.
        (
            (KeyCode::Char('j'), KeyModifiers::NONE),
            ReedlineEvent::Edit(vec![EditCommand::InsertChar('j')]),
        ),
    ];
    for ((code, modifiers), want) in cases {
        assert_eq!(event(code, modifiers), want, "{code:?} {modifiers:?}");
    }
}

#[test]
fn slash_commands_and_conversation_ids_complete() {
    assert_eq!(completions("/s"), ["/switch ", "/search ", "/show "]);
    assert_eq!(completions("/q"), ["/quit"]);
    assert!(completions("/zz").is_empty());
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("docs")).unwrap();
    std::fs::write(dir.path().join("notes.txt"), "x").unwrap();
    let mut completer = ChatCompleter {
        conversations: Arc::new(Mutex::new(vec!["0191aa".into(), "0292bb".into()])),
        mcp: Arc::new(Mutex::new(McpOffer {
            resources: vec!["t:note://readme".into()],
            prompts: vec!["/t:review ".into()],
        })),
        base: Some(dir.path().to_path_buf()),
    };
    let line = "/switch 01";
    let got: Vec<(String, usize)> = completer
        .complete(line, line.len())
        .into_iter()
        .map(|s| (s.value, s.span.start))
        .collect();
    assert_eq!(got, [("0191aa".to_owned(), 8)]);
    assert!(completer.complete("hello /s", 8).is_empty());
    assert_eq!(completions("/exp"), ["/export "]);
    let line = "/export j";
    let got: Vec<String> = completer
        .complete(line, line.len())
        .into_iter()
        .map(|s| s.value)
        .collect();
    assert_eq!(got, ["json "]);
    assert_eq!(completions("/at"), ["/attach "]);
    // Paths after `@` and `/attach `: a file ends the word, a directory goes on.
    for (line, start) in [("read @no", 6), ("/attach no", 8)] {
        let got: Vec<(String, usize, bool)> = completer
            .complete(line, line.len())
            .into_iter()
            .map(|s| (s.value, s.span.start, s.append_whitespace))
            .collect();
        assert_eq!(got, [("notes.txt".to_owned(), start, true)], "{line}");
    }
    let got: Vec<(String, bool)> = completer
        .complete("see @d", 6)
        .into_iter()
        .map(|s| (s.value, s.append_whitespace))
        .collect();
    assert_eq!(got, [("docs/".to_owned(), false)]);
    // MCP resources after `@`, prompts among the commands.
    let got: Vec<(String, usize)> = completer
        .complete("see @t:no", 9)
        .into_iter()
        .map(|s| (s.value, s.span.start))
        .collect();
    assert_eq!(got, [("t:note://readme".to_owned(), 5)]);
    let got: Vec<String> = completer
        .complete("/t:", 3)
        .into_iter()
        .map(|s| s.value)
        .collect();
    assert_eq!(got, ["/t:review "]);
}
