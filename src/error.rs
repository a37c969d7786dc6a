//! The library's error type: every variant names the bad input and, where there is one, the way out.

use thiserror::Error;

/// Errors a command can end with. Messages are complete sentences a user can act on.
#[derive(Debug, Error)]
pub enum Error {
    /// A command was called with the wrong number or shape of arguments.
    #[error("{message}\n{usage}")]
    Usage { message: String, usage: String },

    /// A dictionary or key that does not exist, or a value that is not valid for its key.
    #[error("{0}")]
    Config(String),

    /// A request that is valid in itself but not now (e.g. `vuset` while virtual users exist).
    #[error("{0}")]
    State(String),

    /// A database connection or statement failed; the text names host:port and user.
    #[error("{0}")]
    Db(#[from] crate::fault::DbError),

    /// `quit` was called: not a failure, the way out of a script or the console.
    #[error("quit")]
    Quit,

    /// Ctrl-C stopped the command.
    #[error("Interrupted by Ctrl-C")]
    Interrupted,

    /// A command that ran as a job ended FAILED or STOPPED. The message names the job, its
    /// status and why; `caught` is what a script's `catch (e)` receives (the job id, status,
    /// reason and what was measured), so a script that goes on can still read them.
    #[error("{message}")]
    Job {
        message: String,
        stopped: bool,
        caught: Box<rhai::Dynamic>,
    },

    /// Reading or writing a file of ours failed.
    #[error("{what} {path}: {source}")]
    Io {
        what: &'static str,
        path: String,
        source: std::io::Error,
    },
}

impl Error {
    pub fn usage(message: impl Into<String>, usage: impl Into<String>) -> Self {
        Error::Usage {
            message: message.into(),
            usage: usage.into(),
        }
    }
}

impl Error {
    /// A lost or refused connection: worth reconnecting and trying again.
    pub fn is_connection_loss(&self) -> bool {
        use crate::fault::Failure;
        matches!(self, Error::Db(e) if matches!(e.kind, Failure::Lost | Failure::Refused | Failure::Unreachable))
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
