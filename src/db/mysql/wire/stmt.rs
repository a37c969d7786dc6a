//! Prepared statements on a MariaDB/MySQL connection: prepare, execute with bound values
//! (the binary protocol's `COM_STMT_EXECUTE`, types sent every time), alone or as a batch,
//! close.

use mysql_common::constants::ColumnType;
use mysql_common::Value;

use super::packet::put_lenenc;
use super::{Arg, Expect, Outcome, State, Stmt, Wire, WireError};
use super::{COM_STMT_CLOSE, COM_STMT_EXECUTE, COM_STMT_PREPARE};
use crate::fault::Failure;

impl Wire {
    /// Prepares, executes and closes a statement with `args`; the rows of its first result
    /// set (typed values of the binary protocol).
    pub async fn exec_rows(
        &mut self,
        sql: &str,
        args: &[Arg<'_>],
    ) -> Result<Vec<Vec<Value>>, WireError> {
        let stmt = self.prepare(sql).await?;
        // The execution's failure is the one to tell: after it the close may fail too.
        let rows = self.execute_all(stmt, args).await?;
        self.close_statement(stmt).await?;
        Ok(rows)
    }

    /// Frees a prepared statement on the server (COM_STMT_CLOSE has no reply).
    pub async fn close_statement(&mut self, stmt: Stmt) -> Result<(), WireError> {
        self.ready().await?;
        self.begin(COM_STMT_CLOSE);
        self.out.extend_from_slice(&stmt.id.to_le_bytes());
        self.send(Expect::Nothing).await
    }

    /// Prepares a statement.
    pub async fn prepare(&mut self, sql: &str) -> Result<Stmt, WireError> {
        self.ready().await?;
        self.begin(COM_STMT_PREPARE);
        self.out.extend_from_slice(sql.as_bytes());
        self.send(Expect::Prepare).await?;
        match self.reply(Expect::Prepare).await? {
            Outcome::Prepared(stmt) => Ok(stmt),
            Outcome::Error(e) => Err(e),
            Outcome::Done(_) | Outcome::Infile => Err(WireError::protocol("no prepared statement")),
        }
    }

    /// Executes a prepared statement with `args` followed by `nulls` NULLs, and returns the
    /// first row of its first result set.
    pub async fn execute(
        &mut self,
        stmt: Stmt,
        args: &[Arg<'_>],
        nulls: usize,
    ) -> Result<Option<Vec<Value>>, WireError> {
        self.run(stmt, args, nulls).await?;
        Ok(self.rows.drain(..).next())
    }

    /// Executes a prepared statement with `args`; its rows are read and counted, not decoded
    /// or kept (a benchmark's reads, whose values nobody looks at).
    /// Gives the rows it affected (or returned).
    pub async fn execute_discard(
        &mut self,
        stmt: Stmt,
        args: &[Arg<'_>],
    ) -> Result<u64, WireError> {
        arity(stmt, args.len())?;
        self.ready().await?;
        self.begin(COM_STMT_EXECUTE);
        encode_execute(&mut self.out, stmt.id, args, 0);
        self.send(Expect::Execute).await?;
        self.parse.keep = false;
        match self.reply(Expect::Execute).await? {
            Outcome::Done(done) => Ok(if done.rows > 0 {
                done.rows as u64
            } else {
                done.affected
            }),
            Outcome::Error(e) => Err(e),
            Outcome::Prepared(_) | Outcome::Infile => {
                Err(WireError::protocol("a reply of another request"))
            }
        }
    }

    /// Executes a prepared statement with `args`, and returns the rows of its first result
    /// set (none for a statement that gives no result set).
    pub async fn execute_all(
        &mut self,
        stmt: Stmt,
        args: &[Arg<'_>],
    ) -> Result<Vec<Vec<Value>>, WireError> {
        self.run(stmt, args, 0).await?;
        Ok(std::mem::take(&mut self.rows))
    }

    /// Executes prepared statements back to back: every request in one write, then the
    /// replies in order, so that the batch costs one round trip. Gives the rows of each
    /// statement's first result set, in order. The server runs every statement of the batch
    /// whatever became of the one before it, so the first server error is the batch's
    /// error once every reply is in, and the caller decides what becomes of the work the
    /// others did.
    pub async fn execute_batch(
        &mut self,
        calls: &[(Stmt, &[Arg<'_>])],
    ) -> Result<Vec<Vec<Vec<Value>>>, WireError> {
        let Some(owed) = calls.len().checked_sub(1) else {
            return Ok(Vec::new());
        };
        for (stmt, args) in calls {
            arity(*stmt, args.len())?;
        }
        self.ready().await?;
        self.out.clear();
        for (stmt, args) in calls {
            let at = self.begin_more(COM_STMT_EXECUTE);
            encode_execute(&mut self.out, stmt.id, args, 0);
            self.seal(at)?;
        }
        self.transmit(Expect::Execute, owed).await?;
        let mut replies = Vec::with_capacity(calls.len());
        let mut failed = None;
        loop {
            match self.reply(Expect::Execute).await? {
                Outcome::Done(_) => replies.push(std::mem::take(&mut self.rows)),
                Outcome::Error(e) => {
                    failed.get_or_insert(e);
                    replies.push(Vec::new());
                }
                Outcome::Prepared(_) | Outcome::Infile => {
                    // The replies after this one cannot be matched to their requests.
                    self.state = State::Broken;
                    return Err(WireError::protocol("a reply of another request"));
                }
            }
            if self.owed == 0 {
                break;
            }
            self.owed -= 1;
            self.expect(Expect::Execute);
        }
        match failed {
            Some(e) => Err(e),
            None => Ok(replies),
        }
    }

    /// Executes a prepared statement and reads its reply: the rows go to `self.rows`.
    async fn run(&mut self, stmt: Stmt, args: &[Arg<'_>], nulls: usize) -> Result<(), WireError> {
        arity(stmt, args.len() + nulls)?;
        self.ready().await?;
        self.begin(COM_STMT_EXECUTE);
        encode_execute(&mut self.out, stmt.id, args, nulls);
        self.send(Expect::Execute).await?;
        match self.reply(Expect::Execute).await? {
            Outcome::Done(_) => Ok(()),
            Outcome::Error(e) => Err(e),
            Outcome::Prepared(_) | Outcome::Infile => {
                Err(WireError::protocol("a reply of another request"))
            }
        }
    }
}

/// `given` values for `stmt`'s placeholders: as many as it has, or an error.
fn arity(stmt: Stmt, given: usize) -> Result<(), WireError> {
    if given == stmt.params {
        return Ok(());
    }
    Err(WireError {
        kind: Failure::Other,
        detail: format!(
            "the statement takes {} parameters, {given} given",
            stmt.params
        ),
        code: 0,
    })
}

/// COM_STMT_EXECUTE's body after the command byte: the statement, no cursor, one iteration,
/// the NULL bitmap, the types (sent every time), the values.
pub(super) fn encode_execute(out: &mut Vec<u8>, id: u32, args: &[Arg<'_>], nulls: usize) {
    out.extend_from_slice(&id.to_le_bytes());
    out.push(0);
    out.extend_from_slice(&1u32.to_le_bytes());
    let n = args.len() + nulls;
    if n == 0 {
        return;
    }
    let bitmap = out.len();
    out.resize(bitmap + n.div_ceil(8), 0);
    for i in 0..n {
        if args.get(i).is_none_or(|a| *a == Arg::Null) {
            out[bitmap + i / 8] |= 1 << (i % 8);
        }
    }
    out.push(1);
    for i in 0..n {
        let ty = match args.get(i) {
            Some(Arg::Int(_)) => ColumnType::MYSQL_TYPE_LONGLONG,
            Some(Arg::Text(_)) => ColumnType::MYSQL_TYPE_VAR_STRING,
            Some(Arg::Null) | None => ColumnType::MYSQL_TYPE_NULL,
        };
        out.extend_from_slice(&[ty as u8, 0]);
    }
    for a in args {
        match a {
            Arg::Int(v) => out.extend_from_slice(&v.to_le_bytes()),
            Arg::Text(b) => {
                put_lenenc(out, b.len() as u64);
                out.extend_from_slice(b);
            }
            Arg::Null => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_execute_request_binds_its_values() {
        let mut out = Vec::new();
        encode_execute(&mut out, 5, &[Arg::Int(-2), Arg::Text(b"ab"), Arg::Null], 8);
        let mut expected = vec![5, 0, 0, 0, 0, 1, 0, 0, 0];
        // 11 parameters: the third and the last eight are NULL.
        expected.extend_from_slice(&[0b1111_1100, 0b0000_0111, 1]);
        expected.extend_from_slice(&[0x08, 0, 0xFD, 0]);
        for _ in 0..9 {
            expected.extend_from_slice(&[0x06, 0]);
        }
        expected.extend_from_slice(&(-2i64).to_le_bytes());
        expected.extend_from_slice(&[2, b'a', b'b']);
        assert_eq!(out, expected);
    }
}
