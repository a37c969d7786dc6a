//! The reply to a request, parsed in one pass as its packets arrive: result sets (column
//! types kept only where binary rows need them), text and binary rows, the final OK, the
//! server's error, a prepare's definitions skipped, a `LOAD DATA LOCAL` request; each packet's
//! sequence id checked and the reply's columns and cost bounded.

use mysql_common::constants::{CapabilityFlags, ColumnFlags, ColumnType, StatusFlags};
use mysql_common::io::ParseBuf;
use mysql_common::value::{BinValue, ValueDeserializer};
use mysql_common::Value;

use super::packet::{eof_status, frame, lenenc, ok_packet, server_error, OkPacket};
use super::{Done, Expect, Outcome, Stmt, WireError};

/// The most columns a result set may have (MySQL's and MariaDB's limit for a table, and a
/// bound on what a hostile column count makes this connection wait for).
pub(super) const MAX_COLUMNS: usize = 4096;
/// The most a reply may cost: its bytes, and the values kept from it at their size in memory.
pub(super) const MAX_REPLY: usize = 256 * 1024 * 1024;

/// A column definition's type and flags: after six length-encoded strings (catalog, schema,
/// table, original table, name, original name) and the fixed fields' length come the
/// character set (2 bytes), the column length (4), the type (1) and the flags (2).
pub(super) fn column_type(p: &[u8]) -> Result<(ColumnType, ColumnFlags), WireError> {
    let mut at = 0;
    let bad = || WireError::protocol("a truncated column definition");
    for _ in 0..6 {
        let len = lenenc(p, &mut at)?.unwrap_or(0);
        at = usize::try_from(len)
            .ok()
            .and_then(|len| at.checked_add(len))
            .filter(|&end| end <= p.len())
            .ok_or_else(bad)?;
    }
    lenenc(p, &mut at)?;
    let fixed = p
        .get(at..at.saturating_add(9))
        .ok_or_else(|| WireError::protocol("a truncated column definition"))?;
    let ty = ColumnType::try_from(fixed[6])
        .map_err(|_| WireError::protocol(format!("column type {}", fixed[6])))?;
    let flags = ColumnFlags::from_bits_truncate(u16::from_le_bytes([fixed[7], fixed[8]]));
    Ok((ty, flags))
}

/// Whether mysql_common decodes this type in a binary row (it panics on the others, which
/// servers never send).
fn decodable(ty: ColumnType) -> bool {
    use ColumnType::*;
    matches!(
        ty,
        MYSQL_TYPE_STRING
            | MYSQL_TYPE_VAR_STRING
            | MYSQL_TYPE_BLOB
            | MYSQL_TYPE_TINY_BLOB
            | MYSQL_TYPE_MEDIUM_BLOB
            | MYSQL_TYPE_LONG_BLOB
            | MYSQL_TYPE_SET
            | MYSQL_TYPE_ENUM
            | MYSQL_TYPE_DECIMAL
            | MYSQL_TYPE_VARCHAR
            | MYSQL_TYPE_BIT
            | MYSQL_TYPE_NEWDECIMAL
            | MYSQL_TYPE_GEOMETRY
            | MYSQL_TYPE_JSON
            | MYSQL_TYPE_TINY
            | MYSQL_TYPE_SHORT
            | MYSQL_TYPE_YEAR
            | MYSQL_TYPE_LONG
            | MYSQL_TYPE_INT24
            | MYSQL_TYPE_LONGLONG
            | MYSQL_TYPE_FLOAT
            | MYSQL_TYPE_DOUBLE
            | MYSQL_TYPE_TIMESTAMP
            | MYSQL_TYPE_DATE
            | MYSQL_TYPE_NEWDATE
            | MYSQL_TYPE_DATETIME
            | MYSQL_TYPE_TIME
            | MYSQL_TYPE_NULL
    )
}

