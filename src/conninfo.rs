//! A PostgreSQL connection string, as libpq writes one: the URL form
//! (`postgresql://user:password@host:port/dbname?sslmode=require`, also `postgres://`) and the
//! key=value form (`host=h port=5432 user=u password=p dbname=d`). Read into a [`Conninfo`],
//! checked part by part, and masked ([`mask`]) wherever it could be shown, so that its
//! password never is. Pure text: the dictionary's checks, the console's history and the jobs
//! store all stand on it. (hammer's own; HammerDB has no such key.)

use std::fmt::Write as _;

/// libpq's `sslmode` values that hammer honours (also `pg_sslmode`'s): the verify-* modes
/// check the server's certificate against `sslrootcert` (verify-full its host name too).
pub const SSLMODES: &[&str] = &[
    "disable",
    "allow",
    "prefer",
    "require",
    "verify-ca",
    "verify-full",
];

/// libpq's `require_auth` methods (also `pg_require_auth`'s).
pub const AUTH_METHODS: &[&str] = &["password", "md5", "scram-sha-256", "none"];

/// The keys a connection string may set (as key=value words or as URL parameters).
pub const KEYS: &[&str] = &[
    "host",
    "port",
    "user",
    "password",
    "dbname",
    "sslmode",
    "sslrootcert",
    "require_auth",
    "connect_timeout",
];

/// The two forms, for every message about a bad value.
pub const FORMS: &str = "a PostgreSQL connection string, either \
     postgresql://user:password@host:port/dbname?sslmode=prefer (or postgres://...) or \
     host=... port=... user=... password=... dbname=...";

/// What shows where a password was.
const MASK: &str = "********";

/// A connection string read: one server, its login and TLS. Missing parts take libpq's
/// defaults: port 5432, `user` from `PGUSER` (else the login name), `dbname` the user's name,
/// `sslmode` prefer; the host defaults to `localhost` (hammer's choice: libpq's default is its
/// compiled-in socket directory). No password means `PGPASSWORD`, the password file, or
/// none (trust, peer).
#[derive(Clone, PartialEq, Eq)]
pub struct Conninfo {
    /// A host name or address, or a unix-socket directory (starting with `/`).
    pub host: String,
    pub port: u16,
    pub user: String,
    pub password: Option<String>,
    pub dbname: String,
    pub sslmode: String,
    /// The CA file for the verify-* modes; empty: `~/.postgresql/root.crt`.
    pub sslrootcert: String,
    /// libpq's `require_auth` (empty: any method, but no clear-text password in the open).
    pub require_auth: String,
    /// Seconds a connection may take; `None` for the caller's own bound.
    pub connect_timeout: Option<u64>,
}

impl std::fmt::Debug for Conninfo {
    // Written out so that the password never reaches a log line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.shown())
    }
}

impl Conninfo {
    /// Where it leads, without the password: `postgresql://user@host:port/dbname`, or
    /// `postgresql://user@/dbname?host=/dir&port=5432` for a socket directory.
    pub fn shown(&self) -> String {
        let user = encode(&self.user);
        let db = encode(&self.dbname);
        if self.host.starts_with('/') {
            return format!(
                "postgresql://{user}@/{db}?host={}&port={}",
                self.host, self.port
            );
        }
        let host = if self.host.contains(':') {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        };
        format!("postgresql://{user}@{host}:{}/{db}", self.port)
    }
}

/// Reads a connection string, or says which part is wrong (never quoting the password); the
/// caller adds [`FORMS`].
pub fn parse(text: &str) -> Result<Conninfo, String> {
    let t = text.trim();
    let parts = if let Some(rest) = t
        .strip_prefix("postgresql://")
        .or_else(|| t.strip_prefix("postgres://"))
    {
        url_parts(rest)?
    } else if t.contains('=') {
        words(t)?
    } else if t.contains("://") {
        let scheme = t.split("://").next().unwrap_or_default();
        return Err(format!(
            "starts with {scheme}://, which is not PostgreSQL's (postgresql:// or postgres://)"
        ));
    } else {
        return Err("is not a PostgreSQL connection string".to_string());
    };
    from_parts(parts)
}

