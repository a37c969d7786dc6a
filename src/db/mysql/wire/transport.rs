//! The bytes of a MariaDB/MySQL connection: a request written from the reused buffer
//! (sealed by TLS when it is on), the reply read into the other and fed to the parse as it
//! arrives, the connection phase's packets numbered and checked, and a call dropped half-way
//! made safe for the next one.

use super::packet::{frame, MAX_PAYLOAD};
use super::rows::{feed, Parse};
use super::{Expect, Outcome, State, Wire, WireError};
use crate::db::net::leantls::LeanError;
use crate::fault::Failure;

/// The most a reply may take in the read buffer (the server's own default packet limit).
const MAX_BUF: usize = 64 * 1024 * 1024;

impl Wire {
    /// Reads and drops the reply a dropped call still owes, so that the next request reads
    /// its own reply; a request cut while being written leaves the stream unusable.
    pub(super) async fn ready(&mut self) -> Result<(), WireError> {
        match self.state {
            State::Idle => Ok(()),
            State::Writing => Err(WireError::lost(
                "a request was interrupted while being sent; the connection is unusable",
            )),
            State::Awaiting(expect) => {
                self.reply(expect).await?;
                // The rest of a dropped batch: executions' replies, one after another.
                while self.owed > 0 {
                    self.owed -= 1;
                    self.expect(Expect::Execute);
                    self.reply(Expect::Execute).await?;
                }
                Ok(())
            }
            State::Broken => Err(WireError::protocol(
                "an earlier reply could not be read; the connection is unusable",
            )),
        }
    }

    /// Starts a command packet in the write buffer.
    pub(super) fn begin(&mut self, command: u8) {
        self.out.clear();
        self.begin_more(command);
    }

    /// Starts one more command packet in the write buffer, after those already there (a
    /// batch); `seal` fills its header in.
    pub(super) fn begin_more(&mut self, command: u8) -> usize {
        let at = self.out.len();
        self.out.extend_from_slice(&[0, 0, 0, 0, command]);
        at
    }

    /// Fills in the header of the command packet that starts at `at` and runs to the end of
    /// the write buffer.
    pub(super) fn seal(&mut self, at: usize) -> Result<(), WireError> {
        let len = self.out.len() - at - 4;
        if len >= MAX_PAYLOAD {
            return Err(WireError {
                kind: Failure::Other,
                detail: format!("a request of {len} bytes is too large"),
                code: 0,
            });
        }
        self.out[at..at + 3].copy_from_slice(&(len as u32).to_le_bytes()[..3]);
        Ok(())
    }

    /// Sends the command in the write buffer, its header filled in.
    pub(super) async fn send(&mut self, expect: Expect) -> Result<(), WireError> {
        self.seal(0)?;
        self.transmit(expect, 0).await
    }

    /// Sends the write buffer's commands, headers filled in: the first reply is `expect`'s,
    /// `owed` executions' replies follow it.
    pub(super) async fn transmit(&mut self, expect: Expect, owed: usize) -> Result<(), WireError> {
        self.state = State::Writing;
        self.flush().await?;
        self.owed = owed;
        self.expect(expect);
        Ok(())
    }

    /// Sets the parse up for the next reply, `expect`'s.
    pub(super) fn expect(&mut self, expect: Expect) {
        self.rows.clear();
        self.parse = Parse::new(expect);
        self.state = match expect {
            Expect::Nothing => State::Idle,
            _ => State::Awaiting(expect),
        };
    }

    /// Writes the write buffer to the socket, through TLS when on.
    pub(super) async fn flush(&mut self) -> Result<(), WireError> {
        let Wire {
            sock,
            tls,
            out,
            sealed,
            ..
        } = self;
        let bytes = match tls {
            None => out,
            Some(tls) => {
                sealed.clear();
                tls.seal(out, sealed).map_err(session)?;
                sealed
            }
        };
        sock.write_all(bytes).await.map_err(|e| WireError::io(&e))
    }

    /// Writes one packet of the connection phase.
    pub(super) async fn write_packet(&mut self, payload: &[u8]) -> Result<(), WireError> {
        self.out.clear();
        self.out
            .extend_from_slice(&(payload.len() as u32).to_le_bytes()[..3]);
        self.out.push(self.seq);
        self.seq = self.seq.wrapping_add(1);
        self.out.extend_from_slice(payload);
        self.flush().await
    }

    /// Reads one packet of the connection phase.
    pub(super) async fn packet(&mut self) -> Result<Vec<u8>, WireError> {
        loop {
            if let Some((payload, seq, next)) = frame(&self.buf[..self.end], self.start)? {
                if seq != self.seq {
                    return Err(WireError::protocol(format!(
                        "packet sequence id {seq} where {} was due",
                        self.seq
                    )));
                }
                let payload = payload.to_vec();
                self.start = next;
                self.seq = seq.wrapping_add(1);
                return Ok(payload);
            }
            self.fill().await?;
        }
    }

