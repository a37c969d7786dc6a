//! The drivers' board: two small tables in the database under test that several hammer
//! processes read and write to run one benchmark together. `hammer_runs` holds a named run
//! (how many drivers it waits for, and the common start once they are all in);
//! `hammer_drivers` one row per driver (who, which warehouses, its delay and rampup, a
//! heartbeat, and at the end its part of the result as JSON). Times are the server's, in
//! milliseconds since the epoch, so that drivers on machines whose clocks differ agree.

use std::time::{Duration, Instant};

use crate::config::keys::{family, Family};
use crate::config::Database;
use crate::fault::DbError;
use crate::sql::{Rows, ScriptConn};

/// How long one statement on the board may take before the board counts as unreachable.
pub const STATEMENT_TIMEOUT: Duration = Duration::from_secs(10);

/// The SQL each family speaks for the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavour {
    Pg,
    My,
}

impl Flavour {
    pub fn of(db: Database) -> Self {
        match family(db) {
            Family::Pg(_) => Flavour::Pg,
            Family::My(_) => Flavour::My,
        }
    }

    /// The server's clock now, in milliseconds since the epoch.
    fn now_ms(self) -> &'static str {
        match self {
            Flavour::Pg => "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)",
            Flavour::My => "CAST(UNIX_TIMESTAMP(NOW(6)) * 1000 AS SIGNED)",
        }
    }

    fn long_text(self) -> &'static str {
        match self {
            Flavour::Pg => "TEXT",
            Flavour::My => "MEDIUMTEXT",
        }
    }

    /// `text` as a string literal: PostgreSQL doubles quotes; MariaDB/MySQL also treat a
    /// backslash as an escape unless told otherwise, so it is doubled too.
    pub fn literal(self, text: &str) -> String {
        let mut out = String::with_capacity(text.len() + 2);
        out.push('\'');
        for c in text.chars() {
            match c {
                '\'' => out.push_str("''"),
                '\\' if self == Flavour::My => out.push_str("\\\\"),
                '\0' => {}
                c => out.push(c),
            }
        }
        out.push('\'');
        out
    }

    fn insert_or_nothing(self, table: &str, columns: &str, values: &str) -> String {
        match self {
            Flavour::Pg => {
                format!("INSERT INTO {table} ({columns}) VALUES ({values}) ON CONFLICT DO NOTHING")
            }
            Flavour::My => format!("INSERT IGNORE INTO {table} ({columns}) VALUES ({values})"),
        }
    }
}

/// One driver's row as it joins.
#[derive(Debug, Clone)]
pub struct Entry {
    pub host: String,
    pub pid: u32,
    pub first_ware: u32,
    pub last_ware: u32,
    pub vus: u32,
    /// After the common start, when this driver starts its virtual users.
    pub delay_ms: i64,
    /// Its rampup.
    pub rampup_ms: i64,
    pub duration_ms: i64,
    /// A step (`drivers_step`): it measures a window of its own, from its start for its
    /// duration, inside the run's; the run's window is the other drivers'.
    pub step: bool,
}

/// A driver's row as the board holds it.
#[derive(Debug, Clone)]
pub struct Row {
    pub driver: u32,
    pub entry: Entry,
    pub joined_ms: i64,
    pub beat_ms: i64,
    /// `joined`, `done` or `failed`.
    pub state: String,
    pub part: Option<String>,
}

/// A named run's row.
#[derive(Debug, Clone)]
pub struct RunRow {
    pub drivers: u32,
    pub start_ms: Option<i64>,
}

/// A connection to the board, with the flavour of its SQL.
pub struct Board {
    pub conn: ScriptConn,
    pub flavour: Flavour,
}

fn num<T: std::str::FromStr>(v: &Option<String>) -> Option<T> {
    v.as_deref().and_then(|s| s.trim().parse().ok())
}

impl Board {
    async fn query(&mut self, sql: &str) -> Result<Rows, DbError> {
        bounded(self.conn.query(sql)).await?
    }

    async fn execute(&mut self, sql: &str) -> Result<u64, DbError> {
        bounded(self.conn.execute(sql)).await?
    }