/// A part that was set twice, or an unknown key: the first one wins in libpq, but a value
/// that says two things is more likely a mistake.
fn from_parts(parts: Vec<(String, String)>) -> Result<Conninfo, String> {
    let mut seen: Vec<&str> = Vec::new();
    for (k, _) in &parts {
        let Some(known) = KEYS.iter().find(|x| **x == k.as_str()) else {
            return Err(format!(
                "has the key '{k}', which hammer does not take; the keys are {}",
                KEYS.join(", ")
            ));
        };
        if seen.contains(known) {
            return Err(format!("sets {k} twice"));
        }
        seen.push(known);
    }
    let get = |k: &str| {
        parts
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.clone())
    };
    let host = get("host").filter(|h| !h.is_empty());
    let host = match host {
        None => "localhost".to_string(),
        Some(h) if h.contains(',') => {
            return Err(format!(
                "names several hosts ({h}); a jobs store is one server: name one"
            ))
        }
        Some(h) if h.chars().any(char::is_whitespace) => {
            return Err(format!("has the host '{h}', which holds a space"))
        }
        Some(h) => h,
    };
    let port = match get("port").filter(|p| !p.is_empty()) {
        None => 5432,
        Some(p) => match p.parse::<u16>() {
            Ok(n) if n > 0 => n,
            _ => {
                return Err(format!(
                    "has the port '{p}', which is not a port (an integer from 1 to 65535)"
                ))
            }
        },
    };
    let user = get("user")
        .filter(|u| !u.is_empty())
        .or_else(|| std::env::var("PGUSER").ok().filter(|u| !u.is_empty()))
        .or_else(|| std::env::var("USER").ok().filter(|u| !u.is_empty()))
        .unwrap_or_else(|| "postgres".to_string());
    let dbname = get("dbname")
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| user.clone());
    let sslmode = get("sslmode")
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| "prefer".to_string());
    if !SSLMODES.contains(&sslmode.as_str()) {
        return Err(format!(
            "has sslmode '{sslmode}', which is not one of {}",
            SSLMODES.join("|")
        ));
    }
    let require_auth = methods(&get("require_auth").unwrap_or_default())?;
    let connect_timeout = match get("connect_timeout").filter(|s| !s.is_empty()) {
        None => None,
        Some(s) => match s.parse::<u64>() {
            Ok(n) if (1..=3600).contains(&n) => Some(n),
            _ => {
                return Err(format!(
                    "has connect_timeout '{s}', which is not a number of seconds from 1 to 3600"
                ))
            }
        },
    };
    Ok(Conninfo {
        host,
        port,
        user,
        password: get("password").filter(|p| !p.is_empty()),
        dbname,
        sslmode,
        sslrootcert: get("sslrootcert").unwrap_or_default(),
        require_auth,
        connect_timeout,
    })
}

/// `require_auth`: methods of [`AUTH_METHODS`], all plain or all negated with `!`.
fn methods(text: &str) -> Result<String, String> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(String::new());
    }
    let items: Vec<String> = t
        .split(',')
        .map(|w| w.trim().to_ascii_lowercase())
        .collect();
    let negated = items.iter().filter(|w| w.starts_with('!')).count();
    let known = items
        .iter()
        .all(|w| AUTH_METHODS.contains(&w.trim_start_matches('!')));
    if !known || (negated != 0 && negated != items.len()) {
        return Err(format!(
            "has require_auth '{t}', which is not a comma-separated list of {} (or of their \
             negations, e.g. !password)",
            AUTH_METHODS.join("|")
        ));
    }
    Ok(items.join(","))
}

