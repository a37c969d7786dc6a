//! The two front ends: the interactive console (`hammer`) and the script runner (`hammer auto`).

mod history;

use std::collections::VecDeque;
use std::io::{BufRead, IsTerminal};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rhai::{Array, Dynamic};
use rustyline::completion::{Completer, Pair};
use rustyline::error::ReadlineError;
use rustyline::{
    CompletionType, Config, Context, Editor, ExternalPrinter, Helper, Highlighter, Hinter,
    Validator,
};

use crate::commands::{
    self, Complete, DGSET_OPTIONS, METSET_OPTIONS, PRINT_TARGETS, TCSET_OPTIONS, VUSET_OPTIONS,
};
use crate::config::Database;
use crate::output::LinePrinter;
use crate::script::{is_incomplete, Outcome, ScriptEngine, ScriptError};
use crate::session::Session;

const PROMPT: &str = "hammer> ";
/// The prompt of a line that continues an input with a bracket, string or comment still open.
const CONTINUE_PROMPT: &str = "   ...> ";
const HISTORY_FILE: &str = "history.txt";

/// Runs the console until `quit`, `exit`, Ctrl-D or the end of piped input; returns the exit code.
pub fn console(engine: &mut ScriptEngine) -> i32 {
    if std::io::stdin().is_terminal() {
        interactive(engine)
    } else {
        piped(engine)
    }
}

/// What `hammer auto` exits with when a script did not choose (`exit(n)` chooses).
pub const EXIT_SUCCESS: i32 = 0;
/// A script error, a failed job among them.
pub const EXIT_ERROR: i32 = 1;
/// Wrong command-line arguments (clap's status).
pub const EXIT_USAGE: i32 = 2;
/// Ctrl-C stopped the script, as a shell reports a process ended by SIGINT (128 + 2).
pub const EXIT_STOPPED: i32 = 130;

/// Prints an input's value or error; returns the exit status when the input asked to leave.
/// `status` becomes the input's own: 0, 1 for an error, 130 when Ctrl-C stopped it.
fn report(
    engine: &ScriptEngine,
    result: Result<Outcome, ScriptError>,
    status: &mut i32,
) -> Option<i32> {
    let out = engine.session().out.clone();
    *status = EXIT_SUCCESS;
    match result {
        Ok(Outcome::Quit(code)) => return Some(code),
        Ok(Outcome::Value(v)) => {
            let text = ScriptEngine::show(&v);
            // `vurun` returns its id, which its `Benchmark Run jobid=...` line showed already.
            let printed = v.is_string() && engine.session().was_printed(&text);
            if !text.is_empty() && !printed {
                out.line(text);
            }
        }
        Err(e) => {
            *status = if e.interrupted {
                EXIT_STOPPED
            } else {
                EXIT_ERROR
            };
            match e.position {
                Some((line, col)) if line > 1 => {
                    out.error(format!("line {line}, column {col}: {}", e.message))
                }
                _ => out.error(e.message),
            }
        }
    }
    None
}

/// Lines from a pipe or file: run one by one, continuing open brackets, no terminal codes.
fn piped(engine: &mut ScriptEngine) -> i32 {
    let stdin = std::io::stdin();
    let mut pending = String::new();
    let mut status = EXIT_SUCCESS;
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        pending.push_str(&line);
        pending.push('\n');
        if is_incomplete(&pending) {
            continue;
        }
        let input = std::mem::take(&mut pending);
        if input.trim().is_empty() {
            continue;
        }
        // As at the prompt: a Ctrl-C that stopped one input does not stop the next.
        engine.session().interrupt.clear();
        let result = engine.eval_console(&input);
        if let Some(code) = report(engine, result, &mut status) {
            return code;
        }
    }
    if !pending.trim().is_empty() {
        let result = engine.eval_console(&pending);
        if let Some(code) = report(engine, result, &mut status) {
            return code;
        }
    }
    // Like a shell reading a script: the status of the last input.
    status
}

struct RustylinePrinter<P: ExternalPrinter + Send>(P);

impl<P: ExternalPrinter + Send> LinePrinter for RustylinePrinter<P> {
    fn print_line(&mut self, line: String) {
        let _ = self.0.print(line);
    }
}

