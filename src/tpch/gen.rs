//! TPC-H's rows for a scale factor, from the `tpchgen` crate (a port of dbgen whose output is
//! identical to it): as COPY text in chunks for the loaders (tab-separated, one row a line:
//! the text both PostgreSQL's COPY and MariaDB/MySQL's LOAD DATA read by default; dbgen's
//! fields never hold a tab, a backslash or a newline, so none needs escaping), and as dbgen's
//! own `|`-ended `.tbl` files for `datagenrun` ([`datagen`]).

use std::fmt::{Display, Write};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tpchgen::generators::{
    CustomerGenerator, LineItemGenerator, NationGenerator, OrderGenerator, PartGenerator,
    PartSuppGenerator, RegionGenerator, SupplierGenerator,
};

use super::schema::Say;
use super::Table;
use crate::error::{Error, Result};
use crate::interrupt::Interrupt;
use crate::progress::{Mode, PartSpec, Reporter, Tracker};

/// Rows per chunk: one COPY or LOAD DATA statement of a few MB.
pub const CHUNK_ROWS: usize = 20_000;

/// The generator's rows for `table`, part `part` of `parts` (1-based, as dbgen's `-C`/`-S`),
/// handed to `emit` as (COPY text, rows) chunks. REGION and NATION are whole in part 1 and
/// empty in the others. Returns false as soon as `emit` does (stop asked).
pub fn generate(
    table: Table,
    sf: f64,
    part: u32,
    parts: u32,
    emit: &mut dyn FnMut(Vec<u8>, u64) -> bool,
) -> bool {
    generate_as(push_row, table, sf, part, parts, emit)
}

/// The same rows as [`generate`], as dbgen writes them: each field followed by `|`, one
/// row a line.
pub fn generate_tbl(
    table: Table,
    sf: f64,
    part: u32,
    parts: u32,
    emit: &mut dyn FnMut(Vec<u8>, u64) -> bool,
) -> bool {
    generate_as(push_tbl, table, sf, part, parts, emit)
}

/// Writes one row's dbgen text into a chunk.
type Push = fn(&str, &mut Vec<u8>);

fn generate_as(
    push: Push,
    table: Table,
    sf: f64,
    part: u32,
    parts: u32,
    emit: &mut dyn FnMut(Vec<u8>, u64) -> bool,
) -> bool {
    let (p, n) = (part as i32, parts as i32);
    match table {
        Table::Region if part == 1 => chunked(RegionGenerator::new(sf, 1, 1).iter(), push, emit),
        Table::Nation if part == 1 => chunked(NationGenerator::new(sf, 1, 1).iter(), push, emit),
        Table::Region | Table::Nation => true,
        Table::Supplier => chunked(SupplierGenerator::new(sf, p, n).iter(), push, emit),
        Table::Customer => chunked(CustomerGenerator::new(sf, p, n).iter(), push, emit),
        Table::Part => chunked(PartGenerator::new(sf, p, n).iter(), push, emit),
        Table::PartSupp => chunked(PartSuppGenerator::new(sf, p, n).iter(), push, emit),
        Table::Orders => chunked(OrderGenerator::new(sf, p, n).iter(), push, emit),
        Table::Lineitem => chunked(LineItemGenerator::new(sf, p, n).iter(), push, emit),
    }
}

/// Rows the generator makes for `table` in part `part` of `parts`: exact for every table
/// but LINEITEM, whose lines per order are random; for it, `None`.
pub fn rows(table: Table, sf: f64, part: u32, parts: u32) -> Option<u64> {
    let (p, n) = (part as i32, parts as i32);
    let whole = |rows: u64| Some(if part == 1 { rows } else { 0 });
    let count = match table {
        Table::Region => return whole(5),
        Table::Nation => return whole(25),
        Table::Supplier => SupplierGenerator::calculate_row_count(sf, p, n),
        Table::Customer => CustomerGenerator::calculate_row_count(sf, p, n),
        Table::Part => PartGenerator::calculate_row_count(sf, p, n),
        // tpchgen counts PARTSUPP's parts (as it splits them); each has four suppliers.
        Table::PartSupp => SUPPLIERS_PER_PART * PartSuppGenerator::calculate_row_count(sf, p, n),
        Table::Orders => OrderGenerator::calculate_row_count(sf, p, n),
        Table::Lineitem => return None,
    };
    Some(u64::try_from(count).unwrap_or(0))
}

