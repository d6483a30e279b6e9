//! No import circles between the files of a crate: no file imports, through others, an
//! item of a file that imports one of its own. Each file's imports are read from its
//! `use` statements and its inline `crate::…`/`super::…`/`self::…` paths, resolved to
//! the file that defines the item (following `pub use` re-exports). A re-export is an
//! import of the file that holds it when that file's own code names the item too (a
//! `pub(crate) use crate::steps::PreparedStep;` whose file then uses `PreparedStep`);
//! a re-export alone is not, and neither is a test module or test file.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The crates kept free of circles.
const CHECKED_CRATES: [&str; 7] = [
    "application",
    "agent",
    "model-client",
    "mcp",
    "terminal",
    "host",
    "postgres",
];

/// A module's path inside its crate (`["tools", "workspace", "grep"]`; the root is empty).
type Module = Vec<String>;

/// The module a file under `src` defines.
fn module_of(src: &Path, file: &Path) -> Module {
    let relative = file.strip_prefix(src).unwrap().with_extension("");
    let mut module: Module = relative
        .components()
        .map(|c| c.as_os_str().to_str().unwrap().to_owned())
        .collect();
    if matches!(
        module.last().map(String::as_str),
        Some("lib" | "main" | "mod")
    ) {
        module.pop();
    }
    module
}

/// `text` without comments, string contents and the trailing `#[cfg(test)]` module
/// (other attributes may stand between the two).
fn code_of(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let end = (0..lines.len())
        .find(|&at| {
            lines[at].trim() == "#[cfg(test)]"
                && lines[at + 1..]
                    .iter()
                    .find(|l| !l.trim_start().starts_with("#["))
                    .is_some_and(|l| l.trim_start().starts_with("mod "))
        })
        .map_or(text.len(), |line| {
            lines.iter().take(line).map(|l| l.len() + 1).sum::<usize>()
        });
    let chars: Vec<char> = text[..end.min(text.len())].chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        match (chars[i], chars.get(i + 1).copied()) {
            ('/', Some('/')) => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            ('/', Some('*')) => {
                while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
                    i += 1;
                }
                i += 2;
            }
            ('\'', _) if chars.get(i + 2) == Some(&'\'') => i += 3,
            ('"', _) => {
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    i += if chars[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
                out.push_str("\"\"");
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// The paths a use tree names, each with the name it is imported as.
fn expand(prefix: &[String], tree: &str, out: &mut Vec<(Vec<String>, String)>) {
    let tree = tree.trim();
    if tree.is_empty() {
        return;
    }
    if let (Some(open), true) = (tree.find('{'), tree.ends_with('}')) {
        let mut base = prefix.to_vec();
        base.extend(
            tree[..open]
                .split("::")
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned),
        );
        let (mut depth, mut start) = (0, open + 1);
        let inner_end = tree.len() - 1;
        for (at, c) in tree.char_indices().take(inner_end).skip(open + 1) {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    expand(&base, &tree[start..at], out);
                    start = at + 1;
                }
                _ => {}
            }
        }
        expand(&base, &tree[start..inner_end], out);
        return;
    }
    let (path, alias) = match tree.split_once(" as ") {
        Some((path, alias)) => (path, Some(alias.trim())),
        None => (tree, None),
    };
    let mut segments = prefix.to_vec();
    segments.extend(path.split("::").map(|s| s.trim().to_owned()));
    let name = alias.map_or_else(
        || segments.last().cloned().unwrap_or_default(),
        str::to_owned,
    );
    out.push((segments, name));
}

/// What a `use` brings a file.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Use {
    /// A `pub use`: other files reach the item through this one.
    reexport: bool,
    /// The file's own code takes the item (a private `use`, an inline path, or a
    /// re-export whose name the file's code names too).
    imported: bool,
}

/// One file's imports: (path, name, what the use is).
fn imports_of(code: &str) -> Vec<(Vec<String>, String, Use)> {
    let mut found = Vec::new();
    let mut rest = code;
    let mut inline_code = String::new();
    while let Some(at) = find_word(rest, "use") {
        let statement_end = rest[at..].find(';').map_or(rest.len(), |e| at + e);
        let line_start = rest[..at].rfind('\n').map_or(0, |n| n + 1);
        let public = rest[line_start..at].trim().starts_with("pub");
        let mut paths = Vec::new();
        expand(&[], &rest[at + 3..statement_end], &mut paths);
        let import = Use {
            reexport: public,
            imported: !public,
        };
        found.extend(paths.into_iter().map(|(p, n)| (p, n, import)));
        inline_code.push_str(&rest[..line_start]);
        rest = &rest[(statement_end + 1).min(rest.len())..];
    }
    inline_code.push_str(rest);
    // A re-exported name the file's own code uses is imported for that use.
    for (_, name, import) in &mut found {
        if import.reexport && mentions(&inline_code, name) {
            import.imported = true;
        }
    }
    // Inline paths: `crate::a::b`, `super::x`, `self::y` (not `$crate::`).
    for start in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(at) = inline_code[from..].find(start).map(|a| a + from) {
            from = at + start.len();
            let before = inline_code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == ':') {
                continue;
            }
            let path: String = inline_code[at..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            let segments: Vec<String> = path
                .split("::")
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect();
            let name = segments.last().cloned().unwrap_or_default();
            let inline = Use {
                reexport: false,
                imported: true,
            };
            found.push((segments, name, inline));
        }
    }
    found
}

