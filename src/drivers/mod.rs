//! Several hammer processes ("drivers"), on one machine or many, running one TPROC-C
//! benchmark: each owns a range of warehouses, they join a named run on a board in the
//! database under test ([`board`]), start together or staggered so that every one measures
//! the same window, and at the end each posts its part ([`part`]) and reads the others', so
//! that every driver can print the one merged result.
//!
//! The keys are hammer's own, in the generic dictionary's `drivers` section:
//! `drivers_run` (the run's name; empty for a run of its own), `drivers_count` (how many
//! drivers it waits for), `drivers_delay` (minutes after the common start this driver starts
//! its virtual users), `drivers_wait` (seconds it waits for the others to join),
//! `drivers_number` (this driver's number; 0 for the order they join) and `drivers_step`
//! (a step of a stepped load: it measures a window of its own inside the run's).
//!
//! The window: every driver posts its delay and rampup as it joins; once all have joined,
//! the first to see it fixes the common start on the server's clock, and the window opens at
//! the start plus the longest delay-and-rampup of the drivers that are not steps and lasts
//! the duration of the first of them. A driver starting later thus ramps up for less, as
//! YugabyteDB's staggered clients do. A step (HammerDB's `steprun` replicas) measures from
//! its own start plus rampup for its own duration, which must lie inside the run's window:
//! every driver's transactions then fall in the window the database's counters cover.

pub mod board;
pub mod part;

use std::sync::Arc;
use std::time::{Duration, Instant};

use board::{epoch_ms, Board, Entry, Flavour, Row};
use part::Part;

use crate::config::Settings;
use crate::error::{Error, Result};
use crate::fault::DbError;
use crate::interrupt::Interrupt;
use crate::sql::ScriptConn;
use crate::task::Pending;
use crate::vu::{FixedWindow, Say};

/// From the moment the last driver joins to the common start: long enough for every
/// driver polling the board to see the start before it comes.
const START_LEAD_MS: i64 = 1500;
/// How often a waiting driver looks at the board.
const POLL: Duration = Duration::from_millis(250);
/// How often a driver says it is alive.
const BEAT: Duration = Duration::from_secs(2);
/// A driver whose heartbeat is older than this is taken for dead.
pub const DEAD_AFTER_MS: i64 = 15_000;
/// Around the window, the margin of quiet on PostgreSQL ([`quiet_span`]).
const QUIET_MARGIN: Duration = Duration::from_secs(2);
/// How long, after posting its own part, a driver waits for the others' parts.
const GATHER_FOR: Duration = Duration::from_secs(120);

/// Opens a connection to the board (the database under test, as the schema owner).
pub type Opener =
    Arc<dyn Fn() -> Pending<'static, std::result::Result<ScriptConn, DbError>> + Send + Sync>;

/// A named run this driver is to join, from the generic dictionary.
#[derive(Debug, Clone)]
pub struct Team {
    pub run: String,
    pub count: u32,
    pub delay: Duration,
    pub wait: Duration,
    /// The driver number this driver takes; 0 for the next free one.
    pub number: u32,
    /// A step: a window of its own inside the run's.
    pub step: bool,
}

impl Team {
    /// The run the settings name, or `None` for a run of its own. A name the board cannot
    /// hold is refused.
    pub fn of(settings: &Settings) -> Result<Option<Team>> {
        let g = &settings.generic;
        let run = g.get("drivers_run").trim().to_string();
        if run.is_empty() {
            return Ok(None);
        }
        let fits = run.len() <= 64
            && run
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_-.:".contains(c));
        if !fits {
            return Err(Error::Drivers {
                run,
                why: "a run's name (drivers_run) is at most 64 letters, digits, '_', '-', '.' or ':' \
                      (empty for a run of its own)"
                    .into(),
            });
        }
        Ok(Some(Team {
            run,
            count: g.get_u32("drivers_count").max(1),
            delay: g.get_minutes("drivers_delay"),
            wait: Duration::from_secs(g.get_u64("drivers_wait")),
            number: g.get_u32("drivers_number"),
            step: g.get_bool("drivers_step"),
        }))
    }
}

