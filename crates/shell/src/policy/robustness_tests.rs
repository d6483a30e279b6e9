//! Robustness tests: hostile or huge commands finish quickly and fail closed.

use super::*;

#[test]
fn hostile_inputs_finish() {
    let policy = CommandPolicy::with_defaults();
    // (command, allowed)
    let cases: Vec<(String, bool)> = vec![
        ("${".repeat(100_000), false),
        ("$(".repeat(100_000), false),
        ("{".repeat(100_000), true),
        (format!("echo {}", "{a,b}".repeat(10_000)), true),
        (format!("echo {}", "x,".repeat(100_000)), true),
        ("`".repeat(10_001), false),
        (format!("ls {}", "| cat ".repeat(10_000)), true),
        (nest_sh(10), true),
        (nest_sh(18), false),
        (format!("echo {}", "a".repeat(1 << 20)), true),
        (format!("{{rm,-rf,/,{}}}", "x".repeat(100_000)), false),
    ];
    for (command, allowed) in cases {
        assert_eq!(
            policy.check(&command).is_allowed(),
            allowed,
            "{}",
            &command[..20]
        );
    }
}

/// `ls` wrapped in `levels` levels of `sh -c "…"`, quoted properly.
fn nest_sh(levels: usize) -> String {
    let mut command = "ls".to_owned();
    for _ in 0..levels {
        command = format!(
            "sh -c \"{}\"",
            command.replace('\\', "\\\\").replace('"', "\\\"")
        );
    }
    command
}