    /// Creates the tables if they are not there. Two drivers creating them at once may
    /// collide on PostgreSQL's catalogue: the loser tries again.
    pub async fn create(&mut self) -> Result<(), DbError> {
        let text = self.flavour.long_text();
        let runs = "CREATE TABLE IF NOT EXISTS hammer_runs (run VARCHAR(64) NOT NULL PRIMARY KEY, \
                    drivers INT NOT NULL, created_ms BIGINT NOT NULL, start_ms BIGINT)"
            .to_string();
        let drivers = format!(
            "CREATE TABLE IF NOT EXISTS hammer_drivers (run VARCHAR(64) NOT NULL, \
             driver INT NOT NULL, host VARCHAR(255) NOT NULL, pid BIGINT NOT NULL, \
             first_ware INT NOT NULL, last_ware INT NOT NULL, vus INT NOT NULL, \
             delay_ms BIGINT NOT NULL, rampup_ms BIGINT NOT NULL, duration_ms BIGINT NOT NULL, \
             joined_ms BIGINT NOT NULL, beat_ms BIGINT NOT NULL, state VARCHAR(16) NOT NULL, \
             part {text}, step INT NOT NULL DEFAULT 0, PRIMARY KEY (run, driver))"
        );
        for sql in [runs, drivers] {
            let mut tries = 0;
            loop {
                match self.execute(&sql).await {
                    Ok(_) => break,
                    Err(e) if tries < 3 && e.kind == crate::fault::Failure::Other => {
                        tries += 1;
                        tokio::time::sleep(Duration::from_millis(100 * tries)).await;
                    }
                    Err(e) => return Err(e),
                }
            }
        }
        self.add_step_column().await
    }