/// A driver that has joined its run and knows the common window.
pub struct Joined {
    pub run: String,
    /// This driver's number in the run, from 1 in the order they joined.
    pub driver: u32,
    /// Every driver as the run started.
    pub rows: Vec<Row>,
    /// On the server's clock: the common start, and the window every driver measures.
    pub start_ms: i64,
    pub window_ms: (i64, i64),
    /// On this process's clock: when this driver starts its virtual users, and the window.
    pub my_start: Instant,
    pub window: FixedWindow,
    /// When the last driver joined, and when this one learnt the start (for the benchmark
    /// of coordination's cost).
    pub last_join_ms: i64,
    board: Arc<tokio::sync::Mutex<Board>>,
    opener: Opener,
    beat: tokio::task::JoinHandle<()>,
    /// When this driver says nothing on the board (see [`quiet_span`]).
    quiet: Option<(Instant, Instant)>,
    /// Server clock minus this process's.
    offset_ms: i64,
}

/// What one driver of the run did, as the others read it at the end.
#[derive(Debug, Clone)]
pub struct Member {
    pub row: Row,
    pub part: Option<Part>,
    /// Why it has no part: it died (with the last sign of life) or was not waited for.
    pub missing: Option<String>,
}

fn board_error(run: &str, e: DbError) -> Error {
    Error::Drivers {
        run: run.to_string(),
        why: format!("the board in the database under test: {e}"),
    }
}

async fn open_board(opener: &Opener, flavour: Flavour) -> std::result::Result<Board, DbError> {
    Ok(Board {
        conn: opener().await?,
        flavour,
    })
}

/// On PostgreSQL every statement on the board, even a read, is a transaction that
/// `pg_stat_database` counts for the database under test: over the window (with a margin for
/// the drivers' clocks) the drivers keep quiet, so that the run's TPM is the benchmark's own.
/// MariaDB and MySQL count only COMMIT and ROLLBACK statements, which the board never sends.
fn quiet_span(flavour: Flavour, w: FixedWindow) -> Option<(Instant, Instant)> {
    (flavour == Flavour::Pg).then(|| {
        (
            w.start.checked_sub(QUIET_MARGIN).unwrap_or(w.start),
            w.end + QUIET_MARGIN,
        )
    })
}

/// A server time on this process's clock.
fn local(ms: i64, offset_ms: i64) -> Instant {
    let now_server = epoch_ms() + offset_ms;
    let now = Instant::now();
    if ms >= now_server {
        now + Duration::from_millis((ms - now_server) as u64)
    } else {
        now.checked_sub(Duration::from_millis((now_server - ms) as u64))
            .unwrap_or(now)
    }
}

fn secs(ms: i64) -> String {
    let s = ms as f64 / 1000.0;
    if s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        format!("{s:.1} s")
    }
}

/// The run's window once every driver has joined.
#[derive(Debug, Clone, PartialEq)]
struct Plan {
    /// The driver whose duration the window has: the first that is not a step.
    lead: u32,
    /// On the server's clock.
    window_ms: (i64, i64),
}

impl Plan {
    /// The window from every driver's row: it opens at the start plus the longest
    /// delay-and-rampup of the drivers that are not steps and lasts the first one's duration.
    /// Refused when every driver is a step, or a step's own window does not lie inside.
    fn of(rows: &[Row], start_ms: i64) -> std::result::Result<Plan, String> {
        let whole: Vec<&Row> = rows.iter().filter(|r| !r.entry.step).collect();
        let Some(lead) = whole.first() else {
            return Err(
                "every driver is a step (drivers_step): one at least must measure the \
                        whole window"
                    .into(),
            );
        };
        let ready = whole
            .iter()
            .map(|r| r.entry.delay_ms + r.entry.rampup_ms)
            .max()
            .unwrap_or(0);
        let window_ms = (start_ms + ready, start_ms + ready + lead.entry.duration_ms);
        let late: Vec<String> = rows
            .iter()
            .filter(|r| r.entry.step)
            .filter_map(|r| {
                let e = &r.entry;
                let from = e.delay_ms + e.rampup_ms;
                let to = from + e.duration_ms;
                (from < ready || start_ms + to > window_ms.1).then(|| {
                    format!(
                        "driver {} measures from +{} to +{}",
                        r.driver,
                        secs(from),
                        secs(to)
                    )
                })
            })
            .collect();
        if !late.is_empty() {
            return Err(format!(
                "a step must measure inside the run's window, +{} to +{} ({}): shorten its \
                 duration or delay, or lengthen driver {}'s duration",
                secs(ready),
                secs(window_ms.1 - start_ms),
                late.join("; "),
                lead.driver
            ));
        }
        Ok(Plan {
            lead: lead.driver,
            window_ms,
        })
    }
}

