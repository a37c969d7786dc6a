//! The one sink every line of hammer's output goes through: stdout, the live prompt, or a test buffer.
//!
//! Background work (virtual users, the transaction counter, metrics) holds a clone of the same
//! `Output`; while the console prompt is live its lines go through rustyline's external printer,
//! so they appear above the line being typed instead of breaking it.

use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex, MutexGuard};

/// Something that can print a line while a prompt is being edited.
pub trait LinePrinter: Send {
    fn print_line(&mut self, line: String);
}

enum Sink {
    Stdout,
    Printer(Box<dyn LinePrinter>),
    Capture(Vec<String>),
}

/// Where a copy of every line goes while a job records (`jobs::recorder`).
pub trait Tee: Send + Sync {
    fn line(&self, text: &str);
}

/// A cheap, cloneable handle on the sink.
#[derive(Clone)]
pub struct Output {
    sink: Arc<Mutex<Sink>>,
    /// The progress line or panel at the bottom of the terminal, redrawn below each new line.
    panel: Arc<Mutex<Option<Vec<String>>>>,
    tee: Arc<Mutex<Option<Arc<dyn Tee>>>>,
}

impl Default for Output {
    fn default() -> Self {
        Self::stdout()
    }
}

impl Output {
    /// Plain stdout: `hammer auto`, piped input, and the console before its prompt exists.
    pub fn stdout() -> Self {
        Self::with(Sink::Stdout)
    }

    /// Collects lines in memory instead of printing them (engine tests read them back).
    pub fn capture() -> Self {
        Self::with(Sink::Capture(Vec::new()))
    }

    fn with(sink: Sink) -> Self {
        Output {
            sink: Arc::new(Mutex::new(sink)),
            panel: Arc::new(Mutex::new(None)),
            tee: Arc::new(Mutex::new(None)),
        }
    }

    /// Copies every later line (errors too) to `tee`, or stops copying with `None`.
    pub fn set_tee(&self, tee: Option<Arc<dyn Tee>>) {
        *self.tee.lock().unwrap_or_else(|e| e.into_inner()) = tee;
    }

    fn copy_to_tee(&self, text: &str) {
        let tee = self.tee.lock().unwrap_or_else(|e| e.into_inner()).clone();
        if let Some(tee) = tee {
            text.split('\n').for_each(|l| tee.line(l));
        }
    }

    fn lock(&self) -> MutexGuard<'_, Sink> {
        // A panic while printing must not silence everything after it.
        self.sink.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Routes all further lines through the console's printer.
    pub fn use_printer(&self, printer: Box<dyn LinePrinter>) {
        *self.lock() = Sink::Printer(printer);
    }

    /// Back to plain stdout once the console's prompt is gone, so that lines printed while
    /// the session ends (a counter's summary) are not lost in a closed editor.
    pub fn use_stdout(&self) {
        let mut sink = self.lock();
        if matches!(&*sink, Sink::Printer(_)) {
            *sink = Sink::Stdout;
        }
    }

    /// Prints text; each of its lines becomes one output line.
    pub fn line(&self, text: impl AsRef<str>) {
        let text = text.as_ref();
        // Held while printing, so that a panel is erased and redrawn around each line whole.
        let panel = self.panel.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(lines) = &*panel {
            erase_panel(lines.len());
        }
        let mut sink = self.lock();
        match &mut *sink {
            Sink::Stdout => {
                let mut out = std::io::stdout().lock();
                // A closed stdout (`hammer ... | head`) is not worth a panic.
                let _ = writeln!(out, "{text}");
                let _ = out.flush();
            }
            Sink::Printer(p) => p.print_line(format!("{text}\n")),
            Sink::Capture(lines) => lines.extend(text.split('\n').map(str::to_owned)),
        }
        drop(sink);
        if let Some(lines) = &*panel {
            draw_panel(lines);
        }
        drop(panel);
        self.copy_to_tee(text);
    }

    /// Prints an error. On plain stdout it goes to stderr so that scripts can separate the two.
    pub fn error(&self, text: impl AsRef<str>) {
        let mut sink = self.lock();
        match &mut *sink {
            Sink::Stdout => {
                drop(sink);
                let panel = self.panel.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(lines) = &*panel {
                    erase_panel(lines.len());
                }
                let mut err = std::io::stderr().lock();
                let _ = writeln!(err, "{}", text.as_ref());
                drop(err);
                if let Some(lines) = &*panel {
                    draw_panel(lines);
                }
                drop(panel);
                self.copy_to_tee(text.as_ref());
            }
            _ => {
                drop(sink);
                self.line(text);
            }
        }
    }

    /// Whether lines reach a terminal, where a panel can be redrawn in place.
    pub fn is_terminal(&self) -> bool {
        std::io::stdout().is_terminal() && !matches!(&*self.lock(), Sink::Capture(_))
    }

    /// Shows a progress line at the bottom of a terminal, kept below the lines printed after
    /// it until `clear_status`. Elsewhere (pipes, files, tests) nothing.
    pub fn status(&self, text: impl AsRef<str>) {
        self.panel(vec![text.as_ref().to_string()]);
    }

