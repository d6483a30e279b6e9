//! The skills block of the system prompt: each skill's name, description and location,
//! within a bound.

/// The most characters the block holds (about 2 000 tokens of English).
pub const BLOCK_MAX_CHARS: usize = 7_000;

/// The name `ReadSkill` takes to list every skill (no skill can be called that).
pub const LIST_ALL: &str = "*";

/// One skill as the block shows it.
#[derive(Debug, Clone, Copy)]
pub struct BlockEntry<'a> {
    /// The skill's name.
    pub name: &'a str,
    /// Its description (folded onto one line in the block).
    pub description: &'a str,
    /// Where its folder is.
    pub location: &'a str,
}

/// The block for `entries` (empty when there are none): an introduction naming the
/// tools, one line per skill while they fit in `max_chars`, and then how many were left
/// out and how to list them.
#[must_use]
pub fn skills_block(entries: &[BlockEntry<'_>], read_tool: &str, max_chars: usize) -> String {
    if entries.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "Skills are folders of instructions for particular tasks. When a task matches a \
         skill's description, call {read_tool} with its name first and follow what it \
         says; run a skill's scripts with ExecuteCommand using the folder shown.\n"
    );
    // Room for the last line, whatever the count.
    let reserve = 160;
    let mut shown = 0;
    for entry in entries {
        let description = entry
            .description
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let line = format!("- {}: {description} ({})\n", entry.name, entry.location);
        if out.chars().count() + line.chars().count() + reserve > max_chars {
            break;
        }
        out.push_str(&line);
        shown += 1;
    }
    let left = entries.len() - shown;
    if left > 0 {
        out.push_str(&format!(
            "{left} more skill{} not listed here; call {read_tool} with name \"{LIST_ALL}\" to list them all.\n",
            if left == 1 { " is" } else { "s are" }
        ));
    }
    out.trim_end().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_bound_and_the_rest_counted() {
        let descriptions: Vec<String> = (0..200)
            .map(|i| {
                format!(
                    "Does task number {i}.\n  Use it when {}",
                    "x".repeat(i % 90)
                )
            })
            .collect();
        let names: Vec<String> = (0..200).map(|i| format!("skill-{i}")).collect();
        let entries: Vec<BlockEntry<'_>> = names
            .iter()
            .zip(&descriptions)
            .map(|(name, description)| BlockEntry {
                name,
                description,
                location: "/home/u/.agents/skills/x",
            })
            .collect();
        let cases = [(0, 0), (1, 1), (3, 3), (200, 200)];
        for (count, _) in cases {
            let block = skills_block(&entries[..count], "ReadSkill", BLOCK_MAX_CHARS);
            assert!(block.chars().count() <= BLOCK_MAX_CHARS, "{count}");
            if count == 0 {
                assert_eq!(block, "");
                continue;
            }
            assert!(
                block.contains(
                    "- skill-0: Does task number 0. Use it when (/home/u/.agents/skills/x)"
                )
            );
            let listed = block.lines().filter(|l| l.starts_with("- ")).count();
            if listed < count {
                assert!(block.ends_with(&format!(
                    "{} more skills are not listed here; call ReadSkill with name \"*\" to list them all.",
                    count - listed
                )), "{block}");
            } else {
                assert!(!block.contains("more skill"));
            }
        }
        let small = skills_block(&entries[..3], "ReadSkill", 400);
        assert!(
            small.ends_with("call ReadSkill with name \"*\" to list them all."),
            "{small}"
        );
    }
}
