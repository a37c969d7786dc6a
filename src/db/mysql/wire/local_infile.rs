//! `LOAD DATA LOCAL INFILE` on a MariaDB/MySQL connection, as the build loads its rows:
//! hammer sends the data it was given, whatever file the server names, and answers the
//! server's request for a file only in reply to this call.

use super::rows::Parse;
use super::{Done, Expect, Outcome, State, Wire, WireError, COM_QUERY};

/// Pieces of `LOAD DATA LOCAL` data, one packet each, well below any `max_allowed_packet`.
const INFILE_CHUNK: usize = 1 << 20;

impl Wire {
    /// Runs a `LOAD DATA LOCAL INFILE` statement and sends `data` as its file, whatever file
    /// the server names; what the final OK says.
    pub async fn load_local(&mut self, sql: &str, data: &[u8]) -> Result<Done, WireError> {
        self.ready().await?;
        self.begin(COM_QUERY);
        self.out.extend_from_slice(sql.as_bytes());
        self.send(Expect::Query).await?;
        self.parse.infile = true;
        match self.reply(Expect::Query).await? {
            Outcome::Infile => {}
            Outcome::Error(e) => return Err(e),
            Outcome::Done(_) | Outcome::Prepared(_) => {
                return Err(WireError::protocol(
                    "no LOCAL INFILE request in reply to LOAD DATA LOCAL",
                ))
            }
        }
        // The data in packets, and an empty one to end it, numbered on from the request.
        self.state = State::Writing;
        let mut seq = self.parse.seq;
        for piece in data.chunks(INFILE_CHUNK).chain([&[][..]]) {
            self.out.clear();
            self.out
                .extend_from_slice(&(piece.len() as u32).to_le_bytes()[..3]);
            self.out.push(seq);
            seq = seq.wrapping_add(1);
            self.out.extend_from_slice(piece);
            self.flush().await?;
        }
        self.parse = Parse::new(Expect::Query);
        self.parse.seq = seq;
        self.state = State::Awaiting(Expect::Query);
        match self.reply(Expect::Query).await? {
            Outcome::Done(done) => Ok(done),
            Outcome::Error(e) => Err(e),
            Outcome::Prepared(_) | Outcome::Infile => {
                Err(WireError::protocol("a second LOCAL INFILE request"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::mysql::wire::rows::{feed, Parse};
    use crate::db::mysql::wire::testkit::*;

    #[test]
    fn a_local_infile_request_is_answered_only_when_asked_for() {
        let request = packet(1, b"\xfbtpcc.tsv");
        let e = in_pieces(&request, 4, Expect::Query).expect_err("not asked for");
        assert!(e.detail.contains("LOCAL INFILE"), "{}", e.detail);
        let mut parse = Parse::new(Expect::Query);
        parse.infile = true;
        let (used, outcome) = feed(
            &mut parse,
            &request,
            caps(),
            &mut Vec::new(),
            &mut Vec::new(),
        )
        .expect("asked");
        assert_eq!(used, request.len());
        assert!(matches!(outcome, Some(Outcome::Infile)));
        assert_eq!(parse.seq, 2);
    }
}
