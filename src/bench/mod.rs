//! The workloads hammer builds schemas for and runs, and the one dispatch point: [`of`] picks
//! the benchmark `dbset bm` chose; nothing else matches on a benchmark's name to pick code.
//! [`benchmark`] holds the contract a workload keeps with the session ([`Benchmark`]).
//!
//! Adding a workload (TPROC-H, in `src/tpch/`, is the second):
//! 1. a folder `src/<workload>/` with its rules (data, generator, inputs, result text), the
//!    trait an engine offers it (as `tpcc::support::Support`, with a `Family` the engine
//!    families implement once), and its [`Benchmark`] (as `tpcc::bench`), whose options are a
//!    `vu::WorkloadOptions` and whose run drives the `vu` runtime through a `vu::Workload`;
//! 2. its accessor on `db::engine::Engine` (`fn tpch(&self) -> Option<&dyn ...>`, `None` for an
//!    engine without it) and the families' implementations in `db/<family>/engine.rs`;
//! 3. its dictionary keys in `config::keys` and its name among `bm`'s choices;
//! 4. one arm in [`named`] below (and out of its refusal);
//! 5. its SQL under `schemas/<db>/<workload>/`, its shipped scripts, and its row in the
//!    engine battery (`tests/engines.rs`).

pub mod benchmark;
pub mod deleting;
pub mod loading;

pub use benchmark::{Benchmark, Built, Check, Survey};

use crate::config::Settings;
use crate::error::{Error, Result};

/// The benchmark `dbset bm` chose for these settings.
pub fn of(settings: &Settings) -> Result<&'static dyn Benchmark> {
    named(settings.generic.get("bm"))
}

/// The benchmark called `name`: `TPROC-C`, `TPROC-H`, their compatible names `TPC-C`,
/// `TPC-H`, and the ways users type them (`tpcc`, `tproc_c`, `TPCH`), in any case; the only
/// place a benchmark's name picks its code.
pub fn named(name: &str) -> Result<&'static dyn Benchmark> {
    let word = squeezed(name);
    match SPELLINGS.iter().find(|(s, _)| *s == word) {
        Some((_, bm)) => Ok(*bm),
        None => Err(Error::UnknownBenchmark {
            name: name.to_string(),
            near: near_miss(&word).map(|b| b.name().to_string()),
        }),
    }
}

/// Every workload hammer has.
pub const ALL: [&dyn Benchmark; 2] = [&crate::tpcc::bench::TPROC_C, &crate::tpch::bench::TPROC_H];

/// Every spelling [`named`] takes, squeezed as [`squeezed`] makes it.
const SPELLINGS: [(&str, &'static dyn Benchmark); 4] = [
    ("TPROCC", &crate::tpcc::bench::TPROC_C),
    ("TPCC", &crate::tpcc::bench::TPROC_C),
    ("TPROCH", &crate::tpch::bench::TPROC_H),
    ("TPCH", &crate::tpch::bench::TPROC_H),
];

/// A name upper-cased without the separators users put in it or leave out (`tproc_c`,
/// `TPC C`, `tpcc`).
fn squeezed(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '-' | '_' | ' ' | '.'))
        .collect::<String>()
        .to_ascii_uppercase()
}

/// The one benchmark `word` is a near miss of (`TPCCC`, `TPROC-HH`); none when it is as near
/// to both (`TPC-X`), where guessing would be a coin toss.
fn near_miss(word: &str) -> Option<&'static dyn Benchmark> {
    let distance = |spelling: &str| strsim::damerau_levenshtein(word, spelling);
    let best = SPELLINGS.iter().map(|(s, _)| distance(s)).min()?;
    if best > 2 {
        return None;
    }
    let mut nearest = SPELLINGS
        .iter()
        .filter(|(s, _)| distance(s) == best)
        .map(|(_, bm)| *bm);
    let first = nearest.next()?;
    nearest.all(|bm| bm.name() == first.name()).then_some(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_settings_choose_tproc_c() {
        let bm = of(&Settings::defaults()).expect("the default benchmark");
        assert_eq!((bm.name(), bm.dictionary()), ("TPROC-C", "tpcc"));
        for name in ["TPROC-C", "tpc-c", "Tproc-C"] {
            assert_eq!(
                named(name).map(|b| b.name()).ok(),
                Some("TPROC-C"),
                "{name}"
            );
        }
    }

    #[test]
    fn tproc_h_is_chosen_by_either_name_and_others_are_refused() {
        for name in ["TPROC-H", "tpc-h", "Tproc-H"] {
            let bm = named(name).expect(name);
            assert_eq!((bm.name(), bm.dictionary()), ("TPROC-H", "tpch"), "{name}");
        }
        let e = named("TPC-X").map(|b| b.name()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Unknown benchmark TPC-X, choose one from TPROC-C TPROC-H (or their compatible names TPC-C TPC-H)"
        );
    }

    #[test]
    fn the_spellings_users_type_are_taken_and_near_misses_answered() {
        for (name, expected) in [
            ("tpcc", "TPROC-C"),
            ("TPCC", "TPROC-C"),
            ("tproc-c", "TPROC-C"),
            ("tproc_c", "TPROC-C"),
            ("TPC C", "TPROC-C"),
            ("TPROCC", "TPROC-C"),
            ("tpch", "TPROC-H"),
            ("TPC-H", "TPROC-H"),
            ("tproc_h", "TPROC-H"),
        ] {
            assert_eq!(named(name).map(|b| b.name()).ok(), Some(expected), "{name}");
        }
        for (name, near) in [
            ("TPCCC", "TPROC-C"),
            ("tproc-hh", "TPROC-H"),
            ("TPRC-C", "TPROC-C"),
        ] {
            let e = named(name).map(|b| b.name()).unwrap_err().to_string();
            assert_eq!(
                e,
                format!("Unknown benchmark {name}, did you mean {near}? choose one from TPROC-C TPROC-H (or their compatible names TPC-C TPC-H)"),
            );
        }
        // As near to either, or near to neither: no guess.
        for name in ["TPROC", "TPC-E", "sysbench", ""] {
            let e = named(name).map(|b| b.name()).unwrap_err().to_string();
            assert!(!e.contains("did you mean"), "{name}: {e}");
        }
    }

    #[test]
    fn tproc_h_loads_its_options() {
        let mut s = Settings::defaults();
        s.set(crate::config::Target::Generic, "benchmark", "bm", "TPC-H")
            .unwrap();
        let bm = of(&s).unwrap();
        let options = bm.options(&s).expect("TPROC-H's options");
        assert_eq!(
            (options.workload(), options.mode().as_str()),
            ("TPROC-H", "power test")
        );
    }
}
