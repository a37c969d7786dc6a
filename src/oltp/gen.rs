//! A table's rows as sysbench's `prepare` makes them: ids in order from 1, `k` drawn with
//! the `*_oltp_rand_type` distribution over `1..=table_size` (`sysbench.rand.default`), `c`
//! and `pad` from their templates; written as COPY text (tab-separated, one row a line),
//! which is also `LOAD DATA`'s default format. A build splits the rows into [`Unit`]s, each
//! a run of ids of one table, which loaders take side by side.

use std::ops::RangeInclusive;

use super::rand::{Distribution, RandSpec, Rng};
use super::{value, Layout, Table};

/// Rows per chunk: one COPY / LOAD DATA statement of about 1 MB.
pub const CHUNK_ROWS: u32 = 5_000;

/// A run of ids of one table, which one loader generates and loads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    pub table: Table,
    pub ids: RangeInclusive<u32>,
}

impl Unit {
    pub fn rows(&self) -> u64 {
        u64::from(self.ids.end() + 1 - self.ids.start())
    }
}

/// The units of a build with `loaders` loaders, and each loader's share of them (loader `i`
/// takes `shares[i]`): whole tables dealt round the loaders when there are at least as many
/// tables (sysbench's `prepare` gives thread i the tables i, i + threads, ...), else each
/// table cut into as many runs of ids as there are loaders for it. Empty tables have none.
pub fn shares(layout: &Layout, loaders: u32) -> Vec<Vec<Unit>> {
    let loaders = loaders.max(1);
    let rows = layout.rows();
    let mut shares = vec![Vec::new(); loaders as usize];
    if rows == 0 {
        return shares;
    }
    let per_table = (loaders / layout.tables).clamp(1, rows);
    let mut next = 0usize;
    for table in layout.all() {
        for part in 0..per_table {
            let first = u64::from(rows) * u64::from(part) / u64::from(per_table) + 1;
            let last = u64::from(rows) * u64::from(part + 1) / u64::from(per_table);
            shares[next % loaders as usize].push(Unit {
                table,
                ids: first as u32..=last as u32,
            });
            next += 1;
        }
    }
    shares
}

/// The generator of one unit: repeatable from `--rand-seed` (per table and first id) when
/// it is set, else of its own stream.
pub fn rng_for(spec: &RandSpec, unit: &Unit) -> Rng {
    if spec.seed == 0 {
        return Rng::from_entropy();
    }
    Rng::seeded(
        u64::from(spec.seed)
            ^ (u64::from(unit.table.0) << 32)
            ^ u64::from(*unit.ids.start()).rotate_left(47),
    )
}