fn interactive(engine: &mut ScriptEngine) -> i32 {
    let code = prompt_loop(engine);
    engine.session().out.use_stdout();
    code
}

fn prompt_loop(engine: &mut ScriptEngine) -> i32 {
    let out = engine.session().out.clone();
    let home = engine.session().home().cloned();
    let helper = ConsoleHelper {
        session: engine.session_handle(),
    };
    // Tab completes the candidates' common prefix; a second Tab lists them all. A paste
    // arrives bracketed, as one text whose lines are queued (rustyline's default, said here
    // because the prompt loop relies on it); lines sent faster than they run, by a terminal
    // without bracketed paste, wait in a buffer that outlives each prompt.
    let config = Config::builder()
        .completion_type(CompletionType::List)
        .bracketed_paste(true)
        .build();
    let mut editor: Editor<ConsoleHelper, rustyline::history::DefaultHistory> =
        match Editor::with_config(config) {
            Ok(e) => e,
            Err(e) => {
                out.error(format!(
                    "cannot open the terminal for line editing ({e}); reading lines plainly"
                ));
                return piped(engine);
            }
        };
    editor.set_helper(Some(helper));
    let history = home.map(|h: PathBuf| h.join(HISTORY_FILE));
    let mut secrets = history::Secrets::of(&engine.session().settings);
    if let Some(h) = &history {
        let _ = editor.load_history(h);
        // A history written before hammer masked passwords is cleaned as it is read.
        remask_history(&mut editor, &secrets, h);
    }
    if let Ok(printer) = editor.create_external_printer() {
        out.use_printer(Box::new(RustylinePrinter(printer)));
    }
    out.line(format!(
        "hammer v{}: HammerDB's commands, in Rhai",
        crate::VERSION
    ));
    out.line("Type \"help\" for a list of commands");
    let mut status = EXIT_SUCCESS;
    // An input with a bracket still open, continued on the next line under `...>`.
    let mut pending = String::new();
    // The lines of a paste not run yet: a bracketed paste arrives as one text, run line by
    // line in order as if each had been typed.
    let mut queued: VecDeque<String> = VecDeque::new();
    loop {
        let typed = match queued.pop_front() {
            Some(line) => line,
            None => {
                let prompt = if pending.is_empty() {
                    PROMPT
                } else {
                    CONTINUE_PROMPT
                };
                match editor.readline(prompt) {
                    Ok(typed) if typed.contains('\n') => {
                        queued.extend(typed.lines().map(str::to_string));
                        continue;
                    }
                    Ok(typed) => typed,
                    // Ctrl-C throws away the line, and an input continued over several lines.
                    Err(ReadlineError::Interrupted) => {
                        pending.clear();
                        continue;
                    }
                    Err(ReadlineError::Eof) => break,
                    Err(e) => {
                        out.error(format!("console input failed: {e}"));
                        return 1;
                    }
                }
            }
        };
        pending.push_str(&typed);
        if is_incomplete(&pending) {
            pending.push('\n');
            continue;
        }
        let line = std::mem::take(&mut pending);
        if line.trim().is_empty() {
            continue;
        }
        let _ = editor.add_history_entry(history::masked(&line, &secrets));
        if let Some(h) = &history {
            // Saved at once, so a killed console keeps what was typed.
            let _ = editor.save_history(h);
        }
        engine.session().interrupt.clear();
        let result = engine.eval_console(&line);
        // A password set just now may sit in an earlier line as a plain literal
        // (`let p = "..."`, then `diset(.., p)`): the history is masked again.
        let now = history::Secrets::of(&engine.session().settings);
        if now.values() != secrets.values() {
            secrets = now;
            if let Some(h) = &history {
                remask_history(&mut editor, &secrets, h);
            }
        }
        if let Some(code) = report(engine, result, &mut status) {
            return code;
        }
        // Ctrl-C stops the rest of a paste too, and says what it did not run.
        let left = queued.iter().filter(|l| !l.trim().is_empty()).count();
        if status == EXIT_STOPPED && left > 0 {
            out.line(format!(
                "Stopped: {left} pasted line{} not run",
                if left == 1 { "" } else { "s" }
            ));
            queued.clear();
        }
    }
    0
}

