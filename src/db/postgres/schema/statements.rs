//! Running the schema's statements: names quoted, statements in one transaction or spread
//! over a few connections, largest tables first.

use std::sync::atomic::{AtomicUsize, Ordering};

use futures_util::future::try_join_all;
use tokio_postgres::Row;

use crate::db::postgres::{classify, connect, PgConn, PgTarget};
use crate::error::Result;
use crate::fault::{DbError, Peer};

/// Connections that build keys, gather statistics or count rows at once. Index builds are
/// sorts, bound by the server's CPU: on a two-core server, 4 warehouses' keys took 4.0 s on
/// one connection, 2.2 s on two and 2.4 s on three; a large server sorts one big index with
/// its own parallel workers (`max_parallel_maintenance_workers`) anyway.
pub(super) const WORKERS: usize = 2;

/// The same login on another database.
pub(super) fn on_db(target: &PgTarget, db: &str) -> PgTarget {
    PgTarget {
        dbname: db.to_string(),
        ..target.clone()
    }
}

/// `name` as a quoted SQL identifier: used exactly as given, as the login uses it.
pub(super) fn ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// `text` as an escape-string literal, correct whatever `standard_conforming_strings` says.
pub(super) fn literal(text: &str) -> String {
    format!("E'{}'", text.replace('\\', "\\\\").replace('\'', "''"))
}

/// A failed statement as a `DbError`: `what` says what it worked on; the SQL text is never
/// included, as some holds a password.
pub(super) fn failed(
    peer: &Peer,
    action: &'static str,
    what: &str,
    e: &tokio_postgres::Error,
) -> DbError {
    let (kind, detail) = classify(e, false);
    peer.failed(action, kind, format!("{what}: {detail}"))
}

/// Runs one or more statements (simple protocol).
pub(super) async fn exec(
    conn: &PgConn,
    peer: &Peer,
    action: &'static str,
    what: &str,
    sql: &str,
) -> Result<(), DbError> {
    conn.client
        .batch_execute(sql)
        .await
        .map_err(|e| failed(peer, action, what, &e))
}

/// Runs `statements` from a schema file in one transaction; an error names the statement by
/// its first line.
pub(super) async fn transaction(
    conn: &PgConn,
    peer: &Peer,
    action: &'static str,
    statements: &[String],
) -> Result<(), DbError> {
    exec(conn, peer, action, "BEGIN", "BEGIN").await?;
    for sql in statements {
        exec(conn, peer, action, first_line(sql), sql).await?;
    }
    exec(conn, peer, action, "COMMIT", "COMMIT").await
}

/// The first line of a statement that is not a comment, to name it in a message.
pub(super) fn first_line(sql: &str) -> &str {
    sql.lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("--"))
        .unwrap_or("")
}

/// The table a statement works on: the word after `TABLE`, `ON` or `ANALYZE`.
pub(super) fn statement_table(sql: &str) -> Option<&str> {
    let mut words = sql.split(|c: char| c.is_whitespace() || c == '(' || c == ';');
    while let Some(word) = words.next() {
        if ["TABLE", "ON", "ANALYZE"]
            .iter()
            .any(|k| word.eq_ignore_ascii_case(k))
        {
            return words.find(|w| !w.is_empty());
        }
    }
    None
}

/// `statements` with those on the biggest tables first, so that the longest work starts
/// first and the workers end together. Otherwise the order is kept.
pub(super) fn largest_first(mut statements: Vec<String>, sizes: &[(String, i64)]) -> Vec<String> {
    let size = |sql: &String| {
        statement_table(sql)
            .and_then(|t| sizes.iter().find(|(name, _)| name.eq_ignore_ascii_case(t)))
            .map_or(0, |(_, n)| *n)
    };
    statements.sort_by_key(|s| std::cmp::Reverse(size(s)));
    statements
}

/// Runs `jobs` on up to `workers` connections to `target` at once, each connection taking the
/// next job when it has finished one; returns each job's rows, in `jobs` order.
pub(super) async fn parallel(
    target: &PgTarget,
    setup: &str,
    jobs: &[String],
    workers: usize,
    action: &'static str,
) -> Result<Vec<Vec<Row>>, DbError> {
    let next = AtomicUsize::new(0);
    let n = workers.clamp(1, jobs.len().max(1));
    let done = try_join_all((0..n).map(|_| worker(target, setup, jobs, &next, action))).await?;
    let mut out: Vec<Vec<Row>> = std::iter::repeat_with(Vec::new).take(jobs.len()).collect();
    for (i, rows) in done.into_iter().flatten() {
        out[i] = rows;
    }
    Ok(out)
}

pub(super) async fn worker(
    target: &PgTarget,
    setup: &str,
    jobs: &[String],
    next: &AtomicUsize,
    action: &'static str,
) -> Result<Vec<(usize, Vec<Row>)>, DbError> {
    let conn = connect(target).await?;
    let peer = target.peer();
    let r = async {
        if !setup.is_empty() {
            exec(&conn, &peer, action, setup, setup).await?;
        }
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(sql) = jobs.get(i) else {
                return Ok(done);
            };
            let rows = conn
                .client
                .query(sql.as_str(), &[])
                .await
                .map_err(|e| failed(&peer, action, first_line(sql), &e))?;
            done.push((i, rows));
        }
    }
    .await;
    conn.close().await;
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sqlfile;

    const KEYS_SQL: &str = include_str!("../../../../schemas/pg/tprocc/keys.sql");

    #[test]
    fn identifiers_and_literals_are_quoted() {
        assert_eq!(ident("tpcc"), "\"tpcc\"");
        assert_eq!(ident("a\"b"), "\"a\"\"b\"");
        assert_eq!(literal("it's"), "E'it''s'");
        assert_eq!(literal("a\\b"), "E'a\\\\b'");
    }

    #[test]
    fn statements_name_their_table() {
        let keys = sqlfile::split(KEYS_SQL);
        let tables: Vec<_> = keys.iter().map(|s| statement_table(s)).collect();
        assert_eq!(tables[0], Some("warehouse"));
        assert!(tables.iter().all(Option::is_some), "{tables:?}");
        assert!(tables.contains(&Some("customer")));
        assert_eq!(statement_table("ANALYZE order_line"), Some("order_line"));
    }

    #[test]
    fn biggest_tables_go_first_and_ties_keep_their_order() {
        let sizes = vec![("stock".to_string(), 10), ("order_line".to_string(), 20)];
        let sorted = largest_first(sqlfile::split(KEYS_SQL), &sizes);
        assert!(sorted[0].contains("order_line"));
        assert!(sorted[1].contains("stock"));
        assert!(sorted[2].contains("warehouse"));
        assert_eq!(sorted.len(), 10);
    }
}
