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
    /// The progress lines at the bottom of the terminal, redrawn below each new line.
    status_line: Arc<Mutex<Option<Vec<String>>>>,
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
            status_line: Arc::new(Mutex::new(None)),
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
        // Held while the line is printed: a redraw from another thread waits for it.
        let status = self.status_line.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(old) = &*status {
            erase_status(old.len());
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
        if let Some(lines) = &*status {
            draw_status(lines);
        }
        drop(status);
        self.copy_to_tee(text);
    }

    /// Prints an error. On plain stdout it goes to stderr so that scripts can separate the two.
    pub fn error(&self, text: impl AsRef<str>) {
        let mut sink = self.lock();
        match &mut *sink {
            Sink::Stdout => {
                let mut err = std::io::stderr().lock();
                let _ = writeln!(err, "{}", text.as_ref());
                drop(sink);
                self.copy_to_tee(text.as_ref());
            }
            _ => {
                drop(sink);
                self.line(text);
            }
        }
    }

    /// Whether lines reach a terminal (and a status block can be drawn there).
    pub fn is_terminal(&self) -> bool {
        std::io::stdout().is_terminal() && !matches!(&*self.lock(), Sink::Capture(_))
    }

    /// Shows a progress line at the bottom of a terminal, kept below the lines printed after
    /// it until `clear_status`. Elsewhere (pipes, files, tests) nothing.
    pub fn status(&self, text: impl AsRef<str>) {
        self.status_lines(vec![text.as_ref().to_string()]);
    }

    /// Shows a block of progress lines at the bottom of a terminal in place of the last one,
    /// each cut to the terminal's width so that the block can be redrawn in place. Elsewhere
    /// nothing.
    pub fn status_lines(&self, lines: Vec<String>) {
        if !self.is_terminal() {
            return;
        }
        // A terminal that does not say its size (0 columns) is taken to be 80 wide.
        let width = match crossterm::terminal::size() {
            Ok((w, _)) if w >= 20 => w as usize - 1,
            _ => 79,
        };
        let lines: Vec<String> = lines
            .into_iter()
            .map(|l| l.chars().take(width).collect())
            .collect();
        let mut shown = self.status_line.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(old) = shown.as_ref() {
            erase_status(old.len());
        }
        draw_status(&lines);
        *shown = Some(lines);
    }

    /// Removes the progress lines, if any are shown.
    pub fn clear_status(&self) {
        if let Some(old) = self
            .status_line
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
        {
            erase_status(old.len());
        }
    }

    /// The lines captured so far (empty unless this is a capture sink), and clears them.
    pub fn take_captured(&self) -> Vec<String> {
        match &mut *self.lock() {
            Sink::Capture(lines) => std::mem::take(lines),
            _ => Vec::new(),
        }
    }
}

/// Draws the block from the start of the current line, leaving the cursor at its last line's
/// end (no newline after it, so nothing scrolls).
fn draw_status(lines: &[String]) {
    use crossterm::{cursor, queue, style, terminal};
    let mut out = std::io::stdout().lock();
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            let _ = queue!(out, style::Print("\n"));
        }
        let _ = queue!(
            out,
            cursor::MoveToColumn(0),
            terminal::Clear(terminal::ClearType::CurrentLine),
            style::Print(line)
        );
    }
    let _ = out.flush();
}

/// Erases a block of `n` lines drawn by `draw_status`, leaving the cursor where it began.
fn erase_status(n: usize) {
    use crossterm::{cursor, queue, terminal};
    let mut out = std::io::stdout().lock();
    let _ = queue!(
        out,
        cursor::MoveToColumn(0),
        terminal::Clear(terminal::ClearType::CurrentLine)
    );
    for _ in 1..n {
        let _ = queue!(
            out,
            cursor::MoveUp(1),
            terminal::Clear(terminal::ClearType::CurrentLine)
        );
    }
    let _ = out.flush();
}

#[cfg(test)]
mod tests {
    use super::*;

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
