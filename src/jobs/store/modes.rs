//! Primary and Replica mode's tables in the jobs database (`mode_member`, `mode_command`,
//! schema version 6), on either backend: a Primary opens a session under an id, Replicas
//! join it, everyone beats, and the Primary posts the commands its Replicas run. Times are
//! the store's own clock (the server's, for a shared PostgreSQL store), so that machines
//! whose clocks differ agree on who is alive. See `crate::modes`.

use rusqlite::{params, OptionalExtension};

use super::pg::{get, PgStore};
use super::sqlite::{retry, SqliteStore};
use super::{Backend, Result, Store};

/// The store's clock in milliseconds since the epoch, in SQLite's SQL.
const SQLITE_NOW: &str = "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)";
/// The same in PostgreSQL's.
const PG_NOW: &str = "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)";
/// The advisory lock (with the session's id as second key) under which members take numbers
/// and commands take sequence numbers on PostgreSQL ("mode").
const PG_LOCK: i32 = 0x6d6f_6465;

/// One hammer process of a session: the Primary (member 0) or a Replica.
#[derive(Debug, Clone, PartialEq)]
pub struct ModeMember {
    pub member: u32,
    pub hostname: String,
    pub pid: u32,
    /// How long ago, on the store's clock, it last said it was alive.
    pub beat_age_ms: i64,
    /// It left (switched mode, or its session ended).
    pub left: bool,
}

/// A command the Primary posted.
#[derive(Debug, Clone, PartialEq)]
pub struct ModeCommand {
    pub seq: i64,
    /// 0: every Replica; n: Replica n alone.
    pub target: u32,
    pub command: String,
    /// The arguments as typed, a JSON array of strings.
    pub args: String,
    /// What the Primary adds, as JSON.
    pub extra: Option<String>,
}

impl Store {
    /// Opens a Primary's session under `id`: false when the id was ever used in this store.
    pub fn mode_open(&self, id: u32, hostname: &str, pid: u32) -> Result<bool> {
        each!(self, s => s.mode_open(id, hostname, pid))
    }

    /// Joins the live session `id` as its next Replica: the Replica's number, or `None` when
    /// no Primary holds that id now.
    pub fn mode_join(&self, id: u32, hostname: &str, pid: u32) -> Result<Option<u32>> {
        each!(self, s => s.mode_join(id, hostname, pid))
    }

    /// Says member `member` of session `id` is alive.
    pub fn mode_beat(&self, id: u32, member: u32) -> Result<()> {
        each!(self, s => s.mode_beat(id, member))
    }

    /// Member `member` leaves session `id` (the Primary leaving ends it).
    pub fn mode_leave(&self, id: u32, member: u32) -> Result<()> {
        each!(self, s => s.mode_leave(id, member))
    }

    /// Every member of session `id`, the Primary first.
    pub fn mode_members(&self, id: u32) -> Result<Vec<ModeMember>> {
        each!(self, s => s.mode_members(id))
    }

    /// Posts a command for `target` (0: every Replica): its sequence number.
    pub fn mode_post(
        &self,
        id: u32,
        target: u32,
        command: &str,
        args: &str,
        extra: Option<&str>,
    ) -> Result<i64> {
        each!(self, s => s.mode_post(id, target, command, args, extra))
    }

    /// The commands of session `id` after `after` that Replica `member` is to run, in order.
    pub fn mode_commands(&self, id: u32, member: u32, after: i64) -> Result<Vec<ModeCommand>> {
        each!(self, s => s.mode_commands(id, member, after))
    }
}

impl SqliteStore {
    pub fn mode_open(&self, id: u32, hostname: &str, pid: u32) -> Result<bool> {
        self.write(|c| {
            let used: Option<i64> = c
                .query_row(
                    "SELECT 1 FROM mode_member WHERE id = ?1 LIMIT 1",
                    [id],
                    |r| r.get(0),
                )
                .optional()?;
            if used.is_some() {
                return Ok(false);
            }
            c.execute(
                &format!(
                    "INSERT INTO mode_member (id, member, hostname, pid, joined_ms, beat_ms) \
                     VALUES (?1, 0, ?2, ?3, {SQLITE_NOW}, {SQLITE_NOW})"
                ),
                params![id, hostname, pid],
            )?;
            Ok(true)
        })
    }

