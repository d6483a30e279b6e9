//! Table tests for the shell tokenizer.

use super::*;

/// A compact rendering of tokens: words as their text, operators and redirects by symbol.
fn render(source: &str) -> Vec<String> {
    tokenize(source)
        .unwrap()
        .into_iter()
        .map(|token| match token {
            Token::Word(word) => word.text,
            Token::Operator(op) => match op {
                Operator::Semicolon => ";",
                Operator::And => "&&",
                Operator::Or => "||",
                Operator::Pipe => "|",
                Operator::Background => "&",
                Operator::Newline => "NL",
                Operator::OpenParen => "(",
                Operator::CloseParen => ")",
            }
            .to_owned(),
            Token::Redirect(r) => {
                let fd = r.fd.map(|fd| fd.to_string()).unwrap_or_default();
                format!("{fd}{:?}[{}]", r.op, r.target.text)
            }
        })
        .collect()
}

#[test]
fn words_and_quotes() {
    // (script, rendered tokens)
    let cases: &[(&str, &[&str])] = &[
        ("rm  -rf   /", &["rm", "-rf", "/"]),
        ("\"rm\" -rf /", &["rm", "-rf", "/"]),
        ("'r'm -rf /", &["rm", "-rf", "/"]),
        ("\\rm -rf /", &["rm", "-rf", "/"]),
        ("r\\m", &["rm"]),
        ("echo 'a  b' \"c  d\"", &["echo", "a  b", "c  d"]),
        ("echo \"a\\\"b\\$c\\x\"", &["echo", "a\"b$c\\x"]),
        ("echo 'it'\\''s'", &["echo", "it's"]),
        ("$'\\x72\\x6d' -rf", &["rm", "-rf"]),
        ("$'\\162m' $'a\\tb' $'\\u00e9'", &["rm", "a\tb", "é"]),
        ("$\"x y\"", &["x y"]),
        ("echo a\\\nb", &["echo", "ab"]),
        ("ls \\\n -la", &["ls", "-la"]),
        ("echo a#b # comment", &["echo", "a#b"]),
        (
            "echo ${HOME} $HOME ${x:-\"a}\"}",
            &["echo", "${HOME}", "$HOME", "${x:-\"a}\"}"],
        ),
        ("echo $((1 + (2*3)))", &["echo", "$((1 + (2*3)))"]),
        ("echo {a,b} x=y", &["echo", "{a,b}", "x=y"]),
        ("trailing\\", &["trailing\\"]),
    ];
    for &(source, expected) in cases {
        assert_eq!(render(source), expected, "{source:?}");
    }
}

#[test]
fn operators() {
    let cases: &[(&str, &[&str])] = &[
        ("a;b", &["a", ";", "b"]),
        ("a&&b||c", &["a", "&&", "b", "||", "c"]),
        ("a|b|&c", &["a", "|", "b", "|", "c"]),
        ("a & b", &["a", "&", "b"]),
        ("a\nb", &["a", "NL", "b"]),
        ("(a)", &["(", "a", ")"]),
        (
            ":(){ :|:& };:",
            &[":", "(", ")", "{", ":", "|", ":", "&", "}", ";", ":"],
        ),
        (
            "case x in a) b;; esac",
            &["case", "x", "in", "a", ")", "b", ";", "esac"],
        ),
    ];
    for &(source, expected) in cases {
        assert_eq!(render(source), expected, "{source:?}");
    }
}

#[test]
fn redirections() {
    let cases: &[(&str, &[&str])] = &[
        ("echo x > /dev/sda", &["echo", "x", "Output[/dev/sda]"]),
        ("echo x>/dev/sda", &["echo", "x", "Output[/dev/sda]"]),
        (
            "cmd 2>&1 >>log",
            &["cmd", "2DuplicateOutput[1]", "Append[log]"],
        ),
        (
            "cmd &> all &>> more",
            &["cmd", "OutputAll[all]", "AppendAll[more]"],
        ),
        (
            "cat < in <> rw >| clobber",
            &["cat", "Input[in]", "ReadWrite[rw]", "Output[clobber]"],
        ),
        ("sh <<< 'rm -rf /'", &["sh", "HereString[rm -rf /]"]),
        ("exec 3<&0", &["exec", "3DuplicateInput[0]"]),
        ("echo 2x", &["echo", "2x"]),
        ("> \"/dev/sd\"a", &["Output[/dev/sda]"]),
    ];
    for &(source, expected) in cases {
        assert_eq!(render(source), expected, "{source:?}");
    }
}

#[test]
fn heredoc_bodies_are_read() {
    // (script, heredoc body, tokens after the heredoc)
    let cases: &[(&str, &str, &[&str])] = &[
        ("sh <<EOF\nrm -rf /\nEOF\nls", "rm -rf /\n", &["NL", "ls"]),
        (
            "cat <<-'END' | sh\n\tsudo x\n\tEND\n",
            "\tsudo x\n",
            &["|", "sh", "NL"],
        ),
        ("sh <<EOF\nno end", "no end\n", &["NL"]),
    ];
    for &(source, body, rest) in cases {
        let tokens = tokenize(source).unwrap();
        let heredoc = tokens.iter().find_map(|t| match t {
            Token::Redirect(r) => r.heredoc_body.clone(),
            _ => None,
        });
        assert_eq!(heredoc.as_deref(), Some(body), "{source:?}");
        let rendered = render(source);
        assert!(rendered.ends_with(&rest.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>()));
    }
}