/// Masks every entry of the console's history with what is known now, and writes it back to
/// `path` when anything changed.
fn remask_history(
    editor: &mut Editor<ConsoleHelper, rustyline::history::DefaultHistory>,
    secrets: &history::Secrets,
    path: &Path,
) {
    use rustyline::history::History;
    let entries: Vec<String> = editor.history().iter().cloned().collect();
    let masked: Vec<String> = entries
        .iter()
        .map(|e| history::masked(e, secrets))
        .collect();
    if masked == entries {
        return;
    }
    let h = editor.history_mut();
    let _ = h.clear();
    for e in masked {
        let _ = h.add_owned(e);
    }
    let _ = editor.save_history(path);
}

/// Runs `hammer auto FILE ARGS...`: 0 at the end or on `quit()`, `n` on `exit(n)`, 1 on an
/// error (a job that ended FAILED among them), 130 when Ctrl-C stopped it. The jobs are
/// recorded by then: each command saves its job before its verdict reaches the script.
pub fn auto(engine: &mut ScriptEngine, path: &Path, args: &[String]) -> i32 {
    let out = engine.session().out.clone();
    let shown = path.display();
    let source = match std::fs::read_to_string(path) {
        Ok(s) => s,
        Err(e) => {
            out.error(format!("{shown}: cannot read script: {e}"));
            return EXIT_ERROR;
        }
    };
    // HammerDB's Tcl and Python scripts run translated, their errors at their own lines.
    if let Some(language) = crate::convert::Language::of(path) {
        return auto_converted(engine, path, &source, language, args);
    }
    // A `#!` line is blanked, not removed, so that line numbers stay right.
    let source = match source.strip_prefix("#!") {
        Some(rest) => match rest.find('\n') {
            Some(i) => rest[i..].to_string(),
            None => String::new(),
        },
        None => source,
    };
    let argv: Array = args.iter().map(|a| Dynamic::from(a.clone())).collect();
    engine.set_var("ARGS", argv);
    let result = engine.eval(&source);
    engine.finish_line();
    match result {
        Ok(Outcome::Quit(code)) => code,
        Ok(Outcome::Value(_)) => EXIT_SUCCESS,
        Err(e) => {
            let (line, col) = e.position.unwrap_or((0, 0));
            // HammerDB's bare form, right at the console, is no Rhai: the error shows that
            // very line in the function form rather than Rhai's parse error.
            let bare = if e.interrupted {
                None
            } else {
                bare_line(&source, line)
            };
            let (line, col, message) = match bare {
                Some((at, call)) => (
                    at,
                    1,
                    crate::error::Error::BareFormInScript { call }.to_string(),
                ),
                None => (line, col, e.message),
            };
            out.error(format!("{shown}:{line}:{col}: {message}"));
            if e.interrupted {
                EXIT_STOPPED
            } else {
                EXIT_ERROR
            }
        }
    }
}

/// Runs a Tcl or Python script as `hammer auto` runs Rhai: translated first (anything that
/// has no translation is reported at its line, and nothing runs), then run with every error
/// reported at the source line, `FILE.tcl:LINE: message`, and the same exit statuses.
fn auto_converted(
    engine: &mut ScriptEngine,
    path: &Path,
    source: &str,
    language: crate::convert::Language,
    args: &[String],
) -> i32 {
    let out = engine.session().out.clone();
    let shown = path.display();
    let converted = match crate::convert::convert(source, language) {
        Ok(c) => c,
        Err(refusals) => {
            for r in refusals {
                out.error(format!("{shown}:{}: {}", r.line, r.message));
            }
            return EXIT_ERROR;
        }
    };
    let argv: Array = args.iter().map(|a| Dynamic::from(a.clone())).collect();
    engine.set_var("ARGS", argv);
    let result = engine.eval(&converted.rhai);
    engine.finish_line();
    match result {
        Ok(Outcome::Quit(code)) => code,
        Ok(Outcome::Value(_)) => EXIT_SUCCESS,
        Err(e) => {
            let line = e
                .position
                .map_or(1, |(line, _)| converted.source_line(line));
            out.error(format!("{shown}:{line}: {}", e.message));
            if e.interrupted {
                EXIT_STOPPED
            } else {
                EXIT_ERROR
            }
        }
    }
}

