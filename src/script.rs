//! The Rhai engine that console and scripts share: HammerDB's commands as functions, one scope
//! kept between inputs, the bare `diset tpcc pg_count_ware 4` form, and errors with positions.

mod host;
mod limits;

use std::sync::{Arc, Mutex, MutexGuard};

use rhai::{Dynamic, Engine, EvalAltResult, ImmutableString, Position, Scope, AST};

use crate::commands::{self, COMMANDS, PRINT_TARGETS};
use crate::error::Error;
use crate::session::Session;
use limits::{Limits, MemoryGuard};

/// What a script stopped by Ctrl-C terminates with: the message to show. Rhai's `try` cannot
/// catch a termination, so a stop is never mistaken for an error the script handles.
#[derive(Clone)]
struct Stop(String);

/// What a script that passed `max_script_memory` terminates with: the message to show. An
/// error of the script (exit 1), not a stop.
#[derive(Clone)]
struct OverLimit(String);

/// The most arguments any command is registered for; more is reported as a usage error too.
const MAX_ARITY: usize = 6;

/// An error from running input, with the position it points at when Rhai knows one.
#[derive(Debug)]
pub struct ScriptError {
    pub message: String,
    /// Line and column, 1-based.
    pub position: Option<(usize, usize)>,
    /// Ctrl-C stopped the input (a STOPPED job, or a script busy elsewhere): not an error of
    /// the script, and `hammer auto` exits 130 for it rather than 1.
    pub interrupted: bool,
}

impl ScriptError {
    fn new(message: String, position: Option<(usize, usize)>) -> Self {
        ScriptError {
            message,
            position,
            interrupted: false,
        }
    }
}

/// What running one input ended with.
#[derive(Debug)]
pub enum Outcome {
    /// The value of the last expression (unit when there is none).
    Value(Dynamic),
    /// `quit`, `exit` or `exit(code)` was called; the code is 0 unless given.
    Quit(i32),
}

/// A Rhai engine bound to one session.
pub struct ScriptEngine {
    engine: Engine,
    scope: Scope<'static>,
    /// Functions defined by earlier inputs, kept for later ones.
    functions: AST,
    session: Arc<Mutex<Session>>,
    memory: MemoryGuard,
    host: host::Host,
}

fn lock(session: &Mutex<Session>) -> MutexGuard<'_, Session> {
    session.lock().unwrap_or_else(|e| e.into_inner())
}

fn to_text(v: &Dynamic) -> String {
    if v.is_unit() {
        String::new()
    } else {
        v.to_string()
    }
}

fn rhai_error(e: Error) -> Box<EvalAltResult> {
    let stop = |message: String| {
        EvalAltResult::ErrorTerminated(Dynamic::from(Stop(message)), Position::NONE).into()
    };
    match e {
        Error::Quit => EvalAltResult::ErrorTerminated(Dynamic::UNIT, Position::NONE).into(),
        Error::Interrupted => stop(Error::Interrupted.to_string()),
        Error::Job {
            message,
            stopped: true,
            ..
        } => stop(message),
        // A failed job: `catch (e)` gets the map with its id, status and figures.
        Error::Job { caught, .. } => EvalAltResult::ErrorRuntime(*caught, Position::NONE).into(),
        other => EvalAltResult::ErrorRuntime(other.to_string().into(), Position::NONE).into(),
    }
}