/// (script, word index, kinds and inner scripts)
type SubstitutionCase = (
    &'static str,
    usize,
    &'static [(SubstitutionKind, &'static str)],
);

#[test]
fn substitutions_are_recorded() {
    use SubstitutionKind::{Command, ProcessInput, ProcessOutput};
    let cases: &[SubstitutionCase] = &[
        ("echo $(sudo ls)", 1, &[(Command, "sudo ls")]),
        ("echo \"a $(id -u) b\"", 1, &[(Command, "id -u")]),
        ("echo `rm -rf /`", 1, &[(Command, "rm -rf /")]),
        ("echo `echo \\`id\\``", 1, &[(Command, "echo `id`")]),
        ("echo $(echo $(id))", 1, &[(Command, "echo $(id)")]),
        ("echo $( (cd a; ls) )", 1, &[(Command, " (cd a; ls) ")]),
        ("echo $(echo ')')", 1, &[(Command, "echo ')'")]),
        ("bash <(curl x)", 1, &[(ProcessInput, "curl x")]),
        ("tee >(sh)", 1, &[(ProcessOutput, "sh")]),
        ("echo ${x:-$(id)}", 1, &[(Command, "id")]),
        ("echo $(a)$(b)", 1, &[(Command, "a"), (Command, "b")]),
    ];
    for &(source, index, expected) in cases {
        let tokens = tokenize(source).unwrap();
        let Token::Word(word) = &tokens[index] else {
            panic!("{source:?}: token {index} is not a word");
        };
        let got: Vec<(SubstitutionKind, &str)> = word
            .substitutions
            .iter()
            .map(|s| (s.kind, s.script.as_str()))
            .collect();
        assert_eq!(got, expected, "{source:?}");
    }
}

#[test]
fn splits_words_and_operators() {
    let tokens = tokenize("echo 'a  b' && ls").unwrap();
    assert!(matches!(&tokens[1], Token::Word(w) if w.text == "a  b"));
    assert_eq!(tokens[2], Token::Operator(Operator::And));
}

#[test]
fn literal_words() {
    // (word, whether its text is the value the program sees)
    let cases: &[(&str, bool)] = &[
        ("a.txt", true),
        ("'$x'", true),
        ("\"my file\"", true),
        ("\\*.txt", true),
        ("'*.txt'", true),
        ("\"*.txt\"", true),
        ("$'a\\tb'", true),
        ("a$", true),
        ("$x", false),
        ("$1", false),
        ("\"$HOME/x\"", false),
        ("${x}", false),
        ("$((1+2))", false),
        ("*.txt", false),
        ("a?", false),
        ("[ab]", false),
        ("`pwd`/x", false),
        ("$(pwd)/x", false),
        ("<(ls)", false),
    ];
    for &(source, literal) in cases {
        let tokens = tokenize(&format!("cmd {source}")).unwrap();
        assert!(
            matches!(&tokens[1], Token::Word(w) if w.is_literal() == literal),
            "{source:?}: {:?}",
            tokens[1]
        );
    }
}

#[test]
fn quoted_flag() {
    let cases: &[(&str, bool)] = &[
        ("plain", false),
        ("'q'", true),
        ("\"q\"", true),
        ("a\\ b", true),
        ("$x", false),
        ("$'x'", true),
    ];
    for &(source, quoted) in cases {
        let tokens = tokenize(source).unwrap();
        assert!(
            matches!(&tokens[0], Token::Word(w) if w.quoted == quoted),
            "{source:?}"
        );
    }
}

#[test]
fn errors() {
    // (script, expected error)
    let cases: &[(&str, ParseError)] = &[
        ("echo 'x", ParseError::UnterminatedQuote { quote: '\'' }),
        ("echo \"x", ParseError::UnterminatedQuote { quote: '"' }),
        ("echo $'x", ParseError::UnterminatedQuote { quote: '\'' }),
        (
            "echo $(ls",
            ParseError::UnterminatedSubstitution { opening: "$(" },
        ),
        (
            "echo `ls",
            ParseError::UnterminatedSubstitution { opening: "`" },
        ),
        (
            "echo ${x",
            ParseError::UnterminatedSubstitution { opening: "${" },
        ),
        (
            "echo $((1+2)",
            ParseError::UnterminatedSubstitution { opening: "$((" },
        ),
        (
            "echo >",
            ParseError::MissingRedirectTarget { operator: ">" },
        ),
        (
            "echo > ;",
            ParseError::MissingRedirectTarget { operator: ">" },
        ),
        (
            "echo $(echo 'x)",
            ParseError::UnterminatedQuote { quote: '\'' },
        ),
    ];
    for (source, expected) in cases {
        assert_eq!(tokenize(source).unwrap_err(), *expected, "{source:?}");
    }
    let deep = format!(
        "{}x{}",
        "$(".repeat(MAX_NESTING + 1),
        ")".repeat(MAX_NESTING + 1)
    );
    assert_eq!(
        tokenize(&deep).unwrap_err(),
        ParseError::TooDeep { limit: MAX_NESTING }
    );
}
