//! The password of a MariaDB/MySQL login whose dictionary key is empty, found as their clients
//! find it: the `password` of the client groups of `~/.my.cnf`, else `MYSQL_PWD`.
//!
//! The option file is read as the servers' own `my_default.c` reads it: `[group]` lines (names
//! compared without case), `#` and `;` comment lines, a `#` outside quotes ending a line,
//! `name = value` with blanks trimmed, one pair of quotes around a value taken off, the escapes
//! `\n \t \r \b \s \" \' \\` undone, the last value in the groups read winning, and a
//! world-writable file ignored with a warning. The groups are the dialect's `option_groups`:
//! `[client]`, and for MariaDB `[client-server]` and `[client-mariadb]` too, as MariaDB's
//! clients read them.
//!
//! Unlike the `mysql` client, hammer sends the file's password only to the login it was
//! written for: when the groups name a `user`, a `host` or a `port`, the login must be that
//! user on that server, so a password kept for one server never goes to another.

use std::path::Path;

/// The login a password is looked up for.
#[derive(Debug, Clone, Copy)]
pub struct Login<'a> {
    pub host: &'a str,
    pub port: u16,
    pub user: &'a str,
}

/// The password for `login` from `~/.my.cnf`'s client groups, else from `MYSQL_PWD`; `None`
/// when neither has one.
pub fn lookup(login: Login<'_>, groups: &[&str]) -> Option<String> {
    let from_file = dirs::home_dir()
        .map(|home| home.join(".my.cnf"))
        .and_then(|path| read_trusted(&path))
        .and_then(|text| parse(&text, groups).password_for(login));
    from_file.or_else(|| {
        std::env::var_os("MYSQL_PWD")
            .filter(|p| !p.is_empty())
            .map(|p| p.to_string_lossy().into_owned())
    })
}

