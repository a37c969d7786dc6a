//! Warnings a login finds on its way and no command returns (a password file with the wrong
//! mode), said once each through the session's output.
//!
//! Logins are made deep in engines and virtual users, which hold no `Output`; libpq and the
//! MySQL clients print such warnings to stderr themselves. Here the session hands its output
//! over once, and each warning is said once a process, not at every connection.

use std::collections::HashSet;
use std::sync::Mutex;

use crate::output::Output;

struct Sink {
    out: Option<Output>,
    said: HashSet<String>,
}

static SINK: Mutex<Option<Sink>> = Mutex::new(None);

/// Where later warnings go: the output of the session that starts.
pub fn say_through(out: Output) {
    let mut sink = SINK.lock().unwrap_or_else(|e| e.into_inner());
    match &mut *sink {
        Some(s) => s.out = Some(out),
        None => {
            *sink = Some(Sink {
                out: Some(out),
                said: HashSet::new(),
            })
        }
    }
}

/// Says `text` as a warning unless a warning of the same `key` was said already. Without a
/// session's output (library use, unit tests) nothing is said, nor marked as said.
pub fn warn_once(key: String, text: String) {
    let mut guard = SINK.lock().unwrap_or_else(|e| e.into_inner());
    let sink = guard.get_or_insert_with(|| Sink {
        out: None,
        said: HashSet::new(),
    });
    if let Some(out) = &sink.out {
        if sink.said.insert(key) {
            out.error(format!("Warning: {text}"));
        }
    }
}