/// The URL form after its scheme: `[user[:password]@][host][:port][/dbname][?k=v&...]`.
fn url_parts(rest: &str) -> Result<Vec<(String, String)>, String> {
    let mut parts = Vec::new();
    let (before_query, query) = match rest.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (rest, None),
    };
    // The credentials end at the last '@' before the path: a password may hold '@' or '/'
    // (which ought to be percent-encoded, but is not always).
    let (userinfo, hostpath) = match before_query.rfind('@') {
        Some(at) => (Some(&before_query[..at]), &before_query[at + 1..]),
        None => (None, before_query),
    };
    if let Some(info) = userinfo {
        let (user, password) = match info.split_once(':') {
            Some((u, p)) => (u, Some(p)),
            None => (info, None),
        };
        parts.push(("user".into(), decode(user, "the user name")?));
        if let Some(p) = password {
            parts.push(("password".into(), decode(p, "the password")?));
        }
    }
    let (hostport, path) = match hostpath.split_once('/') {
        Some((h, p)) => (h, Some(p)),
        None => (hostpath, None),
    };
    if !hostport.is_empty() {
        let (host, port) = if let Some(v6) = hostport.strip_prefix('[') {
            let Some((h, after)) = v6.split_once(']') else {
                return Err(format!(
                    "opens '[' in the host '{hostport}' without closing it"
                ));
            };
            match after {
                "" => (h.to_string(), None),
                _ => match after.strip_prefix(':') {
                    Some(p) => (h.to_string(), Some(p)),
                    None => {
                        return Err(format!(
                            "has text after ']' in '{hostport}' that is not ':port'"
                        ))
                    }
                },
            }
        } else {
            match hostport.rsplit_once(':') {
                Some((h, p)) => (decode(h, "the host")?, Some(p)),
                None => (decode(hostport, "the host")?, None),
            }
        };
        if !host.is_empty() {
            parts.push(("host".into(), host));
        }
        if let Some(p) = port {
            parts.push(("port".into(), p.to_string()));
        }
    }
    if let Some(db) = path.filter(|d| !d.is_empty()) {
        parts.push(("dbname".into(), decode(db, "the database name")?));
    }
    for pair in query.into_iter().flat_map(|q| q.split('&')) {
        if pair.is_empty() {
            continue;
        }
        let (k, v) = pair.split_once('=').ok_or_else(|| {
            format!(
                "has the parameter '{}' without '=value'",
                if pair.starts_with("password") {
                    "password"
                } else {
                    pair
                }
            )
        })?;
        let k = decode(k, "a parameter's name")?;
        let what = format!("the value of {k}");
        parts.push((k, decode(v, &what)?));
    }
    Ok(parts)
}

/// Percent-decoding of one part of a URL, or which part is badly encoded (never its text:
/// it may be the password).
fn decode(s: &str, what: &str) -> Result<String, String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            match hex {
                Some(b) => {
                    out.push(b);
                    i += 3;
                    continue;
                }
                None => {
                    return Err(format!(
                        "has a '%' in {what} that is not followed by two hexadecimal digits \
                         (write % itself as %25)"
                    ))
                }
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out)
        .map_err(|_| format!("has {what} percent-encoded to bytes that are not UTF-8"))
}

/// Percent-encodes what a URL part cannot hold as it is.
fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// The key=value form: words `key=value`, blanks around `=` allowed, a value in single quotes
/// when it holds blanks (`\'` and `\\` inside), libpq's rules.
fn words(t: &str) -> Result<Vec<(String, String)>, String> {
    let mut parts = Vec::new();
    let mut chars = t.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        if chars.peek().is_none() {
            return Ok(parts);
        }
        let mut key = String::new();
        while let Some(c) = chars.next_if(|c| !c.is_whitespace() && *c != '=') {
            key.push(c);
        }
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        if chars.next() != Some('=') {
            return Err(format!("has '{key}' without '=value'"));
        }
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        let mut value = String::new();
        if chars.next_if_eq(&'\'').is_some() {
            let mut closed = false;
            while let Some(c) = chars.next() {
                match c {
                    '\\' => {
                        if let Some(n) = chars.next() {
                            value.push(n);
                        }
                    }
                    '\'' => {
                        closed = true;
                        break;
                    }
                    c => value.push(c),
                }
            }
            if !closed {
                return Err(format!(
                    "opens a quote in the value of {key} without closing it"
                ));
            }
        } else {
            while let Some(c) = chars.next_if(|c| !c.is_whitespace()) {
                if c == '\\' {
                    if let Some(n) = chars.next() {
                        value.push(n);
                    }
                } else {
                    value.push(c);
                }
            }
        }
        parts.push((key, value));
    }
}

