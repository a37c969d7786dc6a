//! The password of a PostgreSQL login whose dictionary key is empty, found as libpq finds it:
//! `PGPASSWORD`, then the password file (`PGPASSFILE`, else `~/.pgpass`).
//!
//! libpq's rules, kept: the file is ignored, with a warning, unless it is a plain file without
//! group or world access (0600 or stricter); lines are `hostname:port:database:username:password`,
//! `#` starts a comment line, each of the first four fields is a literal or `*`, `\:` and `\\`
//! escape a colon and a backslash, and the first line that matches wins. `localhost` matches
//! a connection over a unix socket. A line names its server, so the password goes nowhere
//! else; `PGPASSWORD` goes to the server the dictionary names, as libpq sends it.

use std::path::{Path, PathBuf};

/// The connection a password is looked up for, as libpq compares it: text, field by field.
#[derive(Debug, Clone, Copy)]
pub struct Login<'a> {
    /// `pg_host`: a host name, an address, or a socket directory (starting with `/`).
    pub host: &'a str,
    pub port: u16,
    pub dbname: &'a str,
    pub user: &'a str,
}

/// The password for `login` from `PGPASSWORD` or the password file, `None` when neither has
/// one. A password file libpq would ignore is ignored here too, with the warning libpq gives.
pub fn lookup(login: Login<'_>) -> Option<String> {
    if let Some(p) = std::env::var_os("PGPASSWORD").filter(|p| !p.is_empty()) {
        return Some(p.to_string_lossy().into_owned());
    }
    let path = password_file()?;
    let text = read_private(&path)?;
    find(&text, login)
}

/// Where [`lookup`] looked, for the message of a login the server refused: `PGPASSWORD` or
/// the password file, and the line it would match.
pub fn looked_in(login: Login<'_>) -> String {
    if std::env::var_os("PGPASSWORD").is_some_and(|p| !p.is_empty()) {
        return "the password came from PGPASSWORD".to_string();
    }
    let file = password_file().map_or("~/.pgpass".to_string(), |p| p.display().to_string());
    let line = format!(
        "{}:{}:{}:{}",
        login.host, login.port, login.dbname, login.user
    );
    let path = password_file();
    let none = "the dictionary has no password, PGPASSWORD is not set";
    match path.as_deref().map(|p| (p.exists(), read_private(p))) {
        Some((_, Some(text))) if find(&text, login).is_some() => {
            format!("the password came from the line of {file} for {line}")
        }
        Some((true, _)) => format!("{none} and {file} has no line for {line} that it can use"),
        _ => format!("{none} and there is no {file}"),
    }
}

/// `PGPASSFILE`, else `~/.pgpass`.
fn password_file() -> Option<PathBuf> {
    match std::env::var_os("PGPASSFILE").filter(|p| !p.is_empty()) {
        Some(p) => Some(PathBuf::from(p)),
        None => dirs::home_dir().map(|h| h.join(".pgpass")),
    }
}

/// The file's text when libpq would read it: a plain file without group or world access.
fn read_private(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() {
        crate::db::warnings::warn_once(
            format!("pgpass {}", path.display()),
            format!(
                "password file {} is not a plain file; it is ignored, as libpq ignores it",
                path.display()
            ),
        );
        return None;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = meta.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            crate::db::warnings::warn_once(
                format!("pgpass {} {mode:o}", path.display()),
                format!(
                    "password file {} has group or world access (mode {mode:04o}); it is \
                     ignored, as libpq ignores it: chmod 0600 {} to use it",
                    path.display(),
                    path.display()
                ),
            );
            return None;
        }
    }
    std::fs::read_to_string(path).ok()
}

/// The password of the first line of a password file that matches `login`.
pub fn find(text: &str, login: Login<'_>) -> Option<String> {
    let port = login.port.to_string();
    // A socket directory is `localhost` to libpq (its default directory; hammer has none of
    // its own, so any): a line may name either.
    let socket = login.host.starts_with('/');
    for line in text.lines() {
        let line = line.trim_end_matches('\r');
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        let Some(fields) = split(line) else {
            continue;
        };
        let [host, p, db, user, password] = &fields[..] else {
            continue;
        };
        let host_matches = matches(host, login.host) || (socket && matches(host, "localhost"));
        if host_matches
            && matches(p, &port)
            && matches(db, login.dbname)
            && matches(user, login.user)
        {
            return Some(password.text.clone());
        }
    }
    None
}

/// One field of a line: its text with escapes undone, and whether it was written as a bare `*`.
struct Field {
    text: String,
    star: bool,
}