    pub fn mode_join(&self, id: u32, hostname: &str, pid: u32) -> Result<Option<u32>> {
        self.write(|c| {
            let live: Option<i64> = c
                .query_row(
                    "SELECT 1 FROM mode_member WHERE id = ?1 AND member = 0 AND left_ms IS NULL",
                    [id],
                    |r| r.get(0),
                )
                .optional()?;
            if live.is_none() {
                return Ok(None);
            }
            let n: u32 = c.query_row(
                "SELECT COALESCE(MAX(member), 0) + 1 FROM mode_member WHERE id = ?1",
                [id],
                |r| r.get(0),
            )?;
            c.execute(
                &format!(
                    "INSERT INTO mode_member (id, member, hostname, pid, joined_ms, beat_ms) \
                     VALUES (?1, ?2, ?3, ?4, {SQLITE_NOW}, {SQLITE_NOW})"
                ),
                params![id, n, hostname, pid],
            )?;
            Ok(Some(n))
        })
    }

    pub fn mode_beat(&self, id: u32, member: u32) -> Result<()> {
        self.write(|c| {
            c.execute(
                &format!(
                    "UPDATE mode_member SET beat_ms = {SQLITE_NOW} WHERE id = ?1 AND member = ?2"
                ),
                params![id, member],
            )
            .map(|_| ())
        })
    }

    pub fn mode_leave(&self, id: u32, member: u32) -> Result<()> {
        self.write(|c| {
            c.execute(
                &format!(
                    "UPDATE mode_member SET left_ms = {SQLITE_NOW} \
                     WHERE id = ?1 AND member = ?2 AND left_ms IS NULL"
                ),
                params![id, member],
            )
            .map(|_| ())
        })
    }

    pub fn mode_members(&self, id: u32) -> Result<Vec<ModeMember>> {
        retry(|| {
            let mut stmt = self
                .conn
                .prepare(&format!(
                    "SELECT member, hostname, pid, {SQLITE_NOW} - beat_ms, left_ms IS NOT NULL \
                     FROM mode_member WHERE id = ?1 ORDER BY member"
                ))
                .map_err(|e| self.err(e))?;
            stmt.query_map([id], |r| {
                Ok(ModeMember {
                    member: r.get(0)?,
                    hostname: r.get(1)?,
                    pid: r.get(2)?,
                    beat_age_ms: r.get(3)?,
                    left: r.get(4)?,
                })
            })
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(|e| self.err(e))
        })
    }

    pub fn mode_post(
        &self,
        id: u32,
        target: u32,
        command: &str,
        args: &str,
        extra: Option<&str>,
    ) -> Result<i64> {
        self.write(|c| {
            let seq: i64 = c.query_row(
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM mode_command WHERE id = ?1",
                [id],
                |r| r.get(0),
            )?;
            c.execute(
                &format!(
                    "INSERT INTO mode_command (id, seq, target, command, args, extra, at_ms) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, {SQLITE_NOW})"
                ),
                params![id, seq, target, command, args, extra],
            )?;
            Ok(seq)
        })
    }

    pub fn mode_commands(&self, id: u32, member: u32, after: i64) -> Result<Vec<ModeCommand>> {
        retry(|| {
            let mut stmt = self
                .conn
                .prepare(
                    "SELECT seq, target, command, args, extra FROM mode_command \
                     WHERE id = ?1 AND seq > ?2 AND (target = 0 OR target = ?3) ORDER BY seq",
                )
                .map_err(|e| self.err(e))?;
            stmt.query_map(params![id, after, member], |r| {
                Ok(ModeCommand {
                    seq: r.get(0)?,
                    target: r.get(1)?,
                    command: r.get(2)?,
                    args: r.get(3)?,
                    extra: r.get(4)?,
                })
            })
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(|e| self.err(e))
        })
    }
}

impl PgStore {
    pub fn mode_open(&self, id: u32, hostname: &str, pid: u32) -> Result<bool> {
        let (id, hostname, pid) = (i64::from(id), hostname.to_string(), i64::from(pid));
        self.link.call(move |c| {
            c.transaction("BEGIN", |c| {
                c.query(
                    "SELECT pg_advisory_xact_lock($1, $2)",
                    &[&PG_LOCK, &(id as i32)],
                )?;
                if !c
                    .query("SELECT 1 FROM mode_member WHERE id = $1 LIMIT 1", &[&id])?
                    .is_empty()
                {
                    return Ok(false);
                }
                c.execute(
                    &format!(
                        "INSERT INTO mode_member (id, member, hostname, pid, joined_ms, beat_ms) \
                         VALUES ($1, 0, $2, $3, {PG_NOW}, {PG_NOW})"
                    ),
                    &[&id, &hostname, &pid],
                )?;
                Ok(true)
            })
        })
    }