/// A binary-protocol row: 0x00, the NULL bitmap (offset by two bits), the non-NULL values.
pub(super) fn binary_row(
    p: &[u8],
    cols: &[(ColumnType, ColumnFlags)],
) -> Result<Vec<Value>, WireError> {
    let bitmap_len = (cols.len() + 7 + 2) / 8;
    if p.first() != Some(&0x00) {
        return Err(WireError::protocol("a binary row without its 0x00 header"));
    }
    let bitmap = p
        .get(1..1 + bitmap_len)
        .ok_or_else(|| WireError::protocol("a truncated row"))?;
    let mut values = ParseBuf(&p[1 + bitmap_len..]);
    let mut row = Vec::with_capacity(cols.len());
    for (i, &(ty, flags)) in cols.iter().enumerate() {
        let bit = i + 2;
        if bitmap[bit / 8] & (1 << (bit % 8)) != 0 {
            row.push(Value::NULL);
            continue;
        }
        if !decodable(ty) {
            return Err(WireError::protocol(format!("a value of type {ty:?}")));
        }
        let v: ValueDeserializer<BinValue> = values
            .parse((ty, flags))
            .map_err(|e| WireError::protocol(format!("a value of type {ty:?}: {e}")))?;
        row.push(v.0);
    }
    Ok(row)
}

/// Where the parse of a reply stands: it takes one packet at a time and keeps only what it
/// needs of those it has seen, so a reply is read in one pass however it arrives.
#[derive(Debug)]
pub(super) struct Parse {
    pub(super) expect: Expect,
    phase: Phase,
    /// The sequence id the next packet must carry.
    pub(super) seq: u8,
    /// A `LOAD DATA LOCAL` request is expected, and may be answered.
    pub(super) infile: bool,
    /// Rows of every result set so far.
    rows: usize,
    /// The rows read belong to the reply's first result set (the ones kept).
    first_set: bool,
    /// The number of columns of the result set being read.
    ncols: usize,
    /// What the reply has cost so far: its bytes, and the values kept from it.
    pub(super) cost: usize,
    /// A prepared statement, while its definitions are being skipped.
    stmt: Option<Stmt>,
    /// The first result set's rows are decoded and kept; off, they are only counted.
    pub(super) keep: bool,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Phase {
    /// The first packet of a result: OK, ERR, LOCAL INFILE request or a column count.
    Head,
    /// This many column definitions still to come.
    Columns(usize),
    /// The EOF after the column definitions (without CLIENT_DEPRECATE_EOF).
    ColumnsEof,
    Rows,
    /// A prepare reply's parameter and column definitions (and EOFs): this many packets to skip.
    Definitions(usize),
}

impl Parse {
    pub(super) fn new(expect: Expect) -> Self {
        Parse {
            expect,
            phase: Phase::Head,
            seq: 1,
            infile: false,
            rows: 0,
            first_set: true,
            ncols: 0,
            cost: 0,
            stmt: None,
            keep: true,
        }
    }

