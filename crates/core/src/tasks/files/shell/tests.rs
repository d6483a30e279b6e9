//! Tokenizer tests: commands, words, redirections and heredocs.

use super::*;

/// Each command as "word word ... [>target] [<<body]".
fn show(script: &str) -> Vec<String> {
    parse(script)
        .iter()
        .map(|c| {
            let mut parts: Vec<String> = c.words.iter().map(|w| w.text.clone()).collect();
            for r in &c.redirects {
                parts.push(match r {
                    Redirect::Write(w) => format!(">{}", w.text),
                    Redirect::HereDoc(body) => format!("<<{body:?}"),
                });
            }
            parts.join(" ")
        })
        .collect()
}

#[test]
fn tokenizes_commands_words_and_redirections() {
    let cases: [(&str, &[&str]); 16] = [
        ("echo 'a > b'", &["echo a > b"]),
        (r#"echo "x \"y\" \$z" a\ b"#, &[r#"echo x "y" $z a b"#]),
        (
            "a; b && c || d | e & f |& g",
            &["a", "b", "c", "d", "e", "f", "g"],
        ),
        ("echo x>out 2>>err.log", &["echo x >out >err.log"]),
        ("cmd 2>&1 >&2 1>&- <in.txt <&3", &["cmd"]),
        (
            "cmd &>all.log; cmd &>> more.log; cmd >| forced >& both",
            &["cmd >all.log", "cmd >more.log", "cmd >forced >both"],
        ),
        ("cat <<< 'here string' > hs", &["cat >hs"]),
        (
            "cat <<EOF > notes.md\nline > x\nEOF\necho done",
            &["cat <<\"line > x\\n\" >notes.md", "echo done"],
        ),
        (
            "cat <<-'END' >t\n\tindented\n\tEND\n",
            &["cat <<\"indented\\n\" >t"],
        ),
        (
            "cat <<A; cat <<B\na\nA\nb\nB\n",
            &["cat <<\"a\\n\"", "cat <<\"b\\n\""],
        ),
        ("echo $(date > x) > y", &["echo $(date > x) >y"]),
        ("echo `cmd > x`", &["echo `cmd > x`"]),
        ("echo a # comment > c\necho b#c", &["echo a", "echo b#c"]),
        ("long \\\n  line", &["long line"]),
        ("(cd d && make) > log", &["cd d", "make", ">log"]),
        ("echo '' x", &["echo  x"]),
    ];
    for (script, expected) in cases {
        assert_eq!(show(script), expected, "{script:?}");
    }
}

#[test]
fn marks_expansions_and_globs_as_not_literal() {
    let cases = [
        ("a.txt", true),
        ("'$x'", true),
        ("\"my file\"", true),
        ("$x", false),
        ("\"$HOME/x\"", false),
        ("*.txt", false),
        ("'*.txt'", true),
        ("`pwd`/x", false),
    ];
    for (word, literal) in cases {
        let commands = parse(&format!("cmd {word}"));
        assert_eq!(commands[0].words[1].literal, literal, "{word}");
    }
}
