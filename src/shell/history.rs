//! What the console's history keeps of a line: the line, with every password in it that
//! hammer can recognise masked, so that `history.txt` never holds one.
//!
//! A password is recognised three ways: as the value of a `diset`/`giset` of a secret key
//! (bare `diset tpcc pg_pass x` or Rhai `diset("tpcc", "pg_pass", "x")`); as a literal given
//! to a variable or map field whose name says password (`let pass = "x"`, `#{pwd: "x"}`);
//! and as any string literal equal to a password the session holds, which also catches a line
//! typed before the password was set with it (`let p = "x";` then `diset(.., p)`): the whole
//! history is masked again whenever the session's passwords change. Last, the password of
//! any PostgreSQL connection string in the line (`postgresql://u:PASSWORD@h/d`,
//! `password=PASSWORD`) is masked, whatever the line does with it (`jobs_store`).

use crate::config::{Database, Settings, MASK};

/// What the filter knows: which keys are secret, and which passwords the session holds.
pub struct Secrets {
    keys: Vec<String>,
    values: Vec<String>,
}

impl Secrets {
    /// The secret keys of every dictionary, and the passwords set in them that differ from
    /// hammer's published defaults (a default such as `tpcc` is no secret, and is also the
    /// name of a dictionary, which must stay readable).
    pub fn of(settings: &Settings) -> Secrets {
        let mut keys = Vec::new();
        let mut values = Vec::new();
        let dicts =
            std::iter::once(&settings.generic).chain(Database::ALL.iter().map(|d| settings.db(*d)));
        for dict in dicts {
            for spec in dict.specs().iter().filter(|s| s.is_secret()) {
                keys.push(spec.key.clone());
                let value = dict.get(&spec.key);
                if !value.is_empty() && value != spec.default && value != MASK {
                    values.push(value.to_string());
                }
            }
            // A connection string's password (`jobs_store`) is one too, wherever typed.
            for spec in dict.specs() {
                if let Some(p) = spec.inner_secret(dict.get(&spec.key)) {
                    if p != MASK {
                        values.push(p);
                    }
                }
            }
        }
        values.sort();
        values.dedup();
        Secrets { keys, values }
    }

    /// The passwords held, to notice when they change.
    pub fn values(&self) -> &[String] {
        &self.values
    }

