//! Builds the OLTP tables on any [`SchemaDb`] (sysbench's `prepare`) and checks them.
//!
//! The tables are created first, empty with their id's key; `*_oltp_build_threads` loaders
//! then load their shares of the rows side by side ([`gen::shares`]: whole tables dealt
//! round them, or runs of ids of fewer tables), each generating on a blocking thread while
//! its connection loads the previous chunk; a chunk is one COPY / LOAD DATA statement, so
//! after a lost connection it is sent again on a new one. Then each table gets its index on
//! `k` (sysbench makes it after the rows too) and its statistics.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::task::JoinSet;

use super::gen::{self, Unit};
use super::rand::{Distribution, RandSpec};
use super::schema::{Check, Loader, Say, SchemaDb, TableFacts};
use super::{Layout, Table};
use crate::bench::loading::{build_stop, finish_whole, join_loaders, load_stream, Piece};
use crate::endpoint::Position;
use crate::error::{Error, Result};
use crate::interrupt::Interrupt;
use crate::output::Output;
use crate::progress::{Mode, PartSpec, Reporter, Tracker};
use crate::sql::ScriptConn;

/// How long a query cancelled at the stop may take to answer before it is left.
const CANCELLED_WITHIN: Duration = Duration::from_secs(5);
/// Failures a check names one by one before it counts the rest.
const NAMED: usize = 10;

/// What to build: the tables' shape, the loaders and the distribution of `k`.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    pub layout: Layout,
    pub loaders: u32,
    pub rand: RandSpec,
}

/// What a finished build measured.
#[derive(Debug, Clone)]
pub struct Summary {
    pub rows: u64,
    pub elapsed: Duration,
    pub bytes_on_disk: u64,
}

/// The OLTP loading sessions on `D`, for the shared loading machinery.
struct Sessions<D>(Arc<D>);

impl<D: SchemaDb> crate::bench::loading::Sessions for Sessions<D> {
    type Table = Table;
    type Session = D::Loader;

    fn table_name(table: Table) -> &'static str {
        table.name()
    }

    async fn open(&self, at: Position) -> Result<D::Loader> {
        self.0.loader(at).await
    }

    fn load<'a>(
        session: &'a mut D::Loader,
        table: Table,
        rows: &'a [u8],
    ) -> impl std::future::Future<Output = Result<()>> + Send + 'a {
        session.load(table, rows)
    }

    async fn close(session: D::Loader) {
        session.close().await
    }
}

/// Builds the tables: create, load the loaders' shares in parallel, then each table's
/// index and statistics; measures.
pub async fn build<D: SchemaDb>(
    db: Arc<D>,
    plan: Plan,
    say: Say,
    out: Output,
    interrupt: Interrupt,
) -> Result<Summary> {
    let started = Instant::now();
    db.create(&plan.layout, &say).await?;
    let rows = load(&db, plan, (&say, &out), interrupt.clone())
        .await
        .map_err(|s| Error::BuildStopped {
            loaded: s.loaded,
            expected: s.expected,
            why: Box::new(s.why),
            db: db.name(),
        })?;
    finish_whole(finish(&db, plan, &say), &interrupt, &say).await?;
    let bytes_on_disk = db.size_on_disk().await.unwrap_or(0);
    Ok(Summary {
        rows,
        elapsed: started.elapsed(),
        bytes_on_disk,
    })
}

/// What a driver's loading stopped with.
struct Stopped {
    loaded: u64,
    expected: u64,
    why: Error,
}

/// What a loader says as it starts a unit: sysbench's line for a whole table, else which
/// of its rows.
fn announce(unit: &Unit, table_size: u32) -> String {
    let name = unit.table.name();
    if unit.rows() == u64::from(table_size) {
        format!("Inserting {table_size} records into '{name}'")
    } else {
        format!(
            "Inserting records {} to {} of {table_size} into '{name}'",
            unit.ids.start(),
            unit.ids.end()
        )
    }
}