/// Joins `team`'s run as `me`, waits until every driver has joined and the common start is
/// fixed, and says the plan. Ctrl-C or the wait running out leaves the run as it was.
pub async fn join(
    team: &Team,
    me: Entry,
    flavour: Flavour,
    opener: Opener,
    say: &Say,
    interrupt: &Interrupt,
) -> Result<Joined> {
    let run = team.run.as_str();
    let err = |e| board_error(run, e);
    let mut board = open_board(&opener, flavour).await.map_err(err)?;
    board.create().await.map_err(err)?;
    let r = board.open_run(run, team.count).await.map_err(err)?;
    if r.drivers != team.count {
        return Err(Error::Drivers {
            run: run.into(),
            why: format!(
                "it was opened for {} drivers, and drivers_count here is {}: set the same count \
                 on every driver",
                r.drivers, team.count
            ),
        });
    }
    if let Some(start) = r.start_ms {
        return Err(Error::Drivers {
            run: run.into(),
            why: format!(
                "it started at {} (server clock): name a new run with giset drivers drivers_run",
                crate::clock::text_time(start)
            ),
        });
    }
    if team.number > team.count {
        return Err(Error::Drivers {
            run: run.into(),
            why: format!(
                "drivers_number {} is more than drivers_count {}: numbers go from 1 to the count \
                 (0 takes the next free one)",
                team.number, team.count
            ),
        });
    }
    let mut driver = None;
    for _ in 0..50 {
        if let Some(n) = board
            .take_number(run, &me, team.number)
            .await
            .map_err(err)?
        {
            driver = Some(n);
            break;
        }
        if team.number > 0 {
            let rows = board.drivers(run).await.map_err(err)?;
            let holder = rows
                .iter()
                .find(|r| r.driver == team.number)
                .map(|r| format!(" (by {}, pid {})", r.entry.host, r.entry.pid))
                .unwrap_or_default();
            return Err(Error::Drivers {
                run: run.into(),
                why: format!(
                    "driver number {} is taken{holder}: give each driver its own drivers_number, \
                     or 0 to take the next free one",
                    team.number
                ),
            });
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let Some(driver) = driver else {
        return Err(Error::Drivers {
            run: run.into(),
            why: "no driver number could be taken".into(),
        });
    };
    if driver > team.count {
        let _ = board.leave(run, driver).await;
        return Err(Error::Drivers {
            run: run.into(),
            why: format!(
                "it has its {} drivers already: name a new run, or raise drivers_count on every driver",
                team.count
            ),
        });
    }
    say.line(format!(
        "Joined run {run} as driver {driver} of {} ({}, warehouses {}-{}{})",
        team.count,
        me.host,
        me.first_ware,
        me.last_ware,
        if me.step { ", a step" } else { "" }
    ));
    // Wait for the others, then for the start.
    let waited = Instant::now();
    let mut seen = 0;
    let mut last_join_ms = 0;
    let start_ms = loop {
        let step = async {
            board.beat(run, driver).await?;
            let rows = board.drivers(run).await?;
            let start = if rows.len() as u32 >= team.count {
                board.fix_start(run, START_LEAD_MS).await?
            } else {
                None
            };
            Ok::<_, DbError>((rows, start))
        };
        let (rows, start) = match step.await {
            Ok(v) => v,
            Err(e) => {
                let _ = board.leave(run, driver).await;
                return Err(err(e));
            }
        };
        if rows.len() != seen {
            seen = rows.len();
            last_join_ms = rows.iter().map(|r| r.joined_ms).max().unwrap_or(0);
            say.line(format!(
                "Run {run}: {seen} of {} drivers joined",
                team.count
            ));
        }
        if let Some(start) = start {
            break start;
        }
        if waited.elapsed() >= team.wait {
            let _ = board.leave(run, driver).await;
            let who: Vec<String> = rows
                .iter()
                .map(|r| {
                    format!(
                        "driver {} on {} (pid {})",
                        r.driver, r.entry.host, r.entry.pid
                    )
                })
                .collect();
            return Err(Error::Drivers {
                run: run.into(),
                why: format!(
                    "{} of {} drivers joined within {} s ({}); this driver left the run \
                     (drivers_wait sets how long to wait)",
                    rows.len(),
                    team.count,
                    team.wait.as_secs(),
                    who.join(", ")
                ),
            });
        }
        tokio::select! {
            _ = tokio::time::sleep(POLL) => {}
            _ = interrupt.wait() => {
                let _ = board.leave(run, driver).await;
                return Err(Error::Interrupted);
            }
        }
    };
    let rows = board.drivers(run).await.map_err(err)?;
    let (_, offset_ms) = board.clock().await.map_err(err)?;
    let plan = match Plan::of(&rows, start_ms) {
        Ok(p) => p,
        Err(why) => {
            let _ = board.leave(run, driver).await;
            return Err(Error::Drivers {
                run: run.into(),
                why,
            });
        }
    };
    let window_ms = plan.window_ms;
    let ready = window_ms.0 - start_ms;
    let duration = window_ms.1 - window_ms.0;
    let mine = start_ms + me.delay_ms;
    for r in &rows {
        let e = &r.entry;
        let how = if e.step {
            format!(
                "a step: measures from +{} for {}",
                secs(e.delay_ms + e.rampup_ms),
                secs(e.duration_ms)
            )
        } else {
            format!("ramps up for {}", secs(ready - e.delay_ms))
        };
        say.line(format!(
            "  driver {} on {} (pid {}): warehouses {}-{}, {} virtual users, starts at +{}, {how}",
            r.driver,
            e.host,
            e.pid,
            e.first_ware,
            e.last_ware,
            e.vus,
            secs(e.delay_ms),
        ));
    }
    say.line(format!(
        "Run {run} starts at {} (server clock); every driver measures from +{} for {}{}",
        crate::clock::text_time(start_ms),
        secs(ready),
        secs(duration),
        if rows.iter().any(|r| r.entry.step) {
            " (steps: a part of it)"
        } else {
            ""
        }
    ));
    if !me.step && duration != me.duration_ms {
        say.line(format!(
            "(this driver's duration is {}: the common window follows driver {}'s)",
            secs(me.duration_ms),
            plan.lead
        ));
    }
    let my_window_ms = if me.step {
        (
            start_ms + me.delay_ms + me.rampup_ms,
            start_ms + me.delay_ms + me.rampup_ms + me.duration_ms,
        )
    } else {
        window_ms
    };
    let board = Arc::new(tokio::sync::Mutex::new(board));
    let window = FixedWindow {
        start: local(my_window_ms.0, offset_ms),
        end: local(my_window_ms.1, offset_ms),
    };
    // Every driver keeps quiet over the run's window, a step's too.
    let quiet = quiet_span(
        flavour,
        FixedWindow {
            start: local(window_ms.0, offset_ms),
            end: local(window_ms.1, offset_ms),
        },
    );
    let beat = {
        let (board, opener, run) = (board.clone(), opener.clone(), run.to_string());
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(BEAT).await;
                if let Some((from, to)) = quiet {
                    let now = Instant::now();
                    if now >= from && now < to {
                        tokio::time::sleep_until(to.into()).await;
                    }
                }
                let mut b = board.lock().await;
                if b.beat(&run, driver).await.is_err() {
                    // A lost connection: a new one for the next beat.
                    if let Ok(fresh) = open_board(&opener, flavour).await {
                        *b = fresh;
                    }
                }
            }
        })
    };
    Ok(Joined {
        run: run.to_string(),
        driver,
        my_start: local(mine, offset_ms),
        window,
        quiet,
        rows,
        start_ms,
        window_ms,
        last_join_ms,
        board,
        opener,
        beat,
        offset_ms,
    })
}

