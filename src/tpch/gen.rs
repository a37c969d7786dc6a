//! TPC-H's rows for a scale factor, from the `tpchgen` crate (a port of dbgen whose output is
//! identical to it), as COPY text (tab-separated, one row a line) in chunks: the text both
//! PostgreSQL's COPY and MariaDB/MySQL's LOAD DATA read by default. dbgen's fields never hold
//! a tab, a backslash or a newline, so none needs escaping.

use std::fmt::{Display, Write};

use tpchgen::generators::{
    CustomerGenerator, LineItemGenerator, NationGenerator, OrderGenerator, PartGenerator,
    PartSuppGenerator, RegionGenerator, SupplierGenerator,
};

use super::Table;

/// Rows per chunk: one COPY or LOAD DATA statement of a few MB.
pub const CHUNK_ROWS: usize = 20_000;

/// The generator's rows for `table`, part `part` of `parts` (1-based, as dbgen's `-C`/`-S`),
/// handed to `emit` as (COPY text, rows) chunks. REGION and NATION are whole in part 1 and
/// empty in the others. Returns false as soon as `emit` does (stop asked).
pub fn generate(
    table: Table,
    sf: f64,
    part: u32,
    parts: u32,
    emit: &mut dyn FnMut(Vec<u8>, u64) -> bool,
) -> bool {
    let (p, n) = (part as i32, parts as i32);
    match table {
        Table::Region if part == 1 => chunked(RegionGenerator::new(sf, 1, 1).iter(), emit),
        Table::Nation if part == 1 => chunked(NationGenerator::new(sf, 1, 1).iter(), emit),
        Table::Region | Table::Nation => true,
        Table::Supplier => chunked(SupplierGenerator::new(sf, p, n).iter(), emit),
        Table::Customer => chunked(CustomerGenerator::new(sf, p, n).iter(), emit),
        Table::Part => chunked(PartGenerator::new(sf, p, n).iter(), emit),
        Table::PartSupp => chunked(PartSuppGenerator::new(sf, p, n).iter(), emit),
        Table::Orders => chunked(OrderGenerator::new(sf, p, n).iter(), emit),
        Table::Lineitem => chunked(LineItemGenerator::new(sf, p, n).iter(), emit),
    }
}

/// Rows the generator makes for `table` in part `part` of `parts`: exact for every table
/// but LINEITEM, whose lines per order are random; for it, `None`.
pub fn rows(table: Table, sf: f64, part: u32, parts: u32) -> Option<u64> {
    let (p, n) = (part as i32, parts as i32);
    let whole = |rows: u64| Some(if part == 1 { rows } else { 0 });
    let count = match table {
        Table::Region => return whole(5),
        Table::Nation => return whole(25),
        Table::Supplier => SupplierGenerator::calculate_row_count(sf, p, n),
        Table::Customer => CustomerGenerator::calculate_row_count(sf, p, n),
        Table::Part => PartGenerator::calculate_row_count(sf, p, n),
        // tpchgen counts PARTSUPP's parts (as it splits them); each has four suppliers.
        Table::PartSupp => SUPPLIERS_PER_PART * PartSuppGenerator::calculate_row_count(sf, p, n),
        Table::Orders => OrderGenerator::calculate_row_count(sf, p, n),
        Table::Lineitem => return None,
    };
    Some(u64::try_from(count).unwrap_or(0))
}

/// LINEITEM's rows for the whole scale factor, counted by running the generator: exact, and
/// quick for the small scale factors (about 6 million rows a second per scale factor 1).
pub fn lineitem_rows(sf: f64) -> u64 {
    LineItemGenerator::new(sf, 1, 1).iter().count() as u64
}

/// PARTSUPP rows per part (TPC-H clause 4.2.3).
const SUPPLIERS_PER_PART: i64 = 4;

/// Lines per order on average (1 to 7, uniform): LINEITEM's size for progress.
pub const LINES_PER_ORDER: u64 = 4;

/// A row of dbgen's `|`-ended text as a COPY line.
fn push_row(text: &str, buf: &mut Vec<u8>) {
    let fields = text.strip_suffix('|').unwrap_or(text);
    buf.extend(fields.bytes().map(|b| if b == b'|' { b'\t' } else { b }));
    buf.push(b'\n');
}

fn chunked<R: Display>(
    rows: impl Iterator<Item = R>,
    emit: &mut dyn FnMut(Vec<u8>, u64) -> bool,
) -> bool {
    let mut text = String::with_capacity(256);
    let mut buf = Vec::with_capacity(CHUNK_ROWS * 128);
    let mut n = 0u64;
    for row in rows {
        text.clear();
        // Writing into a String cannot fail.
        let _ = write!(text, "{row}");
        push_row(&text, &mut buf);
        n += 1;
        if n as usize == CHUNK_ROWS {
            if !emit(std::mem::take(&mut buf), n) {
                return false;
            }
            n = 0;
        }
    }
    n == 0 || emit(buf, n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(table: Table, sf: f64, part: u32, parts: u32) -> (String, u64) {
        let (mut text, mut rows) = (Vec::new(), 0);
        assert!(generate(table, sf, part, parts, &mut |buf, n| {
            text.extend(buf);
            rows += n;
            true
        }));
        (String::from_utf8(text).unwrap(), rows)
    }

    #[test]
    fn dbgens_known_rows_as_copy_text() {
        let (nation, n) = all(Table::Nation, 0.01, 1, 1);
        assert_eq!(n, 25);
        let first = nation.lines().next().unwrap();
        let fields: Vec<&str> = first.split('\t').collect();
        assert_eq!(fields.len(), Table::Nation.columns().len());
        assert_eq!(&fields[..3], ["0", "ALGERIA", "0"]);
        let (region, n) = all(Table::Region, 0.01, 1, 1);
        assert_eq!(n, 5);
        assert!(region.starts_with("0\tAFRICA\t"), "{region}");
        // Only part 1 has the fixed tables.
        assert_eq!(all(Table::Nation, 0.01, 2, 2).1, 0);
    }

    #[test]
    fn parts_together_give_the_whole_table_and_the_counts_agree() {
        for table in Table::ALL {
            let (whole, n) = all(table, 0.01, 1, 1);
            assert_eq!(whole.lines().count() as u64, n, "{table:?}");
            let ncols = table.columns().len();
            assert!(
                whole.lines().all(|l| l.split('\t').count() == ncols),
                "{table:?}"
            );
            let (a, na) = all(table, 0.01, 1, 3);
            let (b, nb) = all(table, 0.01, 2, 3);
            let (c, nc) = all(table, 0.01, 3, 3);
            assert_eq!(format!("{a}{b}{c}"), whole, "{table:?}");
            assert_eq!(na + nb + nc, n, "{table:?}");
            match rows(table, 0.01, 1, 1) {
                Some(expected) => assert_eq!(expected, n, "{table:?}"),
                None => assert_eq!(lineitem_rows(0.01), n),
            }
        }
        assert_eq!(rows(Table::Orders, 0.01, 1, 1), Some(15_000));
        assert_eq!(rows(Table::PartSupp, 0.01, 1, 1), Some(8_000));
    }
}