/// The key (first column) of the first row of part `part` of `parts` of a scaled table, or
/// `None` when that part is empty (or the table is REGION or NATION, which are not split):
/// where a part's rows start, to delete what a driver left of them.
pub fn first_key(table: Table, sf: f64, part: u32, parts: u32) -> Option<i64> {
    let (p, n) = (part as i32, parts as i32);
    let text = match table {
        Table::Region | Table::Nation => return None,
        Table::Supplier => SupplierGenerator::new(sf, p, n).iter().next()?.to_string(),
        Table::Customer => CustomerGenerator::new(sf, p, n).iter().next()?.to_string(),
        Table::Part => PartGenerator::new(sf, p, n).iter().next()?.to_string(),
        Table::PartSupp => PartSuppGenerator::new(sf, p, n).iter().next()?.to_string(),
        Table::Orders => OrderGenerator::new(sf, p, n).iter().next()?.to_string(),
        Table::Lineitem => LineItemGenerator::new(sf, p, n).iter().next()?.to_string(),
    };
    text.split('|').next()?.trim().parse().ok()
}

/// LINEITEM's rows for the whole scale factor, counted by running the generator: exact, and
/// quick for the small scale factors (about 6 million rows a second per scale factor 1).
pub fn lineitem_rows(sf: f64) -> u64 {
    LineItemGenerator::new(sf, 1, 1).iter().count() as u64
}

/// PARTSUPP rows per part (TPC-H clause 4.2.3).
const SUPPLIERS_PER_PART: i64 = 4;

/// Lines per order on average (1 to 7, uniform): LINEITEM's size for progress.
pub const LINES_PER_ORDER: u64 = 4;

/// A row of dbgen's `|`-ended text as a COPY line.
fn push_row(text: &str, buf: &mut Vec<u8>) {
    let fields = text.strip_suffix('|').unwrap_or(text);
    buf.extend(fields.bytes().map(|b| if b == b'|' { b'\t' } else { b }));
    buf.push(b'\n');
}

/// A row of dbgen's text as it is.
fn push_tbl(text: &str, buf: &mut Vec<u8>) {
    buf.extend_from_slice(text.as_bytes());
    buf.push(b'\n');
}

fn chunked<R: Display>(
    rows: impl Iterator<Item = R>,
    push: Push,
    emit: &mut dyn FnMut(Vec<u8>, u64) -> bool,
) -> bool {
    let mut text = String::with_capacity(256);
    let mut buf = Vec::with_capacity(CHUNK_ROWS * 128);
    let mut n = 0u64;
    for row in rows {
        text.clear();
        // Writing into a String cannot fail.
        let _ = write!(text, "{row}");
        push(&text, &mut buf);
        n += 1;
        if n as usize == CHUNK_ROWS {
            if !emit(std::mem::take(&mut buf), n) {
                return false;
            }
            n = 0;
        }
    }
    n == 0 || emit(buf, n)
}

/// What `datagenrun` wrote.
#[derive(Debug, Clone)]
pub struct Generated {
    pub rows: u64,
    pub files: usize,
    pub bytes: u64,
    pub elapsed: Duration,
}

/// The tables REGION and NATION, written whole by virtual user 1.
const FIXED: [Table; 2] = [Table::Region, Table::Nation];

/// One writer's work: its tables and its part of each, and the virtual user it speaks as.
#[derive(Debug, Clone, Copy)]
struct Job {
    tables: &'static [Table],
    part: u32,
    vuser: usize,
}

