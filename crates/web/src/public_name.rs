//! `--public-name`: a name the server is reached by, as the browser's address bar
//! shows it — a host (`bot.example.com`), a host and port (`bot.example.com:8443`) or
//! a full origin (`https://bot.example.com`).

/// A parsed public name: the `Host` values it stands for and whether it is https.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicName {
    /// The host, lowercase (IPv6 in brackets).
    pub host: String,
    /// The port, when the name gives one (or its origin's scheme implies one).
    pub port: Option<u16>,
    /// Whether the name is an `https://` origin.
    pub https: bool,
}

/// Why a public name was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicNameError {
    /// The name as given.
    pub name: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

impl std::fmt::Display for PublicNameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "--public-name '{}': {}; give a host (bot.example.com), a host:port \
             (bot.example.com:8443) or an origin (https://bot.example.com)",
            self.name, self.reason
        )
    }
}

impl std::error::Error for PublicNameError {}

impl PublicName {
    /// Parses `name` (surrounding spaces and one trailing `/` allowed).
    ///
    /// # Errors
    /// A name that is empty, has another scheme than http(s), a path, a query, user
    /// information, or a port that is not a number from 1 to 65535.
    pub fn parse(name: &str) -> Result<Self, PublicNameError> {
        let refuse = |reason| PublicNameError {
            name: name.to_owned(),
            reason,
        };
        let text = name.trim().to_ascii_lowercase();
        let (scheme, rest) = match text.split_once("://") {
            Some((scheme @ ("http" | "https"), rest)) => (Some(scheme), rest),
            Some(_) => return Err(refuse("only http:// and https:// origins are served")),
            None => (None, text.as_str()),
        };
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        if rest.contains(['/', '?', '#']) {
            return Err(refuse("a name has no path or query"));
        }
        if rest.contains('@') {
            return Err(refuse("a name has no user information"));
        }
        let (host, port) = split_port(rest).map_err(refuse)?;
        if host.is_empty() || host.contains(char::is_whitespace) {
            return Err(refuse("it names no host"));
        }
        let https = scheme == Some("https");
        // An origin without a port is on its scheme's.
        let port = match (port, scheme) {
            (None, Some(_)) => Some(if https { 443 } else { 80 }),
            (port, _) => port,
        };
        Ok(Self {
            host: host.to_owned(),
            port,
            https,
        })
    }

    /// The `Host` values a browser sends for this name: `host:port` when the name has
    /// a port; for an origin also the bare host when its port is the scheme's default
    /// (a proxy on 443 or 80); for a bare host the host alone and `host:listen_port`.
    #[must_use]
    pub fn hosts(&self, listen_port: u16) -> Vec<String> {
        let default_port = if self.https { 443 } else { 80 };
        match self.port {
            Some(port) if port == default_port => {
                vec![self.host.clone(), format!("{}:{port}", self.host)]
            }
            Some(port) => vec![format!("{}:{port}", self.host)],
            None => vec![self.host.clone(), format!("{}:{listen_port}", self.host)],
        }
    }
}

/// `host[:port]` split; IPv6 hosts are in brackets.
fn split_port(text: &str) -> Result<(&str, Option<u16>), &'static str> {
    let (host, port) = if let Some(end) = text.strip_prefix('[').and_then(|_| text.find(']')) {
        let (host, rest) = text.split_at(end + 1);
        match rest.strip_prefix(':') {
            Some(port) => (host, Some(port)),
            None if rest.is_empty() => (host, None),
            None => return Err("an IPv6 host is [address] or [address]:port"),
        }
    } else {
        match text.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (text, None),
        }
    };
    let port = match port {
        None => None,
        Some(port) => match port.parse::<u16>() {
            Ok(0) | Err(_) => return Err("the port is a number from 1 to 65535"),
            Ok(port) => Some(port),
        },
    };
    Ok((host, port))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_give_the_hosts_a_browser_sends() {
        // (name, https, Host values when listening on 8080)
        let cases: [(&str, bool, &[&str]); 9] = [
            ("bot.lan", false, &["bot.lan", "bot.lan:8080"]),
            ("Bot.LAN:9000", false, &["bot.lan:9000"]),
            (
                "https://bot.example.com",
                true,
                &["bot.example.com", "bot.example.com:443"],
            ),
            (
                "https://bot.example.com/",
                true,
                &["bot.example.com", "bot.example.com:443"],
            ),
            (
                "https://bot.example.com:8443",
                true,
                &["bot.example.com:8443"],
            ),
            ("http://bot.lan", false, &["bot.lan", "bot.lan:80"]),
            ("http://bot.lan:8080", false, &["bot.lan:8080"]),
            (" 127.0.0.1 ", false, &["127.0.0.1", "127.0.0.1:8080"]),
            ("https://[::1]:8443", true, &["[::1]:8443"]),
        ];
        for (name, https, hosts) in cases {
            let parsed = PublicName::parse(name).unwrap();
            assert_eq!(parsed.https, https, "{name}");
            assert_eq!(parsed.hosts(8080), hosts, "{name}");
        }
    }

    #[test]
    fn names_that_are_no_origin_are_refused() {
        let cases = [
            ("", "it names no host"),
            ("https://", "it names no host"),
            (
                "ftp://bot.lan",
                "only http:// and https:// origins are served",
            ),
            ("https://bot.lan/app", "a name has no path or query"),
            ("bot.lan?x=1", "a name has no path or query"),
            ("https://me@bot.lan", "a name has no user information"),
            ("bot.lan:0", "the port is a number from 1 to 65535"),
            ("bot.lan:http", "the port is a number from 1 to 65535"),
            ("bot.lan:70000", "the port is a number from 1 to 65535"),
            ("[::1]x", "an IPv6 host is [address] or [address]:port"),
        ];
        for (name, reason) in cases {
            let refused = PublicName::parse(name).unwrap_err();
            assert_eq!(refused.reason, reason, "{name}");
            assert!(refused.to_string().contains("https://bot.example.com"));
        }
    }
}