    /// Takes one packet (its payload and sequence id): the outcome once the reply is
    /// complete. The rows of the first result set go to `rows_out`, their columns' types
    /// (binary replies) to `cols`.
    fn step(
        &mut self,
        p: &[u8],
        seq: u8,
        caps: CapabilityFlags,
        cols: &mut Vec<(ColumnType, ColumnFlags)>,
        rows_out: &mut Vec<Vec<Value>>,
    ) -> Result<Option<Outcome>, WireError> {
        if seq != self.seq {
            // A packet lost, repeated or from another reply: nothing that follows can be
            // matched to its request.
            return Err(WireError::protocol(format!(
                "packet sequence id {seq} where {} was due",
                self.seq
            )));
        }
        self.seq = seq.wrapping_add(1);
        self.charge(4 + p.len())?;
        let deprecate_eof = caps.contains(CapabilityFlags::CLIENT_DEPRECATE_EOF);
        match self.phase {
            Phase::Head => match (p.first(), self.expect) {
                (None, _) => Err(WireError::protocol("an empty packet")),
                (Some(0xFF), _) => Ok(Some(Outcome::Error(server_error(p, caps)))),
                (_, Expect::Nothing) => Err(WireError::protocol("a reply to COM_STMT_CLOSE")),
                (Some(0x00), Expect::Prepare) => {
                    let (stmt, defs) = prepare_ok(p, caps)?;
                    if defs == 0 {
                        return Ok(Some(Outcome::Prepared(stmt)));
                    }
                    self.stmt = Some(stmt);
                    self.phase = Phase::Definitions(defs);
                    Ok(None)
                }
                (Some(_), Expect::Prepare) => {
                    Err(WireError::protocol("an unreadable prepare reply"))
                }
                (Some(0x00), _) => {
                    let ok = ok_packet(p)?;
                    Ok(self.end_of_result(ok))
                }
                (Some(0xFB), _) if self.infile => {
                    self.infile = false;
                    Ok(Some(Outcome::Infile))
                }
                (Some(0xFB), _) => Err(WireError::protocol(
                    "a LOCAL INFILE request in reply to a statement that loads nothing",
                )),
                (Some(_), _) => {
                    let mut at = 0;
                    let n = lenenc(p, &mut at)?.unwrap_or(0);
                    if at != p.len() || n == 0 || n > MAX_COLUMNS as u64 {
                        return Err(WireError::protocol(format!(
                            "a result set of {n} columns (at most {MAX_COLUMNS})"
                        )));
                    }
                    self.ncols = n as usize;
                    cols.clear();
                    self.phase = Phase::Columns(self.ncols);
                    Ok(None)
                }
            },
            Phase::Columns(left) => {
                if self.expect == Expect::Execute && self.first_set {
                    cols.push(column_type(p)?);
                }
                self.phase = match left - 1 {
                    0 if deprecate_eof => Phase::Rows,
                    0 => Phase::ColumnsEof,
                    left => Phase::Columns(left),
                };
                Ok(None)
            }
            Phase::ColumnsEof => {
                if p.first() != Some(&0xFE) {
                    return Err(WireError::protocol("no EOF after the column definitions"));
                }
                self.phase = Phase::Rows;
                Ok(None)
            }
            Phase::Rows => match p.first() {
                // A row never starts with 0xFE short of 16 MiB: that is the end.
                Some(0xFE) => {
                    let ok = if deprecate_eof {
                        ok_packet(p)?
                    } else {
                        OkPacket {
                            status: eof_status(p)?,
                            ..OkPacket::default()
                        }
                    };
                    self.first_set = false;
                    Ok(self.end_of_result(ok))
                }
                Some(0xFF) => Ok(Some(Outcome::Error(server_error(p, caps)))),
                _ => {
                    if self.first_set && self.keep {
                        // A value costs its place in the row besides its bytes.
                        self.charge(self.ncols * std::mem::size_of::<Value>())?;
                        rows_out.push(match self.expect {
                            Expect::Execute => binary_row(p, cols)?,
                            _ => text_row(p, self.ncols)?,
                        });
                    }
                    self.rows += 1;
                    Ok(None)
                }
            },
            Phase::Definitions(left) => {
                if left > 1 {
                    self.phase = Phase::Definitions(left - 1);
                    return Ok(None);
                }
                let stmt = self
                    .stmt
                    .take()
                    .ok_or_else(|| WireError::protocol("a prepare reply"))?;
                Ok(Some(Outcome::Prepared(stmt)))
            }
        }
    }

    /// An OK (or EOF) that ends a result, or the reply when no more results follow.
    fn end_of_result(&mut self, ok: OkPacket) -> Option<Outcome> {
        if ok.status.contains(StatusFlags::SERVER_MORE_RESULTS_EXISTS) {
            self.phase = Phase::Head;
            return None;
        }
        Some(Outcome::Done(Done {
            rows: self.rows,
            affected: ok.affected,
            warnings: ok.warnings,
        }))
    }

