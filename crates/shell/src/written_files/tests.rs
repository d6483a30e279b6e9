//! The written-file table (acceptance: at least 30 cases).

use super::{resolve_written_path, written_files};

/// Commands run in `/ws`: (command, expected files).
const SHELL_CASES: &[(&str, &[&str])] = &[
    // Redirections.
    ("echo x > out.txt", &["/ws/out.txt"]),
    ("date >> log", &["/ws/log"]),
    ("echo x>o.txt", &["/ws/o.txt"]),
    ("ls missing 2>/dev/null", &[]),
    ("make 2>&1", &[]),
    ("make > build.log 2>&1", &["/ws/build.log"]),
    ("grep x a 2> err.txt", &["/ws/err.txt"]),
    ("run &> all.log", &["/ws/all.log"]),
    ("exec 3> fd.txt", &["/ws/fd.txt"]),
    ("echo x > /dev/stderr; echo y >/dev/stdout", &[]),
    (r#"echo hi > "my file.txt""#, &["/ws/my file.txt"]),
    ("echo 'a > b'", &[]),
    ("awk '$1 > 5' data.txt", &[]),
    (r#"echo "a > b" > real.txt"#, &["/ws/real.txt"]),
    ("echo $V > $OUT", &[]),
    (r#"ls > "$(date).log""#, &[]),
    ("{ echo a; echo b; } > grouped.txt", &["/ws/grouped.txt"]),
    ("if [ -f x ]; then echo y > z; fi", &["/ws/z"]),
    (
        "echo x > a.txt; echo y >> a.txt; touch a.txt",
        &["/ws/a.txt"],
    ),
    ("echo hi >> ~/notes.txt", &["~/notes.txt"]),
    // Heredocs.
    (
        "cat <<EOF > notes.md\n# Notes\na > b.txt\nEOF",
        &["/ws/notes.md"],
    ),
    (
        "cat > s.py <<'EOF'\nopen('x','w')\nEOF\npython3 s.py > run.log",
        &["/ws/s.py", "/ws/run.log"],
    ),
    ("cat <<EOF\nopen('not.txt','w')\nEOF", &[]),
    // tee, touch, mkdir.
    ("cmd | tee a.log", &["/ws/a.log"]),
    ("cmd 2>&1 | tee -a a.log b.log", &["/ws/a.log", "/ws/b.log"]),
    (
        "echo hi > b.txt 2>/dev/null && cat b.txt | tee -a out/a.txt",
        &["/ws/b.txt", "/ws/out/a.txt"],
    ),
    (
        "echo x | FOO=1 sudo tee --append /etc/conf >/dev/null",
        &["/etc/conf"],
    ),
    ("touch a b", &["/ws/a", "/ws/b"]),
    ("touch -d yesterday stamp", &["/ws/stamp"]),
    ("for f in a b; do touch \"$f.txt\"; done", &[]),
    ("mkdir -p d/e", &["/ws/d/e"]),
    ("mkdir -m 755 x y/", &["/ws/x", "/ws/y"]),
    // cp and mv.
    ("cp src.txt dst.txt", &["/ws/dst.txt"]),
    ("cp -r src_dir backup", &["/ws/backup"]),
    ("mv a dir/", &["/ws/dir/a"]),
    (
        "mv -f x/a.txt b.txt out/",
        &["/ws/out/a.txt", "/ws/out/b.txt"],
    ),
    (
        "cp -t out a.txt b/c.txt",
        &["/ws/out/a.txt", "/ws/out/c.txt"],
    ),
    ("cp *.csv out/", &[]),
    ("cp a", &[]),
    // Python.
    (
        r#"python -c "open('o.txt','w').write('x')""#,
        &["/ws/o.txt"],
    ),
    (r#"python3 -c "f = open(name, 'w')""#, &[]),
    (r#"python3 -c "print(open('in.txt').read())""#, &[]),
    (
        r#"python3 -c "open('in.txt', encoding='ascii').read()""#,
        &[],
    ),
    (
        "python3 -u -c 'open(\"m.txt\", mode=\"a\")'",
        &["/ws/m.txt"],
    ),
    (
        "python3 - <<EOF\nwith open('r.csv', 'w') as f:\n    f.write('a > b')\nEOF",
        &["/ws/r.csv"],
    ),
    (
        "python3 <<'PY'\nimport json\njson.dump({}, open('d.json', 'w'))\nPY",
        &["/ws/d.json"],
    ),
    // Directories and nested shells.
    ("cd build && echo x > out.txt", &["/ws/build/out.txt"]),
    ("cd /tmp; touch q; cd ..; touch r", &["/tmp/q", "/r"]),
    ("cd \"$D\" && touch rel /abs/x", &["/abs/x"]),
    ("bash -lc 'echo x > inner.txt'", &["/ws/inner.txt"]),
    (
        "sh -c \"cd sub && echo > x\"; touch y",
        &["/ws/sub/x", "/ws/y"],
    ),
    // Wrappers and nested scripts the policy knows too.
    ("env nice timeout 5 tee a.txt", &["/ws/a.txt"]),
    ("nice -n 10 touch n.txt", &["/ws/n.txt"]),
    ("stdbuf -oL ionice -c 3 touch io.txt", &["/ws/io.txt"]),
    ("env -u HOME FOO=1 mkdir made", &["/ws/made"]),
    ("env -S 'touch split.txt'", &["/ws/split.txt"]),
    ("sudo -u root bash -c 'echo x > out.txt'", &["/ws/out.txt"]),
    ("eval 'echo x > e.txt'", &["/ws/e.txt"]),
    (
        "bash <<EOF\necho x > from_heredoc.txt\nEOF",
        &["/ws/from_heredoc.txt"],
    ),
    ("sh <<< 'touch from_string.txt'", &["/ws/from_string.txt"]),
    (
        "echo $(date > inner.txt) > outer.txt",
        &["/ws/inner.txt", "/ws/outer.txt"],
    ),
    ("ls | xargs touch", &[]),
    ("find . -name '*.c' | xargs -I{} cp {} out/", &[]),
    ("find . -exec cp {} out/ ';'", &[]),
    ("command -v tee", &[]),
    // Words that are not literal.
    (
        "touch $'tab\\tname' \\*.txt '[x]'",
        &["/ws/tab\tname", "/ws/*.txt", "/ws/[x]"],
    ),
    ("touch a?.txt [ab].txt ${X}.txt $((1+1)).txt", &[]),
    // Parse errors write nothing.
    ("echo x > a.txt; echo 'unterminated", &[]),
];

#[test]
fn detects_files_written_by_shell_commands() {
    for (command, expected) in SHELL_CASES {
        assert_eq!(written_files(command, "/ws"), *expected, "{command:?}");
    }
}

#[test]
fn resolves_against_other_working_directories() {
    // (command, working directory, expected files)
    let cases: &[(&str, &str, &[&str])] = &[
        ("echo x > o", "/ws/sub", &["/ws/sub/o"]),
        ("touch ../t", "/tmp/w", &["/tmp/t"]),
        ("echo x > ../up.txt", "/ws/sub", &["/ws/up.txt"]),
        ("touch b.txt", "", &["b.txt"]),
        ("cd /tmp && touch c", "", &["/tmp/c"]),
        ("", "/ws", &[]),
        ("   ", "/ws", &[]),
    ];
    for &(command, cwd, expected) in cases {
        assert_eq!(
            written_files(command, cwd),
            expected,
            "{command:?} in {cwd:?}"
        );
    }
}

#[test]
fn resolves_path_arguments_of_file_tools() {
    // (working directory, path argument, resolved)
    let cases: &[(&str, &str, Option<&str>)] = &[
        ("/ws", "out/report.md", Some("/ws/out/report.md")),
        ("/ws", "/abs/log.txt", Some("/abs/log.txt")),
        ("/ws", "data/./raw/", Some("/ws/data/raw")),
        ("/ws", " padded.txt ", Some("/ws/padded.txt")),
        ("/ws", "../x", Some("/x")),
        ("/ws", "~/notes.txt", Some("~/notes.txt")),
        ("", "b.txt", Some("b.txt")),
        ("/ws", "", None),
        ("/ws", "   ", None),
        ("/ws", "-", None),
        ("/ws", "/dev/null", None),
        ("/ws", "a\0b", None),
    ];
    for &(cwd, target, expected) in cases {
        assert_eq!(
            resolve_written_path(cwd, target).as_deref(),
            expected,
            "{target:?} in {cwd:?}"
        );
    }
}
