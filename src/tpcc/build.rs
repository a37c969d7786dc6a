//! Builds a TPROC-C schema on any [`SchemaDb`], and writes the same data as flat files.
//!
//! The monitor (virtual user 1) creates the schema and loads ITEM; each of the `loaders`
//! workers owns a share of the warehouses. A worker generates rows on a blocking thread while
//! its connection loads the previous chunk, so the client's CPU and the server's ingest overlap.
//! A chunk is one COPY / LOAD DATA statement: atomic, so after a lost connection it is sent
//! again on a new one.

use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::SeedableRng;

use super::schema::{Loader, Say, SchemaDb};
use super::{
    Constants, Format, Generator, Table, CUSTOMERS_PER_D, DISTRICTS_PER_W, ITEMS, STOCK_PER_W,
};
use crate::bench::loading::{build_stop, finish_whole, join_loaders, load_stream};
use crate::bench::split::Stopped;
use crate::endpoint::Position;
use crate::error::{Error, Result};
use crate::interrupt::Interrupt;
use crate::output::Output;
use crate::progress::{Mode, PartSpec, Reporter, Tracker};

/// Rows per STOCK and ITEM chunk: a few MB of text.
const CHUNK_ROWS: u32 = 10_000;

/// What to build: warehouses and loading workers (`*_count_ware`, `*_num_vu`).
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    pub warehouses: u32,
    pub loaders: u32,
}

/// Rows one warehouse brings (order lines are random, ten per order on average).
const ROWS_PER_W: u64 =
    1 + STOCK_PER_W as u64 + DISTRICTS_PER_W as u64 + 3 * 30_000 + 9_000 + 300_000;

impl Plan {
    /// Rows the build writes (order lines are random, ten per order on average).
    pub fn expected_rows(&self) -> u64 {
        ITEMS as u64 + ROWS_PER_W * self.warehouses as u64
    }

    /// The parts whose progress is shown: ITEM, then each worker's warehouses.
    fn parts(&self) -> Vec<PartSpec> {
        self.parts_of(1..=self.warehouses, true)
    }

    /// The parts of a load of `range`'s warehouses, after ITEM when `item`.
    fn parts_of(&self, range: RangeInclusive<u32>, item: bool) -> Vec<PartSpec> {
        let mut parts = Vec::new();
        if item {
            parts.push(PartSpec {
                name: "item".into(),
                expected: ITEMS as u64,
                exact: true,
            });
        }
        for range in split_range(range, self.loaders) {
            let n = u64::from(range.end() - range.start() + 1);
            parts.push(PartSpec {
                name: if n == 1 {
                    format!("warehouse {}", range.start())
                } else {
                    format!("warehouses {}-{}", range.start(), range.end())
                },
                expected: ROWS_PER_W * n,
                exact: false,
            });
        }
        parts
    }
}

/// What one driver loads: `range`'s warehouses, and ITEM when `item` (the driver of warehouse
/// 1), generated with the build's load constants and load time.
#[derive(Debug, Clone)]
pub(super) struct Load {
    pub range: RangeInclusive<u32>,
    pub item: bool,
    pub constants: Constants,
    pub load_time: String,
}

/// What a finished build measured.
#[derive(Debug, Clone)]
pub struct Summary {
    pub warehouses: u32,
    pub rows: u64,
    pub elapsed: Duration,
    pub bytes_on_disk: u64,
    /// A split build's driver: what it did (`None` for a whole build).
    pub split: Option<crate::bench::split::Outcome>,
}

