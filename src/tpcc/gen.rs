//! The initial TPC-C population as delimited text rows, following clause 4.3.3.1.
//!
//! Rows go to a `Vec<u8>` ready for PostgreSQL `COPY` or MySQL/MariaDB `LOAD DATA`, with
//! columns in [`Table::columns`](super::Table::columns) order. Values never contain the
//! delimiter, a backslash or a newline (strings are alphanumeric), so nothing is escaped.
//! Money and rates are fixed-point integers written digit by digit: no floats anywhere.

use std::ops::RangeInclusive;

use rand::rngs::SmallRng;

use super::random::{
    permutation, push_a_string, push_alnum, push_last_name, push_letters, push_n_string, push_zip,
    uniform, Constants,
};
use super::{CUSTOMERS_PER_D, DISTRICTS_PER_W, FIRST_NEW_ORDER, ORDERS_PER_D};

/// How rows are delimited and how NULL is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Format {
    /// Separates fields; every row ends in `\n`.
    pub delim: u8,
    /// Stands for SQL NULL.
    pub null: &'static [u8],
}

impl Format {
    /// PostgreSQL `COPY ... FROM STDIN` text format and MySQL `LOAD DATA` defaults:
    /// tab-separated, NULL as `\N`.
    pub const COPY: Format = Format {
        delim: b'\t',
        null: b"\\N",
    };
    /// HammerDB-style `.tbl` flat files: `|`-separated, NULL as an empty field.
    pub const FLAT: Format = Format {
        delim: b'|',
        null: b"",
    };
}

/// Writes the rows of the initial population. Each method appends complete rows.
///
/// Workers that build one database in parallel each own a `Generator` with its own random
/// generator, but all must share the same load [`Constants`]: `c_last` shapes the customer
/// last names, and the run's constant must keep its distance from it (clause 2.1.6.1).
#[derive(Debug, Clone)]
pub struct Generator {
    rng: SmallRng,
    constants: Constants,
    load_time: Box<[u8]>,
    format: Format,
}

impl Generator {
    /// A generator writing `format`, with the load-time NURand `constants` and `load_time`,
    /// the text written for `c_since`, `h_date`, `o_entry_d` and delivered `ol_delivery_d`
    /// (`YYYY-MM-DD HH:MM:SS`; it must not contain the delimiter or a newline).
    pub fn new(format: Format, constants: Constants, load_time: &str, rng: SmallRng) -> Self {
        debug_assert!(
            !load_time
                .bytes()
                .any(|b| b == format.delim || b == b'\n' || b == b'\\'),
            "load time {load_time:?} would break the rows"
        );
        Self {
            rng,
            constants,
            load_time: load_time.as_bytes().into(),
            format,
        }
    }

    /// The load-time NURand constants this generator uses.
    pub fn constants(&self) -> &Constants {
        &self.constants
    }

    /// ITEM rows for `ids` (all of ITEM is `1..=ITEMS`).
    pub fn items(&mut self, ids: RangeInclusive<u32>, out: &mut Vec<u8>) {
        let rng = &mut self.rng;
        for i_id in ids {
            let mut row = Row::new(out, self.format);
            row.int(i_id);
            row.int(uniform(rng, 1, 10_000));
            row.a_string(rng, 14, 24);
            row.fixed(uniform(rng, 100, 10_000), 2);
            row.data_with_original(rng);
            row.end();
        }
    }

    /// The WAREHOUSE row of warehouse `w`.
    pub fn warehouse(&mut self, w: u32, out: &mut Vec<u8>) {
        let rng = &mut self.rng;
        let mut row = Row::new(out, self.format);
        row.int(w);
        row.a_string(rng, 6, 10);
        row.address(rng);
        row.fixed(uniform(rng, 0, 2_000), 4);
        row.bytes(b"300000.00");
        row.end();
    }