/// The file's text unless anybody may write it (the servers' clients ignore such a file).
fn read_trusted(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = meta.permissions().mode() & 0o777;
        if mode & 0o002 != 0 {
            crate::db::warnings::warn_once(
                format!("my.cnf {} {mode:o}", path.display()),
                format!(
                    "option file {} is world-writable (mode {mode:04o}); it is ignored, as \
                     the MariaDB and MySQL clients ignore it: chmod 0600 {} to use it",
                    path.display(),
                    path.display()
                ),
            );
            return None;
        }
    }
    if !meta.is_file() {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

/// What the client groups of an option file say about a login.
#[derive(Debug, Default, PartialEq)]
pub struct ClientOptions {
    /// `password = x`; a bare `password` (the client would prompt) leaves none.
    pub password: Option<String>,
    pub user: Option<String>,
    pub host: Option<String>,
    pub port: Option<String>,
}

impl ClientOptions {
    /// The password, when these options were written for `login`'s user and server.
    pub fn password_for(self, login: Login<'_>) -> Option<String> {
        let user_ok = self.user.as_deref().is_none_or(|u| u == login.user);
        let host_ok = self
            .host
            .as_deref()
            .is_none_or(|h| h == login.host || (is_local(h) && is_local(login.host)));
        let port_ok = self
            .port
            .as_deref()
            .is_none_or(|p| p.parse::<u16>() == Ok(login.port));
        (user_ok && host_ok && port_ok).then_some(self.password?)
    }
}

/// The names the clients give this machine.
fn is_local(host: &str) -> bool {
    matches!(host, "localhost" | "127.0.0.1" | "::1")
}

/// The options of `groups` in an option file's text, the last of each winning.
pub fn parse(text: &str, groups: &[&str]) -> ClientOptions {
    let mut options = ClientOptions::default();
    let mut in_group = false;
    for line in text.lines() {
        let line = line.trim_start();
        if line.is_empty() || line.starts_with(['#', ';']) {
            continue;
        }
        if let Some(rest) = line.strip_prefix('[') {
            // A header without its `]` is an error to the clients; here it ends the groups.
            in_group = rest.find(']').is_some_and(|end| {
                let name = rest[..end].trim();
                groups.iter().any(|g| g.eq_ignore_ascii_case(name))
            });
            continue;
        }
        // `!include` and `!includedir` name more files, which hammer does not follow.
        if !in_group || line.starts_with('!') {
            continue;
        }
        let line = without_comment(line);
        let (name, value) = match line.split_once('=') {
            Some((n, v)) => (n.trim(), Some(value_of(v))),
            None => (line.trim(), None),
        };
        // The clients take `-` and `_` alike in option names.
        match name.replace('-', "_").as_str() {
            "password" => options.password = value,
            "user" => options.user = value,
            "host" => options.host = value,
            "port" => options.port = value,
            _ => {}
        }
    }
    options
}

/// The line up to a `#` outside quotes.
fn without_comment(line: &str) -> &str {
    let mut quote = None;
    let mut escape = false;
    for (i, c) in line.char_indices() {
        if (c == '\'' || c == '"') && !escape {
            match quote {
                None => quote = Some(c),
                Some(q) if q == c => quote = None,
                Some(_) => {}
            }
        }
        if quote.is_none() && c == '#' {
            return &line[..i];
        }
        escape = quote.is_some() && c == '\\' && !escape;
    }
    line
}

/// A value with its blanks, one pair of surrounding quotes and its escapes taken off.
fn value_of(raw: &str) -> String {
    let v = raw.trim();
    let v = match (v.chars().next(), v.chars().last()) {
        (Some(first @ ('"' | '\'')), Some(last)) if v.len() > 1 && first == last => {
            &v[1..v.len() - 1]
        }
        _ => v,
    };
    let mut out = String::with_capacity(v.len());
    let mut chars = v.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' || chars.peek().is_none() {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('b') => out.push('\u{8}'),
            Some('s') => out.push(' '),
            Some(c @ ('"' | '\'' | '\\')) => out.push(c),
            // Unknown: the backslash stays.
            Some(c) => {
                out.push('\\');
                out.push(c);
            }
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::mysql::dialect::{MARIADB, MYSQL};

    const ROOT: Login<'static> = Login {
        host: "127.0.0.1",
        port: 3306,
        user: "root",
    };

    #[test]
    fn the_client_groups_are_read_and_the_last_value_wins() {
        let text = "[mysqld]\npassword = server-side\n\
                    [client]\npassword = first\n\
                    [mysql]\npassword = cli-only\n\
                    [Client-MariaDB]\npassword = second\n";
        assert_eq!(
            parse(text, MARIADB.option_groups).password.as_deref(),
            Some("second")
        );
        assert_eq!(
            parse(text, MYSQL.option_groups).password.as_deref(),
            Some("first")
        );
        assert_eq!(
            parse("password = none\n", MARIADB.option_groups).password,
            None
        );
    }

    #[test]
    fn quotes_comments_and_escapes() {
        let p = |line: &str| parse(&format!("[client]\n{line}\n"), MYSQL.option_groups).password;
        assert_eq!(p("password=plain").as_deref(), Some("plain"));
        assert_eq!(p("  password  =   spaced   ").as_deref(), Some("spaced"));
        assert_eq!(
            p("password = \"with # hash\"  # comment").as_deref(),
            Some("with # hash")
        );
        assert_eq!(p("password = 'single'").as_deref(), Some("single"));
        assert_eq!(p("password = bare # comment").as_deref(), Some("bare"));
        assert_eq!(
            p("password = \"a\\sb\\\\c\\\"d\"").as_deref(),
            Some("a b\\c\"d")
        );
        assert_eq!(p("password = un\\known").as_deref(), Some("un\\known"));
        assert_eq!(p("password = \"").as_deref(), Some("\""));
        assert_eq!(p("password =").as_deref(), Some(""));
        assert_eq!(p("password"), None);
        assert_eq!(p("# password = commented"), None);
        assert_eq!(p("; password = commented"), None);
        assert_eq!(p("!include /etc/other.cnf"), None);
    }

    #[test]
    fn a_password_goes_only_to_the_login_it_was_written_for() {
        let opts = |extra: &str| {
            parse(
                &format!("[client]\npassword=pw\n{extra}"),
                MYSQL.option_groups,
            )
        };
        assert_eq!(opts("").password_for(ROOT).as_deref(), Some("pw"));
        assert_eq!(
            opts("user=root\n").password_for(ROOT).as_deref(),
            Some("pw")
        );
        assert_eq!(opts("user=alice\n").password_for(ROOT), None);
        assert_eq!(
            opts("host=localhost\n").password_for(ROOT).as_deref(),
            Some("pw")
        );
        assert_eq!(opts("host=db9.example\n").password_for(ROOT), None);
        assert_eq!(
            opts("port=3306\n").password_for(ROOT).as_deref(),
            Some("pw")
        );
        assert_eq!(opts("port=3307\n").password_for(ROOT), None);
        let remote = Login {
            host: "db9.example",
            ..ROOT
        };
        assert_eq!(
            opts("host=db9.example\n").password_for(remote).as_deref(),
            Some("pw")
        );
        assert_eq!(opts("host=localhost\n").password_for(remote), None);
    }

    #[test]
    fn a_broken_header_ends_the_groups() {
        let text = "[client]\npassword=a\n[client\npassword=b\n";
        assert_eq!(
            parse(text, MYSQL.option_groups).password.as_deref(),
            Some("a")
        );
    }
}