/// `text` with the password of every connection string in it masked: a URL's
/// `scheme://user:PASSWORD@...` and every `password=VALUE` (URL parameter or key=value word,
/// quoted or not). Works on any text (a console line, a message, a setting), whether or not
/// the connection string in it is valid; it masks too much rather than too little.
pub fn mask(text: &str) -> String {
    let mut hide: Vec<(usize, usize)> = Vec::new();
    let bytes = text.as_bytes();
    // URL credentials: from the ':' after the user to the last '@' before a blank or quote.
    let mut from = 0;
    while let Some(at) = text[from..].find("://") {
        let start = from + at + 3;
        let end = text[start..]
            .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '`'))
            .map_or(text.len(), |e| start + e);
        let authority = &text[start..end];
        if let Some(last_at) = authority.rfind('@') {
            if let Some(colon) = authority[..last_at].find(':') {
                hide.push((start + colon + 1, start + last_at));
            }
        }
        from = end.max(start);
    }
    // `password=VALUE`: a word of its own (after a blank, '?', '&', a quote, or at the start).
    let lower = text.to_ascii_lowercase();
    let mut from = 0;
    while let Some(at) = lower[from..].find("password") {
        let start = from + at;
        from = start + "password".len();
        let before = start.checked_sub(1).map(|i| bytes[i]);
        if !matches!(
            before,
            None | Some(b' ' | b'\t' | b'\n' | b'?' | b'&' | b'"' | b'\'' | b'{')
        ) {
            continue;
        }
        let mut i = from;
        while i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b'\t') {
            i += 1;
        }
        // `password == x` compares; it sets nothing.
        if bytes.get(i) != Some(&b'=') || bytes.get(i + 1) == Some(&b'=') {
            continue;
        }
        i += 1;
        while i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b'\t') {
            i += 1;
        }
        let value_start = i;
        if bytes.get(i) == Some(&b'\'') {
            i += 1;
            while i < bytes.len() && bytes[i] != b'\'' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            // The closing quote stays, when there is one.
            let end = i.min(bytes.len());
            hide.push((value_start + 1, end));
        } else {
            while i < bytes.len() && !matches!(bytes[i], b' ' | b'\t' | b'\n' | b'&' | b'"' | b'`')
            {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            let end = i.min(bytes.len());
            // A value ending the text inside a literal keeps the literal's closing quote.
            let end = if end == bytes.len() && end > value_start && bytes[end - 1] == b'\'' {
                end - 1
            } else {
                end
            };
            hide.push((value_start, end));
        }
        from = i.min(bytes.len()).max(from);
    }
    hide.retain(|(s, e)| e > s);
    hide.sort_unstable();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (s, e) in hide {
        if e <= at {
            continue;
        }
        let s = s.max(at);
        // Byte positions found on ASCII markers are char boundaries; an escape may have
        // stepped past the end of a multi-byte char, so both ends are brought to one.
        let (s, e) = (floor_char(text, s), ceil_char(text, e));
        out.push_str(&text[at..s]);
        out.push_str(MASK);
        at = e;
    }
    out.push_str(&text[at..]);
    out
}