    /// STOCK rows of warehouse `w` for the item `ids` (all of them is `1..=STOCK_PER_W`).
    pub fn stock(&mut self, w: u32, ids: RangeInclusive<u32>, out: &mut Vec<u8>) {
        let rng = &mut self.rng;
        for s_i_id in ids {
            let mut row = Row::new(out, self.format);
            row.int(s_i_id);
            row.int(w);
            row.int(uniform(rng, 10, 100));
            for _ in 0..10 {
                row.alnum(rng, 24);
            }
            row.bytes(b"0");
            row.bytes(b"0");
            row.bytes(b"0");
            row.data_with_original(rng);
            row.end();
        }
    }

    /// The ten DISTRICT rows of warehouse `w`.
    pub fn districts(&mut self, w: u32, out: &mut Vec<u8>) {
        let rng = &mut self.rng;
        for d_id in 1..=DISTRICTS_PER_W {
            let mut row = Row::new(out, self.format);
            row.int(d_id);
            row.int(w);
            row.a_string(rng, 6, 10);
            row.address(rng);
            row.fixed(uniform(rng, 0, 2_000), 4);
            row.bytes(b"30000.00");
            row.int(ORDERS_PER_D + 1);
            row.end();
        }
    }

    /// The 3,000 CUSTOMER rows of district `d` of warehouse `w`, and the one HISTORY row
    /// each customer starts with.
    pub fn customers_and_history(
        &mut self,
        w: u32,
        d: u32,
        cust_out: &mut Vec<u8>,
        hist_out: &mut Vec<u8>,
    ) {
        let rng = &mut self.rng;
        for c_id in 1..=CUSTOMERS_PER_D {
            let mut row = Row::new(cust_out, self.format);
            row.int(c_id);
            row.int(d);
            row.int(w);
            row.a_string(rng, 8, 16);
            row.bytes(b"OE");
            // The first 1,000 customers take every name once; the rest are skewed.
            let name = if c_id <= 1_000 {
                c_id - 1
            } else {
                self.constants.last_name_number(rng)
            };
            push_last_name(name, row.out);
            row.sep();
            row.address(rng);
            push_n_string(rng, 16, row.out);
            row.sep();
            row.bytes(&self.load_time);
            row.bytes(if uniform(rng, 1, 10) == 1 {
                b"BC"
            } else {
                b"GC"
            });
            row.bytes(b"50000.00");
            row.fixed(uniform(rng, 0, 5_000), 4);
            row.bytes(b"-10.00");
            row.bytes(b"10.00");
            row.bytes(b"1");
            row.bytes(b"0");
            row.a_string(rng, 300, 500);
            row.end();

            let mut row = Row::new(hist_out, self.format);
            row.int(c_id);
            row.int(d);
            row.int(w);
            row.int(d);
            row.int(w);
            row.bytes(&self.load_time);
            row.bytes(b"10.00");
            row.a_string(rng, 12, 24);
            row.end();
        }
    }

    /// The 3,000 ORDERS rows of district `d` of warehouse `w`, the NEW_ORDER rows of the
    /// undelivered ones (`o_id` 2101..=3000) and every order's ORDER_LINE rows.
    pub fn orders(
        &mut self,
        w: u32,
        d: u32,
        orders_out: &mut Vec<u8>,
        new_order_out: &mut Vec<u8>,
        order_line_out: &mut Vec<u8>,
    ) {
        let rng = &mut self.rng;
        let null = self.format.null;
        // Every customer placed exactly one of the initial orders.
        let customers = permutation(rng, ORDERS_PER_D);
        for (o_id, &o_c_id) in (1..=ORDERS_PER_D).zip(&customers) {
            let delivered = o_id < FIRST_NEW_ORDER;
            let ol_cnt = uniform(rng, 5, 15);

            let mut row = Row::new(orders_out, self.format);
            row.int(o_id);
            row.int(d);
            row.int(w);
            row.int(o_c_id);
            row.bytes(&self.load_time);
            if delivered {
                row.int(uniform(rng, 1, 10));
            } else {
                row.bytes(null);
            }
            row.int(ol_cnt);
            row.bytes(b"1");
            row.end();

            if !delivered {
                let mut row = Row::new(new_order_out, self.format);
                row.int(o_id);
                row.int(d);
                row.int(w);
                row.end();
            }

            for ol_number in 1..=ol_cnt {
                let mut row = Row::new(order_line_out, self.format);
                row.int(o_id);
                row.int(d);
                row.int(w);
                row.int(ol_number);
                row.int(uniform(rng, 1, super::ITEMS));
                row.int(w);
                if delivered {
                    row.bytes(&self.load_time);
                } else {
                    row.bytes(null);
                }
                row.bytes(b"5");
                if delivered {
                    row.bytes(b"0.00");
                } else {
                    row.fixed(uniform(rng, 1, 999_999), 2);
                }
                row.alnum(rng, 24);
                row.end();
            }
        }
    }
}

