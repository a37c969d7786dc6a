//! The 22 TPC-H queries in a database's SQL (`schemas/<db>/tproch/queries.sql`, given by the
//! engine through `tpch::support::Support::queries_sql`), parsed once, and the statements one
//! query runs with its substitution parameters (query 15: create its view, query it, drop it).
//!
//! The file's shape: each query starts at a line `-- query N`; the statements of a query of
//! several are separated by a line `-- go`; other lines starting with `--` are comments. In the
//! SQL, `:1`, `:2`, ... stand for the query's substitution parameters (numbered as the
//! specification's query text numbers them) and `:s` for the stream's number; `::` (a
//! PostgreSQL cast) is left alone.

use super::params::{self, Params};

#[derive(Debug, Clone, PartialEq)]
pub struct Statement {
    pub sql: String,
    pub returns_rows: bool,
}

/// A piece of a statement's text.
#[derive(Debug, Clone, PartialEq)]
enum Piece {
    Text(String),
    /// `:N`, 1-based.
    Param(usize),
    /// `:s`, the stream's number.
    Stream,
}

#[derive(Debug, Clone, PartialEq)]
struct Template {
    pieces: Vec<Piece>,
    returns_rows: bool,
}

/// The 22 queries of one dialect, parsed.
#[derive(Debug, Clone)]
pub struct Queries {
    /// Query `q`'s statements at index `q - 1`.
    queries: Vec<Vec<Template>>,
}

impl Queries {
    /// Parses a dialect's queries.sql: the 22 queries, each introduced by a line
    /// `-- query N`, the statements of one query separated by a line `-- go` (so query 15 can
    /// be three: create view, select, drop view). A malformed file is an Err naming what is
    /// wrong and where.
    pub fn parse(text: &str) -> Result<Queries, String> {
        // (query, [(first line of the statement, its text)])
        let mut found: Vec<Option<Vec<(usize, String)>>> = vec![None; 22];
        let mut current: Option<usize> = None;
        for (i, line) in text.lines().enumerate() {
            let n = i + 1;
            let trimmed = line.trim();
            if let Some(rest) = trimmed
                .strip_prefix("-- query")
                .filter(|rest| rest.trim_start().starts_with(|c: char| c.is_ascii_digit()))
            {
                let q = query_number(rest)
                    .ok_or_else(|| format!("line {n}: `{trimmed}` names no query 1 to 22"))?;
                if found[q - 1].is_some() {
                    return Err(format!("line {n}: query {q} is there twice"));
                }
                found[q - 1] = Some(vec![(n, String::new())]);
                current = Some(q);
                continue;
            }
            let Some(q) = current else {
                if trimmed.is_empty() || trimmed.starts_with("--") {
                    continue;
                }
                return Err(format!(
                    "line {n}: SQL before the first `-- query N` line: `{trimmed}`"
                ));
            };
            let statements = found[q - 1].get_or_insert_with(Vec::new);
            if trimmed == "-- go" {
                statements.push((n + 1, String::new()));
                continue;
            }
            if trimmed.starts_with("--") {
                continue;
            }
            if let Some((start, sql)) = statements.last_mut() {
                if sql.trim().is_empty() {
                    sql.clear();
                    *start = n;
                } else {
                    sql.push('\n');
                }
                sql.push_str(line.trim_end());
            }
        }
        let mut queries = Vec::with_capacity(22);
        for (i, statements) in found.into_iter().enumerate() {
            let q = i + 1;
            let statements = statements.ok_or_else(|| format!("query {q} is missing"))?;
            queries.push(templates(q, statements)?);
        }
        Ok(Queries { queries })
    }

    /// The statements query `query` runs with `params`; `stream` names Q15's view
    /// (`revenue<stream>`) so that concurrent streams do not collide. Exactly one statement
    /// has returns_rows = true. A marker without a value in `params` stays as it is (the
    /// server then says so); a query number other than 1 to 22 has no statements.
    pub fn statements(&self, query: u8, params: &Params, stream: u32) -> Vec<Statement> {
        let Some(templates) = usize::from(query)
            .checked_sub(1)
            .and_then(|i| self.queries.get(i))
        else {
            return Vec::new();
        };
        templates
            .iter()
            .map(|t| {
                let mut sql = String::new();
                for piece in &t.pieces {
                    match piece {
                        Piece::Text(s) => sql.push_str(s),
                        Piece::Param(n) => match params.0.get(n - 1) {
                            Some(v) => sql.push_str(v),
                            None => {
                                sql.push(':');
                                sql.push_str(&n.to_string());
                            }
                        },
                        Piece::Stream => sql.push_str(&stream.to_string()),
                    }
                }
                Statement {
                    sql,
                    returns_rows: t.returns_rows,
                }
            })
            .collect()
    }
}

