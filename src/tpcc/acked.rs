//! What a failover lost: per district, the highest New-Order id the server acknowledged
//! during the run, compared after it with the district's next order id on the server that
//! survived. An acknowledged New-Order whose id the survivor has not reached was committed,
//! acknowledged to the terminal, and then lost with the server that held it.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

/// Districts per warehouse (TPC-C clause 4.3.3.1).
const DISTRICTS: u32 = 10;

/// The highest acknowledged New-Order id of each district, kept as the terminals see them.
#[derive(Default)]
pub struct Acked {
    districts: OnceLock<Vec<AtomicU32>>,
}

/// The comparison after a run: how many acknowledged New-Orders the surviving server lacks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lost {
    /// Acknowledged New-Orders missing: over the districts, the highest acknowledged id less
    /// the survivor's last order id, where positive.
    pub missing: u64,
    /// Districts where some are missing.
    pub districts_short: u32,
    /// Districts with an acknowledged New-Order, all of them compared.
    pub districts: u32,
    /// The server compared with.
    pub server: String,
}

impl Acked {
    /// Room for `warehouses` warehouses' districts (once; a second call changes nothing).
    pub fn size(&self, warehouses: u32) {
        let _ = self.districts.set(
            (0..warehouses * DISTRICTS)
                .map(|_| AtomicU32::new(0))
                .collect(),
        );
    }

    fn slot(&self, w: u32, d: u32) -> Option<&AtomicU32> {
        let i = w.checked_sub(1)? * DISTRICTS + d.checked_sub(1)?;
        self.districts.get()?.get(i as usize)
    }

    /// The server acknowledged New-Order `o_id` of warehouse `w`, district `d`.
    pub fn record(&self, w: u32, d: u32, o_id: u32) {
        if let Some(slot) = self.slot(w, d) {
            slot.fetch_max(o_id, Ordering::Relaxed);
        }
    }

    /// Compares with `heads`, each district's `d_next_o_id` on `server`: `(w, d, next)`.
    pub fn compare(&self, heads: &[(u32, u32, u32)], server: &str) -> Lost {
        let mut lost = Lost {
            missing: 0,
            districts_short: 0,
            districts: 0,
            server: server.to_string(),
        };
        let Some(all) = self.districts.get() else {
            return lost;
        };
        for (i, slot) in all.iter().enumerate() {
            let acked = slot.load(Ordering::Relaxed);
            if acked == 0 {
                continue;
            }
            lost.districts += 1;
            let (w, d) = (i as u32 / DISTRICTS + 1, i as u32 % DISTRICTS + 1);
            // A district the survivor lacks altogether has lost every acknowledged order.
            let held = heads
                .iter()
                .find(|h| (h.0, h.1) == (w, d))
                .map_or(0, |h| h.2.saturating_sub(1));
            if acked > held {
                lost.missing += u64::from(acked - held);
                lost.districts_short += 1;
            }
        }
        lost
    }
}

impl Lost {
    /// This comparison and `other`'s (another schema's) together: the first's server names
    /// them.
    pub fn merge(self, other: Lost) -> Lost {
        Lost {
            missing: self.missing + other.missing,
            districts_short: self.districts_short + other.districts_short,
            districts: self.districts + other.districts,
            server: self.server,
        }
    }

    /// The result's line: `N acknowledged New-Orders missing after failover (...)`.
    pub fn line(&self) -> String {
        format!(
            "{} acknowledged New-Orders missing after failover ({} of {} districts short, \
             compared on {} with the highest id acknowledged in each)",
            self.missing, self.districts_short, self.districts, self.server
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_orders_are_counted_per_district() {
        let acked = Acked::default();
        acked.size(2);
        acked.record(1, 1, 3005);
        acked.record(1, 1, 3001);
        acked.record(2, 10, 3100);
        acked.record(1, 2, 3010);
        // Out of range: ignored.
        acked.record(3, 1, 9999);
        acked.record(1, 0, 9999);
        let heads = [(1, 1, 3006), (1, 2, 3008), (2, 10, 3090)];
        let lost = acked.compare(&heads, "h2:5433");
        // (1,1): 3005 held; (1,2): 3010 acked, 3007 held: 3; (2,10): 3100 - 3089 = 11.
        assert_eq!(
            (lost.missing, lost.districts_short, lost.districts),
            (14, 2, 3)
        );
        assert!(lost
            .line()
            .starts_with("14 acknowledged New-Orders missing after failover (2 of 3"));
        let none = acked.compare(&[(1, 1, 4000), (1, 2, 4000), (2, 10, 4000)], "h");
        assert_eq!(none.missing, 0);
        // Never sized (a run that never started): nothing to compare.
        assert_eq!(Acked::default().compare(&heads, "h").districts, 0);
    }
}