impl Joined {
    /// This driver's row as it joined.
    pub fn me(&self) -> Option<&Row> {
        self.rows.iter().find(|r| r.driver == self.driver)
    }

    /// Waits until this driver's start; false when Ctrl-C came first.
    pub async fn wait_for_my_start(&self, interrupt: &Interrupt) -> bool {
        tokio::select! {
            _ = tokio::time::sleep_until(self.my_start.into()) => true,
            _ = interrupt.wait() => false,
        }
    }

    /// An instant of this process's clock on the server's.
    pub fn server_ms(&self, t: Instant) -> i64 {
        let now = Instant::now();
        self.server_now() - now.saturating_duration_since(t).as_millis() as i64
            + t.saturating_duration_since(now).as_millis() as i64
    }

    /// The server's clock now, as this driver reckons it.
    pub fn server_now(&self) -> i64 {
        epoch_ms() + self.offset_ms
    }

    /// Posts this driver's part (`failed` when its run did not complete), then waits until
    /// every other driver has posted or is dead, at most [`GATHER_FOR`] or until Ctrl-C, and
    /// gives every driver's part or why it has none.
    pub async fn finish(
        self,
        part: &Part,
        failed: bool,
        say: &Say,
        interrupt: &Interrupt,
    ) -> Result<Vec<Member>> {
        let run = self.run.clone();
        let err = |e| board_error(&run, e);
        let state = if failed { "failed" } else { "done" };
        let json = part.to_json();
        let flavour = self.board.lock().await.flavour;
        // A driver done early waits for the quiet to end (a slower one may still be taking
        // its last reading).
        if let Some((_, to)) = self.quiet {
            tokio::select! {
                _ = tokio::time::sleep_until(to.into()) => {}
                _ = interrupt.wait() => {}
            }
        }
        // The post matters more than anything: a lost connection gets a new one, once.
        let posted = {
            let mut b = self.board.lock().await;
            match b.post(&run, self.driver, state, &json).await {
                Ok(()) => Ok(()),
                Err(_) => match open_board(&self.opener, flavour).await {
                    Ok(fresh) => {
                        *b = fresh;
                        b.post(&run, self.driver, state, &json).await
                    }
                    Err(e) => Err(e),
                },
            }
        };
        self.beat.abort();
        posted.map_err(err)?;
        let until = Instant::now() + GATHER_FOR;
        let mut said = Vec::new();
        loop {
            let rows = self.board.lock().await.drivers(&run).await.map_err(err)?;
            let now = self.server_now();
            // Beats pause over a quiet window: until DEAD_AFTER past its end, a driver
            // without a part may still be alive.
            let settled = self.quiet.is_none() || now >= self.window_ms.1 + DEAD_AFTER_MS;
            let waiting: Vec<&Row> = rows
                .iter()
                .filter(|r| r.part.is_none() && (now - r.beat_ms < DEAD_AFTER_MS || !settled))
                .collect();
            let stop = waiting.is_empty() || Instant::now() >= until || interrupt.is_set();
            if stop {
                return Ok(rows
                    .into_iter()
                    .map(|r| {
                        let part = r.part.as_deref().and_then(Part::from_json);
                        let missing = match (&part, r.part.is_some()) {
                            (Some(_), _) => None,
                            (None, true) => Some("its part could not be read".to_string()),
                            (None, false) if now - r.beat_ms >= DEAD_AFTER_MS => Some(format!(
                                "died: its last sign of life was at {} (server clock){}",
                                crate::clock::text_time(r.beat_ms),
                                self.when_in_window(r.beat_ms)
                            )),
                            (None, false) => Some(format!(
                                "still running when this driver stopped waiting ({} s after posting)",
                                GATHER_FOR.as_secs()
                            )),
                        };
                        Member { row: r, part, missing }
                    })
                    .collect());
            }
            for r in waiting {
                if !said.contains(&r.driver) {
                    said.push(r.driver);
                    say.line(format!(
                        "Waiting for driver {}'s part (on {}, pid {})",
                        r.driver, r.entry.host, r.entry.pid
                    ));
                }
            }
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_millis(500)) => {}
                _ = interrupt.wait() => {}
            }
        }
    }

    /// `, 12.0 s into the window`, `, before the window`, `, after the window`.
    fn when_in_window(&self, ms: i64) -> String {
        let (a, b) = self.window_ms;
        if ms < a && self.quiet.is_some() {
            ", before the window opened (on PostgreSQL the drivers keep quiet over the window, so \
             that its transaction count is the benchmark's alone)"
                .into()
        } else if ms < a {
            ", before the window opened".into()
        } else if ms > b {
            ", after the window closed".into()
        } else {
            format!(", {} into the window", secs(ms - a))
        }
    }
}
