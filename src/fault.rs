//! The failure vocabulary: why a database operation failed, and where and as whom. It sits on
//! the ground floor so that the error type, the connections and the workloads all speak it
//! without importing one another.

use std::fmt;

use thiserror::Error;

use crate::database::Database;

/// Why a connection or statement failed, as a user would act on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// Nothing listens there (connection refused, or no socket file).
    Refused,
    /// No answer in time, or no route to the host.
    Unreachable,
    /// The server rejected the user or password.
    Auth,
    /// The server has no database of that name.
    UnknownDatabase,
    /// TLS was asked for and could not be set up.
    Tls,
    /// The connection was lost after it was made.
    Lost,
    /// A deadlock or serialization failure: the transaction was rolled back and may run again.
    Retry,
    /// Anything else the server or driver said.
    Other,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Failure::Refused => "connection refused",
            Failure::Unreachable => "server unreachable",
            Failure::Auth => "authentication failed",
            Failure::UnknownDatabase => "unknown database",
            Failure::Tls => "TLS failed",
            Failure::Lost => "connection lost",
            Failure::Retry => "deadlock or serialization failure",
            Failure::Other => "error",
        })
    }
}

/// A failed database operation: which server, as whom, what kind of failure, and the detail.
/// It never holds a password.
#[derive(Debug, Clone, Error)]
#[error("{action} {db} at {addr} as user {user}: {kind} ({detail})")]
pub struct DbError {
    pub action: &'static str,
    pub db: &'static str,
    pub addr: String,
    pub user: String,
    pub kind: Failure,
    pub detail: String,
}

/// Where and as whom to connect: what error messages print about a connection.
#[derive(Debug, Clone)]
pub struct Peer {
    pub db: Database,
    pub addr: String,
    pub user: String,
}

impl Peer {
    pub fn error(&self, kind: Failure, detail: impl Into<String>) -> DbError {
        self.failed("cannot connect to", kind, detail)
    }

    pub fn failed(
        &self,
        action: &'static str,
        kind: Failure,
        detail: impl Into<String>,
    ) -> DbError {
        DbError {
            action,
            db: self.db.name(),
            addr: self.addr.clone(),
            user: self.user.clone(),
            kind,
            detail: detail.into(),
        }
    }
}
