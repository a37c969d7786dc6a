//! A run's live series as its job keeps it: what each interval of the live view showed
//! (the database's rates, per unit type the rate and p95, errors, retries, reconnects, the
//! client's CPU) and where the measured window lies, so that the report draws the run over
//! time whether or not the transaction counter ran. Plain data, stored as one JSON document.

use serde::{Deserialize, Serialize};

/// The series of one run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Live {
    /// The unit types' names, in the order of each point's `types`.
    pub names: Vec<String>,
    /// The measured window as seconds from the run's start; the end is missing when the run
    /// stopped inside it.
    pub window: Option<(f64, Option<f64>)>,
    pub points: Vec<Point>,
}

/// One interval.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Point {
    /// When the interval ended, in milliseconds since the epoch.
    pub at_ms: i64,
    /// Seconds from the run's start to the interval's end.
    pub elapsed_s: f64,
    /// The interval's length.
    pub seconds: f64,
    /// `rampup`, `measured`, `ending` or `running`.
    pub phase: String,
    /// The database's rates over the interval, by name (`NOPM`, `TPM`).
    pub rates: Vec<(String, f64)>,
    pub types: Vec<TypePoint>,
    pub reconnects: u64,
    pub client_cpu_s: Option<f64>,
}

/// One unit type over one interval.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TypePoint {
    pub finished: u64,
    pub failed: u64,
    pub retried: u64,
    pub p95_ms: Option<f64>,
}

impl Point {
    pub fn rate(&self, name: &str) -> Option<f64> {
        self.rates.iter().find(|(n, _)| n == name).map(|r| r.1)
    }
}

impl Live {
    /// The names of the database's rates the series holds, in their first order.
    pub fn rate_names(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for p in &self.points {
            for (n, _) in &p.rates {
                if !names.contains(n) {
                    names.push(n.clone());
                }
            }
        }
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_series_round_trips_through_json() {
        let live = Live {
            names: vec!["new order".into()],
            window: Some((6.0, None)),
            points: vec![Point {
                at_ms: 1,
                elapsed_s: 2.0,
                seconds: 2.0,
                phase: "rampup".into(),
                rates: vec![("NOPM".into(), 10.0), ("TPM".into(), 20.0)],
                types: vec![TypePoint {
                    finished: 3,
                    failed: 0,
                    retried: 1,
                    p95_ms: Some(1.5),
                }],
                reconnects: 0,
                client_cpu_s: None,
            }],
        };
        let text = serde_json::to_string(&live).unwrap();
        assert_eq!(serde_json::from_str::<Live>(&text).unwrap(), live);
        assert_eq!(live.rate_names(), ["NOPM", "TPM"]);
        assert_eq!(live.points[0].rate("TPM"), Some(20.0));
    }
}
