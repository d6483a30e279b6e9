//! The file-detection table (acceptance: at least 30 cases).

use serde_json::{Value, json};

use super::detect_generated_files;

/// A shell command.
fn sh(command: &str) -> Value {
    json!({ "command": command })
}

/// `ExecuteCommand` calls run in `/ws` that succeeded: (command, expected files).
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
];

#[test]
fn detects_files_written_by_shell_commands() {
    for (command, expected) in SHELL_CASES {
        assert_eq!(
            detect_generated_files("ExecuteCommand", &sh(command), "/ws", true),
            *expected,
            "{command:?}"
        );
    }
}

#[test]
fn detects_files_of_file_tools_working_directories_and_failures() {
    let cases = [
        (
            "WriteFile",
            json!({"path": "out/report.md", "content": "x"}),
            "/ws",
            true,
            &["/ws/out/report.md"][..],
        ),
        (
            "AppendFile",
            json!({"path": "/abs/log.txt"}),
            "/ws",
            true,
            &["/abs/log.txt"],
        ),
        (
            "CreateDirectory",
            json!({"path": "data/./raw/"}),
            "/ws",
            true,
            &["/ws/data/raw"],
        ),
        ("WriteFile", json!({"path": "a.txt"}), "/ws", false, &[]),
        ("ReadFile", json!({"path": "a.txt"}), "/ws", true, &[]),
        ("WriteFile", json!({"content": "x"}), "/ws", true, &[]),
        ("WriteFile", json!({"path": "b.txt"}), "", true, &["b.txt"]),
        (
            "ExecuteCommand",
            json!({"command": "echo x > o", "workingDirectory": "sub"}),
            "/ws",
            true,
            &["/ws/sub/o"],
        ),
        (
            "ExecuteCommand",
            json!({"command": "touch ../t", "workingDirectory": "/tmp/w"}),
            "/ws",
            true,
            &["/tmp/t"],
        ),
        (
            "ExecuteCommand",
            json!({"command": "echo x > ../up.txt"}),
            "/ws/sub",
            true,
            &["/ws/up.txt"],
        ),
        ("ExecuteCommand", sh("echo x > out.txt"), "/ws", false, &[]),
    ];
    assert!(SHELL_CASES.len() + cases.len() >= 30);
    for (tool, args, cwd, succeeded, expected) in cases {
        assert_eq!(
            detect_generated_files(tool, &args, cwd, succeeded),
            expected,
            "{tool} {args} in {cwd:?}"
        );
    }
}

#[test]
fn malformed_commands_never_panic() {
    let nasty = [
        "",
        "'",
        "\"",
        "\\",
        "<<",
        "<<EOF",
        "cat <<",
        "2>",
        "echo >",
        "&>",
        ">&",
        "$(",
        "`",
        "${",
        "python -c",
        "python3 -c \"open(\"",
        "python3 -c \"open('x', \"",
        "cp",
        "mv -t",
        "cd",
        "tee --",
        "echo é > ü.txt",
        "cat <<EOF > a\n",
        "python3 - <<EOF\nopen('''x",
        "bash -c",
        "(((",
        ")))",
    ];
    for command in nasty {
        let _ = detect_generated_files("ExecuteCommand", &sh(command), "/ws", true);
    }
    // Deterministic pseudo-random strings over the characters the tokenizers care about.
    let alphabet: Vec<char> = "ab1 -'\"\\$`()<>&|;#=\n\t{}[]*,éopen(w".chars().collect();
    let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
    for _ in 0..3000 {
        let mut command = String::new();
        for _ in 0..(seed % 40) {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let index = usize::try_from(seed % alphabet.len() as u64).unwrap();
            command.push(alphabet[index]);
        }
        seed = seed.wrapping_add(1);
        for prefix in ["", "python3 -c ", "cp ", "tee "] {
            let _ = detect_generated_files(
                "ExecuteCommand",
                &sh(&format!("{prefix}{command}")),
                "/ws",
                true,
            );
        }
    }
}
