//! What one event (transaction) of each of sysbench's OLTP tests runs, in order, from the
//! test's options: the statements and how sysbench counts them (a SELECT is a read; an
//! INSERT, UPDATE or DELETE a write; BEGIN and COMMIT are other). The facts are sysbench
//! 1.0.20's Lua tests'; the run executes these plans and the report counts by [`Class`].

/// sysbench's tests, by the name `*_oltp_test` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Test {
    ReadWrite,
    ReadOnly,
    WriteOnly,
    PointSelect,
    UpdateIndex,
    UpdateNonIndex,
    Insert,
    Delete,
    RandomPoints,
    RandomRanges,
}

/// Every test, in sysbench's order of its scripts.
pub const TESTS: [Test; 10] = [
    Test::ReadWrite,
    Test::ReadOnly,
    Test::WriteOnly,
    Test::PointSelect,
    Test::UpdateIndex,
    Test::UpdateNonIndex,
    Test::Insert,
    Test::Delete,
    Test::RandomPoints,
    Test::RandomRanges,
];

impl Test {
    pub fn name(self) -> &'static str {
        match self {
            Test::ReadWrite => "oltp_read_write",
            Test::ReadOnly => "oltp_read_only",
            Test::WriteOnly => "oltp_write_only",
            Test::PointSelect => "oltp_point_select",
            Test::UpdateIndex => "oltp_update_index",
            Test::UpdateNonIndex => "oltp_update_non_index",
            Test::Insert => "oltp_insert",
            Test::Delete => "oltp_delete",
            Test::RandomPoints => "select_random_points",
            Test::RandomRanges => "select_random_ranges",
        }
    }

    /// The test a name gives (sysbench's, with or without `.lua`), or the names there are.
    pub fn parse(name: &str) -> Result<Test, String> {
        let n = name.trim().trim_end_matches(".lua");
        TESTS
            .into_iter()
            .find(|t| t.name().eq_ignore_ascii_case(n))
            .ok_or_else(|| {
                format!(
                    "{name:?} is not one of sysbench's OLTP tests: {}",
                    TESTS.map(Test::name).join(", ")
                )
            })
    }

    /// Whether its events run in an explicit transaction unless `skip_trx` (the tests built
    /// of several statements: read/write, read-only, write-only).
    pub fn transactional(self) -> bool {
        matches!(self, Test::ReadWrite | Test::ReadOnly | Test::WriteOnly)
    }

    /// Whether the test works on one table only (sysbench refuses `--tables` above 1).
    pub fn one_table(self) -> bool {
        matches!(self, Test::RandomPoints | Test::RandomRanges)
    }
}

/// How sysbench counts a statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    Read,
    Write,
    Other,
}

/// One statement of an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Statement {
    Begin,
    Commit,
    /// `SELECT c FROM sbtestN WHERE id=?`
    PointSelect,
    /// `SELECT c FROM sbtestN WHERE id BETWEEN ? AND ?`
    SimpleRange,
    /// `SELECT SUM(k) ...`
    SumRange,
    /// `... ORDER BY c`
    OrderRange,
    /// `SELECT DISTINCT c ... ORDER BY c`
    DistinctRange,
    /// `UPDATE sbtestN SET k=k+1 WHERE id=?`
    IndexUpdate,
    /// `UPDATE sbtestN SET c=? WHERE id=?`
    NonIndexUpdate,
    /// `DELETE FROM sbtestN WHERE id=?`
    Delete,
    /// `INSERT INTO sbtestN (id, k, c, pad) VALUES (?, ?, ?, ?)` (the id just deleted)
    Insert,
    /// oltp_insert's insert of a new row.
    NewRow,
    /// `SELECT id, k, c, pad FROM sbtest1 WHERE k IN (...)`
    RandomPoints,
    /// `SELECT count(k) FROM sbtest1 WHERE k BETWEEN ? AND ? OR ...`
    RandomRanges,
}

impl Statement {
    pub fn class(self) -> Class {
        match self {
            Statement::Begin | Statement::Commit => Class::Other,
            Statement::IndexUpdate
            | Statement::NonIndexUpdate
            | Statement::Delete
            | Statement::Insert
            | Statement::NewRow => Class::Write,
            _ => Class::Read,
        }
    }

    /// The name hammer's per-statement latencies use.
    pub fn name(self) -> &'static str {
        match self {
            Statement::Begin => "begin",
            Statement::Commit => "commit",
            Statement::PointSelect => "point select",
            Statement::SimpleRange => "simple range",
            Statement::SumRange => "sum range",
            Statement::OrderRange => "order range",
            Statement::DistinctRange => "distinct range",
            Statement::IndexUpdate => "index update",
            Statement::NonIndexUpdate => "non-index update",
            Statement::Delete => "delete",
            Statement::Insert => "insert",
            Statement::NewRow => "insert new row",
            Statement::RandomPoints => "random points",
            Statement::RandomRanges => "random ranges",
        }
    }
}

/// The options that shape an event, with sysbench's names and defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    pub point_selects: u32,
    pub simple_ranges: u32,
    pub sum_ranges: u32,
    pub order_ranges: u32,
    pub distinct_ranges: u32,
    pub index_updates: u32,
    pub non_index_updates: u32,
    pub delete_inserts: u32,
    pub range_selects: bool,
    pub skip_trx: bool,
}

impl Default for Shape {
    fn default() -> Self {
        Shape {
            point_selects: 10,
            simple_ranges: 1,
            sum_ranges: 1,
            order_ranges: 1,
            distinct_ranges: 1,
            index_updates: 1,
            non_index_updates: 1,
            delete_inserts: 1,
            range_selects: true,
            skip_trx: false,
        }
    }
}