/// `N` of a `-- query N` line (after `-- query`), when it is 1 to 22.
fn query_number(rest: &str) -> Option<usize> {
    rest.trim()
        .parse::<usize>()
        .ok()
        .filter(|q| (1..=22).contains(q))
}

/// Query `q`'s statements as templates, checked: none empty, exactly one returning rows, and
/// the parameters used are exactly the query's.
fn templates(q: usize, statements: Vec<(usize, String)>) -> Result<Vec<Template>, String> {
    let mut out = Vec::with_capacity(statements.len());
    let mut used = vec![false; params::COUNTS[q - 1]];
    for (line, sql) in statements {
        let sql = sql.trim();
        if sql.is_empty() {
            return Err(format!(
                "query {q}: an empty statement (line {line}): a `-- go` line with no SQL \
                 before or after it"
            ));
        }
        let pieces = pieces(sql);
        for piece in &pieces {
            if let Piece::Param(n) = piece {
                match used.get_mut(n - 1) {
                    Some(u) => *u = true,
                    None => {
                        return Err(format!(
                            "query {q}: the statement at line {line} uses :{n}, but query {q} \
                             has {} substitution parameters",
                            used.len()
                        ))
                    }
                }
            }
        }
        out.push(Template {
            pieces,
            returns_rows: returns_rows(sql),
        });
    }
    if let Some(n) = used.iter().position(|u| !u) {
        return Err(format!(
            "query {q}: no statement uses :{}, one of its {} substitution parameters",
            n + 1,
            used.len()
        ));
    }
    match out.iter().filter(|t| t.returns_rows).count() {
        1 => Ok(out),
        0 => Err(format!(
            "query {q}: no statement returns rows (one must start with SELECT or WITH)"
        )),
        k => Err(format!(
            "query {q}: {k} statements return rows (SELECT or WITH); the query's result must \
             be one"
        )),
    }
}

/// Whether a statement is a query (its first word is SELECT or WITH).
fn returns_rows(sql: &str) -> bool {
    let first: String = sql
        .trim_start_matches('(')
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect();
    first.eq_ignore_ascii_case("select") || first.eq_ignore_ascii_case("with")
}

