//! A data directory whose disk is full, said once per process: settings and the job history
//! both write there, and a full disk would otherwise warn at every changed setting and job.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Directories whose full disk has been reported and not written to since.
static REPORTED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Whether `e` says that the disk, or the user's quota on it, is full.
pub fn is_full(e: &std::io::Error) -> bool {
    use std::io::ErrorKind;
    const ENOSPC: i32 = 28;
    const EDQUOT: i32 = 122;
    matches!(e.kind(), ErrorKind::StorageFull | ErrorKind::QuotaExceeded)
        || matches!(e.raw_os_error(), Some(ENOSPC | EDQUOT))
}

/// Notes that the disk of `dir` is full: true the first time (the caller says so), false
/// while it has been said and nothing was written there since.
pub fn first_report(dir: &Path) -> bool {
    let mut said = REPORTED.lock().unwrap_or_else(|e| e.into_inner());
    if said.iter().any(|d| d == dir) {
        return false;
    }
    said.push(dir.to_path_buf());
    true
}

/// A write in `dir` succeeded: a full disk there later is said again.
pub fn cleared(dir: &Path) {
    REPORTED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|d| d != dir);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_disk_is_said_once_until_a_write_succeeds() {
        let dir = Path::new("/nonexistent/hammer-full-once");
        assert!(first_report(dir));
        assert!(!first_report(dir));
        assert!(first_report(Path::new("/nonexistent/hammer-full-other")));
        cleared(dir);
        assert!(first_report(dir));
        assert!(is_full(&std::io::Error::from_raw_os_error(28)));
        assert!(!is_full(&std::io::Error::from_raw_os_error(13)));
    }
}