    /// Shows `lines` as a panel at the bottom of a terminal, in place of the one shown
    /// before, kept below the lines printed after it until `clear_status`; each is cut to
    /// the terminal's width. Elsewhere (pipes, files, tests) nothing.
    pub fn panel(&self, lines: Vec<String>) {
        if !self.is_terminal() {
            return;
        }
        // A terminal that does not say its size (0) is taken as 80 columns by 24 rows.
        let (width, height) = match crossterm::terminal::size() {
            Ok((w, h)) => (
                if w > 0 { w as usize } else { 80 },
                if h > 0 { h as usize } else { 24 },
            ),
            _ => (80, 24),
        };
        let lines: Vec<String> = fit_height(lines, height)
            .into_iter()
            .map(|l| l.chars().take(width.saturating_sub(1).max(1)).collect())
            .collect();
        let mut panel = self.panel.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(old) = &*panel {
            erase_panel(old.len());
        }
        draw_panel(&lines);
        *panel = Some(lines);
    }

    /// Removes the progress line or panel, if one is shown.
    pub fn clear_status(&self) {
        let mut panel = self.panel.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(old) = panel.take() {
            erase_panel(old.len());
        }
    }

    /// Clears a terminal's screen and its scrollback, leaving the cursor at the top; a panel
    /// shown is gone with it. Elsewhere (pipes, files, tests) nothing: a log keeps its lines.
    pub fn clear_screen(&self) {
        use crossterm::terminal::{Clear, ClearType};
        if !self.is_terminal() {
            return;
        }
        let mut panel = self.panel.lock().unwrap_or_else(|e| e.into_inner());
        *panel = None;
        let mut out = std::io::stdout().lock();
        let _ = crossterm::queue!(
            out,
            Clear(ClearType::All),
            Clear(ClearType::Purge),
            crossterm::cursor::MoveTo(0, 0)
        );
        let _ = out.flush();
    }

    /// The lines captured so far (empty unless this is a capture sink), and clears them.
    pub fn take_captured(&self) -> Vec<String> {
        match &mut *self.lock() {
            Sink::Capture(lines) => std::mem::take(lines),
            _ => Vec::new(),
        }
    }
}

/// A panel cut to a terminal of `height` rows, leaving two for the lines printed above it (a
/// panel taller than the screen could not be erased in place): its last kept line says how
/// many were left out.
fn fit_height(mut lines: Vec<String>, height: usize) -> Vec<String> {
    let room = height.saturating_sub(2).max(2);
    if lines.len() > room {
        let left_out = lines.len() - (room - 1);
        lines.truncate(room - 1);
        lines.push(format!(
            "... {left_out} more rows (a taller terminal shows them)"
        ));
    }
    lines
}

/// Draws a panel from the cursor's line down, leaving the cursor at the end of its last
/// line.
fn draw_panel(lines: &[String]) {
    use crossterm::terminal::{Clear, ClearType};
    let mut out = std::io::stdout().lock();
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            let _ = write!(out, "\r\n");
        }
        let _ = crossterm::queue!(out, Clear(ClearType::CurrentLine));
        let _ = write!(out, "\r{line}");
    }
    let _ = out.flush();
}

/// Erases a panel of `n` lines drawn by [`draw_panel`], leaving the cursor at the start of
/// its first line.
fn erase_panel(n: usize) {
    use crossterm::cursor::MoveUp;
    use crossterm::terminal::{Clear, ClearType};
    let mut out = std::io::stdout().lock();
    let _ = write!(out, "\r");
    let _ = crossterm::queue!(out, Clear(ClearType::CurrentLine));
    for _ in 1..n {
        let _ = crossterm::queue!(out, MoveUp(1), Clear(ClearType::CurrentLine));
    }
    let _ = out.flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panel_taller_than_the_terminal_is_cut_and_says_so() {
        let lines: Vec<String> = (0..30).map(|i| format!("row {i}")).collect();
        let cut = fit_height(lines.clone(), 24);
        assert_eq!(cut.len(), 22);
        assert_eq!(cut[20], "row 20");
        assert_eq!(cut[21], "... 9 more rows (a taller terminal shows them)");
        assert_eq!(fit_height(lines[..5].to_vec(), 24).len(), 5);
    }

    #[test]
    fn capture_splits_multi_line_text() {
        let out = Output::capture();
        out.line("a\nb");
        out.error("c");
        assert_eq!(out.take_captured(), ["a", "b", "c"]);
        assert!(out.take_captured().is_empty());
    }

    #[test]
    fn a_tee_gets_a_copy_of_every_line_until_removed() {
        struct Keep(Mutex<Vec<String>>);
        impl Tee for Keep {
            fn line(&self, text: &str) {
                self.0.lock().unwrap().push(text.to_string());
            }
        }
        let out = Output::capture();
        let keep = Arc::new(Keep(Mutex::new(Vec::new())));
        out.set_tee(Some(keep.clone()));
        out.line("a\nb");
        out.error("c");
        out.set_tee(None);
        out.line("d");
        assert_eq!(*keep.0.lock().unwrap(), ["a", "b", "c"]);
        assert_eq!(out.take_captured(), ["a", "b", "c", "d"]);
    }

    #[test]
    fn clones_share_one_sink() {
        let out = Output::capture();
        let other = out.clone();
        std::thread::spawn(move || other.line("from a thread"))
            .join()
            .unwrap();
        assert_eq!(out.take_captured(), ["from a thread"]);
    }
}