fn floor_char(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_char(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_url_form_is_read_part_by_part() {
        let c = parse("postgresql://bench:s3cr%40t@db.example:5433/hammer_jobs?sslmode=require")
            .unwrap();
        assert_eq!(
            (
                c.host.as_str(),
                c.port,
                c.user.as_str(),
                c.password.as_deref(),
                c.dbname.as_str(),
                c.sslmode.as_str()
            ),
            (
                "db.example",
                5433,
                "bench",
                Some("s3cr@t"),
                "hammer_jobs",
                "require"
            )
        );
        assert_eq!(c.shown(), "postgresql://bench@db.example:5433/hammer_jobs");
        assert!(!format!("{c:?}").contains("s3cr"));
        let c = parse("postgres://u@[::1]/d").unwrap();
        assert_eq!((c.host.as_str(), c.port), ("::1", 5432));
        assert_eq!(c.shown(), "postgresql://u@[::1]:5432/d");
        // An unencoded '@' in the password: the last one ends the credentials.
        let c = parse("postgresql://u:p@ss@h/d").unwrap();
        assert_eq!(
            (c.password.as_deref(), c.host.as_str()),
            (Some("p@ss"), "h")
        );
        let c = parse("postgresql:///d?host=/var/run/postgresql&port=5444").unwrap();
        assert_eq!(
            c.shown(),
            format!(
                "postgresql://{}@/d?host=/var/run/postgresql&port=5444",
                encode(&c.user)
            )
        );
        let c = parse("postgresql://u@h/d?connect_timeout=3&require_auth=scram-sha-256").unwrap();
        assert_eq!(
            (c.connect_timeout, c.require_auth.as_str()),
            (Some(3), "scram-sha-256")
        );
    }

    #[test]
    fn the_key_value_form_is_read_with_libpq_s_quoting() {
        let c = parse("host=10.0.0.5 port = 5432 user=bench password='it''s' dbname=jobs").err();
        // `''` is not libpq's escape: the second quote opens a value libpq would not read.
        assert!(c.is_some());
        let c = parse(r"host=10.0.0.5 port = 5432 user=bench password='it\'s a s\\ecret' dbname=jobs sslmode=verify-full")
            .unwrap();
        assert_eq!(c.password.as_deref(), Some(r"it's a s\ecret"));
        assert_eq!(
            (c.host.as_str(), c.dbname.as_str(), c.sslmode.as_str()),
            ("10.0.0.5", "jobs", "verify-full")
        );
        let c = parse("dbname=jobs").unwrap();
        assert_eq!(
            (c.host.as_str(), c.port, c.password),
            ("localhost", 5432, None)
        );
    }

    #[test]
    fn a_bad_part_is_named_without_the_password() {
        let e = |s: &str| parse(s).unwrap_err();
        assert!(e("postgresql://u:pw@h:54x2/d").contains("port '54x2'"));
        assert!(e("postgresql://u:pw@h/d?sslmode=always").contains("sslmode 'always'"));
        assert!(e("postgresql://u:pw@h/d?colour=red").contains("'colour'"));
        assert!(e("postgresql://u:pw@h1,h2/d").contains("several hosts"));
        assert!(e("mysql://u:pw@h/d").contains("mysql://"));
        let bad = e("postgresql://u:p%zz@h/d");
        assert!(
            bad.contains("the password") && !bad.contains("p%zz"),
            "{bad}"
        );
        let bad = e("host=h password='secret");
        assert!(!bad.contains("secret"), "{bad}");
        for text in ["just words", "", "host"] {
            let why = parse(text).unwrap_err();
            assert_eq!(why, "is not a PostgreSQL connection string");
        }
        assert!(e("host=h require_auth=md5,!password").contains("require_auth"));
        assert!(e("host=h connect_timeout=0").contains("connect_timeout"));
        assert!(e("host=h host=k").contains("twice"));
    }

    #[test]
    fn passwords_are_masked_in_any_text() {
        assert_eq!(
            mask("postgresql://bench:s3cr3t@db:5432/jobs?sslmode=require"),
            "postgresql://bench:********@db:5432/jobs?sslmode=require"
        );
        assert_eq!(
            mask("postgresql://bench@db/jobs?password=s3cr3t&sslmode=require"),
            "postgresql://bench@db/jobs?password=********&sslmode=require"
        );
        assert_eq!(
            mask("host=db password = 's3 cr\\'3t' dbname=jobs"),
            "host=db password = '********' dbname=jobs"
        );
        assert_eq!(
            mask("host=db password=s3cr3t dbname=jobs"),
            "host=db password=******** dbname=jobs"
        );
        // Inside a line of Rhai: the literal's quotes stay.
        assert_eq!(
            mask(r#"giset("commandline", "jobs_store", "postgresql://u:p@ss/w@h/d")"#),
            r#"giset("commandline", "jobs_store", "postgresql://u:********@h/d")"#
        );
        assert_eq!(
            mask(r#"giset("commandline", "jobs_store", "host=h password=pw")"#),
            r#"giset("commandline", "jobs_store", "host=h password=********")"#
        );
        assert_eq!(
            mask("let x = 'dbname=d password=pw'"),
            "let x = 'dbname=d password=********'"
        );
        // Nothing to hide: unchanged.
        for plain in [
            "postgresql://u@h/d",
            "https://example.com/a:b",
            "the password is wrong",
            "diset tpcc pg_count_ware 4",
        ] {
            assert_eq!(mask(plain), plain);
        }
        // Never a broken string, whatever the bytes.
        assert_eq!(mask("password=é\\é"), "password=********");
    }
}