/// One row being written: each field is followed by the delimiter, and [`Row::end`] turns
/// the last delimiter into the newline.
struct Row<'a> {
    out: &'a mut Vec<u8>,
    delim: u8,
}

impl<'a> Row<'a> {
    #[inline]
    fn new(out: &'a mut Vec<u8>, format: Format) -> Self {
        Self {
            out,
            delim: format.delim,
        }
    }

    #[inline]
    fn sep(&mut self) {
        self.out.push(self.delim);
    }

    #[inline]
    fn end(self) {
        if let Some(last) = self.out.last_mut() {
            *last = b'\n';
        }
    }

    #[inline]
    fn bytes(&mut self, value: &[u8]) {
        self.out.extend_from_slice(value);
        self.sep();
    }

    #[inline]
    fn int(&mut self, value: u32) {
        self.out
            .extend_from_slice(itoa::Buffer::new().format(value).as_bytes());
        self.sep();
    }

    /// `value / 10^scale` with exactly `scale` decimals, e.g. `(1234, 2)` is `12.34` and
    /// `(5, 4)` is `0.0005`.
    #[inline]
    fn fixed(&mut self, value: u32, scale: u32) {
        let unit = 10u32.pow(scale);
        let mut frac = value % unit;
        self.out
            .extend_from_slice(itoa::Buffer::new().format(value / unit).as_bytes());
        self.out.push(b'.');
        let start = self.out.len();
        self.out.resize(start + scale as usize, b'0');
        for digit in self.out[start..].iter_mut().rev() {
            *digit = b'0' + (frac % 10) as u8;
            frac /= 10;
        }
        self.sep();
    }

    #[inline]
    fn alnum(&mut self, rng: &mut SmallRng, len: usize) {
        push_alnum(rng, len, self.out);
        self.sep();
    }

    #[inline]
    fn a_string(&mut self, rng: &mut SmallRng, min: u32, max: u32) {
        push_a_string(rng, min, max, self.out);
        self.sep();
    }

    /// `street_1`, `street_2`, `city` (a-strings of 10..20), `state` (2 letters) and `zip`.
    #[inline]
    fn address(&mut self, rng: &mut SmallRng) {
        self.a_string(rng, 10, 20);
        self.a_string(rng, 10, 20);
        self.a_string(rng, 10, 20);
        push_letters(rng, 2, self.out);
        self.sep();
        push_zip(rng, self.out);
        self.sep();
    }