/// The writers of `parts` parts: virtual user 1 writes REGION and NATION, then each part is
/// a virtual user of its own (as the build's loaders; with one part, virtual user 1 does
/// everything).
fn jobs(parts: u32) -> Vec<Job> {
    let mut jobs = vec![Job {
        tables: &FIXED,
        part: 1,
        vuser: 1,
    }];
    jobs.extend((1..=parts).map(|part| Job {
        tables: &Table::SCALED,
        part,
        vuser: if parts == 1 { 1 } else { part as usize + 1 },
    }));
    jobs
}

/// The file of `table`'s part `part`: `<table>_<part>.tbl`, HammerDB's name.
pub fn tbl_path(dir: &Path, table: Table, part: u32) -> PathBuf {
    dir.join(format!("{}_{part}.tbl", table.name()))
}

/// `datagenrun`: scale factor `sf`'s rows, split into `parts` parts as dbgen's `-C parts
/// -S part` splits them, as dbgen's text in `<table>_<part>.tbl` files in `dir` (REGION and
/// NATION whole in part 1), one writer thread per part. Refuses to overwrite any file.
/// Blocking; Ctrl-C stops every writer at its next chunk and says what was written.
pub fn datagen(
    sf: f64,
    parts: u32,
    dir: &Path,
    say: &Say,
    interrupt: &Interrupt,
) -> Result<Generated> {
    let started = Instant::now();
    let parts = parts.max(1);
    let jobs = jobs(parts);
    let files: Vec<PathBuf> = jobs
        .iter()
        .flat_map(|j| j.tables.iter().map(|t| tbl_path(dir, *t, j.part)))
        .collect();
    if let Some(existing) = files.iter().find(|f| f.exists()) {
        return Err(Error::FileExists {
            path: existing.display().to_string(),
            way_out: "dgset directory",
        });
    }
    let specs = jobs
        .iter()
        .map(|j| PartSpec {
            name: if j.tables == FIXED {
                "region, nation".into()
            } else {
                format!("part {} of {parts}", j.part)
            },
            expected: j
                .tables
                .iter()
                .map(|t| expected_rows(*t, sf, j.part, parts))
                .sum(),
            exact: j.tables == FIXED,
        })
        .collect();
    let progress = Tracker::new("rows", specs);
    let out = say.out();
    let reporter = Reporter::start(out.clone(), progress.clone(), "Generating", Mode::of(out));
    let created = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let result: Result<()> = std::thread::scope(|scope| {
        let handles: Vec<_> = jobs
            .iter()
            .enumerate()
            .map(|(i, job)| {
                let writer = Writer {
                    dir,
                    sf,
                    parts,
                    job: *job,
                    say: say.as_vuser(job.vuser),
                    progress: (&progress, i),
                    interrupt,
                    created: &created,
                    failed: &failed,
                };
                scope.spawn(move || writer.run())
            })
            .collect();
        // Every thread is joined. The error reported is the first that is not a stop (a
        // writer stops when another fails), else the stop.
        let mut first = Ok(());
        for h in handles {
            let r = h.join().unwrap_or_else(|_| {
                Err(Error::Panicked {
                    what: "a data generation thread",
                })
            });
            if let Err(e) = r {
                if first.is_ok() || matches!(first, Err(Error::Interrupted)) {
                    first = Err(e);
                }
            }
        }
        first
    });
    reporter.finish();
    let created = created.load(Ordering::Relaxed);
    match result {
        Err(Error::Interrupted) => Err(Error::DatagenStopped {
            rows: progress.total(),
            files: created,
            dir: dir.display().to_string(),
        }),
        Err(e) => Err(e),
        Ok(()) => Ok(Generated {
            rows: progress.total(),
            files: created,
            bytes: files
                .iter()
                .filter_map(|f| std::fs::metadata(f).ok())
                .map(|m| m.len())
                .sum(),
            elapsed: started.elapsed(),
        }),
    }
}