    fn charge(&mut self, cost: usize) -> Result<(), WireError> {
        self.cost = self.cost.saturating_add(cost);
        if self.cost > MAX_REPLY {
            return Err(WireError::protocol(format!(
                "a reply larger than {} MiB",
                MAX_REPLY >> 20
            )));
        }
        Ok(())
    }
}

/// Feeds the complete packets at the start of `data` to `parse`: the bytes taken, and the
/// outcome once the reply is complete (the bytes after it are left for the next reply).
pub(super) fn feed(
    parse: &mut Parse,
    data: &[u8],
    caps: CapabilityFlags,
    cols: &mut Vec<(ColumnType, ColumnFlags)>,
    rows: &mut Vec<Vec<Value>>,
) -> Result<(usize, Option<Outcome>), WireError> {
    let mut at = 0;
    while let Some((p, seq, next)) = frame(data, at)? {
        at = next;
        if let Some(outcome) = parse.step(p, seq, caps, cols, rows)? {
            return Ok((at, Some(outcome)));
        }
    }
    Ok((at, None))
}

/// A text-protocol row: each value length-encoded, 0xFB for NULL.
pub(super) fn text_row(p: &[u8], ncols: usize) -> Result<Vec<Value>, WireError> {
    let mut at = 0;
    let mut row = Vec::with_capacity(ncols);
    for _ in 0..ncols {
        match lenenc(p, &mut at)? {
            None => row.push(Value::NULL),
            Some(len) => {
                let bytes = usize::try_from(len)
                    .ok()
                    .and_then(|len| at.checked_add(len))
                    .and_then(|end| p.get(at..end))
                    .ok_or_else(|| WireError::protocol("a truncated row"))?;
                at += bytes.len();
                row.push(Value::Bytes(bytes.to_vec()));
            }
        }
    }
    if at != p.len() {
        return Err(WireError::protocol("a row longer than its columns"));
    }
    Ok(row)
}

/// A COM_STMT_PREPARE's OK: the statement, and how many definition packets follow.
pub(super) fn prepare_ok(p: &[u8], caps: CapabilityFlags) -> Result<(Stmt, usize), WireError> {
    let Some(f) = p.get(..9) else {
        return Err(WireError::protocol("a truncated prepare reply"));
    };
    let id = u32::from_le_bytes([f[1], f[2], f[3], f[4]]);
    let columns = usize::from(u16::from_le_bytes([f[5], f[6]]));
    let params = usize::from(u16::from_le_bytes([f[7], f[8]]));
    let eof = !caps.contains(CapabilityFlags::CLIENT_DEPRECATE_EOF);
    let defs = [params, columns]
        .iter()
        .map(|&n| n + usize::from(eof && n > 0))
        .sum();
    Ok((Stmt { id, params }, defs))
}

#[cfg(test)]
mod tests {
    use mysql_common::constants::{CapabilityFlags, ColumnType, StatusFlags};
    use mysql_common::Value;

    use super::*;
    use crate::db::mysql::wire::packet::put_lenenc;
    use crate::db::mysql::wire::testkit::*;
    use crate::fault::Failure;

    #[test]
    fn a_call_reply_gives_its_out_parameters() {
        let data = call_reply();
        let (mut cols, mut row) = (Vec::new(), Vec::new());
        let (used, outcome) = results(&data, caps(), true, &mut cols, &mut row)
            .expect("readable")
            .expect("complete");
        assert_eq!(used, data.len());
        assert!(matches!(outcome, Outcome::Done(d) if d == done(1)));
        assert_eq!(
            row,
            [vec![
                Value::Int(42),
                Value::Bytes(b"-12.34".to_vec()),
                Value::NULL
            ]]
        );
        // Any prefix is incomplete, and says so rather than failing.
        for cut in 0..data.len() {
            let r = results(&data[..cut], caps(), true, &mut cols, &mut row).expect("readable");
            assert!(r.is_none(), "cut at {cut}");
        }
    }

    #[test]
    fn eof_packets_end_result_sets_without_deprecate_eof() {
        let more = StatusFlags::SERVER_MORE_RESULTS_EXISTS;
        let eof = |status: StatusFlags| {
            let mut p = vec![0xFE, 0, 0];
            p.extend_from_slice(&status.bits().to_le_bytes());
            p
        };
        let mut data = packet(1, &[1]);
        data.extend(packet(2, &column("n", ColumnType::MYSQL_TYPE_LONGLONG, 0)));
        data.extend(packet(3, &eof(StatusFlags::empty())));
        let mut row = vec![0x00, 0];
        row.extend_from_slice(&7i64.to_le_bytes());
        data.extend(packet(4, &row));
        data.extend(packet(5, &eof(more)));
        data.extend(packet(6, &ok(0x00, StatusFlags::empty())));
        let (mut cols, mut row) = (Vec::new(), Vec::new());
        let (used, outcome) = results(
            &data,
            CapabilityFlags::CLIENT_PROTOCOL_41,
            true,
            &mut cols,
            &mut row,
        )
        .expect("readable")
        .expect("complete");
        assert_eq!(used, data.len());
        assert!(matches!(outcome, Outcome::Done(d) if d == done(1)));
        assert_eq!(row, [vec![Value::Int(7)]]);
    }