/// Whether `code` names the identifier `name` (not as part of a longer one).
fn mentions(code: &str, name: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    code.match_indices(name).any(|(at, _)| {
        !code[..at].chars().next_back().is_some_and(ident)
            && !code[at + name.len()..].chars().next().is_some_and(ident)
    })
}

/// The offset of `word` standing alone in `text`.
fn find_word(text: &str, word: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(at) = text[from..].find(word).map(|a| a + from) {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        let alone = |c: Option<char>| !c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        if alone(before) && after.is_some_and(char::is_whitespace) {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

/// A crate's files as modules, and which modules each imports items of.
struct Graph {
    edges: BTreeMap<Module, BTreeSet<Module>>,
}

impl Graph {
    fn of(src: &Path) -> Self {
        let mut files = Vec::new();
        support::rust_files(src, &mut files);
        let sources: BTreeMap<Module, String> = files
            .iter()
            .filter(|path| !support::is_test_file(path))
            .map(|path| {
                let text = std::fs::read_to_string(path).unwrap();
                (module_of(src, path), code_of(&text))
            })
            .collect();
        let absolute = |module: &Module, segments: &[String]| -> Option<Module> {
            let (first, rest) = segments.split_first()?;
            match first.as_str() {
                "crate" => Some(rest.to_vec()),
                "self" => Some([module.as_slice(), rest].concat()),
                "super" => {
                    let mut base = module.clone();
                    let mut rest = segments;
                    while rest.first().is_some_and(|s| s == "super") {
                        base.pop();
                        rest = &rest[1..];
                    }
                    Some([base.as_slice(), rest].concat())
                }
                _ => {
                    let child = [module.as_slice(), std::slice::from_ref(first)].concat();
                    sources
                        .contains_key(&child)
                        .then(|| [module.as_slice(), segments].concat())
                }
            }
        };
        let imports: BTreeMap<Module, Vec<(Module, String, Use)>> = sources
            .iter()
            .map(|(module, code)| {
                let resolved = imports_of(code)
                    .into_iter()
                    .filter_map(|(path, name, public)| {
                        Some((absolute(module, &path)?, name, public))
                    })
                    .collect();
                (module.clone(), resolved)
            })
            .collect();
        // Each module's re-exports: name → the path it stands for.
        let reexports: BTreeMap<&Module, BTreeMap<&str, &Module>> = imports
            .iter()
            .map(|(module, list)| {
                let names = list
                    .iter()
                    .filter(|(_, name, import)| import.reexport && name != "*" && name != "self")
                    .map(|(path, name, _)| (name.as_str(), path))
                    .collect();
                (module, names)
            })
            .collect();
        fn resolve(
            path: &[String],
            sources: &BTreeMap<Module, String>,
            reexports: &BTreeMap<&Module, BTreeMap<&str, &Module>>,
            depth: usize,
        ) -> Option<Module> {
            let path: Vec<String> = path.iter().filter(|s| *s != "self").cloned().collect();
            let length = (0..=path.len())
                .rev()
                .find(|n| sources.contains_key(&path[..*n].to_vec()))?;
            let module = path[..length].to_vec();
            if let Some(first) = path.get(length)
                && depth < 10
                && let Some(target) = reexports.get(&module).and_then(|r| r.get(first.as_str()))
            {
                let followed = [target.as_slice(), &path[length + 1..]].concat();
                if let Some(found) = resolve(&followed, sources, reexports, depth + 1) {
                    return Some(found);
                }
            }
            Some(module)
        }
        let edges = imports
            .iter()
            .map(|(module, list)| {
                let targets = list
                    .iter()
                    .filter(|(_, _, import)| import.imported)
                    .filter_map(|(path, _, _)| resolve(path, &sources, &reexports, 0))
                    .filter(|target| target != module)
                    .collect();
                (module.clone(), targets)
            })
            .collect();
        Self { edges }
    }

    /// Whether `from` reaches `target` through imports.
    fn reaches(&self, from: &Module, target: &Module, seen: &mut BTreeSet<Module>) -> bool {
        self.edges.get(from).into_iter().flatten().any(|next| {
            next == target || (seen.insert(next.clone()) && self.reaches(next, target, seen))
        })
    }

    /// The modules on a circle, each with the modules of its circle it imports.
    fn circles(&self) -> Vec<String> {
        let on_circle: Vec<&Module> = self
            .edges
            .keys()
            .filter(|m| self.reaches(m, m, &mut BTreeSet::new()))
            .collect();
        let name = |m: &Module| {
            if m.is_empty() {
                "<root>".to_owned()
            } else {
                m.join("::")
            }
        };
        on_circle
            .iter()
            .map(|m| {
                let back: Vec<String> = self.edges[*m]
                    .iter()
                    .filter(|n| self.reaches(n, m, &mut BTreeSet::new()) || *n == *m)
                    .map(name)
                    .collect();
                format!("{} -> {}", name(m), back.join(", "))
            })
            .collect()
    }
}

#[test]
fn no_file_imports_items_of_a_file_that_imports_its_own() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    for name in CHECKED_CRATES {
        let graph = Graph::of(&root.join("crates").join(name).join("src"));
        assert!(graph.edges.len() > 10, "{name}: its files are read");
        let circles = graph.circles();
        assert!(
            circles.is_empty(),
            "import circles in crates/{name}/src (move what both sides need to a module of its own):\n{}",
            circles.join("\n")
        );
    }
}

#[test]
fn a_circle_is_found_through_use_trees_inline_paths_and_re_exports() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir_all(src.join("a")).unwrap();
    let files = [
        ("lib.rs", "mod a;\nmod b;\nmod c;\n"),
        ("a/mod.rs", "mod inner;\npub use inner::Thing;\n"),
        (
            "a/inner.rs",
            "use crate::{b::{self, Other as O}};\npub struct Thing;\n",
        ),
        (
            "b.rs",
            "pub struct Other;\nfn f() { let _ = crate::c::make(); }\n",
        ),
        (
            "c.rs",
            "// use crate::b::Other;\npub fn make() -> super::a::Thing { todo!() }\n\
             #[cfg(test)]\n#[allow(unused)]\nmod tests {\n    use crate::b::*;\n}\n",
        ),
    ];
    for (path, text) in files {
        std::fs::write(src.join(path), text).unwrap();
    }
    let graph = Graph::of(src);
    let module = |s: &str| -> Module { s.split("::").map(str::to_owned).collect() };
    assert_eq!(
        graph.edges[&module("a::inner")],
        BTreeSet::from([module("b")])
    );
    assert_eq!(
        graph.edges[&module("c")],
        BTreeSet::from([module("a::inner")])
    );
    assert_eq!(
        graph.circles(),
        ["a::inner -> b", "b -> c", "c -> a::inner"]
    );
    // Without the inline call, no circle.
    std::fs::write(src.join("b.rs"), "pub struct Other;\n").unwrap();
    assert!(Graph::of(src).circles().is_empty());
}

#[test]
fn a_re_export_the_file_itself_uses_is_one_of_its_imports() {
    // The shape of a ring the test once missed: `steps.rs` submits a job of `write.rs`,
    // whose job holds a `PreparedStep` that `write/steps.rs` re-exports from
    // `steps.rs` and uses.
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir_all(src.join("write")).unwrap();
    let files = [
        ("lib.rs", "mod steps;\nmod write;\n"),
        (
            "steps.rs",
            "use crate::write::Job;\npub struct PreparedStep;\nfn f(_: Job) {}\n",
        ),
        (
            "write.rs",
            "mod steps;\npub use steps::PreparedStep;\npub enum Job { Step(PreparedStep) }\n",
        ),
        (
            "write/steps.rs",
            "pub use crate::steps::PreparedStep;\nfn g(_: &PreparedStep) {}\n",
        ),
    ];
    for (path, text) in files {
        std::fs::write(src.join(path), text).unwrap();
    }
    let graph = Graph::of(src);
    let module = |s: &str| -> Module { s.split("::").map(str::to_owned).collect() };
    assert_eq!(
        graph.edges[&module("write::steps")],
        BTreeSet::from([module("steps")])
    );
    assert_eq!(
        graph.edges[&module("write")],
        BTreeSet::from([module("steps")])
    );
    assert_eq!(graph.circles(), ["steps -> write", "write -> steps"]);
    // A re-export only passed on (a facade) is no import of its file.
    std::fs::write(
        src.join("write.rs"),
        "mod steps;\npub use steps::PreparedStep;\npub enum Job { Step }\n",
    )
    .unwrap();
    assert!(Graph::of(src).circles().is_empty());
}
