//! URI templates (RFC 6570) of MCP resource templates (`note://{name}`): their
//! arguments, which of them a URI cannot be made without, and the URI made from a
//! template and values.

use std::collections::BTreeMap;

/// An argument of a URI template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplateArgument {
    /// Its name (`name` of `{name}`, `path` of `{+path}`).
    pub name: String,
    /// Whether the URI cannot be made without it: one in the path (`{a}`, `{+a}`,
    /// `{#a}`, `{/a}`, `{.a}`); query and parameter ones (`{?a}`, `{&a}`, `{;a}`) are
    /// left out when not given.
    pub required: bool,
}

/// How one operator expands: what comes first, between values, whether values are
/// named (`a=1`), and whether reserved characters stay as they are.
struct Operator {
    first: &'static str,
    separator: &'static str,
    named: bool,
    reserved: bool,
    required: bool,
}

/// The operator of an expression's first character, and the rest.
fn operator(expression: &str) -> (Operator, &str) {
    let op = |first, separator, named, reserved, required| Operator {
        first,
        separator,
        named,
        reserved,
        required,
    };
    let mut chars = expression.chars();
    let found = match chars.next() {
        Some('+') => op("", ",", false, true, true),
        Some('#') => op("#", ",", false, true, true),
        Some('.') => op(".", ".", false, false, true),
        Some('/') => op("/", "/", false, false, true),
        Some(';') => op(";", ";", true, false, false),
        Some('?') => op("?", "&", true, false, false),
        Some('&') => op("&", "&", true, false, false),
        _ => return (op("", ",", false, false, true), expression),
    };
    (found, chars.as_str())
}

/// The variable names of an expression (after its operator), modifiers (`*`, `:N`)
/// left out.
fn names(variables: &str) -> impl Iterator<Item = &str> {
    variables
        .split(',')
        .map(|name| name.split([':', '*']).next().unwrap_or("").trim())
        .filter(|name| !name.is_empty())
}

/// The expressions (`{…}`, braces left out) of `template`, and the literal text before
/// each; then the text after the last.
fn pieces(template: &str) -> (Vec<(&str, &str)>, &str) {
    let mut out = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        out.push((&rest[..open], &rest[open + 1..open + close]));
        rest = &rest[open + close + 1..];
    }
    (out, rest)
}

/// The arguments of `template`, in order, each once (required if any use of it is).
#[must_use]
pub fn uri_template_arguments(template: &str) -> Vec<UriTemplateArgument> {
    let mut out: Vec<UriTemplateArgument> = Vec::new();
    for (_, expression) in pieces(template).0 {
        let (op, variables) = operator(expression);
        for name in names(variables) {
            match out.iter_mut().find(|a| a.name == name) {
                Some(known) => known.required |= op.required,
                None => out.push(UriTemplateArgument {
                    name: name.to_owned(),
                    required: op.required,
                }),
            }
        }
    }
    out
}

/// `value` percent-encoded (UTF-8): unreserved characters stay, and with `reserved`
/// also the reserved ones and existing `%XX`.
fn encode(value: &str, reserved: bool) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        let keep = c.is_ascii_alphanumeric()
            || "-._~".contains(c)
            || (reserved && ":/?#[]@!$&'()*+,;=%".contains(c));
        if keep {
            out.push(c);
        } else {
            let mut bytes = [0u8; 4];
            for byte in c.encode_utf8(&mut bytes).bytes() {
                out.push_str(&format!("%{byte:02X}"));
            }
        }
    }
    out
}

/// The URI `template` makes with `values`: each expression expanded as RFC 6570 says
/// (no prefix or explode modifiers: a value is used whole), a query or parameter
/// argument not given left out.
///
/// # Errors
/// The required arguments not given (or given empty), in order.
///
/// ```
/// use std::collections::BTreeMap;
/// use smallebot_core::rules::uri_template::expand_uri_template;
/// let values = BTreeMap::from([("name".to_owned(), "to do".to_owned())]);
/// assert_eq!(expand_uri_template("note://{name}", &values).unwrap(), "note://to%20do");
/// ```
pub fn expand_uri_template(
    template: &str,
    values: &BTreeMap<String, String>,
) -> Result<String, Vec<String>> {
    let given = |name: &str| values.get(name).filter(|v| !v.trim().is_empty());
    let missing: Vec<String> = uri_template_arguments(template)
        .into_iter()
        .filter(|a| a.required && given(&a.name).is_none())
        .map(|a| a.name)
        .collect();
    if !missing.is_empty() {
        return Err(missing);
    }
    let (expressions, tail) = pieces(template);
    let mut out = String::new();
    for (literal, expression) in expressions {
        out.push_str(literal);
        let (op, variables) = operator(expression);
        let parts: Vec<String> = names(variables)
            .filter_map(|name| {
                let value = encode(given(name)?, op.reserved);
                Some(if op.named {
                    format!("{name}={value}")
                } else {
                    value
                })
            })
            .collect();
        if !parts.is_empty() {
            out.push_str(op.first);
            out.push_str(&parts.join(op.separator));
        }
    }
    out.push_str(tail);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_table() {
        let cases: [(&str, &[(&str, bool)]); 6] = [
            ("note://{name}", &[("name", true)]),
            ("file:///{+path}", &[("path", true)]),
            (
                "db://{table}/{id}{?fields*}",
                &[("table", true), ("id", true), ("fields", false)],
            ),
            ("x://{a,b:3}/{a}", &[("a", true), ("b", true)]),
            ("x://y{?q}{&q,r}{/q}", &[("q", true), ("r", false)]),
            ("plain://none", &[]),
        ];
        for (template, want) in cases {
            let got: Vec<(String, bool)> = uri_template_arguments(template)
                .into_iter()
                .map(|a| (a.name, a.required))
                .collect();
            let want: Vec<(String, bool)> =
                want.iter().map(|(n, r)| ((*n).to_owned(), *r)).collect();
            assert_eq!(got, want, "{template}");
        }
    }

    #[test]
    fn expansion_table() {
        let values: BTreeMap<String, String> = [
            ("name", "to do"),
            ("path", "a/b c"),
            ("id", "7"),
            ("q", "x&y"),
            ("empty", " "),
            ("word", "é"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        let cases: [(&str, Result<&str, &[&str]>); 9] = [
            ("note://{name}", Ok("note://to%20do")),
            ("file:///{+path}", Ok("file:///a/b%20c")),
            ("db://t/{id}{?q,none}", Ok("db://t/7?q=x%26y")),
            ("db://t{/id,name}", Ok("db://t/7/to%20do")),
            ("db://t/{id}{?none}{&q}", Ok("db://t/7&q=x%26y")),
            ("x://{word}{#id}", Ok("x://%C3%A9#7")),
            ("plain://none", Ok("plain://none")),
            ("x://{none}/{empty}{?also}", Err(&["none", "empty"])),
            ("x://{unclosed", Ok("x://{unclosed")),
        ];
        for (template, want) in cases {
            let want = want
                .map(str::to_owned)
                .map_err(|m| m.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>());
            assert_eq!(expand_uri_template(template, &values), want, "{template}");
        }
    }
}
