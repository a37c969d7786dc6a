//! Builds a TPROC-H schema on any [`SchemaDb`] and checks one.
//!
//! Virtual user 1 creates the schema and loads REGION and NATION; each of the `loaders`
//! workers then loads its part of every scaled table (dbgen's parts, so together they are
//! exactly the generator's rows). A worker generates on a blocking thread while its
//! connection loads the previous chunk; a chunk is one COPY / LOAD DATA statement, so after a
//! lost connection it is sent again on a new one.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::gen::{self, LINES_PER_ORDER};
use super::schema::{Check, Loader, Say, SchemaDb, TableFacts};
use super::{shown, Table};
use crate::bench::loading::{build_stop, finish_whole, join_loaders, load_stream, Piece};
use crate::bench::split::Stopped;
use crate::endpoint::Position;
use crate::error::{Error, Result};
use crate::interrupt::Interrupt;
use crate::output::Output;
use crate::progress::{Mode, PartSpec, Reporter, Tracker};
use crate::sql::ScriptConn;

/// Up to this scale factor `checkschema` counts LINEITEM's rows by running the generator.
const COUNTED_LINEITEM_MAX_SF: f64 = 1.0;
/// How long a query cancelled at the stop may take to answer before it is left.
const CANCELLED_WITHIN: Duration = Duration::from_secs(5);

/// What to build: the scale factor and the loading workers (`*_num_tpch_threads`).
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    pub scale_factor: f64,
    pub loaders: u32,
}

impl Plan {
    /// Rows of `table` in part `part` of `parts` (LINEITEM estimated from ORDERS).
    fn share(&self, table: Table, part: u32, parts: u32) -> u64 {
        let sf = self.scale_factor;
        gen::rows(table, sf, part, parts).unwrap_or_else(|| {
            LINES_PER_ORDER * gen::rows(Table::Orders, sf, part, parts).unwrap_or(0)
        })
    }

    /// The whole schema's load: REGION and NATION, and every part, one per worker.
    fn whole(&self) -> Load {
        Load {
            fixed: true,
            parts: self.loaders,
            mine: 1..=self.loaders,
        }
    }

    /// The parts whose progress is shown: REGION and NATION, then each worker's part.
    fn parts(&self, load: &Load) -> Vec<PartSpec> {
        let mut parts = Vec::new();
        if load.fixed {
            parts.push(PartSpec {
                name: "region, nation".into(),
                expected: 30,
                exact: true,
            });
        }
        for part in load.mine.clone() {
            parts.push(PartSpec {
                name: format!("part {part} of {}", load.parts),
                expected: Table::SCALED
                    .iter()
                    .map(|t| self.share(*t, part, load.parts))
                    .sum(),
                exact: false,
            });
        }
        parts
    }

    #[cfg(test)]
    fn expected_rows(&self) -> u64 {
        self.parts(&self.whole()).iter().map(|p| p.expected).sum()
    }
}

/// What one driver loads: REGION and NATION when `fixed`, and dbgen's parts `mine` of
/// `parts`, one worker each.
#[derive(Debug, Clone)]
pub(super) struct Load {
    pub fixed: bool,
    pub parts: u32,
    pub mine: std::ops::RangeInclusive<u32>,
}

/// What a finished build measured.
#[derive(Debug, Clone)]
pub struct Summary {
    pub rows: u64,
    pub elapsed: Duration,
    pub bytes_on_disk: u64,
    /// A split build's driver: what it did (`None` for a whole build).
    pub split: Option<crate::bench::split::Outcome>,
}

/// A worker's job: the tables and the part of each it generates, of `parts`.
#[derive(Clone, Copy)]
struct Job {
    tables: &'static [Table],
    part: u32,
    parts: u32,
}

const FIXED: [Table; 2] = [Table::Region, Table::Nation];

/// TPROC-H's loading sessions on `D`, for the shared loading machinery.
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

/// Generates a job's rows as pieces: each table's announcement, then its chunks. False when
/// `emit` asked to stop.
fn generate_job(plan: Plan, job: Job, emit: &mut dyn FnMut(Piece<Table>) -> bool) -> bool {
    job.tables.iter().all(|&table| {
        let name = table.name().to_uppercase();
        let said = if job.tables == FIXED || job.parts == 1 {
            format!("Loading {name}")
        } else {
            format!("Loading {name} part {} of {}", job.part, job.parts)
        };
        emit(Piece::Say(said))
            && gen::generate(
                table,
                plan.scale_factor,
                job.part,
                job.parts,
                &mut |buf, n| emit(Piece::Rows(table, buf, n)),
            )
    })
}

