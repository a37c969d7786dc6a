//! PostgreSQL's backend messages as the lean connection reads them: framed in place in the
//! reused inbox (lengths bounded), a call's first row kept as text, and an ErrorResponse's
//! fields.

use super::{protocol, ServerError, WireError};

/// The largest backend message accepted: a routine's reply is a few hundred bytes, and a
/// length header from a hostile server must not make the client allocate gigabytes.
const MAX_MESSAGE: usize = 8 * 1024 * 1024;

/// Bytes received (decrypted) and not yet consumed: `buf[head..tail]`.
pub(super) struct Inbox {
    buf: Vec<u8>,
    head: usize,
    pub(super) tail: usize,
}

/// One backend message inside the inbox: its type byte and its body's place.
#[derive(Clone, Copy)]
pub(super) struct Frame {
    pub(super) tag: u8,
    start: usize,
    end: usize,
}

impl Inbox {
    pub(super) fn new() -> Self {
        Inbox {
            buf: vec![0; 16 * 1024],
            head: 0,
            tail: 0,
        }
    }

    /// The next whole message, if it has arrived; consumed from the inbox.
    pub(super) fn next(&mut self) -> Result<Option<Frame>, WireError> {
        let have = self.tail - self.head;
        if have < 5 {
            return Ok(None);
        }
        let h = self.head;
        let len = i32::from_be_bytes([
            self.buf[h + 1],
            self.buf[h + 2],
            self.buf[h + 3],
            self.buf[h + 4],
        ]);
        let len = usize::try_from(len)
            .ok()
            .filter(|l| *l >= 4)
            .ok_or_else(|| protocol(format!("a message with length {len}")))?;
        if len > MAX_MESSAGE {
            return Err(protocol(format!(
                "a message of {len} bytes, more than the {MAX_MESSAGE} this connection accepts"
            )));
        }
        if have < 1 + len {
            return Ok(None);
        }
        self.head += 1 + len;
        Ok(Some(Frame {
            tag: self.buf[h],
            start: h + 5,
            end: h + 1 + len,
        }))
    }

    pub(super) fn body(&self, f: Frame) -> &[u8] {
        &self.buf[f.start..f.end]
    }

    /// Free space after `tail`, moving unread bytes to the front or growing when needed.
    pub(super) fn space(&mut self) -> &mut [u8] {
        if self.head == self.tail {
            self.head = 0;
            self.tail = 0;
        }
        if self.tail == self.buf.len() {
            if self.head > 0 {
                self.buf.copy_within(self.head..self.tail, 0);
                self.tail -= self.head;
                self.head = 0;
            } else {
                self.buf.resize(self.buf.len() * 2, 0);
            }
        }
        &mut self.buf[self.tail..]
    }

    /// Appends `plain` after `tail`, moving the unread bytes to the front or growing when
    /// needed.
    pub(super) fn put(&mut self, plain: &[u8]) {
        if self.buf.len() - self.tail < plain.len() {
            self.buf.copy_within(self.head..self.tail, 0);
            self.tail -= self.head;
            self.head = 0;
            while self.buf.len() - self.tail < plain.len() {
                self.buf.resize(self.buf.len() * 2, 0);
            }
        }
        self.buf[self.tail..self.tail + plain.len()].copy_from_slice(plain);
        self.tail += plain.len();
    }
}

/// The first row of a call's result, as text.
#[derive(Default)]
pub(super) struct RowBuf {
    data: Vec<u8>,
    cols: Vec<Option<(usize, usize)>>,
    pub(super) present: bool,
}

impl RowBuf {
    pub(super) fn clear(&mut self) {
        self.data.clear();
        self.cols.clear();
        self.present = false;
    }

    /// Keeps a DataRow's columns.
    pub(super) fn fill(&mut self, body: &[u8]) -> Result<(), WireError> {
        let bad = || protocol("a malformed data row");
        let n = u16::from_be_bytes(
            body.get(..2)
                .ok_or_else(bad)?
                .try_into()
                .map_err(|_| bad())?,
        );
        self.data.extend_from_slice(&body[2..]);
        let mut at = 0;
        for _ in 0..n {
            let len = i32::from_be_bytes(
                self.data
                    .get(at..at + 4)
                    .ok_or_else(bad)?
                    .try_into()
                    .map_err(|_| bad())?,
            );
            at += 4;
            if len < 0 {
                self.cols.push(None);
            } else {
                let end = at + len as usize;
                if end > self.data.len() {
                    return Err(bad());
                }
                self.cols.push(Some((at, end)));
                at = end;
            }
        }
        self.present = true;
        Ok(())
    }
}

