//! What the server's rows hold, read as numbers: integers, DECIMALs as fixed point, the
//! New-Order total as the server rounds it, and the failures a transaction step can meet.

use mysql_common::Value;

use crate::db::mysql::wire::WireError;

/// Why a transaction failed, before it is told as an [`Error`].
pub(super) enum Fail {
    /// A failure on the lean connection, already classified.
    Wire(WireError),
    /// A row the transaction needs is missing, or the server sent an unexpected value.
    Data(String),
}

impl From<WireError> for Fail {
    fn from(e: WireError) -> Self {
        Fail::Wire(e)
    }
}

pub(super) type Step<T> = std::result::Result<T, Fail>;

/// A column of a row, NULL when the row is shorter.
pub(super) fn cell<R: Cells + ?Sized>(row: &R, i: usize) -> &Value {
    row.cell(i).unwrap_or(&Value::NULL)
}

/// A row's values, as the lean connection decoded them.
pub(super) trait Cells {
    fn cell(&self, i: usize) -> Option<&Value>;
}

impl Cells for Vec<Value> {
    fn cell(&self, i: usize) -> Option<&Value> {
        self.get(i)
    }
}

impl Cells for [Value] {
    fn cell(&self, i: usize) -> Option<&Value> {
        self.get(i)
    }
}

/// Typed reads of a row's columns, an unexpected value being a [`Fail::Data`].
pub(super) struct Cols<'a, R: Cells + ?Sized>(pub(super) &'a R);

impl<R: Cells + ?Sized> Cols<'_, R> {
    pub(super) fn unexpected(&self, i: usize, name: &str) -> Fail {
        Fail::Data(format!("unexpected value {:?} for {name}", cell(self.0, i)))
    }

    pub(super) fn opt_int(&self, i: usize) -> Option<i64> {
        int_of(cell(self.0, i))
    }

    pub(super) fn int(&self, i: usize, name: &str) -> Step<i64> {
        self.opt_int(i).ok_or_else(|| self.unexpected(i, name))
    }

    /// A DECIMAL with `scale` digits after the point, as an integer count of its last digit.
    pub(super) fn fixed(&self, i: usize, scale: u32, name: &str) -> Step<i64> {
        fixed_of(cell(self.0, i), scale).ok_or_else(|| self.unexpected(i, name))
    }

    pub(super) fn text(&self, i: usize) -> String {
        match cell(self.0, i) {
            Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
            Value::NULL => String::new(),
            other => other.as_sql(true).trim_matches('\'').to_string(),
        }
    }
}

pub(super) fn int_of(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        Value::UInt(u) => i64::try_from(*u).ok(),
        Value::Bytes(b) => std::str::from_utf8(b).ok()?.trim().parse().ok(),
        _ => None,
    }
}

/// Parses a decimal (`-12.3`, `7`, `0.1965`) into an integer of `scale` decimal places,
/// rounding half away from zero beyond them.
pub(super) fn fixed_of(v: &Value, scale: u32) -> Option<i64> {
    let unit = 10i64.checked_pow(scale)?;
    match v {
        Value::Int(i) => i.checked_mul(unit),
        Value::UInt(u) => i64::try_from(*u).ok()?.checked_mul(unit),
        Value::Double(f) => Some((f * unit as f64).round() as i64),
        Value::Float(f) => Some((f64::from(*f) * unit as f64).round() as i64),
        Value::Bytes(b) => parse_fixed(std::str::from_utf8(b).ok()?.trim(), scale),
        _ => None,
    }
}

pub(super) fn parse_fixed(s: &str, scale: u32) -> Option<i64> {
    let (negative, digits) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let (whole, frac) = digits.split_once('.').unwrap_or((digits, ""));
    if whole.is_empty() && frac.is_empty() {
        return None;
    }
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if !all_digits(whole) || !all_digits(frac) {
        return None;
    }
    let mut value: i64 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    let frac = frac.as_bytes();
    for k in 0..scale as usize {
        let digit = frac.get(k).map_or(0, |b| i64::from(b - b'0'));
        value = value.checked_mul(10)?.checked_add(digit)?;
    }
    if frac.get(scale as usize).is_some_and(|b| *b >= b'5') {
        value = value.checked_add(1)?;
    }
    Some(if negative { -value } else { value })
}

/// NEWORD's total: `ROUND(sum * (1 - discount) * (1 + w_tax + d_tax), 2)`, with the sum in
/// cents and the rates in units of 0.0001, exactly as the server computes it on DECIMALs.
pub(super) fn order_total(sum_cents: i64, discount: i64, w_tax: i64, d_tax: i64) -> i64 {
    let raw =
        i128::from(sum_cents) * i128::from(10_000 - discount) * i128::from(10_000 + w_tax + d_tax);
    let unit = 100_000_000i128;
    let rounded = (raw.abs() + unit / 2) / unit;
    (if raw < 0 { -rounded } else { rounded }) as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_parse_to_fixed_point() {
        let b = |s: &str| Value::Bytes(s.as_bytes().to_vec());
        assert_eq!(fixed_of(&b("12.34"), 2), Some(1234));
        assert_eq!(fixed_of(&b("-120.00"), 2), Some(-12000));
        assert_eq!(fixed_of(&b("-0.5"), 2), Some(-50));
        assert_eq!(fixed_of(&b("0.1965"), 4), Some(1965));
        assert_eq!(fixed_of(&b("7"), 2), Some(700));
        assert_eq!(fixed_of(&b(".5"), 1), Some(5));
        assert_eq!(fixed_of(&b("1.005"), 2), Some(101));
        assert_eq!(fixed_of(&Value::Int(3), 2), Some(300));
        assert_eq!(fixed_of(&b("1.2.3"), 2), None);
        assert_eq!(fixed_of(&b(""), 2), None);
        assert_eq!(fixed_of(&b("-"), 2), None);
        assert_eq!(fixed_of(&Value::NULL, 2), None);
    }

    #[test]
    fn order_total_rounds_as_the_server() {
        // 100.00 * (1 - 0.1) * (1 + 0.05 + 0.05) = 99.00
        assert_eq!(order_total(10_000, 1_000, 500, 500), 9_900);
        // 1.00 * (1 - 0.5) * (1 + 0.0001) = 0.50005, rounded down
        assert_eq!(order_total(100, 5_000, 1, 0), 50);
        // 0.01 * 1.5 = 0.015, half rounded up
        assert_eq!(order_total(1, 0, 5_000, 0), 2);
    }
}