impl ScriptEngine {
    pub fn new(session: Arc<Mutex<Session>>) -> Self {
        let mut engine = Engine::new();
        let out = lock(&session).out.clone();
        let interrupt = lock(&session).interrupt.clone();
        // A script busy in pure Rhai (a loop with no command in it) still stops on Ctrl-C,
        // and before it takes the machine's memory.
        let memory = MemoryGuard::default();
        let guard = memory.clone();
        engine.on_progress(move |count| {
            if interrupt.is_set() {
                return Some(Dynamic::from(Stop(Error::Interrupted.to_string())));
            }
            guard.over(count).map(|why| Dynamic::from(OverLimit(why)))
        });
        // Files, the environment, HammerDB's helpers, Tcl's loose values.
        let host = host::register(&mut engine, out.clone());
        // print ends a line `write` began, as puts does.
        let printer = host.clone();
        engine.on_print(move |text| printer.line(text));
        engine.on_debug(move |text, _, pos| out.line(format!("{pos:?}: {text}")));
        for cmd in COMMANDS {
            register(&mut engine, cmd.name, session.clone());
        }
        // Rhai's own exit() ends evaluation as if with a value; ours ends the session, as
        // HammerDB's exit does, with an optional status for `hammer auto`.
        engine.register_fn("exit", || -> Result<(), Box<EvalAltResult>> {
            Err(EvalAltResult::ErrorTerminated(Dynamic::UNIT, Position::NONE).into())
        });
        engine.register_fn(
            "exit",
            |code: rhai::INT| -> Result<(), Box<EvalAltResult>> {
                Err(EvalAltResult::ErrorTerminated(code.into(), Position::NONE).into())
            },
        );
        ScriptEngine {
            engine,
            scope: Scope::new(),
            functions: AST::empty(),
            session,
            memory,
            host,
        }
    }

    /// Ends a line a script began with `write` and never ended.
    pub fn finish_line(&self) {
        self.host.finish_line();
    }

    pub fn session(&self) -> MutexGuard<'_, Session> {
        lock(&self.session)
    }

    /// The shared session, for the console's completion.
    pub fn session_handle(&self) -> Arc<Mutex<Session>> {
        self.session.clone()
    }

    /// Makes a value visible to scripts under a name (`ARGS` for `hammer auto`).
    pub fn set_var(&mut self, name: &str, value: impl Into<Dynamic>) {
        self.scope.push(name.to_string(), value.into());
    }

    /// Runs one console input: the bare HammerDB form or Rhai.
    pub fn eval_console(&mut self, input: &str) -> Result<Outcome, ScriptError> {
        let trimmed = input.trim().trim_end_matches(';').trim();
        if matches!(trimmed, "quit" | "exit") {
            return Ok(Outcome::Quit(0));
        }
        let segments = split_statements(input);
        let mut bare = false;
        let mut code = Vec::with_capacity(segments.len());
        for segment in &segments {
            match translate_bare(segment.trim()) {
                Some(Ok(call)) => {
                    bare = true;
                    code.push(call);
                }
                Some(Err(e)) => return Err(ScriptError::new(e.to_string(), None)),
                None => code.push(segment.clone()),
            }
        }
        if !bare {
            return self.eval(input).map_err(|e| explain_unknown(trimmed, e));
        }
        match self.eval(&code.join(";\n"))? {
            // HammerDB echoes a bare command's value (`vucomplete` -> true); maps and arrays are
            // results for scripts, already printed as lines.
            Outcome::Value(v) if v.is_map() || v.is_array() => Ok(Outcome::Value(Dynamic::UNIT)),
            other => Ok(other),
        }
    }

    /// Compiles and runs Rhai source in the kept scope.
    pub fn eval(&mut self, source: &str) -> Result<Outcome, ScriptError> {
        let limits = Limits::read(&self.session().settings.generic);
        limits.apply(&mut self.engine, &self.memory);
        let ast = self
            .engine
            .compile_with_scope(&self.scope, source)
            .map_err(|e| {
                let message = limits
                    .explain_parse(e.err_type())
                    .unwrap_or_else(|| e.err_type().to_string());
                ScriptError::new(message, position(e.position()))
            })?;
        self.functions = self.functions.merge(&ast.clone_functions_only());
        let run = self.functions.merge(&ast);
        match self
            .engine
            .eval_ast_with_scope::<Dynamic>(&mut self.scope, &run)
        {
            Ok(v) => Ok(Outcome::Value(v)),
            Err(e) => match terminated(&e) {
                Some((token, pos)) => {
                    if let Some(OverLimit(message)) = token.clone().try_cast::<OverLimit>() {
                        return Err(ScriptError::new(message, position(pos)));
                    }
                    match token.clone().try_cast::<Stop>() {
                        Some(Stop(message)) => Err(ScriptError {
                            message,
                            position: position(pos),
                            interrupted: true,
                        }),
                        None => Ok(Outcome::Quit(token.as_int().map_or(0, |c| c as i32))),
                    }
                }
                None => Err(script_error(*e, &limits)),
            },
        }
    }

    /// Renders a value the way the console echoes it (strings without quotes).
    pub fn show(value: &Dynamic) -> String {
        to_text(value)
    }
}