/// Loads every loader's share in parallel: the rows loaded, or how far it got and why it
/// stopped (the first failure, or Ctrl-C).
async fn load<D: SchemaDb>(
    db: &Arc<D>,
    plan: Plan,
    (say, out): (&Say, &Output),
    stop: Interrupt,
) -> std::result::Result<u64, Stopped> {
    let shares: Vec<Vec<Unit>> = gen::shares(&plan.layout, plan.loaders)
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect();
    if shares.is_empty() {
        return Ok(0);
    }
    let (stop, forward) = build_stop(stop);
    let sessions = Arc::new(Sessions(db.clone()));
    let loaders = shares.len() as u32;
    let parts: Vec<PartSpec> = shares
        .iter()
        .enumerate()
        .map(|(i, share)| PartSpec {
            name: if loaders == 1 {
                "all tables".to_string()
            } else {
                format!("loader {} of {loaders}", i + 1)
            },
            expected: share.iter().map(Unit::rows).sum(),
            exact: true,
        })
        .collect();
    let expected = parts.iter().map(|p| p.expected).sum();
    let progress = Tracker::new("rows", parts);
    let reporter = Reporter::start(out.clone(), progress.clone(), "Loading", Mode::of(out));
    let dist = Distribution::new(&plan.rand);
    let table_size = plan.layout.rows();
    let mut tasks = JoinSet::new();
    for (i, share) in shares.into_iter().enumerate() {
        // With one loader, virtual user 1 does everything, as in HammerDB.
        let vuser = if loaders == 1 { 1 } else { i + 2 };
        let at = Position::Loader {
            n: i as u32 + 1,
            of: loaders,
        };
        let spec = plan.rand;
        tasks.spawn(load_stream(
            (sessions.clone(), at),
            say.as_vuser(vuser),
            (progress.clone(), i),
            stop.clone(),
            move |emit| {
                share.iter().all(|unit| {
                    let mut rng = gen::rng_for(&spec, unit);
                    emit(Piece::Say(announce(unit, table_size)))
                        && gen::generate(unit, table_size, &dist, &mut rng, &mut |buf, n| {
                            emit(Piece::Rows(unit.table, buf, n))
                        })
                })
            },
        ));
    }
    if loaders > 1 {
        say.line("Monitoring Workers...");
    }
    let failure = join_loaders(tasks, &stop).await;
    reporter.finish();
    forward.abort();
    match failure {
        Some(why) => Err(Stopped {
            loaded: progress.total(),
            expected,
            why,
        }),
        None => Ok(progress.total()),
    }
}

