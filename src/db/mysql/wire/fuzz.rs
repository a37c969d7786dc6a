//! Random and mutated replies to every parser of the MariaDB/MySQL connection: no panic, and
//! never more kept than the reply's cost allows.

use mysql_common::constants::{CapabilityFlags, ColumnFlags, ColumnType, StatusFlags};
use mysql_common::Value;
use proptest::prelude::*;

use super::packet::{eof_status, frame, lenenc, ok_packet, server_error};
use super::rows::{
    binary_row, column_type, feed, prepare_ok, text_row, Parse, MAX_COLUMNS, MAX_REPLY,
};
use super::testkit::*;
use super::{Expect, Outcome};
use crate::fault::Failure;

/// Valid replies of every kind, to mutate.
fn seeds() -> Vec<(Expect, Vec<u8>)> {
    let mut prepare = Vec::new();
    let mut head = vec![0x00];
    head.extend_from_slice(&7u32.to_le_bytes());
    head.extend_from_slice(&1u16.to_le_bytes());
    head.extend_from_slice(&1u16.to_le_bytes());
    head.extend_from_slice(&[0, 0, 0]);
    prepare.extend(packet(1, &head));
    prepare.extend(packet(2, &column("?", ColumnType::MYSQL_TYPE_NULL, 0)));
    prepare.extend(packet(3, &column("n", ColumnType::MYSQL_TYPE_LONG, 0)));
    vec![
        (Expect::Execute, call_reply()),
        (Expect::Execute, rows_reply(1, 4, StatusFlags::empty())),
        (
            Expect::Query,
            text_reply(&["a", "b"], &[vec![Some("x"), None], vec![None, Some("y")]]),
        ),
        (
            Expect::Query,
            packet(1, &err(1213, "40001", "Deadlock found")),
        ),
        (Expect::Prepare, prepare),
    ]
}

fn expect_of(k: u8) -> Expect {
    match k % 4 {
        0 => Expect::Query,
        1 => Expect::Execute,
        2 => Expect::Prepare,
        _ => Expect::Nothing,
    }
}

/// Feeds `data` in pieces of `piece` bytes as `Wire::reply` does; checks the bounds.
fn check(data: &[u8], piece: usize, expect: Expect, caps: CapabilityFlags, infile: bool) {
    let mut parse = Parse::new(expect);
    parse.infile = infile;
    let (mut cols, mut rows) = (Vec::new(), Vec::new());
    let mut pending = Vec::new();
    for chunk in data.chunks(piece.max(1)) {
        pending.extend_from_slice(chunk);
        match feed(&mut parse, &pending, caps, &mut cols, &mut rows) {
            Ok((used, outcome)) => {
                assert!(used <= pending.len());
                pending.drain(..used);
                if outcome.is_some() {
                    break;
                }
            }
            Err(e) => {
                assert_eq!(e.kind, Failure::Lost, "{e:?}");
                break;
            }
        }
    }
    let kept: usize = rows.iter().map(Vec::len).sum();
    assert!(kept * std::mem::size_of::<Value>() <= parse.cost);
    assert!(parse.cost <= MAX_REPLY);
    assert!(cols.len() <= MAX_COLUMNS);
}

fn caps_of(deprecate_eof: bool) -> CapabilityFlags {
    if deprecate_eof {
        caps()
    } else {
        CapabilityFlags::CLIENT_PROTOCOL_41
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes(
        data in proptest::collection::vec(any::<u8>(), 0..600),
        piece in 1usize..64,
        k in any::<u8>(),
        eof in any::<bool>(),
        infile in any::<bool>(),
    ) {
        check(&data, piece, expect_of(k), caps_of(eof), infile);
    }

    #[test]
    fn random_packets(
        payloads in proptest::collection::vec(
            proptest::collection::vec(any::<u8>(), 0..80), 0..12),
        piece in 1usize..64,
        k in any::<u8>(),
        eof in any::<bool>(),
    ) {
        // Well framed and numbered, so the parsers behind the framing see them.
        let mut data = Vec::new();
        for (i, p) in payloads.iter().enumerate() {
            data.extend(packet(i as u8 + 1, p));
        }
        check(&data, piece, expect_of(k), caps_of(eof), false);
    }

    #[test]
    fn mutated_replies(
        which in any::<prop::sample::Index>(),
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..4), 1..6),
        piece in 1usize..64,
        eof in any::<bool>(),
    ) {
        let seeds = seeds();
        let (expect, mut data) = seeds[which.index(seeds.len())].clone();
        for (at, byte, how) in edits {
            if data.is_empty() {
                break;
            }
            let i = at.index(data.len());
            match how {
                0 => data[i] = byte,
                1 => data[i] ^= 1 << (byte % 8),
                2 => data.insert(i, byte),
                _ => data.truncate(i),
            }
        }
        check(&data, piece, expect, caps_of(eof), false);
    }

    #[test]
    fn field_parsers(p in proptest::collection::vec(any::<u8>(), 0..200), n in 0usize..40) {
        let mut at = 0;
        let _ = lenenc(&p, &mut at);
        assert!(at <= p.len() + 9);
        let _ = ok_packet(&p);
        let _ = eof_status(&p);
        let _ = server_error(&p, caps());
        let _ = server_error(&p, CapabilityFlags::empty());
        let _ = prepare_ok(&p, caps());
        let _ = text_row(&p, n);
        if let Ok(col) = column_type(&p) {
            let _ = binary_row(&p, &vec![col; n.min(8)]);
        }
        let _ = frame(&p, 0);
        let _ = frame(&p, usize::MAX - 2);
    }

    #[test]
    fn binary_rows_of_every_type(
        p in proptest::collection::vec(any::<u8>(), 0..64),
        ty in any::<u8>(),
        flags in any::<u16>(),
    ) {
        if let Ok(ty) = ColumnType::try_from(ty) {
            let col = (ty, ColumnFlags::from_bits_truncate(flags));
            let mut row = vec![0x00, 0];
            row.extend_from_slice(&p);
            let _ = binary_row(&row, &[col, col]);
        }
    }
}

#[test]
fn a_large_reply_dripped_in_small_pieces_is_read_in_one_pass() {
    // 4 MiB of rows, 64 bytes at a time: each packet is parsed once.
    let row = {
        let mut p = Vec::new();
        lenenc_str(&mut p, &[b'x'; 1000]);
        p
    };
    let mut data = packet(1, &[1]);
    data.extend(packet(
        2,
        &column("v", ColumnType::MYSQL_TYPE_VAR_STRING, 0),
    ));
    let n = 4 * 1024;
    let mut seq = 3u8;
    for _ in 0..n {
        data.extend(packet(seq, &row));
        seq = seq.wrapping_add(1);
    }
    data.extend(packet(seq, &ok(0xFE, StatusFlags::empty())));
    let started = std::time::Instant::now();
    let (outcome, rows) = in_pieces(&data, 64, Expect::Query).expect("readable");
    assert!(matches!(outcome, Outcome::Done(d) if d.rows == n));
    assert_eq!(rows.len(), n);
    // Re-parsing from the start on every piece took minutes here; one pass, well
    // under a second even unoptimised.
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}