    #[test]
    fn a_prepare_reply_skips_its_definitions() {
        let mut data = Vec::new();
        let mut head = vec![0x00];
        head.extend_from_slice(&7u32.to_le_bytes());
        head.extend_from_slice(&0u16.to_le_bytes());
        head.extend_from_slice(&2u16.to_le_bytes());
        head.extend_from_slice(&[0, 0, 0]);
        data.extend(packet(1, &head));
        data.extend(packet(2, &column("?", ColumnType::MYSQL_TYPE_NULL, 0)));
        data.extend(packet(3, &column("?", ColumnType::MYSQL_TYPE_NULL, 0)));
        let (used, outcome) = prepared(&data, caps())
            .expect("readable")
            .expect("complete");
        assert_eq!(used, data.len());
        assert!(matches!(
            outcome,
            Outcome::Prepared(Stmt { id: 7, params: 2 })
        ));
        assert!(prepared(&data[..data.len() - 1], caps())
            .expect("readable")
            .is_none());
        // Without CLIENT_DEPRECATE_EOF an EOF follows the parameters.
        let mut old = data.clone();
        old.extend(packet(4, &[0xFE, 0, 0, 2, 0]));
        let (used, _) = prepared(&old, CapabilityFlags::CLIENT_PROTOCOL_41)
            .expect("readable")
            .expect("complete");
        assert_eq!(used, old.len());
    }

    #[test]
    fn every_row_of_the_first_result_set_is_kept() {
        let n = 15;
        let want: Vec<Vec<Value>> = (0..n)
            .map(|i| vec![Value::Int(i), Value::Bytes(format!("{i}.50").into_bytes())])
            .collect();
        // One result set; then one followed by a second, whose rows are only counted.
        let one = rows_reply(1, n, StatusFlags::empty());
        let mut two = rows_reply(1, n, StatusFlags::SERVER_MORE_RESULTS_EXISTS);
        two.extend(rows_reply(1 + 3 + n as u8 + 1, 2, StatusFlags::empty()));
        for (data, total) in [(one, n as usize), (two, n as usize + 2)] {
            let (mut cols, mut rows) = (Vec::new(), Vec::new());
            let (used, outcome) = results(&data, caps(), true, &mut cols, &mut rows)
                .expect("readable")
                .expect("complete");
            assert_eq!(used, data.len());
            assert!(matches!(outcome, Outcome::Done(d) if d == done(total)));
            assert_eq!(rows, want);
            // Any prefix is incomplete; arriving in pieces of any size, the reply reads
            // the same.
            for cut in 0..data.len() {
                let r = results(&data[..cut], caps(), true, &mut cols, &mut rows);
                assert!(r.expect("readable").is_none(), "cut at {cut}");
            }
            for piece in [1, 2, 3, 7, 64, data.len()] {
                let (outcome, rows) = in_pieces(&data, piece, Expect::Execute).expect("readable");
                assert!(matches!(outcome, Outcome::Done(d) if d == done(total)));
                assert_eq!(rows, want, "in pieces of {piece}");
            }
        }
        // An error after some rows is the reply.
        let mut data = rows_reply(1, 3, StatusFlags::empty());
        data.truncate(data.len() - 11);
        data.extend(packet(
            7,
            &err(1317, "70100", "Query execution was interrupted"),
        ));
        let (mut cols, mut rows) = (Vec::new(), Vec::new());
        let (used, outcome) = results(&data, caps(), true, &mut cols, &mut rows)
            .expect("readable")
            .expect("complete");
        assert_eq!(used, data.len());
        assert!(
            matches!(&outcome, Outcome::Error(e) if e.detail == "Query execution was interrupted"),
            "{outcome:?}"
        );
    }