/// Registers `name` for every arity up to `MAX_ARITY`, so that a wrong count reaches our usage
/// line instead of Rhai's "function not found".
fn register(engine: &mut Engine, name: &'static str, session: Arc<Mutex<Session>>) {
    macro_rules! arity {
        ($($a:ident),*) => {{
            let s = session.clone();
            engine.register_fn(name, move |$($a: Dynamic),*| -> Result<Dynamic, Box<EvalAltResult>> {
                let args: Vec<String> = vec![$(to_text(&$a)),*];
                lock(&s).run(name, &args).map_err(rhai_error)
            });
        }};
    }
    if name == "print" {
        // print(text) is also Rhai's own print; a string that is no print target prints as is.
        // Registering for strings puts ours ahead of the built-in one.
        let s = session.clone();
        engine.register_fn(
            "print",
            move |text: ImmutableString| -> Result<String, Box<EvalAltResult>> {
                let text = text.to_string();
                if PRINT_TARGETS.contains(&text.as_str()) {
                    lock(&s).print_text(&text).map_err(rhai_error)
                } else {
                    Ok(text)
                }
            },
        );
        arity!();
        arity!(a, b);
        arity!(a, b, c);
        return;
    }
    arity!();
    arity!(a);
    arity!(a, b);
    arity!(a, b, c);
    arity!(a, b, c, d);
    arity!(a, b, c, d, e);
    arity!(a, b, c, d, e, f);
    debug_assert_eq!(MAX_ARITY, 6);
}

/// The termination (`exit`, `quit`, Ctrl-C) behind an error, also when it was raised inside
/// a function the script defined.
fn terminated(e: &EvalAltResult) -> Option<(&Dynamic, Position)> {
    match e {
        EvalAltResult::ErrorTerminated(token, pos) => Some((token, *pos)),
        EvalAltResult::ErrorInFunctionCall(_, _, inner, pos) => {
            terminated(inner).map(|(t, p)| (t, if p.is_none() { *pos } else { p }))
        }
        _ => None,
    }
}

fn position(p: Position) -> Option<(usize, usize)> {
    p.line().map(|l| (l, p.position().unwrap_or(1)))
}

fn script_error(mut e: EvalAltResult, limits: &Limits) -> ScriptError {
    // An error raised inside a script-defined function: report the innermost cause.
    let mut outer = e.take_position();
    while let EvalAltResult::ErrorInFunctionCall(_, _, inner, pos) = e {
        outer = if pos.is_none() { outer } else { pos };
        e = *inner;
        let p = e.take_position();
        if !p.is_none() {
            outer = p;
        }
    }
    let message = match &e {
        // A failed job's map carries its one-line message.
        EvalAltResult::ErrorRuntime(v, _) => match v.read_lock::<rhai::Map>() {
            Some(m) if m.contains_key("message") => {
                m.get("message").map(to_text).unwrap_or_default()
            }
            _ => v.to_string(),
        },
        EvalAltResult::ErrorFunctionNotFound(sig, _) => {
            let name = sig.split([' ', '(']).next().unwrap_or(sig);
            unknown_command(name).unwrap_or_else(|| e.to_string())
        }
        _ => limits.explain(&e).unwrap_or_else(|| e.to_string()),
    };
    ScriptError::new(message, position(outer))
}

/// "Unknown command X" with a near miss, when `name` looks like a mistyped command.
fn unknown_command(name: &str) -> Option<String> {
    if commands::find(name).is_some() {
        return None;
    }
    let mut msg = format!("Unknown command {name}");
    if let Some(near) = crate::config::nearest(name, commands::names().into_iter()) {
        msg.push_str(&format!("; did you mean {near}? Type"));
    } else {
        msg.push_str("; type");
    }
    msg.push_str(" help for the list of commands");
    Some(msg)
}