/// A call's answer: the first row, if any.
pub struct Reply<'a> {
    pub(super) row: &'a RowBuf,
}

impl Reply<'_> {
    /// The first row, if the statement returned one (as `rows.first()` on a query's rows).
    pub fn first(&self) -> Option<&Self> {
        self.row.present.then_some(self)
    }

    /// Column `i` of the first row: `Ok(None)` for NULL, an error when there is no such column
    /// or its text is not UTF-8.
    pub fn text(&self, i: usize) -> Result<Option<&str>, String> {
        match self.row.cols.get(i) {
            None => Err(format!(
                "column {i} missing ({} returned)",
                self.row.cols.len()
            )),
            Some(None) => Ok(None),
            Some(Some((a, b))) => std::str::from_utf8(&self.row.data[*a..*b])
                .map(Some)
                .map_err(|_| format!("column {i} is not UTF-8")),
        }
    }

    /// Column `i` as an integer (`Ok(None)` for NULL).
    pub fn int(&self, i: usize) -> Result<Option<i64>, String> {
        match self.text(i)? {
            None => Ok(None),
            Some(t) => t
                .parse()
                .map(Some)
                .map_err(|_| format!("column {i} is not an integer: {t}")),
        }
    }
}

pub(super) fn be_i32(body: &[u8]) -> Result<i32, WireError> {
    body.get(..4)
        .and_then(|b| b.try_into().ok())
        .map(i32::from_be_bytes)
        .ok_or_else(|| protocol("a truncated message"))
}