/// Each table's index and statistics, as many tables at once as there are loaders.
async fn finish<D: SchemaDb>(db: &Arc<D>, plan: Plan, say: &Say) -> Result<()> {
    let mut tables = plan.layout.all();
    let mut running = JoinSet::new();
    let width = plan.loaders.max(1) as usize;
    let mut failure = None;
    loop {
        while running.len() < width && failure.is_none() {
            let Some(table) = tables.next() else { break };
            let (db, say, layout) = (db.clone(), say.clone(), plan.layout);
            running.spawn(async move { db.finish_table(&layout, table, &say).await });
        }
        let Some(joined) = running.join_next().await else {
            break;
        };
        let outcome = joined.unwrap_or_else(|why| {
            Err(Error::TaskFailed {
                task: "an index build",
                why,
            })
        });
        if let Err(e) = outcome {
            failure.get_or_insert(e);
        }
    }
    match failure {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// What one table holds, counted: rows, and the lowest and highest id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counted {
    pub rows: u64,
    pub min_id: Option<i64>,
    pub max_id: Option<i64>,
}

/// What `checkschema` compares the catalog with: the layout, and the keys that set it, by
/// name, for the messages.
#[derive(Debug, Clone)]
pub struct Expected {
    pub layout: Layout,
    /// The dictionary's prefix: `pg` for `pg_oltp_table_size`.
    pub prefix: &'static str,
    /// `*_oltp_storage_engine`, where the database has one.
    pub engine: Option<String>,
}

impl Expected {
    fn key(&self, name: &str) -> String {
        format!("{}_oltp_{name}", self.prefix)
    }
}

/// `checkschema` of the tables `found` in database `dbname`'s catalog: each table's rows
/// counted on `conn`, whose query the stop cancels on the server, then the verdicts.
pub async fn check(
    conn: &mut ScriptConn,
    found: Vec<TableFacts>,
    expected: &Expected,
    dbname: &str,
    stop: &Interrupt,
) -> Result<Vec<Check>> {
    let mut counted = Vec::new();
    for f in found {
        let sql = format!("SELECT count(*), min(id), max(id) FROM {}", f.table.name());
        let row = query_or_cancel(conn, &sql, stop).await?;
        let cell = |i: usize| -> Option<i64> {
            row.first()
                .and_then(|r| r.get(i).cloned().flatten())
                .and_then(|v| v.parse().ok())
        };
        let c = Counted {
            rows: cell(0).and_then(|n| u64::try_from(n).ok()).unwrap_or(0),
            min_id: cell(1),
            max_id: cell(2),
        };
        counted.push((f, c));
    }
    let mut checks = vec![Check::pass(format!("database {dbname}"), "exists")];
    checks.extend(verdicts(&counted, expected));
    Ok(checks)
}

/// Runs `sql` on `conn` until it answers or `stop` fires; then cancels it on the server and
/// gives the cancelled query a moment to end.
async fn query_or_cancel(
    conn: &mut ScriptConn,
    sql: &str,
    stop: &Interrupt,
) -> Result<crate::sql::Rows> {
    let cancel = conn.canceller();
    let query = conn.query(sql);
    tokio::pin!(query);
    tokio::select! {
        biased;
        rows = &mut query => Ok(rows?),
        _ = stop.wait() => {
            if let Some(cancel) = cancel {
                cancel().await;
            }
            let _ = tokio::time::timeout(CANCELLED_WITHIN, query).await;
            Err(Error::Interrupted)
        }
    }
}

/// The columns sysbench makes, in order, as [`super::schema::Column::kind`] says them.
const SHAPE: [(&str, &str); 4] = [
    ("id", "integer"),
    ("k", "integer"),
    ("c", "char(120)"),
    ("pad", "char(60)"),
];

/// `sbtest1: why; sbtest2: why` for the first [`NAMED`] failures, then how many more.
fn listed(failures: &[String]) -> String {
    let mut text = failures
        .iter()
        .take(NAMED)
        .cloned()
        .collect::<Vec<_>>()
        .join("; ");
    if failures.len() > NAMED {
        text.push_str(&format!("; and {} more tables", failures.len() - NAMED));
    }
    text
}

/// One check over every table found: passes with `ok` when `why` finds nothing wrong with
/// any of them, else fails naming the tables and what is wrong with each.
fn over_tables(
    what: &str,
    found: &[(TableFacts, Counted)],
    ok: String,
    why: impl Fn(&TableFacts, &Counted) -> Option<String>,
) -> Check {
    let failures: Vec<String> = found
        .iter()
        .filter_map(|(f, c)| why(f, c).map(|w| format!("{}: {w}", f.table.name())))
        .collect();
    if failures.is_empty() {
        Check::pass(what, ok)
    } else {
        Check::fail(what, listed(&failures))
    }
}

/// What is wrong with a table's columns, if anything.
fn columns_wrong(f: &TableFacts) -> Option<String> {
    let mut wrong = Vec::new();
    for (name, kind) in SHAPE {
        match f.columns.iter().find(|c| c.name.eq_ignore_ascii_case(name)) {
            None => wrong.push(format!("no column {name}")),
            Some(c) if c.kind != kind => wrong.push(format!("{name} is {}, not {kind}", c.kind)),
            Some(c) if !c.not_null => wrong.push(format!("{name} may be NULL")),
            Some(_) => {}
        }
    }
    let extra: Vec<&str> = f
        .columns
        .iter()
        .map(|c| c.name.as_str())
        .filter(|n| !SHAPE.iter().any(|(s, _)| s.eq_ignore_ascii_case(n)))
        .collect();
    if !extra.is_empty() {
        wrong.push(format!("other columns {}", extra.join(", ")));
    }
    (!wrong.is_empty()).then(|| wrong.join(", "))
}

/// The indexes on `k` of the tables found, as a passed check says them: `k_1 to k_4`, or
/// `k_1, k_3` when tables are missing (the check of the tables names those).
fn k_indexes(found: &[(TableFacts, Counted)]) -> String {
    let mut ns: Vec<u32> = found.iter().map(|(f, _)| f.table.0).collect();
    ns.sort_unstable();
    match ns.as_slice() {
        [] => String::new(),
        [one] => format!("k_{one}"),
        [first, .., last] if (last - first) as usize == ns.len() - 1 => {
            format!("k_{first} to k_{last}")
        }
        _ => {
            let mut text = ns
                .iter()
                .take(NAMED)
                .map(|n| format!("k_{n}"))
                .collect::<Vec<_>>()
                .join(", ");
            if ns.len() > NAMED {
                text.push_str(&format!(" and {} more", ns.len() - NAMED));
            }
            text
        }
    }
}

/// The checks of the tables found, with their rows counted, against `expected`.
pub fn verdicts(found: &[(TableFacts, Counted)], expected: &Expected) -> Vec<Check> {
    let layout = &expected.layout;
    let mut checks = Vec::new();
    let missing: Vec<String> = layout
        .all()
        .filter(|t| !found.iter().any(|(f, _)| f.table == *t))
        .map(|t| t.name().to_string())
        .collect();
    let last = Table(layout.tables).name();
    checks.push(if missing.is_empty() {
        Check::pass("tables", format!("sbtest1 to {last} ({})", layout.tables))
    } else {
        Check::fail(
            "tables",
            format!(
                "{} missing of sbtest1 to {last} ({})",
                missing.join(", "),
                expected.key("tables")
            ),
        )
    });
    if found.is_empty() {
        return checks;
    }
    let shape: Vec<String> = SHAPE.iter().map(|(n, k)| format!("{n} {k}")).collect();
    checks.push(over_tables(
        "columns",
        found,
        format!("{}, NOT NULL", shape.join(", ")),
        |f, _| columns_wrong(f),
    ));
    let id_auto = |f: &TableFacts| {
        f.columns
            .iter()
            .find(|c| c.name.eq_ignore_ascii_case("id"))
            .is_some_and(|c| c.auto_inc)
    };
    let auto_key = expected.key("auto_inc");
    checks.push(if layout.auto_inc {
        over_tables(
            "id",
            found,
            format!("generated by the server ({auto_key} true)"),
            |f, _| {
                (!id_auto(f))
                    .then(|| format!("id is not generated by the server, but {auto_key} is true"))
            },
        )
    } else {
        over_tables(
            "id",
            found,
            format!("given by the client ({auto_key} false)"),
            |f, _| {
                id_auto(f)
                    .then(|| format!("id is generated by the server, but {auto_key} is false"))
            },
        )
    });
    let secondary_key = expected.key("secondary");
    let id_index = |f: &TableFacts| {
        f.indexes
            .iter()
            .find(|i| i.columns.len() == 1 && i.columns[0].eq_ignore_ascii_case("id"))
            .map(|i| i.name.clone())
    };
    checks.push(if layout.secondary {
        over_tables(
            "primary key",
            found,
            format!("none: an index on id in its place ({secondary_key} true)"),
            |f, _| {
                if !f.primary_key.is_empty() {
                    Some(format!(
                        "has a primary key ({}), but {secondary_key} is true",
                        f.primary_key.join(", ")
                    ))
                } else if id_index(f).is_none() {
                    Some("no index on id".to_string())
                } else {
                    None
                }
            },
        )
    } else {
        over_tables("primary key", found, "(id)".to_string(), |f, _| {
            match f.primary_key.as_slice() {
                [id] if id.eq_ignore_ascii_case("id") => None,
                [] => Some("no primary key".to_string()),
                other => Some(format!(
                    "the primary key is ({}), not (id)",
                    other.join(", ")
                )),
            }
        })
    });
    if layout.create_secondary {
        checks.push(over_tables(
            "index on k",
            found,
            k_indexes(found),
            |f, _| {
                let name = format!("k_{}", f.table.0);
                match f.indexes.iter().find(|i| i.name == name) {
                    None => Some(format!("no index {name}")),
                    Some(i) if i.columns != ["k"] => {
                        Some(format!("{name} is on ({}), not (k)", i.columns.join(", ")))
                    }
                    Some(_) => None,
                }
            },
        ));
    }
    let rows = layout.rows();
    let size_key = expected.key("table_size");
    let why_rows = if layout.empty {
        format!(
            "oltp_insert without {auto_key} starts from empty tables ({})",
            expected.key("test")
        )
    } else {
        format!("{size_key} {rows}")
    };
    checks.push(over_tables(
        "rows",
        found,
        format!("{rows} in each table ({why_rows})"),
        |_, c| (c.rows != u64::from(rows)).then(|| format!("{} found, {why_rows}", c.rows)),
    ));
    if rows > 0 {
        checks.push(over_tables(
            "ids",
            found,
            format!("1 to {rows} in each table"),
            |_, c| match (c.min_id, c.max_id) {
                (Some(1), Some(max)) if max == i64::from(rows) => None,
                (Some(min), Some(max)) => Some(format!("from {min} to {max}, not 1 to {rows}")),
                _ => Some("none".to_string()),
            },
        ));
    }
    if let Some(engine) = &expected.engine {
        let engine_key = expected.key("storage_engine");
        checks.push(over_tables(
            "storage engine",
            found,
            engine.clone(),
            |f, _| match &f.engine {
                Some(e) if e.eq_ignore_ascii_case(engine) => None,
                Some(e) => Some(format!("{e}, not {engine_key} {engine}")),
                None => Some("unknown".to_string()),
            },
        ));
    }
    checks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oltp::schema::{Column, Index};

    fn layout(tables: u32) -> Layout {
        Layout {
            tables,
            table_size: 100,
            auto_inc: true,
            secondary: false,
            create_secondary: true,
            empty: false,
        }
    }

    fn column(name: &str, kind: &str, auto_inc: bool) -> Column {
        Column {
            name: name.into(),
            kind: kind.into(),
            not_null: true,
            auto_inc,
            default: None,
        }
    }

    fn table(n: u32) -> (TableFacts, Counted) {
        (
            TableFacts {
                table: Table(n),
                columns: vec![
                    column("id", "integer", true),
                    column("k", "integer", false),
                    column("c", "char(120)", false),
                    column("pad", "char(60)", false),
                ],
                primary_key: vec!["id".into()],
                indexes: vec![Index {
                    name: format!("k_{n}"),
                    columns: vec!["k".into()],
                    unique: false,
                }],
                engine: Some("innodb".into()),
            },
            Counted {
                rows: 100,
                min_id: Some(1),
                max_id: Some(100),
            },
        )
    }

    fn expected(layout: Layout) -> Expected {
        Expected {
            layout,
            prefix: "maria",
            engine: Some("InnoDB".into()),
        }
    }

    fn failed(checks: &[Check]) -> Vec<String> {
        checks
            .iter()
            .filter(|c| !c.ok)
            .map(|c| format!("{}: {}", c.what, c.detail))
            .collect()
    }

    #[test]
    fn sysbenchs_tables_pass() {
        let checks = verdicts(&[table(1), table(2)], &expected(layout(2)));
        assert!(failed(&checks).is_empty(), "{:?}", failed(&checks));
        let said: Vec<String> = checks
            .iter()
            .map(|c| format!("{}: {}", c.what, c.detail))
            .collect();
        assert_eq!(
            said,
            [
                "tables: sbtest1 to sbtest2 (2)",
                "columns: id integer, k integer, c char(120), pad char(60), NOT NULL",
                "id: generated by the server (maria_oltp_auto_inc true)",
                "primary key: (id)",
                "index on k: k_1 to k_2",
                "rows: 100 in each table (maria_oltp_table_size 100)",
                "ids: 1 to 100 in each table",
                "storage engine: InnoDB",
            ]
        );
    }

    #[test]
    fn what_differs_is_named_by_table() {
        let mut two = table(2);
        two.0.columns[2].kind = "varchar(120)".into();
        two.0.columns[1].not_null = false;
        two.0.indexes.clear();
        two.0.primary_key.clear();
        two.0.engine = Some("myisam".into());
        two.1 = Counted {
            rows: 99,
            min_id: Some(2),
            max_id: Some(100),
        };
        let checks = verdicts(&[table(1), two], &expected(layout(3)));
        assert_eq!(
            failed(&checks),
            [
                "tables: sbtest3 missing of sbtest1 to sbtest3 (maria_oltp_tables)",
                "columns: sbtest2: k may be NULL, c is varchar(120), not char(120)",
                "primary key: sbtest2: no primary key",
                "index on k: sbtest2: no index k_2",
                "rows: sbtest2: 99 found, maria_oltp_table_size 100",
                "ids: sbtest2: from 2 to 100, not 1 to 100",
                "storage engine: sbtest2: myisam, not maria_oltp_storage_engine InnoDB",
            ]
        );
    }

    #[test]
    fn the_keys_options_change_what_is_expected() {
        // secondary: no primary key but an index on id; auto_inc off; no index on k.
        let mut t = table(1);
        t.0.primary_key.clear();
        t.0.indexes = vec![Index {
            name: "xid".into(),
            columns: vec!["id".into()],
            unique: false,
        }];
        t.0.columns[0].auto_inc = false;
        let l = Layout {
            secondary: true,
            auto_inc: false,
            create_secondary: false,
            ..layout(1)
        };
        let checks = verdicts(&[t.clone()], &expected(l));
        assert!(failed(&checks).is_empty(), "{:?}", failed(&checks));
        assert!(!checks.iter().any(|c| c.what == "index on k"));
        // The same table against the defaults.
        let checks = verdicts(&[t], &expected(layout(1)));
        assert_eq!(
            failed(&checks),
            [
                "id: sbtest1: id is not generated by the server, but maria_oltp_auto_inc is true",
                "primary key: sbtest1: no primary key",
                "index on k: sbtest1: no index k_1",
            ]
        );
        // oltp_insert without auto_inc: empty tables.
        let mut t = table(1);
        t.1 = Counted::default();
        t.0.columns[0].auto_inc = false;
        let l = Layout {
            auto_inc: false,
            empty: true,
            ..layout(1)
        };
        let checks = verdicts(&[t], &expected(l));
        assert!(failed(&checks).is_empty(), "{:?}", failed(&checks));
        assert!(checks.iter().any(|c| c.detail
            == "0 in each table (oltp_insert without maria_oltp_auto_inc starts from empty tables (maria_oltp_test))"));
    }

    #[test]
    fn a_passed_index_check_names_the_tables_found() {
        let index = |found: &[(TableFacts, Counted)], tables: u32| {
            verdicts(found, &expected(layout(tables)))
                .into_iter()
                .find(|c| c.what == "index on k")
                .map(|c| (c.ok, c.detail))
                .unwrap()
        };
        assert_eq!(
            index(&[table(1), table(2)], 3),
            (true, "k_1 to k_2".to_string())
        );
        assert_eq!(index(&[table(2)], 2), (true, "k_2".to_string()));
        assert_eq!(
            index(&[table(3), table(1)], 3),
            (true, "k_1, k_3".to_string())
        );
        let many: Vec<_> = (1..=24).filter(|n| n % 2 == 0).map(table).collect();
        assert_eq!(
            index(&many, 24).1,
            "k_2, k_4, k_6, k_8, k_10, k_12, k_14, k_16, k_18, k_20 and 2 more"
        );
    }

    #[test]
    fn many_failures_are_counted_past_ten() {
        let found: Vec<_> = (1..=13)
            .map(|n| {
                let mut t = table(n);
                t.1.rows = 5;
                t
            })
            .collect();
        let checks = verdicts(&found, &expected(layout(13)));
        let rows = checks.iter().find(|c| c.what == "rows").unwrap();
        assert!(!rows.ok);
        assert!(
            rows.detail.starts_with("sbtest1: 5 found"),
            "{}",
            rows.detail
        );
        assert!(
            rows.detail.ends_with("; and 3 more tables"),
            "{}",
            rows.detail
        );
    }

    #[test]
    fn whole_and_partial_units_are_announced() {
        let whole = Unit {
            table: Table(3),
            ids: 1..=100,
        };
        assert_eq!(
            announce(&whole, 100),
            "Inserting 100 records into 'sbtest3'"
        );
        let part = Unit {
            table: Table(3),
            ids: 51..=100,
        };
        assert_eq!(
            announce(&part, 100),
            "Inserting records 51 to 100 of 100 into 'sbtest3'"
        );
    }
}