    pub fn mode_join(&self, id: u32, hostname: &str, pid: u32) -> Result<Option<u32>> {
        let (id, hostname, pid) = (i64::from(id), hostname.to_string(), i64::from(pid));
        self.link.call(move |c| {
            c.transaction("BEGIN", |c| {
                c.query(
                    "SELECT pg_advisory_xact_lock($1, $2)",
                    &[&PG_LOCK, &(id as i32)],
                )?;
                if c.query(
                    "SELECT 1 FROM mode_member WHERE id = $1 AND member = 0 \
                         AND left_ms IS NULL",
                    &[&id],
                )?
                .is_empty()
                {
                    return Ok(None);
                }
                let n: i64 = get(
                    &c.query(
                        "SELECT COALESCE(MAX(member), 0) + 1 FROM mode_member WHERE id = $1",
                        &[&id],
                    )?[0],
                    0,
                )?;
                c.execute(
                    &format!(
                        "INSERT INTO mode_member (id, member, hostname, pid, joined_ms, beat_ms) \
                         VALUES ($1, $2, $3, $4, {PG_NOW}, {PG_NOW})"
                    ),
                    &[&id, &n, &hostname, &pid],
                )?;
                Ok(Some(n as u32))
            })
        })
    }

    pub fn mode_beat(&self, id: u32, member: u32) -> Result<()> {
        let (id, member) = (i64::from(id), i64::from(member));
        self.link.call(move |c| {
            c.execute(
                &format!("UPDATE mode_member SET beat_ms = {PG_NOW} WHERE id = $1 AND member = $2"),
                &[&id, &member],
            )
            .map(|_| ())
        })
    }

    pub fn mode_leave(&self, id: u32, member: u32) -> Result<()> {
        let (id, member) = (i64::from(id), i64::from(member));
        self.link.call(move |c| {
            c.execute(
                &format!(
                    "UPDATE mode_member SET left_ms = {PG_NOW} \
                     WHERE id = $1 AND member = $2 AND left_ms IS NULL"
                ),
                &[&id, &member],
            )
            .map(|_| ())
        })
    }

    pub fn mode_members(&self, id: u32) -> Result<Vec<ModeMember>> {
        let id = i64::from(id);
        self.link.call(move |c| {
            let rows = c.query(
                &format!(
                    "SELECT member, hostname, pid, {PG_NOW} - beat_ms, left_ms IS NOT NULL \
                     FROM mode_member WHERE id = $1 ORDER BY member"
                ),
                &[&id],
            )?;
            rows.iter()
                .map(|r| {
                    Ok(ModeMember {
                        member: get::<i64>(r, 0)? as u32,
                        hostname: get(r, 1)?,
                        pid: get::<i64>(r, 2)? as u32,
                        beat_age_ms: get(r, 3)?,
                        left: get(r, 4)?,
                    })
                })
                .collect()
        })
    }

    pub fn mode_post(
        &self,
        id: u32,
        target: u32,
        command: &str,
        args: &str,
        extra: Option<&str>,
    ) -> Result<i64> {
        let (id, target) = (i64::from(id), i64::from(target));
        let (command, args, extra) = (
            command.to_string(),
            args.to_string(),
            extra.map(str::to_string),
        );
        self.link.call(move |c| {
            c.transaction("BEGIN", |c| {
                c.query(
                    "SELECT pg_advisory_xact_lock($1, $2)",
                    &[&PG_LOCK, &(id as i32)],
                )?;
                let seq: i64 = get(
                    &c.query(
                        "SELECT COALESCE(MAX(seq), 0) + 1 FROM mode_command WHERE id = $1",
                        &[&id],
                    )?[0],
                    0,
                )?;
                c.execute(
                    &format!(
                        "INSERT INTO mode_command (id, seq, target, command, args, extra, at_ms) \
                         VALUES ($1, $2, $3, $4, $5, $6, {PG_NOW})"
                    ),
                    &[&id, &seq, &target, &command, &args, &extra],
                )?;
                Ok(seq)
            })
        })
    }

    pub fn mode_commands(&self, id: u32, member: u32, after: i64) -> Result<Vec<ModeCommand>> {
        let (id, member) = (i64::from(id), i64::from(member));
        self.link.call(move |c| {
            let rows = c.query(
                "SELECT seq, target, command, args, extra FROM mode_command \
                 WHERE id = $1 AND seq > $2 AND (target = 0 OR target = $3) ORDER BY seq",
                &[&id, &after, &member],
            )?;
            rows.iter()
                .map(|r| {
                    Ok(ModeCommand {
                        seq: get(r, 0)?,
                        target: get::<i64>(r, 1)? as u32,
                        command: get(r, 2)?,
                        args: get(r, 3)?,
                        extra: get(r, 4)?,
                    })
                })
                .collect()
        })
    }
}