    /// A board made by a hammer before steps has no `step` column: it gets one (MySQL has
    /// no `ADD COLUMN IF NOT EXISTS`, so the catalogue is asked first). Two drivers adding it
    /// at once: the loser finds it there.
    async fn add_step_column(&mut self) -> Result<(), DbError> {
        let schema = match self.flavour {
            Flavour::Pg => "current_schema()",
            Flavour::My => "DATABASE()",
        };
        let has = |rows: &Rows| !rows.is_empty();
        let ask = format!(
            "SELECT 1 FROM information_schema.columns WHERE table_schema = {schema} \
             AND table_name = 'hammer_drivers' AND column_name = 'step'"
        );
        if has(&self.query(&ask).await?) {
            return Ok(());
        }
        match self
            .execute("ALTER TABLE hammer_drivers ADD COLUMN step INT NOT NULL DEFAULT 0")
            .await
        {
            Ok(_) => Ok(()),
            Err(_) if has(&self.query(&ask).await?) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// The server's clock and how far it is from this process's: `(server now, offset)`,
    /// the offset to add to a local reading, taken at the middle of the round trip.
    pub async fn clock(&mut self) -> Result<(i64, i64), DbError> {
        let before = epoch_ms();
        let sent = Instant::now();
        let rows = self
            .query(&format!("SELECT {}", self.flavour.now_ms()))
            .await?;
        let half = sent.elapsed().as_millis() as i64 / 2;
        let server: i64 = rows
            .first()
            .and_then(|r| r.first())
            .and_then(num)
            .unwrap_or(before);
        Ok((server, server - (before + half)))
    }

    /// Registers the run unless it is there already, and reads it.
    pub async fn open_run(&mut self, run: &str, drivers: u32) -> Result<RunRow, DbError> {
        let f = self.flavour;
        let sql = f.insert_or_nothing(
            "hammer_runs",
            "run, drivers, created_ms",
            &format!("{}, {drivers}, {}", f.literal(run), f.now_ms()),
        );
        self.execute(&sql).await?;
        self.run(run).await.map(|r| {
            r.unwrap_or(RunRow {
                drivers,
                start_ms: None,
            })
        })
    }

    pub async fn run(&mut self, run: &str) -> Result<Option<RunRow>, DbError> {
        let rows = self
            .query(&format!(
                "SELECT drivers, start_ms FROM hammer_runs WHERE run = {}",
                self.flavour.literal(run)
            ))
            .await?;
        Ok(rows.first().map(|r| RunRow {
            drivers: num(&r[0]).unwrap_or(0),
            start_ms: num(&r[1]),
        }))
    }

    /// Takes driver number `wanted`, or the next free one for 0; `None` when another driver
    /// holds it (for 0: took it at the same moment; try again).
    pub async fn take_number(
        &mut self,
        run: &str,
        e: &Entry,
        wanted: u32,
    ) -> Result<Option<u32>, DbError> {
        let f = self.flavour;
        let n = if wanted > 0 {
            wanted
        } else {
            let rows = self
                .query(&format!(
                    "SELECT COALESCE(MAX(driver), 0) + 1 FROM hammer_drivers WHERE run = {}",
                    f.literal(run)
                ))
                .await?;
            rows.first()
                .and_then(|r| r.first())
                .and_then(num)
                .unwrap_or(1)
        };
        let sql = f.insert_or_nothing(
            "hammer_drivers",
            "run, driver, host, pid, first_ware, last_ware, vus, delay_ms, rampup_ms, \
             duration_ms, step, joined_ms, beat_ms, state",
            &format!(
                "{}, {n}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {now}, {now}, 'joined'",
                f.literal(run),
                f.literal(&e.host),
                e.pid,
                e.first_ware,
                e.last_ware,
                e.vus,
                e.delay_ms,
                e.rampup_ms,
                e.duration_ms,
                u8::from(e.step),
                now = f.now_ms()
            ),
        );
        Ok((self.execute(&sql).await? == 1).then_some(n))
    }

    /// Every driver's row of the run, in driver order.
    pub async fn drivers(&mut self, run: &str) -> Result<Vec<Row>, DbError> {
        let rows = self
            .query(&format!(
                "SELECT driver, host, pid, first_ware, last_ware, vus, delay_ms, rampup_ms, \
                 duration_ms, joined_ms, beat_ms, state, part, step FROM hammer_drivers \
                 WHERE run = {} ORDER BY driver",
                self.flavour.literal(run)
            ))
            .await?;
        Ok(rows
            .iter()
            .map(|r| Row {
                driver: num(&r[0]).unwrap_or(0),
                entry: Entry {
                    host: r[1].clone().unwrap_or_default(),
                    pid: num(&r[2]).unwrap_or(0),
                    first_ware: num(&r[3]).unwrap_or(0),
                    last_ware: num(&r[4]).unwrap_or(0),
                    vus: num(&r[5]).unwrap_or(0),
                    delay_ms: num(&r[6]).unwrap_or(0),
                    rampup_ms: num(&r[7]).unwrap_or(0),
                    duration_ms: num(&r[8]).unwrap_or(0),
                    step: num::<u8>(&r[13]).unwrap_or(0) != 0,
                },
                joined_ms: num(&r[9]).unwrap_or(0),
                beat_ms: num(&r[10]).unwrap_or(0),
                state: r[11].clone().unwrap_or_default(),
                part: r[12].clone(),
            })
            .collect())
    }

    /// Fixes the common start `lead_ms` from now unless another driver fixed it first, and
    /// reads the one that holds.
    pub async fn fix_start(&mut self, run: &str, lead_ms: i64) -> Result<Option<i64>, DbError> {
        let f = self.flavour;
        self.execute(&format!(
            "UPDATE hammer_runs SET start_ms = {} + {lead_ms} WHERE run = {} AND start_ms IS NULL",
            f.now_ms(),
            f.literal(run)
        ))
        .await?;
        Ok(self.run(run).await?.and_then(|r| r.start_ms))
    }

    /// Says this driver is alive.
    pub async fn beat(&mut self, run: &str, driver: u32) -> Result<(), DbError> {
        let f = self.flavour;
        self.execute(&format!(
            "UPDATE hammer_drivers SET beat_ms = {} WHERE run = {} AND driver = {driver}",
            f.now_ms(),
            f.literal(run)
        ))
        .await
        .map(|_| ())
    }

    /// Leaves the run (a driver that gave up before the start).
    pub async fn leave(&mut self, run: &str, driver: u32) -> Result<(), DbError> {
        self.execute(&format!(
            "DELETE FROM hammer_drivers WHERE run = {} AND driver = {driver}",
            self.flavour.literal(run)
        ))
        .await
        .map(|_| ())
    }

    /// Posts this driver's part of the result: `state` `done` or `failed`.
    pub async fn post(
        &mut self,
        run: &str,
        driver: u32,
        state: &str,
        part: &str,
    ) -> Result<(), DbError> {
        let f = self.flavour;
        self.execute(&format!(
            "UPDATE hammer_drivers SET state = {}, part = {}, beat_ms = {} \
             WHERE run = {} AND driver = {driver}",
            f.literal(state),
            f.literal(part),
            f.now_ms(),
            f.literal(run)
        ))
        .await
        .map(|_| ())
    }
}

/// This process's clock, in milliseconds since the epoch.
pub fn epoch_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

async fn bounded<T>(
    f: impl std::future::Future<Output = Result<T, DbError>>,
) -> Result<Result<T, DbError>, DbError> {
    match tokio::time::timeout(STATEMENT_TIMEOUT, f).await {
        Ok(r) => Ok(r),
        Err(_) => Err(DbError {
            action: "drivers' board",
            db: "",
            addr: String::new(),
            user: String::new(),
            kind: crate::fault::Failure::Unreachable,
            detail: format!("no reply within {} s", STATEMENT_TIMEOUT.as_secs()),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_keep_quotes_and_backslashes_as_text() {
        assert_eq!(Flavour::Pg.literal("a'b\\c"), "'a''b\\c'");
        assert_eq!(Flavour::My.literal("a'b\\c"), "'a''b\\\\c'");
    }
}