/// Generates `unit`'s rows of a table of `table_size` rows in chunks of up to
/// [`CHUNK_ROWS`], handing each to `emit` with its row count; false when `emit` asked to
/// stop.
pub fn generate(
    unit: &Unit,
    table_size: u32,
    dist: &Distribution,
    rng: &mut Rng,
    emit: &mut dyn FnMut(Vec<u8>, u64) -> bool,
) -> bool {
    let mut id = *unit.ids.start();
    let last = *unit.ids.end();
    let mut ids = itoa::Buffer::new();
    let mut ks = itoa::Buffer::new();
    while id <= last {
        let end = last.min(id.saturating_add(CHUNK_ROWS - 1));
        let n = end - id + 1;
        let mut buf = Vec::with_capacity(n as usize * 200);
        for i in id..=end {
            buf.extend_from_slice(ids.format(i).as_bytes());
            buf.push(b'\t');
            let k = dist.draw(rng, 1, table_size.max(1));
            buf.extend_from_slice(ks.format(k).as_bytes());
            buf.push(b'\t');
            value::c(rng, &mut buf);
            buf.push(b'\t');
            value::pad(rng, &mut buf);
            buf.push(b'\n');
        }
        if !emit(buf, u64::from(n)) {
            return false;
        }
        if end == u32::MAX {
            break;
        }
        id = end + 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oltp::rand::RandType;

    fn layout(tables: u32, table_size: u32) -> Layout {
        Layout {
            tables,
            table_size,
            auto_inc: true,
            secondary: false,
            create_secondary: true,
            empty: false,
        }
    }

    fn ids(share: &[Unit]) -> Vec<(u32, u32, u32)> {
        share
            .iter()
            .map(|u| (u.table.0, *u.ids.start(), *u.ids.end()))
            .collect()
    }

    #[test]
    fn whole_tables_go_round_the_loaders_and_few_tables_are_cut() {
        let s = shares(&layout(5, 100), 2);
        assert_eq!(ids(&s[0]), [(1, 1, 100), (3, 1, 100), (5, 1, 100)]);
        assert_eq!(ids(&s[1]), [(2, 1, 100), (4, 1, 100)]);
        let s = shares(&layout(1, 10), 3);
        assert_eq!(
            s.iter().map(|x| ids(x)).collect::<Vec<_>>(),
            [vec![(1, 1, 3)], vec![(1, 4, 6)], vec![(1, 7, 10)]]
        );
        // Two tables, four loaders: each table in two halves.
        let s = shares(&layout(2, 1000), 4);
        assert_eq!(ids(&s[1]), [(1, 501, 1000)]);
        assert_eq!(ids(&s[2]), [(2, 1, 500)]);
        // More loaders than rows: one row each, the rest idle.
        let s = shares(&layout(1, 2), 4);
        assert_eq!(s.iter().filter(|x| !x.is_empty()).count(), 2);
        // Every row once.
        for (t, n, l) in [(3, 1001, 2), (2, 7, 5), (1, 1, 1), (4, 10_000, 3)] {
            let total: u64 = shares(&layout(t, n), l)
                .iter()
                .flatten()
                .map(Unit::rows)
                .sum();
            assert_eq!(total, u64::from(t) * u64::from(n), "{t} {n} {l}");
        }
        let empty = Layout {
            empty: true,
            ..layout(2, 100)
        };
        assert!(shares(&empty, 2).iter().all(Vec::is_empty));
    }

    #[test]
    fn rows_are_sysbenchs_in_chunks() {
        let unit = Unit {
            table: Table(1),
            ids: 1..=12_000,
        };
        let spec = RandSpec {
            seed: 5,
            ..RandSpec::default()
        };
        let dist = Distribution::new(&spec);
        let mut chunks = Vec::new();
        assert!(generate(
            &unit,
            12_000,
            &dist,
            &mut rng_for(&spec, &unit),
            &mut |b, n| {
                chunks.push((b, n));
                true
            }
        ));
        assert_eq!(
            chunks.iter().map(|c| c.1).collect::<Vec<_>>(),
            [5_000, 5_000, 2_000]
        );
        let text = String::from_utf8(chunks.concat_rows()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 12_000);
        for (i, line) in lines.iter().enumerate() {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), 4, "{line}");
            assert_eq!(f[0], (i + 1).to_string());
            let k: u32 = f[1].parse().unwrap();
            assert!((1..=12_000).contains(&k), "{k}");
            assert_eq!((f[2].len(), f[3].len()), (119, 59));
        }
        // The special distribution's k: most near the middle.
        let near = lines
            .iter()
            .filter(|l| {
                let k: u32 = l.split('\t').nth(1).unwrap().parse().unwrap();
                (5_900..=6_100).contains(&k)
            })
            .count();
        assert!(near > 8_000, "{near}");
        // The same seed makes the same rows; a stop is obeyed at once.
        let mut again = Vec::new();
        generate(
            &unit,
            12_000,
            &dist,
            &mut rng_for(&spec, &unit),
            &mut |b, _| {
                again.push(b);
                true
            },
        );
        assert_eq!(again[0], chunks[0].0);
        let mut calls = 0;
        assert!(!generate(
            &unit,
            12_000,
            &dist,
            &mut rng_for(&spec, &unit),
            &mut |_, _| {
                calls += 1;
                false
            }
        ));
        assert_eq!(calls, 1);
        let uniform = Distribution::new(&RandSpec {
            kind: RandType::Uniform,
            ..spec
        });
        let mut one = Vec::new();
        generate(
            &Unit {
                table: Table(2),
                ids: 7..=7,
            },
            1,
            &uniform,
            &mut Rng::seeded(1),
            &mut |b, _| {
                one.push(b);
                true
            },
        );
        assert!(String::from_utf8(one.concat())
            .unwrap()
            .starts_with("7\t1\t"));
    }

    trait ConcatRows {
        fn concat_rows(&self) -> Vec<u8>;
    }

    impl ConcatRows for Vec<(Vec<u8>, u64)> {
        fn concat_rows(&self) -> Vec<u8> {
            self.iter().flat_map(|(b, _)| b.iter().copied()).collect()
        }
    }
}
