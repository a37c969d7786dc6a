//! HammerDB's Primary and Replica modes on hammer's terms (`switchmode`,
//! `distributescript`, `steprun`).
//!
//! HammerDB links a Primary to its Replicas over a TCP protocol of its own. hammer links them
//! through the jobs database every hammer already has ([`crate::jobs::store`]): the default
//! SQLite file for processes on one machine, the shared PostgreSQL store
//! (`giset commandline jobs_store`) across machines. A Primary opens a session under an id
//! (`Primary Mode active at id : N, hostname : H`); a Replica joins it by that id and follows:
//! it runs, in order, the commands the Primary posts (HammerDB's list: `dbset`, `diset`,
//! `vuset`, `loadscript`, `clearscript`, `vucreate`, `vurun`, `vudestroy`, and the script
//! `distributescript` sends) until the Primary leaves. Everyone beats every 2 s; one silent for
//! 15 s counts as gone.
//!
//! Beyond HammerDB: a timed TPROC-C `vurun` on a Primary with Replicas is one shared run
//! ([`crate::drivers`]), the Primary driver 1 and each Replica a driver, so every process
//! prints the one merged result (the database's counters over the common window, every
//! driver's histograms merged) where HammerDB's Replicas take no snapshots at all. Passwords
//! never travel: a forwarded `diset` of a password is not applied on a Replica, which keeps
//! its own (said once), and a Replica's settings changes hold for its session only, so that a
//! Replica sharing its data directory with the Primary never overwrites the user's settings.

pub mod steps;

use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::config::{Settings, Target};
use crate::error::{Error, Result};
use crate::jobs::store::{Location, ModeMember, Store};

/// How often a member says it is alive.
pub const BEAT: Duration = Duration::from_secs(2);
/// A member silent for longer counts as gone.
pub const SILENT_AFTER_MS: i64 = 15_000;
/// How often a Replica looks for commands.
pub const POLL: Duration = Duration::from_millis(250);

/// What a Primary runs and then sends its Replicas to run (HammerDB's list; `vurun` is sent
/// before the Primary runs it, since it blocks).
pub const FORWARDED: &[&str] = &[
    "dbset",
    "diset",
    "vuset",
    "loadscript",
    "clearscript",
    "vucreate",
    "vudestroy",
];

/// What stands for a password in a forwarded command.
pub const WITHHELD: &str = "*withheld*";

/// The mode a session is in.
#[derive(Default)]
pub enum Mode {
    #[default]
    Local,
    Primary(Role),
    Replica(Role),
}

impl Mode {
    /// HammerDB's name of it.
    pub fn name(&self) -> &'static str {
        match self {
            Mode::Local => "Local",
            Mode::Primary(_) => "Primary",
            Mode::Replica(_) => "Replica",
        }
    }

    pub fn is_replica(&self) -> bool {
        matches!(self, Mode::Replica(_))
    }

    pub fn primary(&self) -> Option<&Role> {
        match self {
            Mode::Primary(r) => Some(r),
            _ => None,
        }
    }

    pub fn primary_mut(&mut self) -> Option<&mut Role> {
        match self {
            Mode::Primary(r) => Some(r),
            _ => None,
        }
    }
}

/// A session's place: its id, this process's member number (0 for the Primary), the
/// Primary's host, and the beat that says it is alive.
pub struct Role {
    pub id: u32,
    pub member: u32,
    pub primary_host: String,
    /// Shared runs this Primary has started (their names count them).
    pub runs: u32,
    _beat: Beat,
}

