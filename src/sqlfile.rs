//! SQL files split into statements at an explicit separator line.
//!
//! A schema file holds several statements separated by lines reading exactly `-- go`
//! (surrounding whitespace allowed). The separator is a SQL comment, so `psql -f` or the
//! `mysql` client can still run a rendered file by hand, and statements may contain `;`
//! freely: a MariaDB procedure body needs no `DELIMITER`, which is a client command, not SQL.
//! [`render`] fills the `{{name}}` placeholders (`{{engine}}`, `{{partition}}`, ...) first.
//! A file of statements a program picks by name ([`Named`]) names each with a `-- name: x`
//! line; the statement is what follows that line, so comments above it stay in the file.

/// The separator line's text, after trimming.
pub const SEPARATOR: &str = "-- go";

/// Splits `sql` into statements at lines whose trimmed text is exactly [`SEPARATOR`].
///
/// Each statement is trimmed; empty pieces and pieces holding only comments are dropped.
/// Line endings may be `\n` or `\r\n`; statements come back joined with `\n`.
pub fn split(sql: &str) -> Vec<String> {
    let mut statements = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    for line in sql.lines() {
        if line.trim() == SEPARATOR {
            push_statement(&mut statements, &current);
            current.clear();
        } else {
            current.push(line);
        }
    }
    push_statement(&mut statements, &current);
    statements
}

fn push_statement(statements: &mut Vec<String>, lines: &[&str]) {
    let text = lines.join("\n");
    let text = text.trim();
    if !is_only_comments(text) {
        statements.push(text.to_string());
    }
}

/// True when `text` holds nothing but whitespace, `--` line comments and `/* */` comments.
fn is_only_comments(text: &str) -> bool {
    let mut rest = text.trim_start();
    loop {
        if rest.is_empty() {
            return true;
        }
        if let Some(after) = rest.strip_prefix("--") {
            rest = after.find('\n').map_or("", |end| &after[end..]);
        } else if let Some(after) = rest.strip_prefix("/*") {
            // An unterminated block comment runs to the end of the text.
            rest = after.find("*/").map_or("", |end| &after[end + 2..]);
        } else {
            return false;
        }
        rest = rest.trim_start();
    }
}

/// Replaces each `{{name}}` in `sql` by the value paired with `name` in `vars`.
///
/// Whitespace inside the braces is ignored (`{{ engine }}` works too). A placeholder whose
/// name is not in `vars` is left as it is, so the server's error shows which one was
/// missed. Values are inserted verbatim and never scanned again.
pub fn render(sql: &str, vars: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut rest = sql;
    while let Some(start) = rest.find("{{") {
        let after_open = &rest[start + 2..];
        let Some(len) = after_open.find("}}") else {
            break;
        };
        let name = after_open[..len].trim();
        out.push_str(&rest[..start]);
        match vars.iter().find(|(key, _)| *key == name) {
            Some((_, value)) => out.push_str(value),
            None => out.push_str(&rest[start..start + 2 + len + 2]),
        }
        rest = &after_open[len + 2..];
    }
    out.push_str(rest);
    out
}

/// The line that names the statement after it.
const NAME_PREFIX: &str = "-- name:";

/// A file's statements by name, for statements a program runs rather than a schema script.
#[derive(Debug, Clone)]
pub struct Named(Vec<(String, String)>);

impl Named {
    /// Splits `sql` (see [`split`]) and keeps each piece that has a `-- name: x` line, as
    /// `x` and the text after that line. Pieces without one (comments) are left out.
    pub fn parse(sql: &str) -> Self {
        let mut named = Vec::new();
        for piece in split(sql) {
            let mut lines = piece.lines();
            let name = lines
                .by_ref()
                .find_map(|l| l.trim().strip_prefix(NAME_PREFIX));
            if let Some(name) = name {
                let text = lines.collect::<Vec<_>>().join("\n");
                named.push((name.trim().to_string(), text.trim().to_string()));
            }
        }
        Named(named)
    }