/// A line that Rhai could not make sense of and that starts like a command is reported as an
/// unknown command, not as a Rhai parse error.
fn explain_unknown(line: &str, e: ScriptError) -> ScriptError {
    let mut words = line.split_whitespace();
    let first = words.next().unwrap_or("");
    let bare_shape =
        is_identifier(first) && !RHAI_KEYWORDS.contains(&first) && !line.contains(['(', '=', '{']);
    let is_lookup_or_parse = e.message.starts_with("Variable not found")
        || e.position.is_some() && words.next().is_some();
    if bare_shape && is_lookup_or_parse {
        if let Some(message) = unknown_command(first) {
            return ScriptError::new(message, None);
        }
    }
    e
}

const RHAI_KEYWORDS: &[&str] = &[
    "let", "const", "if", "else", "switch", "do", "while", "until", "loop", "for", "in", "break",
    "continue", "return", "throw", "try", "catch", "fn", "private", "import", "export", "as",
    "true", "false", "this", "global",
];

fn is_identifier(w: &str) -> bool {
    let mut chars = w.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Splits console input at `;` and newlines outside quotes and brackets, so that
/// `dbset db pg; print dict` (or the same pasted as two lines) runs both in the bare form.
fn split_statements(input: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in input.chars() {
        if let Some(q) = quote {
            cur.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' && q != '`' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' | '`' => quote = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            // A newline ends a statement too: a multi-line paste of bare HammerDB lines.
            ';' | '\n' if depth == 0 => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur);
    out.retain(|s| !s.trim().is_empty());
    out
}

/// Turns HammerDB's bare form (`diset tpcc pg_count_ware 4`) into a Rhai call
/// (`diset("tpcc", "pg_count_ware", "4")`). `None` when the line is not in that form.
/// Words may be quoted with "", '' or Tcl's {} to hold spaces.
pub fn translate_bare(line: &str) -> Option<Result<String, Error>> {
    let first = line.split_whitespace().next()?;
    let cmd = commands::find(first)?;
    let rest = line[first.len()..].trim_start();
    // `diset(...)`, `print = 1`, `print.x`: Rhai, not the bare form.
    if rest.starts_with(['(', '=', '.', '[']) {
        return None;
    }
    let words = match split_words(rest) {
        Ok(w) => w,
        Err(msg) => return Some(Err(Error::usage(msg, cmd.usage()))),
    };
    if cmd.name == "print" && words.len() == 1 && !PRINT_TARGETS.contains(&words[0].as_str()) {
        return Some(Err(Error::usage(
            format!(
                "Error: cannot print \"{}\", valid targets are {}",
                words[0],
                PRINT_TARGETS.join(", ")
            ),
            cmd.usage(),
        )));
    }
    let args: Vec<String> = words.iter().map(|w| rhai_string(w)).collect();
    Some(Ok(format!("{}({})", cmd.name, args.join(", "))))
}

/// The function form of a script line written in HammerDB's bare form, as a user would type
/// it (numbers unquoted): `diset tpcc pg_count_ware 4` gives `diset("tpcc", "pg_count_ware", 4)`.
/// `None` when the line is not in the bare form.
pub fn function_form(line: &str) -> Option<String> {
    let line = line.trim().trim_end_matches(';').trim_end();
    translate_bare(line)?.ok()?;
    let first = line.split_whitespace().next()?;
    let words = split_words(line[first.len()..].trim_start()).ok()?;
    let args: Vec<String> = words
        .iter()
        .map(|w| {
            let number = w.parse::<i64>().is_ok() || w.parse::<f64>().is_ok_and(f64::is_finite);
            if number {
                w.clone()
            } else {
                rhai_string(w)
            }
        })
        .collect();
    Some(format!("{first}({})", args.join(", ")))
}

fn split_words(s: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut chars = s.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        let close = match c {
            '"' => Some('"'),
            '\'' => Some('\''),
            '{' => Some('}'),
            _ => None,
        };
        let mut word = String::new();
        if let Some(close) = close {
            chars.next();
            loop {
                match chars.next() {
                    Some(ch) if ch == close => break,
                    Some(ch) => word.push(ch),
                    None => return Err(format!("Error: missing closing {close}")),
                }
            }
        } else {
            while let Some(&ch) = chars.peek() {
                if ch.is_whitespace() {
                    break;
                }
                word.push(ch);
                chars.next();
            }
        }
        words.push(word);
    }
    Ok(words)
}

/// A Rhai string literal holding `s` exactly.
fn rhai_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Whether `src` is unfinished: an open bracket, string or block comment. The console then
/// reads another line before running it.
pub fn is_incomplete(src: &str) -> bool {
    let mut depth: i64 = 0;
    let mut chars = src.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' | '\'' => {
                let mut closed = false;
                while let Some(ch) = chars.next() {
                    if ch == '\\' {
                        chars.next();
                    } else if ch == c {
                        closed = true;
                        break;
                    } else if ch == '\n' {
                        break;
                    }
                }
                if !closed && chars.peek().is_none() {
                    return false; // an unclosed quote on one line is an error, not a continuation
                }
            }
            '`' if !chars.any(|ch| ch == '`') => return true,
            '/' if chars.peek() == Some(&'/') => {
                for ch in chars.by_ref() {
                    if ch == '\n' {
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut prev = ' ';
                let mut closed = false;
                for ch in chars.by_ref() {
                    if prev == '*' && ch == '/' {
                        closed = true;
                        break;
                    }
                    prev = ch;
                }
                if !closed {
                    return true;
                }
            }
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            _ => {}
        }
    }
    depth > 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_form_becomes_a_call() {
        let t = |s: &str| translate_bare(s).map(|r| r.map_err(|e| e.to_string()));
        assert_eq!(t("dbset db pg"), Some(Ok(r#"dbset("db", "pg")"#.into())));
        assert_eq!(
            t("diset tpcc pg_count_ware 4"),
            Some(Ok(r#"diset("tpcc", "pg_count_ware", "4")"#.into()))
        );
        assert_eq!(t("vuset vu -1"), Some(Ok(r#"vuset("vu", "-1")"#.into())));
        assert_eq!(t("librarycheck"), Some(Ok("librarycheck()".into())));
        assert_eq!(
            t(r#"diset tpcc pg_pass {my "odd" pass\}"#),
            Some(Ok(r#"diset("tpcc", "pg_pass", "my \"odd\" pass\\")"#.into()))
        );
        assert_eq!(t(r#"diset("tpcc", "pg_count_ware", 4)"#), None);
        assert_eq!(t("let w = 4"), None);
        assert!(t("print nonsense")
            .unwrap()
            .unwrap_err()
            .contains("Usage: print [db|bm"));
        assert!(t("diset tpcc pg_pass {open").unwrap().is_err());
    }

    #[test]
    fn a_bare_line_has_its_function_form() {
        assert_eq!(
            function_form("  diset tpcc pg_count_ware 4;").as_deref(),
            Some(r#"diset("tpcc", "pg_count_ware", 4)"#)
        );
        assert_eq!(
            function_form("vuset vu 2.5").as_deref(),
            Some(r#"vuset("vu", 2.5)"#)
        );
        assert_eq!(function_form("vurun").as_deref(), Some("vurun()"));
        assert_eq!(
            function_form("dbset db pg").as_deref(),
            Some(r#"dbset("db", "pg")"#)
        );
        assert_eq!(function_form(r#"diset("tpcc", "pg_count_ware", 4);"#), None);
        assert_eq!(function_form("let x = 4;"), None);
        assert_eq!(function_form("print nonsense"), None);
    }

    #[test]
    fn open_brackets_and_strings_continue() {
        assert!(is_incomplete("for i in 0..3 {"));
        assert!(is_incomplete("diset(\"tpcc\","));
        assert!(!is_incomplete("diset(\"tpcc\", \"k\", \"{\")"));
        assert!(!is_incomplete("let x = [1, 2]; // {"));
        assert!(is_incomplete("let s = `multi"));
        assert!(is_incomplete("/* open"));
        assert!(!is_incomplete("let s = \"unclosed"));
        assert!(!is_incomplete("}"));
    }
}
