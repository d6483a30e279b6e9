//! Robustness tests: arbitrary or hostile input never panics and finishes quickly.

use super::written_files;

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
        let _ = written_files(command, "/ws");
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
        for prefix in ["", "python3 -c ", "cp ", "tee ", "sudo bash -c ", "env -S "] {
            let _ = written_files(&format!("{prefix}{command}"), "/ws");
        }
    }
}

#[test]
fn hostile_inputs_finish() {
    let cases: Vec<String> = vec![
        "${".repeat(100_000),
        "$(".repeat(100_000),
        "`".repeat(10_001),
        format!("touch {}", "| tee x ".repeat(10_000)),
        nest_sh(12),
        nest_sh(18),
        format!("echo {} > big.txt", "a".repeat(1 << 20)),
        format!("touch {}", "x ".repeat(50_000)),
    ];
    for command in &cases {
        let _ = written_files(command, "/ws");
    }
    assert_eq!(written_files(&nest_sh(12), "/ws"), ["/ws/deep.txt"]);
    assert!(written_files(&nest_sh(18), "/ws").is_empty());
}

/// `touch deep.txt` wrapped in `levels` levels of `sh -c "…"`, quoted properly.
fn nest_sh(levels: usize) -> String {
    let mut command = "touch deep.txt".to_owned();
    for _ in 0..levels {
        command = format!(
            "sh -c \"{}\"",
            command.replace('\\', "\\\\").replace('"', "\\\"")
        );
    }
    command
}
