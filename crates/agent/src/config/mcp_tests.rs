//! Unit tests of `mcp.json` reading: both file forms, `${VAR}` references, timeouts and
//! the errors that name the server and key.
use super::*;

fn env(name: &str) -> Option<String> {
    match name {
        "TOKEN" => Some("t0k".to_owned()),
        "EMPTY" => Some(String::new()),
        _ => None,
    }
}

fn load(text: &str) -> Result<McpSettings, ConfigError> {
    mcp_settings_from_json(text, Path::new("/h/mcp.json"), &env)
}

#[test]
fn both_forms_give_the_same_servers() {
    let server = r#"{"command": "srv", "args": ["-v"], "env": {"K": "${TOKEN}"}}"#;
    let wrapped = load(&format!(r#"{{"mcpServers": {{"one": {server}}}}}"#)).unwrap();
    let flat = load(&format!(r#"{{"one": {server}}}"#)).unwrap();
    assert_eq!(wrapped, flat);
    let one = &wrapped.servers[0];
    assert_eq!(one.name, "one");
    assert_eq!(
        one.transport,
        McpTransport::Stdio {
            command: "srv".into(),
            args: vec!["-v".into()],
            env: BTreeMap::from([("K".into(), "t0k".into())]),
            cwd: None,
        }
    );
    assert_eq!(one.startup_timeout, Duration::from_secs(10));
    assert_eq!(one.tool_timeout, Duration::from_secs(60));
    assert!(one.enabled);
    assert_eq!(one.confirm, None);
    assert_eq!(one.elicitation_timeout, Duration::from_secs(300));
    assert!(!one.sampling);
}

#[test]
fn an_http_server_with_options() {
    let settings = load(
        r#"{"web": {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"},
            "type": "http", "enabled": false, "startupTimeoutSeconds": 3, "toolTimeoutSeconds": 5, "confirm": true,
            "elicitationTimeoutSeconds": 30, "sampling": true}}"#,
    )
    .unwrap();
    let web = &settings.servers[0];
    assert_eq!(
        web.transport,
        McpTransport::Http {
            url: "http://127.0.0.1:9/mcp".into(),
            headers: BTreeMap::from([("Authorization".into(), "Bearer t0k".into())]),
            auth: smallebot_mcp::McpAuth::None,
        }
    );
    assert!(!web.enabled);
    assert_eq!(settings.enabled().count(), 0);
    assert_eq!(web.startup_timeout, Duration::from_secs(3));
    assert_eq!(web.confirm, Some(true));
    assert_eq!(web.elicitation_timeout, Duration::from_secs(30));
    assert!(web.sampling);
}

#[test]
fn bad_files_are_errors_naming_what_and_where() {
    let cases = [
        ("{\"a\": {\"command\": \"x\",}}", "mcp.json:1:"),
        (r#"{"a": {"comand": "x"}}"#, "did you mean \"command\""),
        (r#"{"a": {"command": "x", "url": "http://h"}}"#, "not both"),
        (r#"{"a": {}}"#, "give \"command\""),
        (r#"{"a": {"url": "ftp://h"}}"#, "must start with http://"),
        (
            r#"{"a": {"command": "x", "env": {"KEY": "${NOPE}"}}}"#,
            "MCP server \"a\": env.KEY uses ${NOPE}, which is not set",
        ),
        (
            r#"{"a": {"url": "http://h", "headers": {"X": "${NOPE}"}}}"#,
            "headers.X uses ${NOPE}",
        ),
        (r#"{"a b": {"command": "x"}}"#, "name \"a b\" is not usable"),
        (
            r#"{"a": {"command": "x", "toolTimeoutSeconds": 0}}"#,
            "toolTimeoutSeconds: 0 is out of range",
        ),
        (
            r#"{"a": {"command": "x", "elicitationTimeoutSeconds": 0}}"#,
            "MCP server \"a\": elicitationTimeoutSeconds: 0 is out of range; give 1..=3600 (default 300)",
        ),
        (
            r#"{"a": {"command": "x", "sampling": "yes"}}"#,
            "invalid type",
        ),
        (
            r#"{"a": {"url": "http://h", "type": "sse"}}"#,
            "SSE transport is not supported",
        ),
        (r#"{"a": {"command": "x", "args": "no"}}"#, "invalid type"),
        (r#"{"a": 3}"#, "must be an object"),
        (r#"{"mcpServers": {}, "b": {"command": "x"}}"#, "only key"),
        ("[]", "expected a JSON object"),
        (
            r#"{"a": {"command": "x", "auth": {"type": "oauth"}}}"#,
            "MCP server \"a\": \"auth\" is for remote servers",
        ),
        (
            r#"{"a": {"url": "http://h", "headers": {"Authorization": "Bearer ${TOKEN}"}, "auth": {"type": "oauth"}}}"#,
            "either an \"Authorization\" header or \"auth\"",
        ),
        (
            r#"{"a": {"url": "http://h", "auth": {"type": "clientCredentials", "clientId": "c", "clientSecretEnv": "NOPE"}}}"#,
            "MCP server \"a\": auth.clientSecretEnv names NOPE, which is not set",
        ),
        (
            r#"{"a": {"url": "http://h", "auth": {"type": "oauth", "clientID": "c"}}}"#,
            "clientId",
        ),
    ];
    for (text, expected) in cases {
        let error = load(text).unwrap_err().to_string();
        assert!(error.contains("/h/mcp.json"), "{text}: {error}");
        assert!(error.contains(expected), "{text}: {error}");
    }
}

#[test]
fn an_http_server_signing_in_with_oauth() {
    let settings =
        load(r#"{"a": {"url": "http://h/mcp", "auth": {"type": "oauth", "scopes": ["read"]}}}"#)
            .unwrap();
    let McpTransport::Http { auth, .. } = &settings.servers[0].transport else {
        panic!("an HTTP server")
    };
    assert_eq!(
        auth,
        &McpAuth::OAuth {
            client_id: None,
            scopes: vec!["read".to_owned()],
            per_user: false,
        }
    );
    assert!(settings.servers[0].oauth().is_some());
    assert!(!settings.servers[0].per_user());
}

#[test]
fn per_user_is_only_for_oauth_servers() {
    let oauth = r#""url": "http://h/mcp", "auth": {"type": "oauth"}"#;
    let settings = load(&format!(r#"{{"a": {{{oauth}, "perUser": true}}}}"#)).unwrap();
    assert!(settings.servers[0].per_user());
    let settings = load(&format!(r#"{{"a": {{{oauth}, "perUser": false}}}}"#)).unwrap();
    assert!(!settings.servers[0].per_user());
    // (server, what the error says)
    let cases = [
        (
            r#"{"a": {"command": "srv", "perUser": true}}"#,
            "MCP server \"a\": \"perUser\" is for remote servers",
        ),
        (
            r#"{"a": {"url": "http://h/mcp", "perUser": true}}"#,
            "MCP server \"a\": \"perUser\" needs \"auth\": {\"type\": \"oauth\"}",
        ),
        (
            r#"{"a": {"url": "http://h/mcp", "perUser": true, "auth": {"type": "clientCredentials", "clientId": "c", "clientSecretEnv": "TOKEN"}}}"#,
            "\"perUser\" needs \"auth\": {\"type\": \"oauth\"}",
        ),
    ];
    for (text, expected) in cases {
        let error = load(text).unwrap_err().to_string();
        assert!(error.contains("/h/mcp.json"), "{text}: {error}");
        assert!(error.contains(expected), "{text}: {error}");
    }
}

#[test]
fn max_result_megabytes_rules() {
    // (value written, bytes, or the error)
    let cases: [(&str, Result<usize, &str>); 5] = [
        ("", Ok(32 * 1024 * 1024)),
        (r#", "maxResultMegabytes": 1"#, Ok(1024 * 1024)),
        (r#", "MaxResultMegabytes": 1024"#, Ok(1024 * 1024 * 1024)),
        (
            r#", "maxResultMegabytes": 0"#,
            Err("maxResultMegabytes: 0 is out of range"),
        ),
        (
            r#", "maxResultMegabytes": 1025"#,
            Err("give 1..=1024 (default 32)"),
        ),
    ];
    for (extra, expected) in cases {
        let loaded = load(&format!(r#"{{"s": {{"command": "srv"{extra}}}}}"#));
        match expected {
            Ok(bytes) => assert_eq!(loaded.unwrap().servers[0].max_message_bytes, bytes),
            Err(message) => {
                let error = loaded.unwrap_err().to_string();
                assert!(
                    error.contains("/h/mcp.json") && error.contains(message),
                    "{error}"
                );
            }
        }
    }
}