/// `hammer convert FILE.tcl|FILE.py`: the script as Rhai on stdout under a header naming its
/// source (exit 0), or each refusal, `FILE:LINE: message`, on stderr (exit 1).
pub fn convert(path: &Path, out: &crate::output::Output) -> i32 {
    let shown = path.display();
    let Some(language) = crate::convert::Language::of(path) else {
        out.error(format!(
            "hammer convert takes a Tcl (.tcl) or Python (.py) script, as HammerDB's CLI runs \
             them; {shown} is neither"
        ));
        return EXIT_USAGE;
    };
    let source = match std::fs::read_to_string(path) {
        Ok(s) => s,
        Err(e) => {
            out.error(format!("{shown}: cannot read script: {e}"));
            return EXIT_ERROR;
        }
    };
    match crate::convert::convert(&source, language) {
        Ok(c) => {
            let text = format!("{}\n{}", crate::convert::header(path, language), c.rhai);
            out.line(text.trim_end_matches('\n'));
            EXIT_SUCCESS
        }
        Err(refusals) => {
            for r in refusals {
                out.error(format!("{shown}:{}: {}", r.line, r.message));
            }
            EXIT_ERROR
        }
    }
}

/// The line of `source` in HammerDB's bare form behind an error reported at `line` (1-based),
/// with its function form: that line, or the one before it (Rhai reads a bare `vurun` on
/// through the newline and stumbles on the next line).
fn bare_line(source: &str, line: usize) -> Option<(usize, String)> {
    let lines: Vec<&str> = source.lines().collect();
    let at = line.checked_sub(1).filter(|&i| i < lines.len())?;
    if let Some(call) = crate::script::function_form(lines[at]) {
        return Some((line, call));
    }
    let before = (0..at).rev().find(|&i| !lines[i].trim().is_empty())?;
    crate::script::function_form(lines[before]).map(|call| (before + 1, call))
}

/// Tab completion for the console; an open bracket is continued by the prompt loop, under its
/// own prompt, rather than by the editor (whose continued lines have none).
#[derive(Helper, Highlighter, Hinter, Validator)]
struct ConsoleHelper {
    session: Arc<Mutex<Session>>,
}

impl Completer for ConsoleHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let session = self.session.lock().unwrap_or_else(|e| e.into_inner());
        let (start, words) = completions(&session, &line[..pos]);
        Ok((
            start,
            words
                .into_iter()
                .map(|w| Pair {
                    display: w.clone(),
                    replacement: w,
                })
                .collect(),
        ))
    }
}

fn is_separator(c: char) -> bool {
    c.is_whitespace() || matches!(c, '(' | ',' | '"' | '\'' | ')' | '{' | ';')
}

