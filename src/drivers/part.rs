//! One driver's part of a shared run's result, as it posts it on the board (JSON): who it
//! was, what it measured and over which window, its counts per unit type and their HDR
//! histograms whole (so that the merge is exact), and the database's figures as its monitor
//! read them.

use hdrhistogram::serialization::{Deserializer, Serializer, V2Serializer};
use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use crate::vu::{Stats, TypeStats};

/// One unit type's counts and latencies (microseconds), the histogram in HdrHistogram's V2
/// encoding, as hex.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TypePart {
    pub name: String,
    pub committed: u64,
    pub rolled_back: u64,
    pub retried: u64,
    pub failed: u64,
    pub latency: String,
}

/// What one driver measured.
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct Part {
    /// The database's figures over the window, as this driver's monitor read them.
    pub nopm: Option<f64>,
    pub tpm: Option<f64>,
    /// Server milliseconds since the epoch: when its virtual users started, and when its
    /// monitor's measured window began and ended.
    pub started_ms: Option<i64>,
    pub read_from_ms: Option<i64>,
    pub read_to_ms: Option<i64>,
    /// The measured seconds.
    pub seconds: f64,
    pub vus: u32,
    /// Terminals (asynchronous clients) over all its virtual users.
    pub terminals: u32,
    pub key_and_think: bool,
    pub failed_vus: u32,
    pub reconnects: u64,
    pub client_cpu_seconds: Option<f64>,
    pub stopped_early: Option<String>,
    pub types: Vec<TypePart>,
}

fn encode(h: &Histogram<u64>) -> String {
    let mut bytes = Vec::new();
    if V2Serializer::new().serialize(h, &mut bytes).is_err() {
        return String::new();
    }
    let mut hex = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        hex.push_str(&format!("{b:02x}"));
    }
    hex
}

fn decode(hex: &str) -> Option<Histogram<u64>> {
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect();
    Deserializer::new()
        .deserialize(&mut std::io::Cursor::new(bytes?))
        .ok()
}

impl TypePart {
    pub fn of(name: &str, t: &TypeStats) -> Self {
        TypePart {
            name: name.to_string(),
            committed: t.committed,
            rolled_back: t.rolled_back,
            retried: t.retried,
            failed: t.failed,
            latency: encode(&t.latency),
        }
    }

    /// The histogram back; `None` when the text is not one.
    pub fn histogram(&self) -> Option<Histogram<u64>> {
        decode(&self.latency)
    }
}

impl Part {
    /// The per-type statistics of `stats` under the workload's names.
    pub fn types_of(names: &[&str], stats: &Stats) -> Vec<TypePart> {
        names
            .iter()
            .zip(&stats.by_kind)
            .map(|(n, t)| TypePart::of(n, t))
            .collect()
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    pub fn from_json(text: &str) -> Option<Part> {
        serde_json::from_str(text).ok()
    }
}

/// The parts' statistics summed, type by type in `names`' order, their histograms added
/// (exact: every part's samples, never an average of percentiles). A histogram that does not
/// decode is left out and counted in the second value.
pub fn merge<'a>(names: &[&str], parts: impl IntoIterator<Item = &'a Part>) -> (Stats, usize) {
    let mut all = Stats::new(names.len());
    let mut unreadable = 0;
    for part in parts {
        for (i, name) in names.iter().enumerate() {
            let Some(t) = part.types.iter().find(|t| t.name == *name) else {
                continue;
            };
            let sum = &mut all.by_kind[i];
            sum.committed += t.committed;
            sum.rolled_back += t.rolled_back;
            sum.retried += t.retried;
            sum.failed += t.failed;
            match t.histogram() {
                Some(h) => {
                    if sum.latency.add(&h).is_err() {
                        unreadable += 1;
                    }
                }
                None => unreadable += 1,
            }
        }
        all.reconnects += part.reconnects;
    }
    (all, unreadable)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(samples: &[u64]) -> Stats {
        let mut s = Stats::new(1);
        for v in samples {
            s.by_kind[0].latency.record(*v).unwrap();
            s.by_kind[0].committed += 1;
        }
        s
    }

    #[test]
    fn merged_histograms_equal_the_histogram_of_every_sample() {
        let a: Vec<u64> = (1..=900).map(|i| i * 7).collect();
        let b: Vec<u64> = (1..=100).map(|i| 100_000 + i * 991).collect();
        let parts: Vec<Part> = [&a, &b]
            .iter()
            .map(|s| Part {
                types: Part::types_of(&["t"], &stats(s)),
                ..Part::default()
            })
            .collect();
        let back: Vec<Part> = parts
            .iter()
            .map(|p| Part::from_json(&p.to_json()).unwrap())
            .collect();
        let (merged, bad) = merge(&["t"], &back);
        assert_eq!(bad, 0);
        let all: Vec<u64> = a.iter().chain(&b).copied().collect();
        let whole = stats(&all);
        let (m, w) = (&merged.by_kind[0], &whole.by_kind[0]);
        assert_eq!(m.committed, 1000);
        for q in [0.5, 0.9, 0.95, 0.99, 1.0] {
            assert_eq!(
                m.latency.value_at_quantile(q),
                w.latency.value_at_quantile(q)
            );
        }
        // An average of the parts' 95th percentiles would be far from the truth.
        let avg = (stats(&a).by_kind[0].latency.value_at_quantile(0.95)
            + stats(&b).by_kind[0].latency.value_at_quantile(0.95))
            / 2;
        assert_ne!(avg, m.latency.value_at_quantile(0.95));
    }
}