/// Builds the schema: create, load REGION and NATION and the workers' parts in parallel,
/// then keys and statistics; measures.
pub async fn build<D: SchemaDb>(
    db: Arc<D>,
    plan: Plan,
    say: Say,
    out: Output,
    interrupt: Interrupt,
) -> Result<Summary> {
    let started = Instant::now();
    db.create(&say).await?;
    let rows = load(&db, plan, plan.whole(), (&say, &out), interrupt.clone())
        .await
        .map_err(|s| Error::BuildStopped {
            loaded: s.loaded,
            expected: s.expected,
            why: Box::new(s.why),
            db: db.name(),
        })?;
    finish_whole(db.finish(&say), &interrupt, &say).await?;
    let bytes_on_disk = db.size_on_disk().await.unwrap_or(0);
    Ok(Summary {
        rows,
        elapsed: started.elapsed(),
        bytes_on_disk,
        split: None,
    })
}

/// Loads REGION and NATION (when `what.fixed`) and the parts `what.mine`, one worker each,
/// in parallel: the rows loaded, or how far it got and why it stopped (the first failure, or
/// `stop`: Ctrl-C).
pub(super) async fn load<D: SchemaDb>(
    db: &Arc<D>,
    plan: Plan,
    what: Load,
    (say, out): (&Say, &Output),
    stop: Interrupt,
) -> std::result::Result<u64, Stopped> {
    let (stop, forward) = build_stop(stop);
    let sessions = Arc::new(Sessions(db.clone()));
    let parts = plan.parts(&what);
    let expected = parts.iter().map(|p| p.expected).sum();
    let progress = Tracker::new("rows", parts);
    let reporter = Reporter::start(out.clone(), progress.clone(), "Loading", Mode::of(out));
    let mut tasks = tokio::task::JoinSet::new();
    let workers = what.mine.end() + 1 - what.mine.start();
    let first = u32::from(what.fixed);
    // The fixed tables' loader, then one per worker.
    let loader = |n: u32| Position::Loader {
        n,
        of: workers + first,
    };
    if what.fixed {
        let fixed = Job {
            tables: &FIXED,
            part: 1,
            parts: what.parts,
        };
        tasks.spawn(load_stream(
            (sessions.clone(), loader(1)),
            say.clone(),
            (progress.clone(), 0),
            stop.clone(),
            move |emit| generate_job(plan, fixed, emit),
        ));
    }
    for (i, part) in what.mine.clone().enumerate() {
        let i = i as u32;
        // With one loader, virtual user 1 does everything, as in HammerDB.
        let vuser = if workers == 1 { 1 } else { i as usize + 2 };
        let wsay = say.as_vuser(vuser);
        let job = Job {
            tables: &Table::SCALED,
            part,
            parts: what.parts,
        };
        tasks.spawn(load_stream(
            (sessions.clone(), loader(i + 1 + first)),
            wsay,
            (progress.clone(), (i + first) as usize),
            stop.clone(),
            move |emit| generate_job(plan, job, emit),
        ));
    }
    if workers > 1 {
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

/// `checkschema` of scale factor `sf` of the tables `found` in database `dbname`'s catalog:
/// each table's rows counted on `conn`, whose query the stop cancels on the server (a count
/// of a large LINEITEM takes long), then the verdicts: the database, rows equal to the
/// generator's, primary key and indexes present.
pub async fn check(
    conn: &mut ScriptConn,
    found: Vec<TableFacts>,
    (sf, dbname): (f64, &str),
    stop: &Interrupt,
) -> Result<Vec<Check>> {
    let mut counted = Vec::new();
    for f in found {
        let sql = format!("SELECT count(*) FROM {}", f.table.name());
        let rows = query_or_cancel(conn, &sql, stop)
            .await?
            .first()
            .and_then(|r| r.first().cloned().flatten())
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0);
        counted.push((f, rows));
    }
    let mut checks = vec![Check::pass(format!("database {dbname}"), "exists")];
    checks.extend(verdicts(&counted, sf, expected_rows(sf)));
    Ok(checks)
}

/// Runs `sql` on `conn` until it answers or `stop` fires; then cancels it on the server
/// (PostgreSQL's cancel request, MariaDB's `KILL QUERY`) and gives the cancelled query a
/// moment to end, so that nothing keeps running there after the command has stopped.
pub async fn query_or_cancel(
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

/// The rows each table must hold for `sf`; LINEITEM's counted up to
/// [`COUNTED_LINEITEM_MAX_SF`], else `None` (then bounded by ORDERS: 1 to 7 lines each).
fn expected_rows(sf: f64) -> Vec<(Table, Option<u64>)> {
    Table::ALL
        .iter()
        .map(|&t| {
            let rows = gen::rows(t, sf, 1, 1)
                .or_else(|| (sf <= COUNTED_LINEITEM_MAX_SF).then(|| gen::lineitem_rows(sf)));
            (t, rows)
        })
        .collect()
}

/// The checks of the tables found, with their rows counted, against the rows expected at
/// scale factor `sf`.
fn verdicts(
    found: &[(TableFacts, u64)],
    sf: f64,
    expected: Vec<(Table, Option<u64>)>,
) -> Vec<Check> {
    let mut checks = Vec::new();
    let orders = found
        .iter()
        .find(|(f, _)| f.table == Table::Orders)
        .map_or(0, |(_, rows)| *rows);
    for (table, want) in expected {
        let name = table.name();
        let Some((f, rows)) = found.iter().find(|(f, _)| f.table == table) else {
            checks.push(Check::fail(format!("table {name}"), "is missing"));
            continue;
        };
        let what = format!("table {name} rows");
        checks.push(match want {
            Some(n) if *rows == n => Check::pass(what, format!("{n}")),
            Some(n) => Check::fail(
                what,
                format!(
                    "{rows} found, the generator makes {n} at scale factor {}",
                    shown(sf)
                ),
            ),
            None if (orders..=7 * orders).contains(rows) && orders > 0 => Check::pass(
                what,
                format!("{rows} (1 to 7 lines for each of {orders} orders)"),
            ),
            None => Check::fail(
                what,
                format!("{rows} found, not 1 to 7 lines for each of {orders} orders"),
            ),
        });
        let what = format!("table {name} primary key");
        let cols = table.primary_key().join(", ");
        checks.push(if f.primary_key {
            Check::pass(what, format!("({cols})"))
        } else {
            Check::fail(what, format!("({cols}) is missing"))
        });
        let wanted = table.indexes();
        if !wanted.is_empty() {
            let what = format!("table {name} indexes");
            let missing: Vec<&str> = wanted
                .iter()
                .copied()
                .filter(|i| !f.indexes.iter().any(|x| x == i))
                .collect();
            checks.push(if missing.is_empty() {
                Check::pass(what, wanted.join(", "))
            } else {
                Check::fail(what, format!("{} missing", missing.join(", ")))
            });
        }
    }
    checks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_counts_of_scale_factor_001_are_dbgens() {
        let expected = expected_rows(0.01);
        let rows = |t: Table| expected.iter().find(|(x, _)| *x == t).unwrap().1;
        for (t, n) in [
            (Table::Region, 5),
            (Table::Nation, 25),
            (Table::Supplier, 100),
            (Table::Customer, 1_500),
            (Table::Part, 2_000),
            (Table::PartSupp, 8_000),
            (Table::Orders, 15_000),
        ] {
            assert_eq!(rows(t), Some(n), "{t:?}");
        }
        // dbgen's LINEITEM at scale factor 0.01: 60,175 rows.
        assert_eq!(rows(Table::Lineitem), Some(60_175));
    }

    #[test]
    fn verdicts_name_what_is_wrong() {
        let facts = |t: Table, rows: u64, pk: bool| {
            let f = TableFacts {
                table: t,
                primary_key: pk,
                indexes: t.indexes().iter().map(|i| i.to_string()).collect(),
            };
            (f, rows)
        };
        let expected = vec![
            (Table::Region, Some(5)),
            (Table::Orders, Some(10)),
            (Table::Lineitem, None),
            (Table::Nation, Some(25)),
        ];
        let mut no_index = facts(Table::Lineitem, 30, true);
        no_index.0.indexes.clear();
        let found = [
            facts(Table::Region, 4, true),
            facts(Table::Orders, 10, false),
            no_index,
        ];
        let checks = verdicts(&found, 0.01, expected);
        let failed: Vec<String> = checks
            .iter()
            .filter(|c| !c.ok)
            .map(|c| format!("{}: {}", c.what, c.detail))
            .collect();
        assert_eq!(
            failed,
            [
                "table region rows: 4 found, the generator makes 5 at scale factor 0.01",
                "table orders primary key: (o_orderkey) is missing",
                "table lineitem indexes: lineitem_fk1 missing",
                "table nation: is missing",
            ]
        );
        assert!(checks
            .iter()
            .any(|c| c.ok && c.detail == "30 (1 to 7 lines for each of 10 orders)"));
    }

    #[test]
    fn workers_share_the_scaled_tables() {
        let plan = Plan {
            scale_factor: 0.01,
            loaders: 2,
        };
        let parts = plan.parts(&plan.whole());
        assert_eq!(parts.len(), 3);
        assert_eq!(parts[1].name, "part 1 of 2");
        let fixed_and_exact: u64 = 30 + 100 + 1_500 + 2_000 + 8_000 + 15_000;
        assert_eq!(
            plan.expected_rows(),
            fixed_and_exact + LINES_PER_ORDER * 15_000
        );
    }
}
