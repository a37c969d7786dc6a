//! What a run gives back, whichever workload ran ([`Outcome`]): the session only prints its
//! lines, records it and hands its value to scripts; the workload made all three. Beside it,
//! what an outcome may keep between runs of one session ([`Memory`]), and the shapes every
//! workload's outcome shares, built once here: the figures every run's `lastrun()` map holds
//! ([`run_value`]), a unit type's map ([`type_map`]), the per-type timings a job keeps
//! ([`timings`]) and a live series as a job keeps it ([`live_record`]).

use std::any::{Any, TypeId};
use std::collections::HashMap;

use rhai::{Dynamic, Map};

use crate::jobs::recorder::RunRecord;
use crate::jobs::RunFigures;

/// A finished run, as the workload that ran it shows, records and hands it to scripts.
pub trait Outcome: Send + Sync {
    /// Once the run has ended, before its lines: what it reads from and leaves in the
    /// session's [`Memory`] (TPROC-H's last power test, for the QphH@Size of a throughput
    /// test after it). Nothing by default.
    fn remember(&mut self, _memory: &mut Memory) {}

    /// The lines the session prints after the run, before `ALL VIRTUAL USERS COMPLETE`.
    fn lines(&self) -> Vec<String>;

    /// The run as its job records it: its figures, per-type timings, live series and any
    /// record of the workload's own.
    fn record(&self) -> RunRecord;

    /// The run's figures as `lastrun()` gives them (and a failed run's `catch (e)` as
    /// `e.result`), under the job id `id`.
    fn value(&self, id: &str) -> Map;
}

/// What outcomes keep between the runs of one session, one slot per type: the session holds
/// it without reading it; each workload reads and updates its own slot (a type private to it).
#[derive(Default)]
pub struct Memory(HashMap<TypeId, Box<dyn Any + Send>>);

impl Memory {
    /// The slot of type `T`, made with `T::default()` on first use.
    pub fn slot<T: Any + Send + Default>(&mut self) -> &mut T {
        self.0
            .entry(TypeId::of::<T>())
            .or_insert_with(|| Box::new(T::default()))
            .downcast_mut::<T>()
            .expect("a memory slot holds the type it is keyed by")
    }
}

/// What every run's `lastrun()` map holds, whatever the workload: `id`, `nopm`, `tpm` (`()`
/// where the workload has none), `active_vus`, `seconds`, `failed_vus`, `reconnects`,
/// `abandoned_calls`, `transactions`, `stopped_early` and `client_cpu_seconds`.
pub fn run_value(id: &str, figures: &RunFigures, abandoned_calls: u64) -> Map {
    let opt = |v: Option<f64>| v.map_or(Dynamic::UNIT, Dynamic::from);
    let mut m = Map::new();
    m.insert("id".into(), id.into());
    m.insert("nopm".into(), opt(figures.nopm));
    m.insert("tpm".into(), opt(figures.tpm));
    m.insert("active_vus".into(), (figures.active_vus as i64).into());
    m.insert("seconds".into(), figures.seconds.into());
    m.insert("failed_vus".into(), (figures.failed_vus as i64).into());
    m.insert("reconnects".into(), (figures.reconnects as i64).into());
    m.insert("abandoned_calls".into(), (abandoned_calls as i64).into());
    m.insert("transactions".into(), (figures.transactions as i64).into());
    m.insert(
        "stopped_early".into(),
        figures
            .stopped_early
            .clone()
            .map_or(Dynamic::UNIT, Dynamic::from),
    );
    m.insert("client_cpu_seconds".into(), opt(figures.client_cpu_seconds));
    m
}

/// One unit type's counts and latency percentiles.
pub fn type_map(s: &crate::vu::TypeStats) -> Map {
    let mut t = Map::new();
    t.insert("committed".into(), (s.committed as i64).into());
    t.insert("rolled_back".into(), (s.rolled_back as i64).into());
    t.insert("retried".into(), (s.retried as i64).into());
    t.insert("failed".into(), (s.failed as i64).into());
    for (name, q) in [("p50_ms", 0.5), ("p95_ms", 0.95), ("p99_ms", 0.99)] {
        t.insert(
            name.into(),
            (s.latency.value_at_quantile(q) as f64 / 1000.0).into(),
        );
    }
    t.insert("max_ms".into(), (s.latency.max() as f64 / 1000.0).into());
    t
}

/// Each unit type's counts and latencies as a job keeps them, `names` in the statistics'
/// order; `ran_only` leaves out the types that never ran.
pub fn timings(
    names: &[&str],
    stats: &crate::vu::Stats,
    ran_only: bool,
) -> Vec<(crate::jobs::Timing, Vec<u8>)> {
    use crate::jobs::recorder::{timing, Counts};
    names
        .iter()
        .zip(&stats.by_kind)
        .filter(|(_, s)| !ran_only || s.committed + s.rolled_back + s.failed > 0)
        .map(|(name, s)| {
            let counts = Counts {
                committed: s.committed,
                rolled_back: s.rolled_back,
                retried: s.retried,
                failed: s.failed,
            };
            timing(name, counts, &s.latency)
        })
        .collect()
}

/// A run's live series as its job keeps it.
pub fn live_record(s: &crate::vu::live::Series) -> crate::jobs::live::Live {
    use crate::jobs::live::{Live, Point, TypePoint};
    let at_ms = |t: std::time::SystemTime| {
        t.duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64)
    };
    Live {
        names: s.names.clone(),
        window: s
            .window
            .map(|(a, b)| (a.as_secs_f64(), b.map(|b| b.as_secs_f64()))),
        points: s
            .intervals
            .iter()
            .map(|i| Point {
                at_ms: at_ms(i.at),
                elapsed_s: i.elapsed.as_secs_f64(),
                seconds: i.seconds,
                phase: i.phase.label().to_string(),
                rates: i.rates.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
                types: i
                    .types
                    .iter()
                    .map(|t| TypePoint {
                        finished: t.finished,
                        failed: t.failed,
                        retried: t.retried,
                        p95_ms: t.p95_us.map(|us| us as f64 / 1000.0),
                    })
                    .collect(),
                reconnects: i.reconnects,
                client_cpu_s: i.client_cpu.map(|c| c.as_secs_f64()),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Counted(u32);

    #[test]
    fn memory_keeps_one_slot_per_type() {
        let mut m = Memory::default();
        m.slot::<Counted>().0 += 1;
        m.slot::<Counted>().0 += 1;
        assert_eq!(m.slot::<Counted>().0, 2);
        assert_eq!(*m.slot::<Option<u8>>(), None);
    }

    #[test]
    fn every_run_value_has_the_same_keys() {
        let figures = RunFigures {
            nopm: Some(1.0),
            tpm: None,
            active_vus: 2,
            seconds: 3.0,
            failed_vus: 0,
            reconnects: 1,
            transactions: 9,
            client_cpu_seconds: None,
            stopped_early: None,
        };
        let m = run_value("ID", &figures, 4);
        let mut keys: Vec<&str> = m.keys().map(|k| k.as_str()).collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "abandoned_calls",
                "active_vus",
                "client_cpu_seconds",
                "failed_vus",
                "id",
                "nopm",
                "reconnects",
                "seconds",
                "stopped_early",
                "tpm",
                "transactions"
            ]
        );
        assert_eq!(m["nopm"].as_float(), Ok(1.0));
        assert!(m["tpm"].is_unit());
        assert_eq!(m["abandoned_calls"].as_int(), Ok(4));
    }
}