/// Rows `table`'s part holds, LINEITEM's estimated from its orders.
fn expected_rows(table: Table, sf: f64, part: u32, parts: u32) -> u64 {
    rows(table, sf, part, parts)
        .unwrap_or_else(|| LINES_PER_ORDER * rows(Table::Orders, sf, part, parts).unwrap_or(0))
}

/// One writer thread of [`datagen`].
struct Writer<'a> {
    dir: &'a Path,
    sf: f64,
    parts: u32,
    job: Job,
    say: Say,
    progress: (&'a Tracker, usize),
    interrupt: &'a Interrupt,
    /// Files created so far, by every writer.
    created: &'a AtomicUsize,
    /// Set by the first writer that fails, so the others stop too.
    failed: &'a AtomicBool,
}

impl Writer<'_> {
    fn run(&self) -> Result<()> {
        let r = self.job.tables.iter().try_for_each(|t| self.table(*t));
        match &r {
            Ok(()) => self.progress.0.finish(self.progress.1),
            Err(_) => self.failed.store(true, Ordering::Relaxed),
        }
        r
    }

    /// Writes this part of `table` into a file of its own.
    fn table(&self, table: Table) -> Result<()> {
        let (part, parts) = (self.job.part, self.parts);
        let name = table.name().to_uppercase();
        if self.job.tables == FIXED || parts == 1 {
            self.say.line(format!("Generating {name}"));
        } else {
            self.say
                .line(format!("Generating {name} part {part} of {parts}"));
        }
        let path = tbl_path(self.dir, table, part);
        let io = |what: &'static str, source| Error::Io {
            what,
            path: path.display().to_string(),
            source,
        };
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| io("cannot create", e))?;
        self.created.fetch_add(1, Ordering::Relaxed);
        let mut file = std::io::BufWriter::with_capacity(1 << 20, file);
        let mut error = None;
        let finished = generate_tbl(table, self.sf, part, parts, &mut |buf, n| {
            if self.interrupt.is_set() || self.failed.load(Ordering::Relaxed) {
                return false;
            }
            if let Err(e) = file.write_all(&buf) {
                error = Some(io("cannot write", e));
                return false;
            }
            self.progress.0.add(self.progress.1, n);
            true
        });
        if let Err(e) = file.flush() {
            error.get_or_insert(io("cannot write", e));
        }
        match error {
            Some(e) => Err(e),
            None if finished => Ok(()),
            // Stopped: by Ctrl-C, or because another writer failed (whose error is said).
            None => Err(Error::Interrupted),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(table: Table, sf: f64, part: u32, parts: u32) -> (String, u64) {
        let (mut text, mut rows) = (Vec::new(), 0);
        assert!(generate(table, sf, part, parts, &mut |buf, n| {
            text.extend(buf);
            rows += n;
            true
        }));
        (String::from_utf8(text).unwrap(), rows)
    }

    #[test]
    fn dbgens_known_rows_as_copy_text() {
        let (nation, n) = all(Table::Nation, 0.01, 1, 1);
        assert_eq!(n, 25);
        let first = nation.lines().next().unwrap();
        let fields: Vec<&str> = first.split('\t').collect();
        assert_eq!(fields.len(), Table::Nation.columns().len());
        assert_eq!(&fields[..3], ["0", "ALGERIA", "0"]);
        let (region, n) = all(Table::Region, 0.01, 1, 1);
        assert_eq!(n, 5);
        assert!(region.starts_with("0\tAFRICA\t"), "{region}");
        // Only part 1 has the fixed tables.
        assert_eq!(all(Table::Nation, 0.01, 2, 2).1, 0);
    }

    #[test]
    fn parts_together_give_the_whole_table_and_the_counts_agree() {
        for table in Table::ALL {
            let (whole, n) = all(table, 0.01, 1, 1);
            assert_eq!(whole.lines().count() as u64, n, "{table:?}");
            let ncols = table.columns().len();
            assert!(
                whole.lines().all(|l| l.split('\t').count() == ncols),
                "{table:?}"
            );
            let (a, na) = all(table, 0.01, 1, 3);
            let (b, nb) = all(table, 0.01, 2, 3);
            let (c, nc) = all(table, 0.01, 3, 3);
            assert_eq!(format!("{a}{b}{c}"), whole, "{table:?}");
            assert_eq!(na + nb + nc, n, "{table:?}");
            match rows(table, 0.01, 1, 1) {
                Some(expected) => assert_eq!(expected, n, "{table:?}"),
                None => assert_eq!(lineitem_rows(0.01), n),
            }
        }
        assert_eq!(rows(Table::Orders, 0.01, 1, 1), Some(15_000));
        assert_eq!(rows(Table::PartSupp, 0.01, 1, 1), Some(8_000));
    }
    #[test]
    fn tbl_text_is_dbgens_own() {
        let mut text = Vec::new();
        assert!(generate_tbl(Table::Nation, 0.01, 1, 1, &mut |buf, _| {
            text.extend(buf);
            true
        }));
        let text = String::from_utf8(text).unwrap();
        assert_eq!(
            text.lines().next(),
            Some("0|ALGERIA|0| haggle. carefully final deposits detect slyly agai|")
        );
        assert_eq!(text.lines().count(), 25);
        // The same rows as the loaders' COPY text, `|` for tab and at the end.
        let (copy, _) = all(Table::Orders, 0.01, 2, 3);
        let mut tbl = Vec::new();
        generate_tbl(Table::Orders, 0.01, 2, 3, &mut |buf, _| {
            tbl.extend(buf);
            true
        });
        let tbl = String::from_utf8(tbl).unwrap();
        let as_copy: Vec<String> = tbl
            .lines()
            .map(|l| l.strip_suffix('|').unwrap().replace('|', "\t"))
            .collect();
        assert_eq!(as_copy, copy.lines().collect::<Vec<_>>());
    }

    #[test]
    fn datagen_writes_every_part_once_refuses_to_overwrite_and_stops_at_ctrl_c() {
        let dir = tempfile::tempdir().unwrap();
        let out = crate::output::Output::capture();
        let say = Say::new(out.clone(), 1);
        let g = datagen(0.01, 2, dir.path(), &say, &Interrupt::default()).unwrap();
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        let mut want = vec!["nation_1.tbl".to_string(), "region_1.tbl".to_string()];
        for t in Table::SCALED {
            for n in 1..=2 {
                want.push(format!("{}_{n}.tbl", t.name()));
            }
        }
        want.sort();
        assert_eq!(names, want);
        assert_eq!(g.files, want.len());
        let lines: usize = names
            .iter()
            .map(|n| {
                std::fs::read_to_string(dir.path().join(n))
                    .unwrap()
                    .lines()
                    .count()
            })
            .sum();
        assert_eq!(g.rows as usize, lines);
        assert_eq!(g.rows, 86_805);
        assert!(g.bytes > 0);
        let said = out.take_captured();
        for line in [
            "Vuser 1:Generating REGION",
            "Vuser 3:Generating LINEITEM part 2 of 2",
        ] {
            assert!(said.iter().any(|l| l == line), "{line}: {said:#?}");
        }
        let e = datagen(0.01, 2, dir.path(), &say, &Interrupt::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("already exists"), "{e}");

        let other = tempfile::tempdir().unwrap();
        let interrupt = Interrupt::default();
        interrupt.fire();
        let e = datagen(0.01, 1, other.path(), &say, &interrupt).unwrap_err();
        assert!(matches!(e, Error::DatagenStopped { rows: 0, .. }), "{e}");
        assert!(
            e.to_string()
                .starts_with("Data generation stopped by Ctrl-C after 0 rows in "),
            "{e}"
        );
    }
}