/// An ErrorResponse's code, message and detail.
pub(super) fn server_error(body: &[u8]) -> ServerError {
    let mut e = ServerError {
        code: String::new(),
        message: String::new(),
        detail: None,
    };
    let mut rest = body;
    while let Some((&kind, tail)) = rest.split_first() {
        if kind == 0 {
            break;
        }
        let end = tail.iter().position(|b| *b == 0).unwrap_or(tail.len());
        let value = String::from_utf8_lossy(&tail[..end]).into_owned();
        match kind {
            b'C' => e.code = value,
            b'M' => e.message = value,
            b'D' => e.detail = Some(value),
            _ => {}
        }
        rest = tail.get(end + 1..).unwrap_or(&[]);
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(tag: u8, body: &[u8]) -> Vec<u8> {
        let mut m = vec![tag];
        m.extend_from_slice(&((body.len() + 4) as i32).to_be_bytes());
        m.extend_from_slice(body);
        m
    }

    #[test]
    fn frames_are_cut_only_when_whole() {
        let mut inbox = Inbox::new();
        let bytes = [message(b'2', b""), message(b'C', b"CALL\0")].concat();
        // The first message and half of the second.
        let cut = 5 + 3;
        inbox.buf[..cut].copy_from_slice(&bytes[..cut]);
        inbox.tail = cut;
        let f = inbox.next().unwrap().unwrap();
        assert_eq!((f.tag, f.end - f.start), (b'2', 0));
        assert!(inbox.next().unwrap().is_none());
        let space = inbox.space();
        space[..bytes.len() - cut].copy_from_slice(&bytes[cut..]);
        inbox.tail += bytes.len() - cut;
        let f = inbox.next().unwrap().unwrap();
        assert_eq!((f.tag, inbox.body(f)), (b'C', &b"CALL\0"[..]));
        assert!(inbox.next().unwrap().is_none());
    }

    #[test]
    fn a_bad_length_is_a_protocol_error() {
        let mut inbox = Inbox::new();
        inbox.buf[..5].copy_from_slice(&[b'D', 0, 0, 0, 2]);
        inbox.tail = 5;
        assert!(matches!(inbox.next(), Err(WireError::Protocol(_))));
    }

    #[test]
    fn the_inbox_grows_for_a_message_larger_than_it() {
        let mut inbox = Inbox::new();
        let size = inbox.buf.len();
        inbox.tail = size;
        assert!(inbox.space().len() >= size);
    }

    #[test]
    fn data_rows_keep_nulls_and_text() {
        let mut body = 3u16.to_be_bytes().to_vec();
        body.extend_from_slice(&2i32.to_be_bytes());
        body.extend_from_slice(b"42");
        body.extend_from_slice(&(-1i32).to_be_bytes());
        body.extend_from_slice(&4i32.to_be_bytes());
        body.extend_from_slice(b"1.50");
        let mut row = RowBuf::default();
        row.fill(&body).unwrap();
        let reply = Reply { row: &row };
        assert!(reply.first().is_some());
        assert_eq!(reply.int(0).unwrap(), Some(42));
        assert_eq!(reply.text(1).unwrap(), None);
        assert_eq!(reply.text(2).unwrap(), Some("1.50"));
        assert!(reply.text(3).is_err());
        assert!(reply.int(2).is_err());
    }

    #[test]
    fn a_truncated_data_row_is_refused() {
        let mut body = 1u16.to_be_bytes().to_vec();
        body.extend_from_slice(&10i32.to_be_bytes());
        body.extend_from_slice(b"short");
        assert!(RowBuf::default().fill(&body).is_err());
    }

    #[test]
    fn error_fields_are_read() {
        let body = b"SERROR\0C40001\0Mcould not serialize\0Dw_id=1 o_id=7\0\0";
        let e = server_error(body);
        assert_eq!(e.code, "40001");
        assert_eq!(e.message, "could not serialize");
        assert_eq!(e.detail.as_deref(), Some("w_id=1 o_id=7"));
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        /// Feeds `bytes` to an inbox in chunks of the given sizes, taking every whole frame
        /// and the parts a call reads of it, until an error or the end.
        fn digest(bytes: &[u8], chunks: &[usize]) {
            let mut inbox = Inbox::new();
            let mut at = 0;
            for &c in chunks.iter().cycle().take(bytes.len() + 1) {
                if at >= bytes.len() {
                    break;
                }
                let n = c.clamp(1, bytes.len() - at);
                let space = inbox.space();
                let n = n.min(space.len());
                space[..n].copy_from_slice(&bytes[at..at + n]);
                inbox.tail += n;
                at += n;
                // Memory stays bounded by what was sent, whatever the headers claim.
                assert!(inbox.buf.len() <= 2 * bytes.len().max(8 * 1024) + 16 * 1024);
                loop {
                    match inbox.next() {
                        Ok(Some(f)) => {
                            let body = inbox.body(f);
                            let mut row = RowBuf::default();
                            let _ = row.fill(body);
                            let reply = Reply { row: &row };
                            for i in 0..4 {
                                let _ = reply.int(i);
                            }
                            let _ = server_error(body);
                            let _ = be_i32(body);
                        }
                        Ok(None) => break,
                        Err(_) => return,
                    }
                }
            }
        }

        /// A well-formed call reply: BindComplete, a row, CommandComplete, ReadyForQuery.
        fn reply() -> Vec<u8> {
            let mut row = 2u16.to_be_bytes().to_vec();
            row.extend_from_slice(&2i32.to_be_bytes());
            row.extend_from_slice(b"42");
            row.extend_from_slice(&(-1i32).to_be_bytes());
            [
                message(b'2', b""),
                message(b'D', &row),
                message(b'C', b"SELECT 1\0"),
                message(b'E', b"SERROR\0C40001\0Mretry\0\0"),
                message(b'Z', b"I"),
            ]
            .concat()
        }

        proptest! {
            #[test]
            fn random_bytes_never_panic(
                bytes in proptest::collection::vec(any::<u8>(), 0..4096),
                chunks in proptest::collection::vec(1usize..600, 1..8),
            ) {
                digest(&bytes, &chunks);
            }

            #[test]
            fn mutated_replies_never_panic(
                flips in proptest::collection::vec((0usize..64, any::<u8>()), 1..6),
                chunks in proptest::collection::vec(1usize..40, 1..8),
            ) {
                let mut bytes = reply();
                for (at, v) in flips {
                    let at = at % bytes.len();
                    bytes[at] = v;
                }
                digest(&bytes, &chunks);
            }

            #[test]
            fn a_length_from_the_server_never_sizes_the_buffer(len in 0i32..=i32::MAX) {
                let mut inbox = Inbox::new();
                let mut head = vec![b'D'];
                head.extend_from_slice(&len.to_be_bytes());
                inbox.buf[..5].copy_from_slice(&head);
                inbox.tail = 5;
                match inbox.next() {
                    Ok(None) => prop_assert!((4..=MAX_MESSAGE as i32).contains(&len)),
                    Ok(Some(_)) => prop_assert_eq!(len, 4),
                    Err(_) => prop_assert!(!(4..=MAX_MESSAGE as i32).contains(&len)),
                }
                prop_assert_eq!(inbox.buf.len(), 16 * 1024);
            }
        }
    }
}