    /// The statement named `name`. The files are part of the program, so a missing name is
    /// a bug: it panics saying which (each driver's tests take every statement it uses).
    pub fn get(&self, name: &str) -> &str {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, text)| text.as_str())
            .unwrap_or_else(|| panic!("no statement named {name:?} in the SQL file"))
    }

    /// The names, in file order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(n, _)| n.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_at_separator_lines() {
        let sql = "CREATE TABLE a (x int);\n-- go\nCREATE TABLE b (y int);\n";
        assert_eq!(
            split(sql),
            vec!["CREATE TABLE a (x int);", "CREATE TABLE b (y int);"]
        );
    }

    #[test]
    fn procedure_bodies_with_semicolons_stay_whole() {
        let body = "CREATE PROCEDURE p(OUT n INT)\nBEGIN\n  SET n = 1;\n  SELECT n;\nEND";
        let sql = format!("DROP PROCEDURE IF EXISTS p;\n-- go\n{body}\n-- go\n");
        assert_eq!(split(&sql), vec!["DROP PROCEDURE IF EXISTS p;", body]);
    }

    #[test]
    fn crlf_line_endings() {
        let sql = "SELECT 1;\r\n-- go\r\nSELECT\r\n  2;\r\n-- go\r\n";
        assert_eq!(split(sql), vec!["SELECT 1;", "SELECT\n  2;"]);
    }

    #[test]
    fn trailing_and_repeated_separators_give_no_empty_statements() {
        let sql = "-- go\nSELECT 1;\n-- go\n\n   -- go   \n-- go";
        assert_eq!(split(sql), vec!["SELECT 1;"]);
    }

    #[test]
    fn no_separator_is_one_statement() {
        assert_eq!(split("  SELECT 1;\n\n"), vec!["SELECT 1;"]);
        assert!(split("").is_empty());
        assert!(split(" \n\t\n").is_empty());
    }

    #[test]
    fn comment_only_pieces_are_dropped_but_comments_in_statements_kept() {
        let sql = "-- header: what this file does\n\n/* block\n   comment */\n-- go\n\
                   -- the warehouse\nCREATE TABLE w (id int); -- trailing\n-- go\n-- end\n";
        assert_eq!(
            split(sql),
            vec!["-- the warehouse\nCREATE TABLE w (id int); -- trailing"]
        );
    }

    #[test]
    fn only_an_exact_separator_line_separates() {
        // `-- going`, `-- GO` and `-- go` after code are not separators.
        let sql = "SELECT 1; -- go\n-- going\n-- GO\nSELECT 2;";
        assert_eq!(split(sql).len(), 1);
    }

    #[test]
    fn render_fills_placeholders() {
        let sql = "CREATE TABLE t (x int) ENGINE = {{engine}} {{ partition }};";
        let out = render(sql, &[("engine", "InnoDB"), ("partition", "")]);
        assert_eq!(out, "CREATE TABLE t (x int) ENGINE = InnoDB ;");
    }

    #[test]
    fn render_keeps_unknown_and_unclosed_placeholders_and_does_not_rescan() {
        let vars = [("a", "{{b}}"), ("b", "no")];
        assert_eq!(render("{{a}} {{c}} {{a", &vars), "{{b}} {{c}} {{a");
        assert_eq!(
            render("{{partitions}}{{partitions}}", &[("partitions", "4")]),
            "44"
        );
    }

    #[test]
    fn named_statements_are_found_by_their_name_line() {
        let sql = "-- file header\n-- about a\n-- name: a\nSELECT 1\n-- go\n\n\
                   -- only a comment\n-- go\n-- name:  b \nSELECT\n  2;\n-- go\n";
        let named = Named::parse(sql);
        assert_eq!(named.names().collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(named.get("a"), "SELECT 1");
        assert_eq!(named.get("b"), "SELECT\n  2;");
    }

    #[test]
    #[should_panic(expected = "no statement named \"c\"")]
    fn a_missing_name_is_a_bug_that_says_which() {
        Named::parse("-- name: a\nSELECT 1").get("c");
    }
}
