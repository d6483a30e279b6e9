//! MCP resources and prompts in a chat message: `@server:uri` mentions naming a
//! resource of a configured server, the file name an attached resource gets, and the
//! arguments of `/server:prompt ARGS`.

use std::collections::BTreeMap;

use super::mentions::mentions;

/// An `@server:uri` mention of a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResourceMention<'a> {
    /// The server's name (one of the servers given).
    pub server: &'a str,
    /// The resource's URI.
    pub uri: &'a str,
}

/// `mention` (an `@` word without the `@`) as `server:uri` when `server` is one of
/// `servers` and the URI is not empty.
#[must_use]
pub fn resource_mention<'a>(mention: &'a str, servers: &[String]) -> Option<ResourceMention<'a>> {
    let (server, uri) = mention.split_once(':')?;
    (!uri.is_empty() && servers.iter().any(|s| s == server))
        .then_some(ResourceMention { server, uri })
}

/// The `@server:uri` mentions of `text` naming a resource of one of `servers`, in
/// order, each once; other `@` words are file paths or text
/// ([`super::mentions::mentions`]).
#[must_use]
pub fn resource_mentions<'a>(text: &'a str, servers: &[String]) -> Vec<ResourceMention<'a>> {
    let mut out: Vec<ResourceMention<'a>> = Vec::new();
    for mention in mentions(text) {
        if let Some(found) = resource_mention(mention.path, servers)
            && !out.contains(&found)
        {
            out.push(found);
        }
    }
    out
}

/// The name an attached resource is stored under: the URI's last non-empty part (after
/// `/` or `:`), else the server's name; with a `.txt` ending for text without one, so
/// that it is searched and shown as text.
#[must_use]
pub fn resource_file_name(server: &str, uri: &str, text: bool) -> String {
    let last = uri
        .split(['/', ':'])
        .rev()
        .find(|part| !part.is_empty())
        .unwrap_or(server);
    let clean: String = last
        .chars()
        .map(|c| if c.is_control() || c == '\\' { '_' } else { c })
        .collect();
    if text && !clean.contains('.') {
        format!("{clean}.txt")
    } else {
        clean
    }
}

/// The arguments of `/server:prompt ARGS` for a prompt taking `names` (in order):
/// `name=value` words set that argument; the other words, joined by one space, go to
/// the first argument not set that way.
///
/// ```
/// use smallebot_core::rules::mcp_mentions::prompt_arguments;
/// let args = prompt_arguments("the parser tone=brief", &["topic", "tone"]);
/// assert_eq!(args["topic"], "the parser");
/// assert_eq!(args["tone"], "brief");
/// ```
#[must_use]
pub fn prompt_arguments(text: &str, names: &[&str]) -> BTreeMap<String, String> {
    let mut named = BTreeMap::new();
    let mut rest: Vec<&str> = Vec::new();
    for word in text.split_whitespace() {
        match word.split_once('=') {
            Some((name, value)) if names.contains(&name) => {
                named.insert(name.to_owned(), value.to_owned());
            }
            _ => rest.push(word),
        }
    }
    if !rest.is_empty()
        && let Some(first) = names.iter().find(|n| !named.contains_key(**n))
    {
        named.insert((*first).to_owned(), rest.join(" "));
    }
    named
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_mentions_need_a_known_server() {
        let servers = vec!["docs".to_owned(), "t".to_owned()];
        let found: Vec<(&str, &str)> = resource_mentions(
            "see @docs:note://a, @t:file:///x.png and @other:y @notes.txt @docs:note://a me@t:x @t:",
            &servers,
        )
        .into_iter()
        .map(|m| (m.server, m.uri))
        .collect();
        assert_eq!(found, [("docs", "note://a"), ("t", "file:///x.png")]);
    }

    #[test]
    fn resource_file_names_table() {
        let cases = [
            ("t", "note://readme", true, "readme.txt"),
            ("t", "file:///pixel.png", false, "pixel.png"),
            ("t", "file:///dir/", true, "dir.txt"),
            ("t", "db://", true, "db.txt"),
            ("t", "x", false, "x"),
            ("t", "a/notes.md", true, "notes.md"),
        ];
        for (server, uri, text, want) in cases {
            assert_eq!(resource_file_name(server, uri, text), want, "{uri}");
        }
    }

    #[test]
    fn prompt_arguments_table() {
        let names = ["topic", "tone"];
        let cases: [(&str, &[(&str, &str)]); 5] = [
            ("", &[]),
            ("rust", &[("topic", "rust")]),
            (
                "tone=dry the  parser",
                &[("tone", "dry"), ("topic", "the parser")],
            ),
            ("topic=a b", &[("topic", "a"), ("tone", "b")]),
            ("x=1", &[("topic", "x=1")]),
        ];
        for (text, want) in cases {
            let want: BTreeMap<String, String> = want
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect();
            assert_eq!(prompt_arguments(text, &names), want, "{text}");
        }
    }
}