    /// `i_data` / `s_data`: an a-string of 26..50 that, for one row in ten chosen at
    /// random, holds `ORIGINAL` at a random position (clause 4.3.3.1).
    #[inline]
    fn data_with_original(&mut self, rng: &mut SmallRng) {
        let len = uniform(rng, 26, 50);
        let start = self.out.len();
        push_alnum(rng, len as usize, self.out);
        if uniform(rng, 1, 10) == 1 {
            let at = start + uniform(rng, 0, len - 8) as usize;
            self.out[at..at + 8].copy_from_slice(b"ORIGINAL");
        }
        self.sep();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tpcc::{Table, ITEMS, NEW_ORDERS_PER_D, STOCK_PER_W};
    use rand::SeedableRng;

    const LOAD_TIME: &str = "2024-05-06 07:08:09";

    fn generator(format: Format, seed: u64) -> Generator {
        let mut rng = SmallRng::seed_from_u64(seed);
        let constants = Constants::for_load(&mut rng);
        Generator::new(format, constants, LOAD_TIME, rng)
    }

    /// Splits `text` into rows of fields, checking each row has `table`'s column count.
    fn rows(text: &[u8], table: Table, format: Format) -> Vec<Vec<&[u8]>> {
        assert_eq!(
            text.last(),
            Some(&b'\n'),
            "{} ends in a newline",
            table.name()
        );
        text[..text.len() - 1]
            .split(|&b| b == b'\n')
            .map(|line| {
                let fields: Vec<&[u8]> = line.split(|&b| b == format.delim).collect();
                assert_eq!(
                    fields.len(),
                    table.columns().len(),
                    "a row of {}",
                    table.name()
                );
                fields
            })
            .collect()
    }

    fn num(field: &[u8]) -> u64 {
        std::str::from_utf8(field)
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(u64::MAX)
    }

    /// A fixed-point field as an integer count of 10^-scale units.
    fn fixed(field: &[u8], scale: usize) -> u64 {
        let s = std::str::from_utf8(field).unwrap_or("");
        let (int, frac) = s.split_once('.').unwrap_or(("x", ""));
        assert_eq!(frac.len(), scale, "{s} has {scale} decimals");
        num(int.as_bytes()) * 10u64.pow(scale as u32) + num(frac.as_bytes())
    }

    fn is_alnum(field: &[u8], lengths: RangeInclusive<usize>) -> bool {
        lengths.contains(&field.len()) && field.iter().all(u8::is_ascii_alphanumeric)
    }

    fn has_original(field: &[u8]) -> bool {
        field.windows(8).any(|w| w == b"ORIGINAL")
    }

    fn is_address(fields: &[&[u8]]) -> bool {
        fields[..3].iter().all(|f| is_alnum(f, 10..=20))
            && fields[3].len() == 2
            && fields[3].iter().all(u8::is_ascii_alphabetic)
            && fields[4].len() == 9
            && fields[4][..4].iter().all(u8::is_ascii_digit)
            && &fields[4][4..] == b"11111"
    }

    /// The whole population of one warehouse (and ITEM), in debug mode too: every table
    /// has its rows, every row its fields.
    #[test]
    fn one_warehouse_has_every_row() {
        let format = Format::COPY;
        let mut g = generator(format, 1);
        let [mut warehouse, mut district, mut customer, mut history, mut new_order] =
            [(); 5].map(|()| Vec::new());
        let [mut orders, mut order_line, mut item, mut stock] = [(); 4].map(|()| Vec::new());
        g.items(1..=ITEMS, &mut item);
        g.warehouse(1, &mut warehouse);
        g.stock(1, 1..=STOCK_PER_W, &mut stock);
        g.districts(1, &mut district);
        for d in 1..=DISTRICTS_PER_W {
            g.customers_and_history(1, d, &mut customer, &mut history);
            g.orders(1, d, &mut orders, &mut new_order, &mut order_line);
        }

        let count = |text: &[u8], t: Table| rows(text, t, format).len();
        assert_eq!(count(&item, Table::Item), 100_000);
        assert_eq!(count(&warehouse, Table::Warehouse), 1);
        assert_eq!(count(&stock, Table::Stock), 100_000);
        assert_eq!(count(&district, Table::District), 10);
        assert_eq!(count(&customer, Table::Customer), 30_000);
        assert_eq!(count(&history, Table::History), 30_000);
        assert_eq!(count(&orders, Table::Orders), 30_000);
        assert_eq!(count(&new_order, Table::NewOrder), 9_000);
        let lines = count(&order_line, Table::OrderLine);
        // 30,000 orders of 5..15 lines, mean 10.
        assert!((295_000..=305_000).contains(&lines), "{lines} order lines");

        // Order lines add up to the orders' o_ol_cnt.
        let ol_cnt: u64 = rows(&orders, Table::Orders, format)
            .iter()
            .map(|r| num(r[6]))
            .sum();
        assert_eq!(ol_cnt, lines as u64);
    }

    #[test]
    fn items_follow_the_rules() {
        let format = Format::FLAT;
        let mut g = generator(format, 2);
        let mut out = Vec::new();
        g.items(1..=ITEMS, &mut out);
        let rows = rows(&out, Table::Item, format);
        let mut original = 0;
        for (i, r) in rows.iter().enumerate() {
            assert_eq!(num(r[0]), i as u64 + 1);
            assert!((1..=10_000).contains(&num(r[1])));
            assert!(is_alnum(r[2], 14..=24));
            assert!((100..=10_000).contains(&fixed(r[3], 2)));
            assert!(is_alnum(r[4], 26..=50));
            original += usize::from(has_original(r[4]));
        }
        // 10 % of 100,000 is 10,000; the binomial standard deviation is about 95.
        assert!(
            (9_500..=10_500).contains(&original),
            "{original} ORIGINAL items"
        );
        // Both price extremes are possible, and prices use every cent.
        assert!(rows.iter().any(|r| !fixed(r[3], 2).is_multiple_of(100)));
    }

    #[test]
    fn ranges_of_items_and_stock_are_what_was_asked() {
        let mut g = generator(Format::COPY, 3);
        let mut out = Vec::new();
        g.items(501..=600, &mut out);
        let ids: Vec<u64> = rows(&out, Table::Item, Format::COPY)
            .iter()
            .map(|r| num(r[0]))
            .collect();
        assert_eq!(ids, (501..=600).collect::<Vec<_>>());
        out.clear();
        g.stock(7, RangeInclusive::new(10, 9), &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn stock_follows_the_rules() {
        let format = Format::COPY;
        let mut g = generator(format, 4);
        let mut out = Vec::new();
        g.stock(3, 1..=STOCK_PER_W, &mut out);
        let mut original = 0;
        for (i, r) in rows(&out, Table::Stock, format).iter().enumerate() {
            assert_eq!(num(r[0]), i as u64 + 1);
            assert_eq!(num(r[1]), 3);
            assert!((10..=100).contains(&num(r[2])));
            assert!(r[3..13].iter().all(|f| is_alnum(f, 24..=24)));
            assert_eq!(&r[13..16], &[b"0", b"0", b"0"]);
            assert!(is_alnum(r[16], 26..=50));
            original += usize::from(has_original(r[16]));
        }
        assert!(
            (9_500..=10_500).contains(&original),
            "{original} ORIGINAL stock rows"
        );
    }

    #[test]
    fn warehouse_and_districts_follow_the_rules() {
        let format = Format::FLAT;
        let mut g = generator(format, 5);
        let mut out = Vec::new();
        g.warehouse(42, &mut out);
        let w = &rows(&out, Table::Warehouse, format)[0];
        assert_eq!(num(w[0]), 42);
        assert!(is_alnum(w[1], 6..=10));
        assert!(is_address(&w[2..7]));
        assert!(fixed(w[7], 4) <= 2_000);
        assert_eq!(w[8], b"300000.00");

        out.clear();
        let mut taxes = Vec::new();
        for _ in 0..100 {
            g.districts(42, &mut out);
        }
        for (i, r) in rows(&out, Table::District, format).iter().enumerate() {
            assert_eq!(num(r[0]), i as u64 % 10 + 1);
            assert_eq!(num(r[1]), 42);
            assert!(is_alnum(r[2], 6..=10));
            assert!(is_address(&r[3..8]));
            taxes.push(fixed(r[8], 4));
            assert_eq!(r[9], b"30000.00");
            assert_eq!(r[10], b"3001");
        }
        assert!(taxes.iter().all(|&t| t <= 2_000));
        // Four decimals really vary: not all taxes are whole hundredths.
        assert!(taxes.iter().any(|t| t % 100 != 0));
    }

    #[test]
    fn customers_and_history_follow_the_rules() {
        let format = Format::COPY;
        let mut g = generator(format, 6);
        let (mut cust, mut hist) = (Vec::new(), Vec::new());
        for d in 1..=DISTRICTS_PER_W {
            g.customers_and_history(9, d, &mut cust, &mut hist);
        }
        let customers = rows(&cust, Table::Customer, format);
        let history = rows(&hist, Table::History, format);
        assert_eq!(customers.len(), 30_000);
        assert_eq!(history.len(), 30_000);
        let mut bad_credit = 0;
        for (i, (c, h)) in customers.iter().zip(&history).enumerate() {
            let (c_id, d_id) = (i as u64 % 3_000 + 1, i as u64 / 3_000 + 1);
            assert_eq!([num(c[0]), num(c[1]), num(c[2])], [c_id, d_id, 9]);
            assert!(is_alnum(c[3], 8..=16));
            assert_eq!(c[4], b"OE");
            let last = std::str::from_utf8(c[5]).unwrap_or("");
            if c_id <= 1_000 {
                assert_eq!(last, super::super::random::last_name(c_id as u32 - 1));
            } else {
                assert!((0..1000).any(|n| super::super::random::last_name(n) == last));
            }
            assert!(is_address(&c[6..11]));
            assert!(c[11].len() == 16 && c[11].iter().all(u8::is_ascii_digit));
            assert_eq!(c[12], LOAD_TIME.as_bytes());
            assert!(c[13] == b"GC" || c[13] == b"BC");
            bad_credit += usize::from(c[13] == b"BC");
            assert_eq!(c[14], b"50000.00");
            assert!(fixed(c[15], 4) <= 5_000);
            assert_eq!(&c[16..20], &[&b"-10.00"[..], b"10.00", b"1", b"0"]);
            assert!(is_alnum(c[20], 300..=500));

            assert_eq!([num(h[0]), num(h[1]), num(h[2])], [c_id, d_id, 9]);
            assert_eq!([num(h[3]), num(h[4])], [d_id, 9]);
            assert_eq!(h[5], LOAD_TIME.as_bytes());
            assert_eq!(h[6], b"10.00");
            assert!(is_alnum(h[7], 12..=24));
        }
        // 10 % of 30,000 is 3,000; the standard deviation is about 52.
        assert!(
            (2_750..=3_250).contains(&bad_credit),
            "{bad_credit} BC customers"
        );
    }

    #[test]
    fn skewed_last_names_follow_the_load_constant() {
        // Two builds with different C_LAST skew the names of customers 1001..3000
        // differently: their most common name differs.
        let most_common = |c_last: u32| {
            let constants = Constants {
                c_last,
                c_id: 0,
                ol_i_id: 0,
            };
            let mut g = Generator::new(
                Format::COPY,
                constants,
                LOAD_TIME,
                SmallRng::seed_from_u64(7),
            );
            let (mut cust, mut hist) = (Vec::new(), Vec::new());
            for d in 1..=DISTRICTS_PER_W {
                g.customers_and_history(1, d, &mut cust, &mut hist);
            }
            let mut counts = std::collections::HashMap::new();
            for r in rows(&cust, Table::Customer, Format::COPY) {
                if num(r[0]) > 1_000 {
                    *counts.entry(r[5].to_vec()).or_insert(0u32) += 1;
                }
            }
            counts
                .into_iter()
                .max_by_key(|&(_, n)| n)
                .map(|(name, _)| name)
        };
        assert_ne!(most_common(0), most_common(100));
        let constants = Constants {
            c_last: 1,
            c_id: 2,
            ol_i_id: 3,
        };
        let g = Generator::new(
            Format::COPY,
            constants,
            LOAD_TIME,
            SmallRng::seed_from_u64(0),
        );
        assert_eq!(*g.constants(), constants);
    }

    #[test]
    fn orders_new_orders_and_order_lines_follow_the_rules() {
        for format in [Format::COPY, Format::FLAT] {
            let mut g = generator(format, 8);
            let (mut o, mut no, mut ol) = (Vec::new(), Vec::new(), Vec::new());
            g.orders(4, 6, &mut o, &mut no, &mut ol);
            let orders = rows(&o, Table::Orders, format);
            let new_orders = rows(&no, Table::NewOrder, format);
            let lines = rows(&ol, Table::OrderLine, format);

            assert_eq!(orders.len(), 3_000);
            let mut customers: Vec<u64> = orders.iter().map(|r| num(r[3])).collect();
            customers.sort_unstable();
            assert_eq!(
                customers,
                (1..=3_000).collect::<Vec<_>>(),
                "o_c_id is a permutation"
            );

            let mut expected_lines = Vec::new();
            for (i, r) in orders.iter().enumerate() {
                let o_id = i as u64 + 1;
                assert_eq!([num(r[0]), num(r[1]), num(r[2])], [o_id, 6, 4]);
                assert_eq!(r[4], LOAD_TIME.as_bytes());
                if o_id < 2_101 {
                    assert!((1..=10).contains(&num(r[5])), "o_carrier_id of {o_id}");
                } else {
                    assert_eq!(r[5], format.null, "o_carrier_id of {o_id} is NULL");
                }
                let ol_cnt = num(r[6]);
                assert!((5..=15).contains(&ol_cnt));
                assert_eq!(r[7], b"1");
                expected_lines.extend((1..=ol_cnt).map(|n| (o_id, n)));
            }

            assert_eq!(new_orders.len(), NEW_ORDERS_PER_D as usize);
            for (i, r) in new_orders.iter().enumerate() {
                assert_eq!([num(r[0]), num(r[1]), num(r[2])], [2_101 + i as u64, 6, 4]);
            }

            assert_eq!(lines.len(), expected_lines.len());
            let mut amounts = Vec::new();
            for (r, &(o_id, number)) in lines.iter().zip(&expected_lines) {
                assert_eq!(
                    [num(r[0]), num(r[1]), num(r[2]), num(r[3])],
                    [o_id, 6, 4, number]
                );
                assert!((1..=100_000).contains(&num(r[4])));
                assert_eq!(num(r[5]), 4);
                assert_eq!(r[7], b"5");
                let amount = fixed(r[8], 2);
                if o_id < 2_101 {
                    assert_eq!(r[6], LOAD_TIME.as_bytes());
                    assert_eq!(amount, 0);
                } else {
                    assert_eq!(r[6], format.null);
                    assert!((1..=999_999).contains(&amount));
                    amounts.push(amount);
                }
                assert!(is_alnum(r[9], 24..=24));
            }
            // Undelivered amounts spread over 0.01..9999.99 (mean about 5000.00).
            let mean = amounts.iter().sum::<u64>() / amounts.len() as u64;
            assert!((450_000..=550_000).contains(&mean), "mean ol_amount {mean}");
        }
    }

    #[test]
    fn districts_get_different_permutations() {
        let mut g = generator(Format::COPY, 9);
        let mut first = Vec::new();
        let (mut no, mut ol) = (Vec::new(), Vec::new());
        g.orders(1, 1, &mut first, &mut no, &mut ol);
        let mut second = Vec::new();
        g.orders(1, 2, &mut second, &mut no, &mut ol);
        let ids = |text: &[u8]| -> Vec<u64> {
            rows(text, Table::Orders, Format::COPY)
                .iter()
                .map(|r| num(r[3]))
                .collect()
        };
        assert_ne!(ids(&first), ids(&second));
    }

    #[test]
    fn same_seed_same_rows() {
        let build = || {
            let mut g = generator(Format::COPY, 10);
            let (mut c, mut h) = (Vec::new(), Vec::new());
            g.customers_and_history(1, 1, &mut c, &mut h);
            (c, h)
        };
        assert_eq!(build(), build());
    }

    #[test]
    fn fixed_point_is_written_exactly() {
        let mut out = Vec::new();
        let mut row = Row::new(&mut out, Format::FLAT);
        for (value, scale) in [
            (0, 2),
            (5, 2),
            (1234, 2),
            (999_999, 2),
            (5, 4),
            (2_000, 4),
            (0, 4),
        ] {
            row.fixed(value, scale);
        }
        row.end();
        assert_eq!(out, b"0.00|0.05|12.34|9999.99|0.0005|0.2000|0.0000\n");
    }
}
