//! `${VAR}` references in configuration values (mcp.json's `env` and `headers`).

/// `value` with each `${VAR}` replaced by the variable's value; `Err(VAR)` for the
/// first one that is not set. `$${X}` is the escape for a literal `${X}`; any other `$`
/// stays as written.
pub(crate) fn resolve(value: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(escaped) = after.strip_prefix("${") {
            out.push_str("${");
            rest = escaped;
            continue;
        }
        let Some(body) = after.strip_prefix('{') else {
            out.push('$');
            rest = after;
            continue;
        };
        let Some(end) = body.find('}') else {
            out.push_str(&rest[at..]);
            return Ok(out);
        };
        let name = &body[..end];
        match env(name) {
            Some(found) => out.push_str(&found),
            None => return Err(name.to_owned()),
        }
        rest = &body[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "TOKEN" => Some("t0k".to_owned()),
            "EMPTY" => Some(String::new()),
            _ => None,
        }
    }

    #[test]
    fn references_table() {
        let cases = [
            ("plain", Ok("plain")),
            ("Bearer ${TOKEN}", Ok("Bearer t0k")),
            ("${TOKEN}${TOKEN}", Ok("t0kt0k")),
            ("a${EMPTY}b", Ok("ab")),
            ("$HOME and $", Ok("$HOME and $")),
            ("$${TOKEN}", Ok("${TOKEN}")),
            ("${UNSET}", Err("UNSET")),
            ("${unclosed", Ok("${unclosed")),
        ];
        for (written, expected) in cases {
            let got = resolve(written, &env);
            assert_eq!(
                got,
                expected.map(str::to_owned).map_err(str::to_owned),
                "{written}"
            );
        }
    }
}
