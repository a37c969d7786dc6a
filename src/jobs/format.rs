//! How `jobs` prints, text or JSON: the one setting that the jobs command and the recorder
//! (which holds `hammer jobs --json|--text`'s override) both read.

use crate::config::Settings;

/// How `jobs` prints: `jobs format text|json`, kept in `commandline.jobsoutput`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

impl Format {
    pub fn of(settings: &Settings) -> Format {
        if settings
            .generic
            .get("jobsoutput")
            .eq_ignore_ascii_case("text")
        {
            Format::Text
        } else {
            Format::Json
        }
    }
}