/// What Tab offers at the end of `before`: where the word being completed starts, and the
/// candidates that extend it. Pure, so the console's completion is unit-tested.
pub fn completions(session: &Session, before: &str) -> (usize, Vec<String>) {
    let start = before.rfind(is_separator).map_or(0, |i| {
        i + before[i..].chars().next().map_or(1, char::len_utf8)
    });
    let word = &before[start..];
    let tokens: Vec<&str> = before[..start]
        .split(is_separator)
        .filter(|t| !t.is_empty())
        .collect();
    let db = session.settings.current();
    let dict = session.settings.db(db);
    let generic = &session.settings.generic;
    let owned = |v: Vec<&str>| v.into_iter().map(str::to_string).collect::<Vec<_>>();
    let keys_of = |d: &crate::config::Dict, section: Option<&str>| {
        d.specs()
            .iter()
            .filter(|s| section.is_none_or(|sec| s.section == sec))
            .map(|s| s.key.clone())
            .collect::<Vec<_>>()
    };
    let candidates: Vec<String> = match tokens.first() {
        None => {
            let mut v = owned(commands::names());
            v.push("exit".into());
            v
        }
        Some(first) => {
            let Some(cmd) = commands::find(first) else {
                return (start, Vec::new());
            };
            let section = tokens.get(1).copied();
            match cmd
                .complete
                .get(tokens.len() - 1)
                .copied()
                .unwrap_or(Complete::Nothing)
            {
                Complete::Nothing => Vec::new(),
                Complete::Commands => owned(commands::names()),
                Complete::PrintTargets => owned(PRINT_TARGETS.to_vec()),
                Complete::DbsetWhat => owned(vec!["db", "bm"]),
                Complete::DbsetValue => match section {
                    Some("db") => Database::ALL
                        .iter()
                        .map(|d| d.prefix().to_string())
                        .collect(),
                    Some("bm") => crate::benchmarks::ALL
                        .iter()
                        .map(|b| b.name.to_string())
                        .collect(),
                    _ => Vec::new(),
                },
                Complete::DictSections => owned(dict.sections()),
                Complete::DictKeys => {
                    keys_of(dict, section.filter(|s| dict.sections().contains(s)))
                }
                Complete::GenericSections => owned(generic.sections()),
                Complete::GenericKeys => {
                    keys_of(generic, section.filter(|s| generic.sections().contains(s)))
                }
                Complete::DictValues => tokens
                    .get(2)
                    .and_then(|k| dict.spec(k))
                    .map(|s| s.kind.words())
                    .unwrap_or_default(),
                Complete::GenericValues => tokens
                    .get(2)
                    .and_then(|k| generic.spec(k))
                    .map(|s| s.kind.words())
                    .unwrap_or_default(),
                Complete::OptionValues => {
                    let key = match cmd.name {
                        "vuset" => VUSET_OPTIONS
                            .iter()
                            .find(|o| Some(&o.0) == tokens.get(1))
                            .map(|o| o.1),
                        "tcset" => TCSET_OPTIONS
                            .iter()
                            .find(|o| Some(&o.0) == tokens.get(1))
                            .map(|o| o.1),
                        "metset" => METSET_OPTIONS
                            .iter()
                            .find(|o| Some(&o.0) == tokens.get(1))
                            .map(|o| o.1),
                        _ => None,
                    };
                    key.and_then(|k| generic.spec(k))
                        .map(|s| s.kind.words())
                        .unwrap_or_default()
                }
                Complete::VusetOptions => VUSET_OPTIONS.iter().map(|o| o.0.to_string()).collect(),
                Complete::TcsetOptions => TCSET_OPTIONS.iter().map(|o| o.0.to_string()).collect(),
                Complete::MetsetOptions => METSET_OPTIONS.iter().map(|o| o.0.to_string()).collect(),
                Complete::DgsetOptions => DGSET_OPTIONS.iter().map(|o| o.0.to_string()).collect(),
                Complete::Words(words) => owned(words.to_vec()),
            }
        }
    };
    let mut out: Vec<String> = candidates
        .into_iter()
        .filter(|c| c.starts_with(word))
        .collect();
    out.sort();
    out.dedup();
    (start, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tab after `dbset bm` offers every benchmark of the list.
    #[test]
    fn dbset_bm_completes_every_benchmark() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let session = Session::new(rt.handle().clone(), crate::output::Output::capture(), None);
        let (start, offered) = completions(&session, "dbset bm ");
        assert_eq!(start, "dbset bm ".len());
        let mut names: Vec<String> = crate::benchmarks::ALL
            .iter()
            .map(|b| b.name.to_string())
            .collect();
        // Offered in order of name.
        names.sort();
        assert_eq!(offered, names);
        assert_eq!(names, ["OLTP", "TPROC-C", "TPROC-H"]);
        let (_, offered) = completions(&session, "dbset bm TPROC-");
        assert_eq!(offered, ["TPROC-C", "TPROC-H"]);
    }

    /// The console echoes a command's value, but not the job id its job line just printed.
    #[test]
    fn the_echo_skips_a_job_id_printed_already() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let out = crate::output::Output::capture();
        let session = Session::new(rt.handle().clone(), out.clone(), None);
        let engine = ScriptEngine::new(Arc::new(Mutex::new(session)));
        let id = "6B0E2BEDB5F887757FD61782";
        let mut status = EXIT_ERROR;
        engine.session().printed(id);
        let value = || Ok(Outcome::Value(Dynamic::from(id.to_string())));
        assert_eq!(report(&engine, value(), &mut status), None);
        assert!(out.take_captured().is_empty());
        assert_eq!(status, EXIT_SUCCESS);
        // Once only: the same value later (`print` of a kept id) is echoed.
        report(&engine, value(), &mut status);
        assert_eq!(out.take_captured(), [id]);
        engine.session().printed(id);
        report(
            &engine,
            Ok(Outcome::Value(Dynamic::from("other"))),
            &mut status,
        );
        assert_eq!(out.take_captured(), ["other"]);
    }
}