impl Summary {
    pub fn rows_per_second(&self) -> f64 {
        self.rows as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// Consecutive, equal shares of the warehouses per worker. HammerDB (reference 7.2) gives the
/// whole remainder to the last worker, which then finishes last; here it is spread one each
/// over the first workers. There are never more workers than warehouses.
pub fn split_warehouses(w: u32, workers: u32) -> Vec<RangeInclusive<u32>> {
    let workers = workers.clamp(1, w.max(1));
    let (chunk, rem) = (w / workers, w % workers);
    let mut start = 1;
    (0..workers)
        .map(|i| {
            let size = chunk + u32::from(i < rem);
            let r = start..=start + size - 1;
            start += size;
            r
        })
        .collect()
}

/// [`split_warehouses`] of the warehouses of `range` (a driver's share of a split build).
fn split_range(range: RangeInclusive<u32>, workers: u32) -> Vec<RangeInclusive<u32>> {
    let offset = range.start() - 1;
    split_warehouses(range.end() - offset, workers)
        .into_iter()
        .map(|r| r.start() + offset..=r.end() + offset)
        .collect()
}

/// The load time written into the date columns: now, UTC, `YYYY-MM-DD HH:MM:SS`.
pub fn load_time_now() -> String {
    crate::clock::utc(std::time::SystemTime::now())
}

/// One piece of a worker's output: a message to print when loading reaches it, or rows.
type Piece = crate::bench::loading::Piece<Table>;

/// TPROC-C's loading sessions on `D`, for the shared loading machinery.
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

/// Generates warehouse data in HammerDB's order: per warehouse its row, STOCK and DISTRICT;
/// then CUSTOMER and HISTORY, then ORDERS, NEW_ORDER and ORDER_LINE, district by district.
/// `emit` returns false to stop early (the consumer has gone or Ctrl-C).
fn generate_warehouses(
    gen: &mut Generator,
    range: RangeInclusive<u32>,
    mut emit: impl FnMut(Piece) -> bool,
) -> bool {
    let rows = |t: Table, buf: Vec<u8>, n: u64| Piece::Rows(t, buf, n);
    for w in range.clone() {
        let mut buf = Vec::new();
        gen.warehouse(w, &mut buf);
        if !emit(Piece::Say("Loading Warehouse".into())) || !emit(rows(Table::Warehouse, buf, 1)) {
            return false;
        }
        if !emit(Piece::Say(format!("Loading Stock Wid={w}"))) {
            return false;
        }
        let mut first = 1;
        while first <= STOCK_PER_W {
            let last = (first + CHUNK_ROWS - 1).min(STOCK_PER_W);
            let mut buf = Vec::with_capacity(3_500_000);
            gen.stock(w, first..=last, &mut buf);
            if !emit(rows(Table::Stock, buf, u64::from(last - first + 1))) {
                return false;
            }
            first = last + 1;
        }
        let mut buf = Vec::new();
        gen.districts(w, &mut buf);
        if !emit(Piece::Say("Loading District".into()))
            || !emit(rows(Table::District, buf, u64::from(DISTRICTS_PER_W)))
        {
            return false;
        }
    }
    for w in range.clone() {
        for d in 1..=DISTRICTS_PER_W {
            let (mut c, mut h) = (Vec::with_capacity(2_000_000), Vec::with_capacity(200_000));
            gen.customers_and_history(w, d, &mut c, &mut h);
            let n = u64::from(CUSTOMERS_PER_D);
            if !emit(Piece::Say(format!("Loading Customer for DID={d} WID={w}")))
                || !emit(rows(Table::Customer, c, n))
                || !emit(rows(Table::History, h, n))
            {
                return false;
            }
        }
    }
    for w in range {
        for d in 1..=DISTRICTS_PER_W {
            let (mut o, mut no, mut ol) = (
                Vec::with_capacity(200_000),
                Vec::with_capacity(20_000),
                Vec::with_capacity(2_500_000),
            );
            gen.orders(w, d, &mut o, &mut no, &mut ol);
            let lines = ol.iter().filter(|b| **b == b'\n').count() as u64;
            if !emit(Piece::Say(format!("Loading Orders for D={d} W={w}")))
                || !emit(rows(Table::Orders, o, 3_000))
                || !emit(rows(Table::NewOrder, no, 900))
                || !emit(rows(Table::OrderLine, ol, lines))
            {
                return false;
            }
        }
    }
    true
}

/// ITEM in chunks.
fn generate_items(gen: &mut Generator, mut emit: impl FnMut(Piece) -> bool) -> bool {
    let mut first = 1;
    while first <= ITEMS {
        let last = (first + CHUNK_ROWS - 1).min(ITEMS);
        let mut buf = Vec::with_capacity(800_000);
        gen.items(first..=last, &mut buf);
        if !emit(Piece::Rows(Table::Item, buf, u64::from(last - first + 1))) {
            return false;
        }
        first = last + 1;
    }
    true
}

/// A generation job: feeds pieces to its sink until done (true) or told to stop (false).
type Job<'a> = Box<dyn FnOnce(&mut dyn FnMut(Piece) -> bool) -> bool + Send + 'a>;

/// Builds the schema: create, load ITEM and the warehouses in parallel, finish, measure.
pub async fn build<D: SchemaDb>(
    db: Arc<D>,
    plan: Plan,
    say: Say,
    out: Output,
    interrupt: Interrupt,
) -> Result<Summary> {
    let started = Instant::now();
    db.create(plan.warehouses, &say).await?;
    let constants = Constants::for_load(&mut SmallRng::from_os_rng());
    let what = Load {
        range: 1..=plan.warehouses,
        item: true,
        constants,
        load_time: load_time_now(),
    };
    let rows = load(&db, plan, what, (&say, &out), interrupt.clone())
        .await
        .map_err(|s| Error::BuildStopped {
            loaded: s.loaded,
            expected: s.expected,
            why: Box::new(s.why),
            db: db.name(),
        })?;
    finish_whole(db.finish(&constants, &say), &interrupt, &say).await?;
    let bytes_on_disk = db.size_on_disk().await.unwrap_or(0);
    Ok(Summary {
        warehouses: plan.warehouses,
        rows,
        elapsed: started.elapsed(),
        bytes_on_disk,
        split: None,
    })
}

/// Loads ITEM (when `what.item`) and `what.range`'s warehouses with `plan.loaders` workers in
/// parallel: the rows loaded, or how far it got and why it stopped (the first failure, or
/// `stop`: Ctrl-C).
pub(super) async fn load<D: SchemaDb>(
    db: &Arc<D>,
    plan: Plan,
    what: Load,
    (say, out): (&Say, &Output),
    stop: Interrupt,
) -> std::result::Result<u64, Stopped> {
    let (interrupt, forward) = build_stop(stop);
    let sessions = Arc::new(Sessions(db.clone()));
    let mut seed = SmallRng::from_os_rng();
    let Load {
        range,
        item,
        constants,
        load_time,
    } = what;
    let parts = plan.parts_of(range.clone(), item);
    let expected = parts.iter().map(|p| p.expected).sum();
    let progress = Tracker::new("rows", parts);
    let reporter = Reporter::start(out.clone(), progress.clone(), "Loading", Mode::of(out));

    let mut tasks = tokio::task::JoinSet::new();
    let new_gen = |seed: &mut SmallRng| {
        Generator::new(
            Format::COPY,
            constants,
            &load_time,
            SmallRng::from_rng(seed),
        )
    };
    let shares = split_range(range, plan.loaders);
    let workers = shares.len();
    let first = usize::from(item);
    // ITEM's loader, then one per worker.
    let loader = |n: usize| Position::Loader {
        n: n as u32,
        of: (workers + first) as u32,
    };
    if item {
        let mut gen = new_gen(&mut seed);
        let say = say.clone();
        tasks.spawn(load_stream(
            (sessions.clone(), loader(1)),
            say.clone(),
            (progress.clone(), 0),
            interrupt.clone(),
            move |emit| {
                emit(Piece::Say("Loading Item".into()))
                    && generate_items(&mut gen, &mut *emit)
                    && emit(Piece::Say("Item done".into()))
            },
        ));
    }
    for (i, range) in shares.into_iter().enumerate() {
        // With one loader, virtual user 1 does everything, as in HammerDB.
        let vuser = if plan.loaders <= 1 { 1 } else { i + 2 };
        let wsay = say.as_vuser(vuser);
        wsay.line(format!(
            "Loading {} Warehouses start:{} end:{}",
            range.end() - range.start() + 1,
            range.start(),
            range.end()
        ));
        let mut gen = new_gen(&mut seed);
        tasks.spawn(load_stream(
            (sessions.clone(), loader(i + 1 + first)),
            wsay.clone(),
            (progress.clone(), i + first),
            interrupt.clone(),
            move |emit| {
                generate_warehouses(&mut gen, range, &mut *emit)
                    && emit(Piece::Say("End: warehouses loaded".into()))
            },
        ));
    }
    if workers > 1 {
        say.line("Monitoring Workers...");
    }
    let failure = join_loaders(tasks, &interrupt).await;
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

/// `datagenrun`: the same data as pipe-delimited `<table>_<n>.tbl` files in `dir`, `n` being
/// the worker (ITEM is `item_1.tbl`). Refuses to overwrite any file. Blocking: run it on a
/// blocking thread.
pub fn datagen(plan: Plan, dir: &Path, say: &Say, interrupt: &Interrupt) -> Result<Summary> {
    let started = Instant::now();
    let shares = split_warehouses(plan.warehouses, plan.loaders);
    let mut files: Vec<PathBuf> = vec![dir.join("item_1.tbl")];
    for n in 1..=shares.len() {
        for t in Table::ALL.iter().filter(|t| **t != Table::Item) {
            files.push(dir.join(format!("{}_{n}.tbl", t.name())));
        }
    }
    if let Some(existing) = files.iter().find(|f| f.exists()) {
        return Err(Error::FileExists {
            path: existing.display().to_string(),
            way_out: "dgset directory",
        });
    }
    let constants = Constants::for_load(&mut SmallRng::from_os_rng());
    let load_time = load_time_now();
    let progress = Tracker::new("rows", plan.parts());
    let out = say.out();
    let reporter = Reporter::start(out.clone(), progress.clone(), "Generating", Mode::of(out));
    let result: Result<()> = std::thread::scope(|scope| {
        let mut handles = Vec::new();
        let item_job: Job = Box::new(|emit| {
            generate_items(
                &mut Generator::new(Format::FLAT, constants, &load_time, SmallRng::from_os_rng()),
                emit,
            )
        });
        let mut jobs: Vec<(usize, Job)> = vec![(1, item_job)];
        for (i, range) in shares.iter().cloned().enumerate() {
            let gen_constants = constants;
            let load_time = load_time.clone();
            jobs.push((
                i + 1,
                Box::new(move |emit| {
                    generate_warehouses(
                        &mut Generator::new(
                            Format::FLAT,
                            gen_constants,
                            &load_time,
                            SmallRng::from_os_rng(),
                        ),
                        range,
                        emit,
                    )
                }),
            ));
        }
        for (part, (n, job)) in jobs.into_iter().enumerate() {
            let progress = (&*progress, part);
            let wsay = say.as_vuser(n);
            handles.push(scope.spawn(move || write_files(dir, n, job, &wsay, progress, interrupt)));
        }
        // The scope joins every thread; the first error is the one reported.
        handles.into_iter().try_for_each(|h| {
            h.join().unwrap_or_else(|_| {
                Err(Error::Panicked {
                    what: "a data generation thread",
                })
            })
        })
    });
    reporter.finish();
    result?;
    Ok(Summary {
        warehouses: plan.warehouses,
        rows: progress.total(),
        elapsed: started.elapsed(),
        bytes_on_disk: files
            .iter()
            .filter_map(|f| std::fs::metadata(f).ok())
            .map(|m| m.len())
            .sum(),
        split: None,
    })
}

fn write_files(
    dir: &Path,
    n: usize,
    job: Job<'_>,
    say: &Say,
    (progress, part): (&Tracker, usize),
    interrupt: &Interrupt,
) -> Result<()> {
    use std::collections::HashMap;
    use std::io::Write;
    let mut open: HashMap<Table, std::io::BufWriter<std::fs::File>> = HashMap::new();
    let mut error: Option<Error> = None;
    let finished = job(&mut |piece| {
        if interrupt.is_set() {
            error = Some(Error::Interrupted);
            return false;
        }
        match piece {
            Piece::Say(text) => say.line(text.replace("Loading", "Generating")),
            Piece::Rows(table, buf, count) => {
                let path = dir.join(format!("{}_{n}.tbl", table.name()));
                let file = match open.entry(table) {
                    std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                    std::collections::hash_map::Entry::Vacant(v) => {
                        match std::fs::OpenOptions::new()
                            .write(true)
                            .create_new(true)
                            .open(&path)
                        {
                            Ok(f) => v.insert(std::io::BufWriter::with_capacity(1 << 20, f)),
                            Err(source) => {
                                error = Some(Error::Io {
                                    what: "cannot create",
                                    path: path.display().to_string(),
                                    source,
                                });
                                return false;
                            }
                        }
                    }
                };
                if let Err(source) = file.write_all(&buf) {
                    error = Some(Error::Io {
                        what: "cannot write",
                        path: path.display().to_string(),
                        source,
                    });
                    return false;
                }
                progress.add(part, count);
            }
        }
        true
    });
    for (table, mut w) in open {
        if let Err(source) = w.flush() {
            let path = dir.join(format!("{}_{n}.tbl", table.name()));
            error.get_or_insert(Error::Io {
                what: "cannot write",
                path: path.display().to_string(),
                source,
            });
        }
    }
    match error {
        Some(e) => Err(e),
        None if finished => {
            progress.finish(part);
            Ok(())
        }
        None => Err(Error::Interrupted),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warehouses_split_like_hammerdb() {
        assert_eq!(split_warehouses(10, 4), vec![1..=3, 4..=6, 7..=8, 9..=10]);
        assert_eq!(split_warehouses(4, 2), vec![1..=2, 3..=4]);
        assert_eq!(split_warehouses(1, 1), vec![1..=1]);
        assert_eq!(split_warehouses(3, 5), vec![1..=1, 2..=2, 3..=3]);
        for w in 1..40 {
            for n in 1..12 {
                let shares = split_warehouses(w, n);
                let all: Vec<u32> = shares.iter().flat_map(|r| r.clone()).collect();
                assert_eq!(all, (1..=w).collect::<Vec<_>>(), "w={w} n={n}");
                let sizes: Vec<u32> = shares.iter().map(|r| r.end() - r.start() + 1).collect();
                assert!(sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1);
            }
        }
    }

    #[test]
    fn load_time_is_a_date_column_value() {
        assert_eq!(load_time_now().len(), 19);
    }

    #[test]
    fn datagen_writes_every_table_once_and_refuses_to_overwrite() {
        let dir = tempfile::tempdir().unwrap();
        let out = Output::capture();
        let say = Say::new(out.clone(), 1);
        let plan = Plan {
            warehouses: 1,
            loaders: 1,
        };
        let summary = datagen(plan, dir.path(), &say, &Interrupt::default()).unwrap();
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(
            names,
            [
                "customer_1.tbl",
                "district_1.tbl",
                "history_1.tbl",
                "item_1.tbl",
                "new_order_1.tbl",
                "order_line_1.tbl",
                "orders_1.tbl",
                "stock_1.tbl",
                "warehouse_1.tbl"
            ]
        );
        let count = |f: &str| {
            std::fs::read_to_string(dir.path().join(f))
                .unwrap()
                .lines()
                .count()
        };
        assert_eq!(count("item_1.tbl"), 100_000);
        assert_eq!(count("stock_1.tbl"), 100_000);
        assert_eq!(count("customer_1.tbl"), 30_000);
        assert_eq!(count("new_order_1.tbl"), 9_000);
        let first = std::fs::read_to_string(dir.path().join("warehouse_1.tbl")).unwrap();
        assert_eq!(
            first.trim_end().split('|').count(),
            Table::Warehouse.columns().len()
        );
        assert_eq!(
            summary.rows as usize,
            names.iter().map(|n| count(n)).sum::<usize>()
        );
        let lines = out.take_captured();
        assert!(lines.iter().any(|l| l == "Vuser 1:Generating Stock Wid=1"));
        // Not a terminal: each part's last progress line, with its rows and rate.
        let done = |prefix: &str| {
            lines
                .iter()
                .any(|l| l.starts_with(prefix) && l.contains(" rows/s, done"))
        };
        assert!(done("Generating item: 100000 rows in "), "{lines:#?}");
        let total = format!("Generating all: {} rows in ", summary.rows);
        assert!(
            done("Generating warehouse 1: ") && done(&total),
            "{lines:#?}"
        );
        let e = datagen(plan, dir.path(), &say, &Interrupt::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("already exists"), "{e}");
    }
}