/// A thread saying every [`BEAT`] that a member is alive, on a connection of its own; it ends
/// when dropped.
struct Beat {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Beat {
    fn start(at: Location, id: u32, member: u32) -> Beat {
        let (tx, rx) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("hammer-mode-beat".into())
            .spawn(move || {
                let mut store: Option<Store> = None;
                while let Err(mpsc::RecvTimeoutError::Timeout) = rx.recv_timeout(BEAT) {
                    if store.is_none() {
                        store = Store::connect(&at).ok();
                    }
                    if let Some(s) = &store {
                        if s.mode_beat(id, member).is_err() {
                            store = None;
                        }
                    }
                }
            })
            .ok();
        Beat {
            stop: Some(tx),
            thread,
        }
    }
}

impl Drop for Beat {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn store_error(e: impl std::fmt::Display) -> Error {
    Error::Mode {
        message: format!("Error: Primary and Replica mode need the jobs database: {e}"),
    }
}

/// Opens a Primary's session under a fresh id (HammerDB's ids are ports; any number from
/// 10000 to 65535 here).
pub fn open_primary(store: &Store, hostname: &str) -> Result<Role> {
    for _ in 0..50 {
        let id = 10_000 + rand::random::<u32>() % 55_536;
        if store
            .mode_open(id, hostname, std::process::id())
            .map_err(store_error)?
        {
            return Ok(Role {
                id,
                member: 0,
                primary_host: hostname.to_string(),
                runs: 0,
                _beat: Beat::start(store.location().clone(), id, 0),
            });
        }
    }
    Err(Error::Mode {
        message: "Error: no free Primary id in the jobs database".into(),
    })
}

/// How a session's Primary is.
#[derive(Debug, Clone, PartialEq)]
pub enum PrimaryState {
    Alive(ModeMember),
    Left,
    Silent(i64),
    Missing,
}

pub fn primary_state(store: &Store, id: u32) -> Result<PrimaryState> {
    let members = store.mode_members(id).map_err(store_error)?;
    Ok(match members.into_iter().find(|m| m.member == 0) {
        None => PrimaryState::Missing,
        Some(m) if m.left => PrimaryState::Left,
        Some(m) if m.beat_age_ms > SILENT_AFTER_MS => PrimaryState::Silent(m.beat_age_ms),
        Some(m) => PrimaryState::Alive(m),
    })
}

/// Joins session `id` as its next Replica. `host` is the Primary's host as the user named
/// it: `localhost` (HammerDB's default) matches any, another name must be the Primary's.
pub fn join_replica(store: &Store, id: u32, host: &str, hostname: &str) -> Result<Role> {
    let shown = store.shown();
    let where_ = format!(
        "in the jobs database {shown} (a Replica finds its Primary there: on another machine, \
         point both at one PostgreSQL server with giset commandline jobs_store)"
    );
    let primary = match primary_state(store, id)? {
        PrimaryState::Alive(m) => m,
        PrimaryState::Missing => {
            return Err(Error::Mode {
                message: format!("Error: no Primary with id {id} {where_}"),
            })
        }
        PrimaryState::Left => {
            return Err(Error::Mode {
                message: format!(
                    "Error: the Primary with id {id} has closed down; start a new one \
                     (switchmode primary) and use the id it gives"
                ),
            })
        }
        PrimaryState::Silent(ms) => {
            return Err(Error::Mode {
                message: format!(
                    "Error: the Primary with id {id} has been silent for {} s: its hammer is gone",
                    ms / 1000
                ),
            })
        }
    };
    let local = ["localhost", "127.0.0.1", "::1", ""];
    if !local.contains(&host) && !host.eq_ignore_ascii_case(&primary.hostname) {
        return Err(Error::Mode {
            message: format!(
                "Error: the Primary with id {id} runs on {}, not {host}",
                primary.hostname
            ),
        });
    }
    let member = store
        .mode_join(id, hostname, std::process::id())
        .map_err(store_error)?
        .ok_or_else(|| Error::Mode {
            message: format!("Error: the Primary with id {id} closed down as this Replica joined"),
        })?;
    Ok(Role {
        id,
        member,
        primary_host: primary.hostname,
        runs: 0,
        _beat: Beat::start(store.location().clone(), id, member),
    })
}

/// The Replicas following session `id` now: joined, not left, not silent.
pub fn live_replicas(store: &Store, id: u32) -> Result<Vec<ModeMember>> {
    Ok(store
        .mode_members(id)
        .map_err(store_error)?
        .into_iter()
        .filter(|m| m.member > 0 && !m.left && m.beat_age_ms <= SILENT_AFTER_MS)
        .collect())
}

/// A command's arguments as posted: a password's value withheld.
pub fn posted_args(settings: &Settings, name: &str, args: &[String]) -> Vec<String> {
    let mut args = args.to_vec();
    if name == "diset" && args.len() == 3 {
        let db = settings.current();
        let secret = settings
            .dict(Target::Db(db))
            .spec(&args[1])
            .is_some_and(|s| s.is_secret());
        if secret {
            args[2] = WITHHELD.to_string();
        }
    }
    args
}

/// Where a Replica's `vurun` takes its place in the Primary's shared run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SharedPlace {
    pub run: String,
    pub drivers: u32,
    pub number: u32,
    /// Minutes after the common start.
    pub delay_minutes: f64,
    pub step: bool,
}

impl SharedPlace {
    /// The `drivers` keys that put a run in this place, set on `settings` (in memory: a
    /// script's copy, never persisted).
    pub fn apply(&self, settings: &mut Settings) -> Result<()> {
        let g = Target::Generic;
        settings.set(g, "drivers", "drivers_run", &self.run)?;
        settings.set(g, "drivers", "drivers_count", &self.drivers.to_string())?;
        settings.set(g, "drivers", "drivers_number", &self.number.to_string())?;
        settings.set(
            g,
            "drivers",
            "drivers_delay",
            &self.delay_minutes.to_string(),
        )?;
        settings.set(
            g,
            "drivers",
            "drivers_step",
            if self.step { "1" } else { "0" },
        )?;
        Ok(())
    }
}

/// What a Primary adds to a command.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Extra {
    /// `vurun`: the shared run this Replica joins.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub shared: Option<SharedPlace>,
    /// `customscript` from `distributescript`: the script's file name and text.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub script: Option<(String, String)>,
    /// `settings` (from `steprun`): the Primary's database, workload and keys.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub settings: Option<Snapshot>,
}

/// A Primary's settings as a Replica takes them: the database (its prefix, as `dbset db`
/// takes it), the workload, and every key of the database's dictionary and of the generic
/// `virtual_user_options` as `(section, key, value)`; no password, no jobs database.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    pub db: String,
    pub bm: String,
    pub keys: Vec<(String, String, String)>,
    pub generic: Vec<(String, String, String)>,
}

impl Snapshot {
    pub fn of(settings: &Settings) -> Snapshot {
        let db = settings.current();
        let keys_of = |d: &crate::config::Dict, sections: &[&str]| {
            d.specs()
                .iter()
                .filter(|s| {
                    !s.is_secret() && (sections.is_empty() || sections.contains(&s.section))
                })
                .map(|s| {
                    (
                        s.section.to_string(),
                        s.key.clone(),
                        d.get(&s.key).to_string(),
                    )
                })
                .collect::<Vec<_>>()
        };
        Snapshot {
            db: db.prefix().to_string(),
            bm: settings.generic.get("bm").to_string(),
            keys: keys_of(settings.dict(Target::Db(db)), &[]),
            generic: keys_of(settings.dict(Target::Generic), &["virtual_user_options"]),
        }
    }
}