    fn is_secret_key(&self, key: &str) -> bool {
        self.keys.iter().any(|k| k == key)
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Tok {
    /// A string or character literal, quotes included.
    Str,
    /// A run of anything else that is not space or punctuation: a name, a number, a bare word.
    Word,
    /// One character of punctuation.
    Punct(char),
    Newline,
}

/// The tokens of a line, as (kind, start, end) byte ranges. Forgiving: an unclosed quote runs
/// to the end, so a half-typed password is still one token.
fn tokens(line: &str) -> Vec<(Tok, usize, usize)> {
    let mut out = Vec::new();
    let mut chars = line.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        match c {
            '\n' => out.push((Tok::Newline, start, start + 1)),
            c if c.is_whitespace() => {}
            '"' | '\'' | '`' => {
                let mut end = line.len();
                let mut escaped = false;
                for (i, ch) in chars.by_ref() {
                    if escaped {
                        escaped = false;
                    } else if ch == '\\' && c != '`' {
                        escaped = true;
                    } else if ch == c {
                        end = i + ch.len_utf8();
                        break;
                    }
                }
                out.push((Tok::Str, start, end));
            }
            c if is_punct(c) => out.push((Tok::Punct(c), start, start + c.len_utf8())),
            _ => {
                let mut end = start + c.len_utf8();
                while let Some(&(i, ch)) = chars.peek() {
                    if ch.is_whitespace() || is_punct(ch) || matches!(ch, '"' | '\'' | '`') {
                        break;
                    }
                    end = i + ch.len_utf8();
                    chars.next();
                }
                out.push((Tok::Word, start, end));
            }
        }
    }
    out
}

fn is_punct(c: char) -> bool {
    matches!(
        c,
        '(' | ')' | '[' | ']' | '{' | '}' | ',' | ';' | '=' | ':' | '?' | '+' | '!'
    )
}

/// A string literal's text without its quotes.
fn unquoted(text: &str) -> &str {
    let mut chars = text.chars();
    match chars.next() {
        Some(q @ ('"' | '\'' | '`')) => {
            let rest = &text[q.len_utf8()..];
            rest.strip_suffix(q).unwrap_or(rest)
        }
        _ => text,
    }
}

fn is_identifier(w: &str) -> bool {
    let mut chars = w.chars();
    matches!(chars.next(), Some(c) if c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

/// Whether a variable or field name says it holds a password.
fn names_a_password(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    ["pass", "pwd", "secret"].iter().any(|w| n.contains(w))
}

/// `line` as the history keeps it.
pub fn masked(line: &str, secrets: &Secrets) -> String {
    let toks = tokens(line);
    let text = |i: usize| &line[toks[i].1..toks[i].2];
    // Byte ranges to replace by the mask.
    let mut hide: Vec<(usize, usize)> = Vec::new();
    // Literals inside `from..` up to the end of the expression (a `,`, `)`, `]`, `}` that
    // closes it, or the end of the statement): every string and number in it.
    let expression = |from: usize, hide: &mut Vec<(usize, usize)>| {
        let mut depth = 0i32;
        let mut i = from;
        while i < toks.len() {
            let (kind, s, e) = toks[i];
            match kind {
                Tok::Punct('(' | '[' | '{') => depth += 1,
                Tok::Punct(')' | ']' | '}') if depth == 0 => break,
                Tok::Punct(')' | ']' | '}') => depth -= 1,
                Tok::Punct(',') if depth == 0 => break,
                Tok::Punct(';') | Tok::Newline if depth == 0 => break,
                // The name of an environment variable is not the password it holds.
                Tok::Str if i >= 2 && text(i - 2) == "env" && toks[i - 1].0 == Tok::Punct('(') => {}
                Tok::Str => hide.push((s, e)),
                Tok::Word if !is_identifier(&line[s..e]) => hide.push((s, e)),
                _ => {}
            }
            i += 1;
        }
    };
    let mut statement_start = true;
    for i in 0..toks.len() {
        let (kind, s, e) = toks[i];
        let word = &line[s..e];
        let next = |k: usize| toks.get(i + k).map(|t| t.0);
        let setter = kind == Tok::Word && matches!(word, "diset" | "giset");
        // Bare form: `diset tpcc pg_pass anything up to the end of the statement`.
        if setter && statement_start && next(1) != Some(Tok::Punct('(')) {
            let key = toks.get(i + 2).map(|t| unquoted(&line[t.1..t.2]));
            if key.is_some_and(|k| secrets.is_secret_key(k)) {
                let mut depth = 0i32;
                let mut end = None;
                for t in toks.iter().skip(i + 3) {
                    match t.0 {
                        Tok::Punct('{' | '(' | '[') => depth += 1,
                        Tok::Punct('}' | ')' | ']') => depth -= 1,
                        Tok::Punct(';') | Tok::Newline if depth <= 0 => break,
                        _ => {}
                    }
                    end = Some(t.2);
                }
                if let (Some(first), Some(end)) = (toks.get(i + 3), end) {
                    hide.push((first.1, end));
                }
            }
        }
        // Rhai form: `diset("tpcc", "pg_pass", <expression>)`.
        if setter
            && next(1) == Some(Tok::Punct('('))
            && next(3) == Some(Tok::Punct(','))
            && next(5) == Some(Tok::Punct(','))
            && next(4) == Some(Tok::Str)
            && secrets.is_secret_key(unquoted(text(i + 4)))
        {
            expression(i + 6, &mut hide);
        }
        // `let pass = "x"`, `pwd = "x"`, `#{pass: "x"}`, `m.password = "x"`.
        let assigned = match kind {
            Tok::Word => matches!(next(1), Some(Tok::Punct('=' | ':'))),
            // `#{"password": "x"}`
            Tok::Str => next(1) == Some(Tok::Punct(':')),
            _ => false,
        };
        if assigned && names_a_password(unquoted(word)) && next(2) != Some(Tok::Punct('=')) {
            expression(i + 2, &mut hide);
        }
        // Any literal that is one of the session's passwords.
        if kind == Tok::Str {
            let inner = unquoted(word);
            if secrets.values.iter().any(|v| v == inner) {
                hide.push((s, e));
            }
        }
        statement_start = matches!(kind, Tok::Punct(';' | '{' | '}') | Tok::Newline);
    }
    hide.sort_unstable();
    crate::conninfo::mask(&hide_ranges(line, hide))
}

/// `line` with each of the (sorted) byte ranges `hide` replaced by the mask, a literal's
/// quotes kept.
fn hide_ranges(line: &str, hide: Vec<(usize, usize)>) -> String {
    let mut out = String::with_capacity(line.len());
    let mut at = 0;
    for (s, e) in hide {
        if s < at {
            continue; // inside a range already masked
        }
        out.push_str(&line[at..s]);
        let original = &line[s..e];
        // A literal stays a literal, so the line still reads as the code it was.
        match original.chars().next() {
            Some(q @ ('"' | '\'' | '`')) => {
                out.push(q);
                out.push_str(MASK);
                if original.len() > 1 && original.ends_with(q) {
                    out.push(q);
                }
            }
            _ => out.push_str(MASK),
        }
        at = e;
    }
    out.push_str(&line[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Target;

    fn secrets_with(pass: &str) -> Secrets {
        let mut s = Settings::defaults();
        s.set(Target::Db(Database::Pg), "tpcc", "pg_pass", pass)
            .unwrap();
        Secrets::of(&s)
    }

    #[test]
    fn setting_a_secret_key_is_masked_in_either_form() {
        let s = Secrets::of(&Settings::defaults());
        let m = |l: &str| masked(l, &s);
        assert_eq!(m("diset tpcc pg_pass tiger"), "diset tpcc pg_pass ********");
        assert_eq!(
            m("diset tpcc maria_pass {two words}; print dict"),
            "diset tpcc maria_pass ********; print dict"
        );
        assert_eq!(
            m(r#"diset tpcc pg_superuserpass "a b\" c""#),
            r#"diset tpcc pg_superuserpass "********""#
        );
        assert_eq!(
            m(r#"diset("tpcc", "pg_pass", "tiger")"#),
            r#"diset("tpcc", "pg_pass", "********")"#
        );
        assert_eq!(
            m(r#"giset("commandline", "sqlite_db", "x"); diset('tpcc', "mysql_pass", 1234)"#),
            r#"giset("commandline", "sqlite_db", "x"); diset('tpcc', "mysql_pass", ********)"#
        );
        // A variable is no password; an environment variable's name is none either, but a
        // literal fallback is.
        assert_eq!(
            m(r#"diset("tpcc", "pg_pass", p)"#),
            r#"diset("tpcc", "pg_pass", p)"#
        );
        assert_eq!(
            m(r#"diset("tpcc", "pg_pass", env("PGPASS") ?? "fallback"); vurun()"#),
            r#"diset("tpcc", "pg_pass", env("PGPASS") ?? "********"); vurun()"#
        );
        // Other keys, and unfinished input, stay as typed where no password is in them.
        assert_eq!(
            m("diset tpcc pg_count_ware 4"),
            "diset tpcc pg_count_ware 4"
        );
        assert_eq!(m("diset tpcc pg_pass"), "diset tpcc pg_pass");
        assert_eq!(
            m(r#"diset("tpcc", "pg_pass", "unclosed"#),
            r#"diset("tpcc", "pg_pass", "********"#
        );
    }

    #[test]
    fn names_that_say_password_have_their_literals_masked() {
        let s = Secrets::of(&Settings::defaults());
        let m = |l: &str| masked(l, &s);
        assert_eq!(m(r#"let pass = "tiger";"#), r#"let pass = "********";"#);
        assert_eq!(
            m(r#"let db_password="tiger"; let n = 4"#),
            r#"let db_password="********"; let n = 4"#
        );
        assert_eq!(
            m(r#"let c = #{user: "u", pwd: "tiger"}"#),
            r#"let c = #{user: "u", pwd: "********"}"#
        );
        assert_eq!(
            m(r#"#{"password": "tiger"}"#),
            r#"#{"password": "********"}"#
        );
        assert_eq!(m(r#"if pass == "x" { }"#), r#"if pass == "x" { }"#);
        assert_eq!(m("let n = 4"), "let n = 4");
    }

    #[test]
    fn a_password_the_session_holds_is_masked_wherever_it_is_a_literal() {
        let s = secrets_with("Tiger9");
        assert_eq!(s.values(), ["Tiger9"]);
        assert_eq!(
            masked(r#"let p = "Tiger9"; print(p)"#, &s),
            r#"let p = "********"; print(p)"#
        );
        // Defaults are not secrets (pg_pass's default is the dictionary's name, tpcc).
        let d = Secrets::of(&Settings::defaults());
        assert!(d.values().is_empty());
        assert_eq!(
            masked(r#"diset("tpcc", "pg_count_ware", 4)"#, &d),
            r#"diset("tpcc", "pg_count_ware", 4)"#
        );
    }

    /// A connection string's password (`jobs_store`) is masked in either form of giset, in
    /// any literal, and wherever the password the session holds is typed alone.
    #[test]
    fn a_connection_string_s_password_is_masked() {
        let mut settings = Settings::defaults();
        settings
            .set(
                crate::config::Target::Generic,
                "commandline",
                "jobs_store",
                "postgresql://bench:Sh4red-pw@db:5432/jobs",
            )
            .unwrap();
        let s = Secrets::of(&settings);
        assert_eq!(s.values(), ["Sh4red-pw"]);
        let m = |l: &str| masked(l, &s);
        assert_eq!(
            m("giset commandline jobs_store postgresql://bench:Sh4red-pw@db:5432/jobs"),
            "giset commandline jobs_store postgresql://bench:********@db:5432/jobs"
        );
        assert_eq!(
            m(r#"giset("commandline", "jobs_store", "host=db user=bench password=Sh4red-pw")"#),
            r#"giset("commandline", "jobs_store", "host=db user=bench password=********")"#
        );
        assert_eq!(
            m(r#"giset commandline jobs_store {host=db password='a b' dbname=jobs}"#),
            r#"giset commandline jobs_store {host=db password='********' dbname=jobs}"#
        );
        assert_eq!(
            m(r#"let url = "postgres://u:other@h/d";"#),
            r#"let url = "postgres://u:********@h/d";"#
        );
        assert_eq!(m(r#"let p = "Sh4red-pw";"#), r#"let p = "********";"#);
        // Comparisons and plain words are left alone.
        assert_eq!(m("if password == x { }"), "if password == x { }");
        assert_eq!(
            m("giset commandline jobs_store {}"),
            "giset commandline jobs_store {}"
        );
    }
}
