//! PostgreSQL's NUMERIC read as the text the server prints for it.

use tokio_postgres::types::{FromSql, Type};

/// A server's NUMERIC as the text PostgreSQL prints for it (tokio-postgres has no decimal
/// type of its own): money and rates are shown, never computed with, on the client.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Numeric(pub(super) String);

impl<'a> FromSql<'a> for Numeric {
    fn from_sql(
        _: &Type,
        raw: &'a [u8],
    ) -> std::result::Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        numeric_text(raw)
            .map(Numeric)
            .ok_or_else(|| "malformed numeric value".into())
    }

    fn accepts(ty: &Type) -> bool {
        *ty == Type::NUMERIC
    }
}

impl std::fmt::Display for Numeric {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Decodes NUMERIC's binary form: digit count, weight of the first base-10000 digit, sign,
/// display scale, then the digits.
pub(super) fn numeric_text(raw: &[u8]) -> Option<String> {
    let word = |i: usize| -> Option<u16> {
        let b = raw.get(2 * i..2 * i + 2)?;
        Some(u16::from_be_bytes([b[0], b[1]]))
    };
    let ndigits = usize::from(word(0)?);
    let weight = i64::from(word(1)? as i16);
    let sign = word(2)?;
    let dscale = usize::from(word(3)?);
    if raw.len() != 8 + 2 * ndigits {
        return None;
    }
    match sign {
        0x0000 | 0x4000 => {}
        0xC000 => return Some("NaN".into()),
        0xD000 => return Some("Infinity".into()),
        0xF000 => return Some("-Infinity".into()),
        _ => return None,
    }
    // The base-10000 digit of weight `w` (0 when outside the stored digits).
    let digit = |w: i64| -> Option<u16> {
        let i = weight - w;
        if i < 0 || i >= ndigits as i64 {
            Some(0)
        } else {
            word(4 + i as usize).filter(|d| *d < 10_000)
        }
    };
    let mut s = String::new();
    if sign == 0x4000 {
        s.push('-');
    }
    if weight < 0 {
        s.push('0');
    } else {
        s.push_str(&digit(weight)?.to_string());
        for w in (0..weight).rev() {
            s.push_str(&format!("{:04}", digit(w)?));
        }
    }
    if dscale > 0 {
        s.push('.');
        let mut frac = String::new();
        let mut w = -1;
        while frac.len() < dscale {
            frac.push_str(&format!("{:04}", digit(w)?));
            w -= 1;
        }
        frac.truncate(dscale);
        s.push_str(&frac);
    }
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// NUMERIC's binary form from its parts.
    fn numeric(weight: i16, negative: bool, dscale: u16, digits: &[u16]) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(&(digits.len() as u16).to_be_bytes());
        b.extend_from_slice(&weight.to_be_bytes());
        b.extend_from_slice(&(if negative { 0x4000u16 } else { 0 }).to_be_bytes());
        b.extend_from_slice(&dscale.to_be_bytes());
        for d in digits {
            b.extend_from_slice(&d.to_be_bytes());
        }
        b
    }

    #[test]
    fn numeric_prints_as_postgres_does() {
        let text = |w, neg, scale, digits: &[u16]| numeric_text(&numeric(w, neg, scale, digits));
        assert_eq!(text(0, false, 2, &[1520, 3300]).as_deref(), Some("1520.33"));
        assert_eq!(text(0, true, 2, &[120]).as_deref(), Some("-120.00"));
        assert_eq!(text(1, false, 0, &[1, 0]).as_deref(), Some("10000"));
        assert_eq!(
            text(1, false, 2, &[12, 3456, 7800]).as_deref(),
            Some("123456.78")
        );
        assert_eq!(text(-1, false, 4, &[1367]).as_deref(), Some("0.1367"));
        assert_eq!(text(-2, false, 6, &[1200]).as_deref(), Some("0.000012"));
        assert_eq!(text(-2, false, 8, &[12]).as_deref(), Some("0.00000012"));
        assert_eq!(text(0, false, 2, &[]).as_deref(), Some("0.00"));
        assert_eq!(text(0, false, 0, &[]).as_deref(), Some("0"));
        assert_eq!(text(2, false, 0, &[5]).as_deref(), Some("500000000"));
        let mut nan = numeric(0, false, 0, &[]);
        nan[4] = 0xC0;
        assert_eq!(numeric_text(&nan).as_deref(), Some("NaN"));
        assert_eq!(numeric_text(&[0, 1, 0]), None);
        assert_eq!(numeric_text(&numeric(0, false, 0, &[10_000])), None);
        let mut short = numeric(0, false, 2, &[1, 2]);
        short.pop();
        assert_eq!(numeric_text(&short), None);
    }
}
