//! The one list of workloads with their code, above them all: [`ALL`] pairs each benchmark
//! of `crate::benchmarks`' list with its [`Benchmark`], [`of`] picks the one `dbset bm`
//! chose, [`named`] reads a name as users type it, and [`user_script`] loads a user's own
//! Rhai workload. Nothing else names a workload to pick its code.

use std::path::Path;
use std::sync::Arc;

use crate::bench::{Benchmark, UserScript};
use crate::benchmarks::squeezed;
use crate::config::Settings;
use crate::error::{Error, Result};

/// Every workload hammer has, in the order of `crate::benchmarks::ALL`.
pub static ALL: [&dyn Benchmark; 3] = [
    &crate::tpcc::bench::TPROC_C,
    &crate::tpch::bench::TPROC_H,
    &crate::oltp::bench::OLTP,
];

/// The benchmark `dbset bm` chose for these settings.
pub fn of(settings: &Settings) -> Result<&'static dyn Benchmark> {
    named(settings.generic.get("bm"))
}

/// The benchmark called `name`: `TPROC-C`, `TPROC-H`, `OLTP`, their compatible names
/// `TPC-C`, `TPC-H`, and the ways users type them (`tpcc`, `tproc_c`, `TPCH`, `oltp`), in any
/// case; the only place a benchmark's name picks its code.
pub fn named(name: &str) -> Result<&'static dyn Benchmark> {
    let word = squeezed(name);
    match spellings().into_iter().find(|(s, _)| *s == word) {
        Some((_, bm)) => Ok(bm),
        None => Err(Error::UnknownBenchmark {
            name: name.to_string(),
            near: near_miss(&word).map(|b| b.name().to_string()),
        }),
    }
}

/// A user's Rhai workload read and compiled from `path` (`customscript FILE`).
pub fn user_script(path: &Path) -> Result<Arc<dyn UserScript>> {
    Ok(Arc::new(crate::custom::CustomScript::load(path)?))
}

/// Every spelling [`named`] takes, squeezed as [`squeezed`] makes it, with its benchmark.
fn spellings() -> Vec<(String, &'static dyn Benchmark)> {
    ALL.iter()
        .flat_map(|bm| bm.names().spellings().map(|s| (s, *bm)))
        .collect()
}

/// The one benchmark `word` is a near miss of (`TPCCC`, `TPROC-HH`); none when it is as near
/// to both (`TPC-X`), where guessing would be a coin toss.
fn near_miss(word: &str) -> Option<&'static dyn Benchmark> {
    let spellings = spellings();
    let distance = |spelling: &str| strsim::damerau_levenshtein(word, spelling);
    let best = spellings.iter().map(|(s, _)| distance(s)).min()?;
    if best > 2 {
        return None;
    }
    let mut nearest = spellings
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
    fn the_list_of_code_and_the_list_of_names_agree() {
        let code: Vec<_> = ALL.iter().map(|b| *b.names()).collect();
        assert_eq!(code, crate::benchmarks::ALL.to_vec());
        for (bm, named) in ALL.iter().zip(crate::benchmarks::ALL) {
            assert_eq!(
                (bm.name(), bm.alias(), bm.dictionary()),
                (named.name, named.alias, named.dictionary)
            );
        }
    }

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
            "Unknown benchmark TPC-X, choose one from TPROC-C TPROC-H OLTP (or their compatible names TPC-C TPC-H OLTP)"
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
                format!("Unknown benchmark {name}, did you mean {near}? choose one from TPROC-C TPROC-H OLTP (or their compatible names TPC-C TPC-H OLTP)"),
            );
        }
        // As near to either, or near to neither: no guess.
        for name in ["TPROC", "TPC-E", "sysbench", ""] {
            let e = named(name).map(|b| b.name()).unwrap_err().to_string();
            assert!(!e.contains("did you mean"), "{name}: {e}");
        }
    }

    #[test]
    fn oltp_is_chosen_by_its_name_in_any_case() {
        for name in ["OLTP", "oltp", "Oltp"] {
            let bm = named(name).expect(name);
            assert_eq!(
                (bm.name(), bm.alias(), bm.dictionary()),
                ("OLTP", "OLTP", "oltp")
            );
        }
        let e = named("OLTPP").map(|b| b.name()).unwrap_err().to_string();
        assert!(
            e.starts_with("Unknown benchmark OLTPP, did you mean OLTP?"),
            "{e}"
        );
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