fn matches(field: &Field, value: &str) -> bool {
    field.star || field.text == value
}

/// A line's five fields, or `None` when it has fewer. The password is the fifth field up to
/// an unescaped colon, as libpq reads it.
fn split(line: &str) -> Option<Vec<Field>> {
    let mut fields = Vec::with_capacity(5);
    let mut text = String::new();
    let mut escaped_any = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            // libpq drops a backslash before any character; one at the end stays.
            '\\' => match chars.next() {
                Some(next) => {
                    text.push(next);
                    escaped_any = true;
                }
                None => text.push('\\'),
            },
            ':' => {
                let star = text == "*" && !escaped_any;
                fields.push(Field {
                    text: std::mem::take(&mut text),
                    star,
                });
                escaped_any = false;
                if fields.len() == 5 {
                    return Some(fields);
                }
            }
            c => text.push(c),
        }
    }
    if fields.len() == 4 {
        fields.push(Field { text, star: false });
        return Some(fields);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOGIN: Login<'static> = Login {
        host: "db1",
        port: 5432,
        dbname: "tpcc",
        user: "tpcc",
    };

    #[test]
    fn the_first_matching_line_wins() {
        let text = "# a comment line\n\
                    \n\
                    db2:5432:tpcc:tpcc:other\n\
                    db1:5433:tpcc:tpcc:other-port\n\
                    db1:5432:tpch:tpcc:other-db\n\
                    db1:5432:tpcc:postgres:other-user\n\
                    db1:5432:tpcc:tpcc:right\n\
                    *:*:*:*:later\n";
        assert_eq!(find(text, LOGIN).as_deref(), Some("right"));
        assert_eq!(
            find(
                text,
                Login {
                    host: "db9",
                    ..LOGIN
                }
            )
            .as_deref(),
            Some("later")
        );
        assert_eq!(find("db2:*:*:*:x\n", LOGIN), None);
    }

    #[test]
    fn stars_match_anything_and_only_whole_fields() {
        assert_eq!(find("*:*:*:*:any", LOGIN).as_deref(), Some("any"));
        assert_eq!(find("db*:*:*:*:prefix", LOGIN), None);
        // An escaped star is the character itself, which no host name is.
        assert_eq!(find("\\*:*:*:*:literal", LOGIN), None);
        let star_host = Login { host: "*", ..LOGIN };
        assert_eq!(
            find("\\*:*:*:*:literal", star_host).as_deref(),
            Some("literal")
        );
    }

    #[test]
    fn escapes_hold_colons_and_backslashes() {
        let text = "db1:5432:tpcc:tpcc:pa\\:ss\\\\word\n";
        assert_eq!(find(text, LOGIN).as_deref(), Some("pa:ss\\word"));
        let odd = Login {
            dbname: "my:db",
            user: "do\\main",
            ..LOGIN
        };
        assert_eq!(
            find("db1:5432:my\\:db:do\\\\main:x", odd).as_deref(),
            Some("x")
        );
        // The password ends at an unescaped colon; a trailing backslash is kept.
        assert_eq!(
            find("db1:*:*:*:first:rest", LOGIN).as_deref(),
            Some("first")
        );
        assert_eq!(find("db1:*:*:*:end\\", LOGIN).as_deref(), Some("end\\"));
    }

    #[test]
    fn short_lines_and_carriage_returns() {
        assert_eq!(find("db1:5432:tpcc:tpcc\n", LOGIN), None);
        assert_eq!(find("db1:5432:tpcc:tpcc:\n", LOGIN).as_deref(), Some(""));
        assert_eq!(
            find("db1:5432:tpcc:tpcc:crlf\r\n", LOGIN).as_deref(),
            Some("crlf")
        );
    }

    #[test]
    fn localhost_matches_a_unix_socket() {
        let socket = Login {
            host: "/var/run/postgresql",
            ..LOGIN
        };
        assert_eq!(
            find("localhost:5432:tpcc:tpcc:local", socket).as_deref(),
            Some("local")
        );
        assert_eq!(
            find("/var/run/postgresql:5432:*:*:dir", socket).as_deref(),
            Some("dir")
        );
        // Over TCP, localhost is a host name like any other.
        assert_eq!(find("localhost:5432:tpcc:tpcc:local", LOGIN), None);
        let tcp_local = Login {
            host: "127.0.0.1",
            ..LOGIN
        };
        assert_eq!(find("localhost:5432:tpcc:tpcc:local", tcp_local), None);
    }
}
