//! A list of servers as `*_host` and `*_read_only_hosts` hold it: `h1,h2,h3` or
//! `h1:p1,h2:p2`, libpq's multi-host form. Each item is a host name or address with an
//! optional port (`[::1]:5433` for an IPv6 address with one; a bare IPv6 address takes the
//! shared port), or, for PostgreSQL, a socket directory (`/var/run/postgresql`). A host
//! without a port takes the dictionary's `*_port`. It reads only text, so the dictionary's
//! checks and the endpoints both stand on it.

/// One item of a host list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostPort {
    pub host: String,
    /// The item's own port; `None` takes `*_port`.
    pub port: Option<u16>,
}

/// What a valid list looks like, for error messages.
pub const DESCRIBE: &str = "a host, or a comma-separated list of hosts each with an optional \
     port (h1,h2,h3 or h1:5432,h2:5433; [::1]:5432 for an IPv6 address with a port)";

/// Splits a host list into its items, or says which item is bad and why.
pub fn parse(text: &str) -> Result<Vec<HostPort>, String> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(Vec::new());
    }
    text.split(',').map(|item| item_of(item.trim())).collect()
}

fn item_of(item: &str) -> Result<HostPort, String> {
    let bad = |why: &str| Err(format!("'{item}' {why}"));
    if item.is_empty() {
        return bad("is empty: a list has no empty items");
    }
    if item.chars().any(char::is_whitespace) {
        return bad("holds a space");
    }
    if item.starts_with('/') {
        // A socket directory: its port is the shared one.
        return Ok(HostPort {
            host: item.to_string(),
            port: None,
        });
    }
    let port_of = |p: &str| match p.parse::<u16>() {
        Ok(0) | Err(_) => Err(format!(
            "'{item}' has port '{p}', which is not a port (an integer from 1 to 65535)"
        )),
        Ok(p) => Ok(Some(p)),
    };
    if let Some(rest) = item.strip_prefix('[') {
        let Some((host, after)) = rest.split_once(']') else {
            return bad("opens '[' without closing it");
        };
        let port = match after {
            "" => None,
            _ => match after.strip_prefix(':') {
                Some(p) => port_of(p)?,
                None => return bad("has text after ']' that is not ':port'"),
            },
        };
        if host.is_empty() {
            return bad("has no address between '[' and ']'");
        }
        return Ok(HostPort {
            host: host.to_string(),
            port,
        });
    }
    match item.matches(':').count() {
        0 => Ok(HostPort {
            host: item.to_string(),
            port: None,
        }),
        1 => {
            let (host, p) = item.split_once(':').unwrap_or((item, ""));
            if host.is_empty() {
                return bad("has a port but no host");
            }
            Ok(HostPort {
                host: host.to_string(),
                port: port_of(p)?,
            })
        }
        // A bare IPv6 address: no port of its own.
        _ => Ok(HostPort {
            host: item.to_string(),
            port: None,
        }),
    }
}

/// The list as it is stored: items joined by commas, without blanks.
pub fn canonical(items: &[HostPort]) -> String {
    items
        .iter()
        .map(|i| match (i.port, i.host.contains(':')) {
            (None, _) => i.host.clone(),
            (Some(p), true) => format!("[{}]:{p}", i.host),
            (Some(p), false) => format!("{}:{p}", i.host),
        })
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hp(host: &str, port: Option<u16>) -> HostPort {
        HostPort {
            host: host.into(),
            port,
        }
    }

    #[test]
    fn lists_read_as_libpq_reads_them() {
        assert_eq!(parse("db1").unwrap(), [hp("db1", None)]);
        assert_eq!(
            parse(" h1 , h2:5433,[::1]:5434,::1,/tmp/pg ").unwrap(),
            [
                hp("h1", None),
                hp("h2", Some(5433)),
                hp("::1", Some(5434)),
                hp("::1", None),
                hp("/tmp/pg", None)
            ]
        );
        assert_eq!(parse("").unwrap(), []);
        assert_eq!(
            canonical(&parse(" h1 , h2:5433,[::1]:5434").unwrap()),
            "h1,h2:5433,[::1]:5434"
        );
    }

    #[test]
    fn a_bad_item_is_named_with_why() {
        for (text, want) in [
            ("h1,,h2", "'' is empty"),
            ("h1:0", "'h1:0' has port '0'"),
            ("h1:99999", "'h1:99999' has port '99999'"),
            ("h1:x", "'h1:x' has port 'x'"),
            (":5432", "has a port but no host"),
            ("[::1", "opens '['"),
            ("[::1]5432", "text after ']'"),
        ] {
            let e = parse(text).expect_err(text);
            assert!(e.contains(want), "{text}: {e}");
        }
    }
}