    /// Reads until the reply to the last request is complete, and parses it: each packet
    /// once, as it arrives, so a reply costs time in proportion to its size however it is
    /// cut. `expect` is what [`Wire::send`] set the parse up for.
    pub(super) async fn reply(&mut self, expect: Expect) -> Result<Outcome, WireError> {
        debug_assert_eq!(self.parse.expect, expect);
        loop {
            let Wire {
                buf,
                start,
                end,
                parse,
                caps,
                cols,
                rows,
                ..
            } = self;
            match feed(parse, &buf[*start..*end], *caps, cols, rows) {
                Ok((used, outcome)) => {
                    self.start += used;
                    if let Some(outcome) = outcome {
                        self.state = State::Idle;
                        // Nothing is left to read only once no reply is owed: a batch's next
                        // reply may have come since the last read, and telling tokio the
                        // socket is empty would lose its wake-up.
                        if self.start == self.end && self.drained && self.owed == 0 {
                            self.sock.drained();
                        }
                        return Ok(outcome);
                    }
                }
                Err(e) => {
                    self.state = State::Broken;
                    return Err(e);
                }
            }
            if let Err(e) = self.fill().await {
                // Part of the reply may be gone with the failure: the stream's framing can
                // no longer be trusted.
                self.state = State::Broken;
                return Err(e);
            }
        }
    }

    /// Reads more bytes into the read buffer: at least one, or an error.
    async fn fill(&mut self) -> Result<(), WireError> {
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        } else if self.end == self.buf.len() {
            if self.start > 0 {
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
            } else {
                self.grow()?;
            }
        }
        let Wire {
            sock,
            tls,
            buf,
            start,
            end,
            drained,
            ..
        } = self;
        match tls {
            None => {
                let space = buf.len() - *end;
                let n = sock
                    .read(&mut buf[*end..])
                    .await
                    .map_err(|e| WireError::io(&e))?;
                if n == 0 {
                    return Err(WireError::closed());
                }
                *end += n;
                *drained = n < space;
                Ok(())
            }
            Some(tls) => {
                loop {
                    // Counted, not measured: `put` may move the unread bytes to the front.
                    let mut got = false;
                    while let Some(plain) = tls.open().map_err(session)? {
                        put(buf, start, end, plain)?;
                        got |= !plain.is_empty();
                    }
                    if got {
                        return Ok(());
                    }
                    if tls.is_closed() {
                        return Err(WireError::closed());
                    }
                    let space = tls.space();
                    let room = space.len();
                    let n = sock.read(space).await.map_err(|e| WireError::io(&e))?;
                    if n == 0 {
                        return Err(WireError::closed());
                    }
                    *drained = n < room;
                    tls.filled(n);
                }
            }
        }
    }

    fn grow(&mut self) -> Result<(), WireError> {
        if self.buf.len() >= MAX_BUF {
            return Err(WireError::protocol(format!(
                "a reply larger than {MAX_BUF} bytes"
            )));
        }
        let len = self.buf.len() * 2;
        self.buf.resize(len, 0);
        Ok(())
    }
}

/// Appends decrypted bytes to `buf[start..end]`, moving the unread bytes to the front or
/// growing the buffer when needed.
fn put(
    buf: &mut Vec<u8>,
    start: &mut usize,
    end: &mut usize,
    plain: &[u8],
) -> Result<(), WireError> {
    if buf.len() - *end < plain.len() {
        buf.copy_within(*start..*end, 0);
        *end -= *start;
        *start = 0;
        while buf.len() - *end < plain.len() {
            if buf.len() >= MAX_BUF {
                return Err(WireError::protocol(format!(
                    "a reply larger than {MAX_BUF} bytes"
                )));
            }
            let len = buf.len() * 2;
            buf.resize(len, 0);
        }
    }
    buf[*end..*end + plain.len()].copy_from_slice(plain);
    *end += plain.len();
    Ok(())
}

/// A failure of the TLS session after its handshake: what the server sent since can no
/// longer be read, so the connection is lost.
fn session(e: LeanError) -> WireError {
    match e {
        LeanError::Io(e) => WireError::io(&e),
        LeanError::Tls(detail) => WireError::lost(format!("the TLS session failed: {detail}")),
    }
}

/// A failure of the TLS handshake: a socket error, or a TLS one.
pub(super) fn lean(e: LeanError) -> WireError {
    match e {
        LeanError::Io(e) => WireError::io(&e),
        LeanError::Tls(detail) => WireError {
            kind: Failure::Tls,
            detail,
            code: 0,
        },
    }
}