/// A run of one statement, `times` over, on one table: sysbench picks a table per group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Group {
    pub statement: Statement,
    pub times: u32,
    /// A delete-insert pair: each time, the delete then the insert of the same id.
    pub paired: bool,
}

fn group(statement: Statement, times: u32) -> Group {
    Group {
        statement,
        times,
        paired: false,
    }
}

/// One event of `test` under `shape`, in order. Empty groups are left out.
pub fn plan(test: Test, s: &Shape) -> Vec<Group> {
    let reads = [
        group(Statement::SimpleRange, s.simple_ranges),
        group(Statement::SumRange, s.sum_ranges),
        group(Statement::OrderRange, s.order_ranges),
        group(Statement::DistinctRange, s.distinct_ranges),
    ];
    let writes = [
        group(Statement::IndexUpdate, s.index_updates),
        group(Statement::NonIndexUpdate, s.non_index_updates),
        Group {
            statement: Statement::Delete,
            times: s.delete_inserts,
            paired: true,
        },
    ];
    let mut body = Vec::new();
    let transactional = test.transactional();
    match test {
        Test::ReadWrite | Test::ReadOnly => {
            body.push(group(Statement::PointSelect, s.point_selects));
            if s.range_selects {
                body.extend(reads);
            }
            if test == Test::ReadWrite {
                body.extend(writes);
            }
        }
        Test::WriteOnly => body.extend(writes),
        Test::PointSelect => body.push(group(Statement::PointSelect, 1)),
        Test::UpdateIndex => body.push(group(Statement::IndexUpdate, s.index_updates)),
        Test::UpdateNonIndex => body.push(group(Statement::NonIndexUpdate, s.non_index_updates)),
        Test::Insert => body.push(group(Statement::NewRow, 1)),
        Test::Delete => body.push(group(Statement::Delete, 1)),
        Test::RandomPoints => body.push(group(Statement::RandomPoints, 1)),
        Test::RandomRanges => body.push(group(Statement::RandomRanges, 1)),
    }
    body.retain(|g| g.times > 0);
    if transactional && !s.skip_trx {
        body.insert(0, group(Statement::Begin, 1));
        body.push(group(Statement::Commit, 1));
    }
    body
}

/// Reads, writes and others one event of the plan counts, as sysbench counts them.
pub fn per_event(plan: &[Group]) -> (u64, u64, u64) {
    let (mut r, mut w, mut o) = (0, 0, 0);
    for g in plan {
        let n = u64::from(g.times);
        match g.statement.class() {
            Class::Read => r += n,
            Class::Write => w += n * if g.paired { 2 } else { 1 },
            Class::Other => o += n,
        }
    }
    (r, w, o)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_tests_event_counts_as_sysbench_counts_it() {
        let d = Shape::default();
        let counts = |t: Test, s: &Shape| per_event(&plan(t, s));
        // oltp_read_write by default: 10 point selects and 4 ranges, 2 updates and a
        // delete-insert pair, BEGIN and COMMIT.
        assert_eq!(counts(Test::ReadWrite, &d), (14, 4, 2));
        assert_eq!(counts(Test::ReadOnly, &d), (14, 0, 2));
        let no_ranges = Shape {
            range_selects: false,
            ..d.clone()
        };
        assert_eq!(counts(Test::ReadOnly, &no_ranges), (10, 0, 2));
        assert_eq!(counts(Test::WriteOnly, &d), (0, 4, 2));
        let autocommit = Shape {
            skip_trx: true,
            ..d.clone()
        };
        assert_eq!(counts(Test::ReadWrite, &autocommit), (14, 4, 0));
        // point_selects does not apply to oltp_point_select: one per event.
        assert_eq!(counts(Test::PointSelect, &d), (1, 0, 0));
        let many = Shape {
            index_updates: 3,
            non_index_updates: 2,
            ..d.clone()
        };
        assert_eq!(counts(Test::UpdateIndex, &many), (0, 3, 0));
        assert_eq!(counts(Test::UpdateNonIndex, &many), (0, 2, 0));
        assert_eq!(counts(Test::Insert, &d), (0, 1, 0));
        assert_eq!(counts(Test::Delete, &d), (0, 1, 0));
        assert_eq!(counts(Test::RandomPoints, &d), (1, 0, 0));
        assert_eq!(counts(Test::RandomRanges, &d), (1, 0, 0));
    }

    #[test]
    fn an_event_is_in_sysbenchs_order() {
        let p = plan(Test::ReadWrite, &Shape::default());
        let order: Vec<Statement> = p.iter().map(|g| g.statement).collect();
        assert_eq!(
            order,
            [
                Statement::Begin,
                Statement::PointSelect,
                Statement::SimpleRange,
                Statement::SumRange,
                Statement::OrderRange,
                Statement::DistinctRange,
                Statement::IndexUpdate,
                Statement::NonIndexUpdate,
                Statement::Delete,
                Statement::Commit,
            ]
        );
        let none = Shape {
            point_selects: 0,
            delete_inserts: 0,
            ..Shape::default()
        };
        assert!(plan(Test::ReadWrite, &none)
            .iter()
            .all(|g| g.statement != Statement::PointSelect && g.statement != Statement::Delete));
    }

    #[test]
    fn names_are_sysbenchs() {
        assert_eq!(Test::parse("oltp_read_only.lua"), Ok(Test::ReadOnly));
        assert_eq!(Test::parse("OLTP_POINT_SELECT"), Ok(Test::PointSelect));
        let e = Test::parse("oltp_read").unwrap_err();
        assert!(e.contains("oltp_read_write, oltp_read_only"), "{e}");
        assert!(Test::RandomRanges.one_table() && !Test::ReadWrite.one_table());
    }
}