    #[test]
    fn text_rows_are_kept_as_text() {
        let data = text_reply(
            &["Variable_name", "Value"],
            &[
                vec![Some("Com_commit"), Some("12")],
                vec![Some("Uptime"), None],
                vec![Some(""), Some(&"x".repeat(300))],
            ],
        );
        let b = |s: &str| Value::Bytes(s.as_bytes().to_vec());
        let want = vec![
            vec![b("Com_commit"), b("12")],
            vec![b("Uptime"), Value::NULL],
            vec![b(""), b(&"x".repeat(300))],
        ];
        for piece in [1, 5, data.len()] {
            let (outcome, rows) = in_pieces(&data, piece, Expect::Query).expect("readable");
            assert!(matches!(outcome, Outcome::Done(d) if d.rows == 3 && d.warnings == 3));
            assert_eq!(rows, want);
        }
        // A row with a value too many, or too few.
        for bad in [&[1u8, b'a', 1, b'b', 1, b'c'][..], &[1, b'a']] {
            let mut data = text_reply(&["a", "b"], &[]);
            let end = data.split_off(data.len() - 11);
            data.extend(packet(4, bad));
            data.extend(packet(5, &end[4..]));
            let e = in_pieces(&data, data.len(), Expect::Query).expect_err("bad row");
            assert_eq!(e.kind, Failure::Lost);
        }
    }

    #[test]
    fn sequence_ids_are_checked_on_every_packet() {
        let data = call_reply();
        // Each packet in turn numbered one too high, or repeated from the one before.
        let mut at = 0;
        let mut k = 0;
        while at < data.len() {
            let len = usize::from(data[at]) | usize::from(data[at + 1]) << 8;
            for wrong in [data[at + 3].wrapping_add(1), data[at + 3].wrapping_sub(1)] {
                let mut bad = data.clone();
                bad[at + 3] = wrong;
                let e = in_pieces(&bad, 3, Expect::Execute).expect_err("wrong sequence id");
                assert_eq!(e.kind, Failure::Lost, "packet {k}");
                assert!(e.detail.contains("sequence id"), "{}", e.detail);
            }
            at += 4 + len;
            k += 1;
        }
        // Sequence ids wrap at 256.
        let mut parse = Parse::new(Expect::Query);
        parse.seq = 255;
        let (mut cols, mut rows) = (Vec::new(), Vec::new());
        let mut data = packet(255, &[1]);
        data.extend(packet(0, &column("n", ColumnType::MYSQL_TYPE_LONG, 0)));
        data.extend(packet(1, &ok(0xFE, StatusFlags::empty())));
        let (used, outcome) = feed(&mut parse, &data, caps(), &mut cols, &mut rows).expect("ok");
        assert_eq!(used, data.len());
        assert!(outcome.is_some());
    }

    #[test]
    fn a_huge_column_count_is_refused_at_once() {
        for n in [u64::MAX, 1 << 62, MAX_COLUMNS as u64 + 1, 0] {
            let mut head = Vec::new();
            if n == 0 {
                // 0 would be an OK packet; 0xFC 0 0 is a length of 0 spelt long.
                head.extend_from_slice(&[0xFC, 0, 0]);
            } else {
                put_lenenc(&mut head, n);
            }
            let e = in_pieces(&packet(1, &head), 1, Expect::Query).expect_err("refused");
            assert_eq!(e.kind, Failure::Lost);
        }
    }

    #[test]
    fn garbage_is_a_lost_connection_not_a_panic() {
        let (mut cols, mut row) = (Vec::new(), Vec::new());
        let mut data = packet(1, &[1]);
        data.extend(packet(2, &[0x01]));
        let e = results(&data, caps(), true, &mut cols, &mut row).expect_err("garbage");
        assert_eq!(e.kind, Failure::Lost);
        let mut data = packet(1, &[1]);
        data.extend(packet(2, &column("n", ColumnType::MYSQL_TYPE_LONG, 0)));
        data.extend(packet(3, &[0x00, 0, 1]));
        let e = results(&data, caps(), true, &mut cols, &mut row).expect_err("short row");
        assert_eq!(e.kind, Failure::Lost);
    }
}