/// A statement's text cut at its markers: `:N` (digits) and `:s` (not followed by a letter,
/// digit or `_`); `::` is text.
fn pieces(sql: &str) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut chars = sql.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c != ':' {
            text.push(c);
            continue;
        }
        let rest = &sql[i + 1..];
        if rest.starts_with(':') {
            text.push_str("::");
            chars.next();
            continue;
        }
        let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        let marker = match digits.parse::<usize>() {
            Ok(n) if n >= 1 => Some((Piece::Param(n), digits.len())),
            _ if rest.starts_with('s')
                && !rest[1..]
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') =>
            {
                Some((Piece::Stream, 1))
            }
            _ => None,
        };
        match marker {
            Some((piece, len)) => {
                if !text.is_empty() {
                    out.push(Piece::Text(std::mem::take(&mut text)));
                }
                out.push(piece);
                for _ in 0..len {
                    chars.next();
                }
            }
            None => text.push(c),
        }
    }
    if !text.is_empty() {
        out.push(Piece::Text(text));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tpch::params::{random, validation};
    use rand::rngs::SmallRng;
    use rand::SeedableRng;

    const PG: &str = include_str!("../../schemas/pg/tproch/queries.sql");
    const MYSQL: &str = include_str!("../../schemas/mysql/tproch/queries.sql");

    fn parsed(text: &str) -> Queries {
        Queries::parse(text).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A file of 22 one-statement queries using their parameters, with `q`'s text replaced.
    fn file_with(q: usize, sql: &str) -> String {
        let mut s = String::new();
        for i in 1..=22 {
            s.push_str(&format!("-- query {i}\n"));
            if i == q {
                s.push_str(sql);
            } else {
                let marks: Vec<String> = (1..=params::COUNTS[i - 1])
                    .map(|n| format!(":{n}"))
                    .collect();
                s.push_str(&format!("select {}", marks.join(", ")));
            }
            s.push('\n');
        }
        s
    }

    #[test]
    fn both_dialects_parse_and_every_query_has_one_result() {
        for (name, text) in [("pg", PG), ("mysql", MYSQL)] {
            let queries = parsed(text);
            for q in 1..=22u8 {
                let st = queries.statements(q, &validation(q, 1.0), 0);
                assert_eq!(
                    st.iter().filter(|s| s.returns_rows).count(),
                    1,
                    "{name} query {q}: {st:#?}"
                );
                let expected = if q == 15 { 3 } else { 1 };
                assert_eq!(st.len(), expected, "{name} query {q}");
            }
        }
    }

    /// `:` followed by a digit, or `:s` standing alone: a marker left in the SQL.
    fn leftover_marker(sql: &str) -> Option<String> {
        let b = sql.as_bytes();
        (0..b.len()).find_map(|i| {
            let prev_colon = i > 0 && b[i - 1] == b':';
            let next = b.get(i + 1).copied();
            let after = b.get(i + 2).copied();
            let marker = b[i] == b':'
                && !prev_colon
                && next != Some(b':')
                && (next.is_some_and(|c| c.is_ascii_digit())
                    || (next == Some(b's')
                        && !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')));
            marker.then(|| sql[i..(i + 3).min(sql.len())].to_string())
        })
    }

    #[test]
    fn every_marker_is_substituted_with_random_and_validation_values() {
        let mut rng = SmallRng::seed_from_u64(16);
        for (name, text) in [("pg", PG), ("mysql", MYSQL)] {
            let queries = parsed(text);
            for q in 1..=22u8 {
                for p in [validation(q, 0.01), random(q, 10.0, &mut rng)] {
                    for s in queries.statements(q, &p, 3) {
                        assert_eq!(leftover_marker(&s.sql), None, "{name} query {q}: {}", s.sql);
                        for v in &p.0 {
                            assert!(!v.is_empty());
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn validation_values_land_where_the_specification_puts_them() {
        for text in [PG, MYSQL] {
            let queries = parsed(text);
            let one = |q: u8| {
                queries
                    .statements(q, &validation(q, 0.01), 0)
                    .into_iter()
                    .find(|s| s.returns_rows)
                    .map(|s| s.sql)
                    .unwrap_or_default()
            };
            assert!(one(1).contains("interval '90' day"), "{}", one(1));
            assert!(one(2).contains("p_type like '%BRASS'"), "{}", one(2));
            assert!(one(6).contains("between 0.06 - 0.01 and 0.06 + 0.01"));
            assert!(one(6).contains("l_quantity < 24"));
            assert!(one(11).contains("* 0.0100000000"), "{}", one(11));
            assert!(one(13).contains("not like '%special%requests%'"));
            assert!(one(16).contains("p_size in (49, 14, 23, 45, 19, 3, 36, 9)"));
            assert!(one(19).contains("p_brand = 'Brand#34'"));
            assert!(one(19).contains("l_quantity >= 20 and l_quantity <= 20 + 10"));
            assert!(one(22).contains("('13', '31', '23', '29', '30', '18', '17')"));
        }
    }

    #[test]
    fn query_15_makes_queries_and_drops_the_streams_view() {
        for text in [PG, MYSQL] {
            let st = parsed(text).statements(15, &validation(15, 1.0), 7);
            assert!(
                st[0].sql.starts_with("create or replace view revenue7 "),
                "{}",
                st[0].sql
            );
            assert!(!st[0].returns_rows);
            assert!(st[1].returns_rows);
            assert!(st[1].sql.contains("from supplier, revenue7"));
            assert!(st[1].sql.contains("from revenue7)"));
            assert_eq!(st[2].sql, "drop view revenue7");
            assert!(!st[2].returns_rows);
            assert!(st[0].sql.contains("l_shipdate >= date '1996-01-01'"));
        }
    }

    #[test]
    fn statements_are_trimmed_and_carry_no_comment_lines() {
        for text in [PG, MYSQL] {
            let queries = parsed(text);
            for q in 1..=22u8 {
                for s in queries.statements(q, &validation(q, 1.0), 0) {
                    assert_eq!(s.sql.trim(), s.sql);
                    assert!(s.sql.lines().all(|l| !l.trim_start().starts_with("--")));
                }
            }
        }
    }

    #[test]
    fn markers_double_colons_and_stream() {
        assert_eq!(
            pieces("a :1 b::date :12,:s :st x:"),
            vec![
                Piece::Text("a ".into()),
                Piece::Param(1),
                Piece::Text(" b::date ".into()),
                Piece::Param(12),
                Piece::Text(",".into()),
                Piece::Stream,
                Piece::Text(" :st x:".into()),
            ]
        );
        assert_eq!(
            pieces("revenue:s)"),
            vec![
                Piece::Text("revenue".into()),
                Piece::Stream,
                Piece::Text(")".into())
            ]
        );
        assert_eq!(pieces(":0"), vec![Piece::Text(":0".into())]);
    }

    #[test]
    fn query_16s_tenth_parameter_is_not_its_first_followed_by_0() {
        let q = parsed(&file_with(
            16,
            "select :1, :2, :3, :4, :5, :6, :7, :8, :9, :10",
        ));
        let p = Params((1..=10).map(|i| format!("v{i}")).collect());
        assert_eq!(
            q.statements(16, &p, 0)[0].sql,
            "select v1, v2, v3, v4, v5, v6, v7, v8, v9, v10"
        );
    }

    #[test]
    fn missing_values_leave_the_marker_and_unknown_queries_have_no_statements() {
        let q = parsed(PG);
        let st = q.statements(1, &Params(vec![]), 0);
        assert!(st[0].sql.contains("interval ':1' day"));
        assert!(q.statements(0, &Params(vec![]), 0).is_empty());
        assert!(q.statements(23, &Params(vec![]), 0).is_empty());
    }

    #[test]
    fn malformed_files_are_refused_saying_what_is_wrong() {
        let err = |text: &str| Queries::parse(text).err().unwrap_or_default();
        let e = err(&file_with(3, "select :1").replace("-- query 7\n", "-- query 3\n"));
        assert!(e.contains("query 3 is there twice"), "{e}");
        let e = err(&file_with(9, "select :1").replace("-- query 22\n", "-- query 23\n"));
        assert!(e.contains("`-- query 23` names no query 1 to 22"), "{e}");
        let mut no_21 = file_with(21, "select :1");
        no_21 = no_21.replace("-- query 21\nselect :1\n", "");
        assert!(
            err(&no_21).contains("query 21 is missing"),
            "{}",
            err(&no_21)
        );
        let e = err(&format!("select 1\n{}", file_with(1, "select :1")));
        assert!(
            e.contains("line 1: SQL before the first `-- query N` line"),
            "{e}"
        );
        let e = err(&file_with(1, "select :1, :2"));
        assert!(
            e.contains("query 1: the statement at line 2 uses :2, but query 1 has 1"),
            "{e}"
        );
        let e = err(&file_with(2, "select :1, :3"));
        assert!(e.contains("query 2: no statement uses :2"), "{e}");
        let e = err(&file_with(4, "delete from x where d = :1"));
        assert!(e.contains("query 4: no statement returns rows"), "{e}");
        let e = err(&file_with(4, "select :1\n-- go\nselect 2"));
        assert!(e.contains("query 4: 2 statements return rows"), "{e}");
        let e = err(&file_with(4, "select :1\n-- go\n"));
        assert!(e.contains("query 4: an empty statement"), "{e}");
        let e = err(&file_with(5, "select :1, :2").replace("-- query 6", "-- query 6x"));
        assert!(
            e.contains("line 11: `-- query 6x` names no query 1 to 22"),
            "{e}"
        );
        // A comment that merely starts with the word is a comment.
        let text =
            file_with(5, "select :1, :2").replace("-- query 6", "-- query's text\n-- query 6");
        assert!(Queries::parse(&text).is_ok());
        let e = err(&file_with(5, "select :1, :2").replace("-- query 6", "-- query 6 and 7"));
        assert!(e.contains("`-- query 6 and 7` names no query"), "{e}");
    }

    #[test]
    fn the_shipped_files_name_every_query_once() {
        for text in [PG, MYSQL] {
            for q in 1..=22 {
                let marker = format!("-- query {q}\n");
                assert_eq!(text.matches(&marker).count(), 1, "{marker}");
            }
        }
    }
}
