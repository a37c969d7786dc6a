//! Where a virtual user speaks: `Vuser N:` lines on the session's output.

use crate::output::Output;

/// Where a virtual user (or schema work on its behalf) reports: `Vuser N:` lines on the
/// session's output.
#[derive(Clone)]
pub struct Say {
    out: Output,
    prefix: String,
}

impl Say {
    pub fn new(out: Output, vuser: usize) -> Self {
        Say {
            out,
            prefix: format!("Vuser {vuser}:"),
        }
    }

    pub fn line(&self, text: impl AsRef<str>) {
        self.out.line(format!("{}{}", self.prefix, text.as_ref()));
    }

    /// The output its lines go to.
    pub fn output(&self) -> &Output {
        &self.out
    }

    /// The same output, as another virtual user.
    pub fn as_vuser(&self, vuser: usize) -> Say {
        Say::new(self.out.clone(), vuser)
    }
}
