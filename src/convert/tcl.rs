//! HammerDB's Tcl dialect to Rhai: its commands as calls, Tcl's variables, substitutions,
//! `expr`, control flow, files and the environment as the Rhai the engine runs; everything
//! else refused by name with its line and what to use instead.
//!
//! Tcl's values are strings; Rhai's have types. A variable whose every assignment is a number
//! is used as one; a value of unknown type goes through `as_number`, `as_bool` or `text`
//! where Tcl would read it as a number, a truth or a string. The types come from a few passes
//! over the script until what each pass assumed covers what it assigned.

use std::collections::{HashMap, HashSet};

use super::emit::{Converted, Line};
use super::tcl_expr::{self, Expr};
use super::tcl_parse::{self, fold_continuations, Command, Item, Part, Script, Word, WordKind};
use super::{canonical_int, ident, interpolate, string_literal, Piece, Refusal, HELPERS};
use crate::commands;

/// Translates a Tcl script to Rhai.
pub fn convert(source: &str) -> Result<Converted, Vec<Refusal>> {
    let script = tcl_parse::parse(source, 1).map_err(|e| vec![e])?;
    // The first pass assumes nothing and learns which variables the script sets, and to what.
    let mut first = Translator::new(HashMap::new(), HashSet::new());
    first.top(&script);
    if !first.refusals.is_empty() {
        let mut r = first.refusals;
        r.sort_by_key(|r| r.line);
        r.dedup();
        return Err(r);
    }
    let known: HashSet<String> = first.seen.keys().cloned().collect();
    let mut types = first.seen;
    for _ in 0..4 {
        let mut t = Translator::new(types.clone(), known.clone());
        let lines = t.top(&script);
        // Right when every value assigned is of the type the pass assumed for its variable.
        let covered = t
            .seen
            .iter()
            .all(|(k, v)| types.get(k).is_some_and(|a| a.join(*v) == *a));
        if covered {
            return Ok(Converted::from_lines(lines));
        }
        for (k, v) in t.seen {
            let joined = types.get(&k).map_or(v, |a| a.join(v));
            types.insert(k, joined);
        }
    }
    // Every variable of unknown type: always right.
    let unknown = known.iter().map(|k| (k.clone(), Ty::Unknown)).collect();
    let mut t = Translator::new(unknown, known);
    Ok(Converted::from_lines(t.top(&script)))
}

/// One Tcl command (Python's `tclpy.eval('vurun')`) as Rhai: the statements it needs first
/// (indented from 0) and its value.
pub(crate) fn inline(text: &str, line: usize) -> Result<(Vec<Line>, String), Refusal> {
    let script = tcl_parse::parse(text, line)?;
    let commands: Vec<&Command> = script
        .iter()
        .filter_map(|i| match i {
            Item::Command(c) => Some(c),
            Item::Comment { .. } => None,
        })
        .collect();
    let mut t = Translator::new(HashMap::new(), HashSet::new());
    match commands.as_slice() {
        [] => Ok((Vec::new(), "\"\"".to_string())),
        [c] => {
            let mut pre = Vec::new();
            let v = t.command_value(c, 1, &mut pre)?;
            if let Some(r) = t.refusals.into_iter().next() {
                return Err(r);
            }
            let pre = reindent(&pre, 1, 0);
            Ok((pre, v.code))
        }
        _ => Err(Refusal::construct(
            line,
            "tclpy.eval of several Tcl commands",
            "call the commands one at a time, as functions",
        )),
    }
}

/// What a Rhai value is known to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ty {
    Int,
    Float,
    /// A number, integer or not.
    Num,
    Bool,
    Str,
    List,
    Unknown,
}

impl Ty {
    fn numeric(self) -> bool {
        matches!(self, Ty::Int | Ty::Float | Ty::Num)
    }

    fn join(self, other: Ty) -> Ty {
        if self == other {
            self
        } else if self.numeric() && other.numeric() {
            Ty::Num
        } else {
            Ty::Unknown
        }
    }
}

// How tightly a generated Rhai expression binds, so that operands get parentheses only where
// Rhai needs them.
const ATOM: u8 = 100;
const UNARY: u8 = 90;
const POW: u8 = 80;
const MUL: u8 = 70;
const ADD: u8 = 60;
const CMP: u8 = 50;
const EQ: u8 = 45;
const AND: u8 = 30;
const OR: u8 = 20;
const LOW: u8 = 10;

#[derive(Debug, Clone)]
struct Value {
    code: String,
    ty: Ty,
    prec: u8,
    /// The text of a string literal.
    lit: Option<String>,
    /// For a comparison, its opposite (`a >= b` for `a < b`), so that `!` reads plainly.
    neg: Option<String>,
}

impl Value {
    fn new(code: impl Into<String>, ty: Ty, prec: u8) -> Self {
        Value {
            code: code.into(),
            ty,
            prec,
            lit: None,
            neg: None,
        }
    }

    /// `a op b`, which knows its opposite.
    fn comparison(a: &str, op: &str, b: &str, prec: u8) -> Self {
        let opposite = match op {
            "==" => "!=",
            "!=" => "==",
            "<" => ">=",
            ">=" => "<",
            ">" => "<=",
            _ => ">",
        };
        Value {
            neg: Some(format!("{a} {opposite} {b}")),
            ..Value::new(format!("{a} {op} {b}"), Ty::Bool, prec)
        }
    }

    /// The code without the parentheses around it all, for the head of an `if` or `while`.
    fn head(&self) -> String {
        let c = &self.code;
        if c.starts_with('(') && c.ends_with(')') {
            let mut depth = 0;
            for (i, ch) in c.char_indices() {
                match ch {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 && i + 1 < c.len() {
                            return c.clone();
                        }
                    }
                    '"' | '`' => return c.clone(),
                    _ => {}
                }
            }
            return c[1..c.len() - 1].to_string();
        }
        c.clone()
    }

    fn atom(code: impl Into<String>, ty: Ty) -> Self {
        Value::new(code, ty, ATOM)
    }

    /// Tcl's text as a Rhai literal: an integer when it is one as written, else a string.
    fn literal(text: &str) -> Self {
        match canonical_int(text) {
            Some(n) if n < 0 => Value::new(n.to_string(), Ty::Int, UNARY),
            Some(n) => Value::atom(n.to_string(), Ty::Int),
            None => Value {
                lit: Some(text.to_string()),
                ..Value::atom(string_literal(text), Ty::Str)
            },
        }
    }

    /// The code, in parentheses unless it binds at least as tightly as `min`.
    fn at(&self, min: u8) -> String {
        if self.prec >= min {
            self.code.clone()
        } else {
            format!("({})", self.code)
        }
    }

    /// The code as the receiver of a method call (`x.to_float()`).
    fn receiver(&self) -> String {
        let number = self
            .code
            .starts_with(|c: char| c.is_ascii_digit() || c == '-');
        if number || self.prec < ATOM {
            format!("({})", self.code)
        } else {
            self.code.clone()
        }
    }

    fn num(self) -> Value {
        if self.ty.numeric() {
            self
        } else {
            Value::atom(format!("as_number({})", self.code), Ty::Num)
        }
    }

    fn truth(self) -> Value {
        match self.ty {
            Ty::Bool => self,
            // `if {1}`, `while 1`: a constant truth.
            Ty::Int if self.code.parse::<i64>().is_ok() => Value::atom(
                (self.code.parse::<i64>().unwrap_or(0) != 0).to_string(),
                Ty::Bool,
            ),
            t if t.numeric() => Value::comparison(&self.at(EQ + 1), "!=", "0", EQ),
            _ => Value::atom(format!("as_bool({})", self.code), Ty::Bool),
        }
    }

    fn text(self) -> Value {
        if self.ty == Ty::Str {
            self
        } else {
            Value::atom(format!("text({})", self.code), Ty::Str)
        }
    }

    fn not(self) -> Value {
        let t = self.truth();
        if let Some(neg) = &t.neg {
            return Value {
                neg: Some(t.code.clone()),
                ..Value::new(neg.clone(), Ty::Bool, t.prec)
            };
        }
        let inner = if t.code.starts_with('!') {
            format!("({})", t.code)
        } else {
            t.at(UNARY)
        };
        Value::new(format!("!{inner}"), Ty::Bool, UNARY)
    }

    /// A piece of an interpolated string.
    fn piece(self) -> Piece {
        if !matches!(self.ty, Ty::List | Ty::Unknown) {
            Piece::Value(self.code)
        } else {
            Piece::Value(format!("text({})", self.code))
        }
    }
}

/// What hammer's own commands and HammerDB's helpers return, where it is known.
fn command_type(name: &str) -> Ty {
    match name {
        "numberOfCPUs" | "numberOfWHs" => Ty::Int,
        "vucomplete" | "tcstatus" | "metstatus" => Ty::Bool,
        _ => Ty::Unknown,
    }
}

const RESULTS_INSTEAD: &str = "hammer's jobs command prints a job's figures as HammerDB's result \
scripts do: jobs JOBID result, jobs JOBID timing, jobs JOBID tcount (hammer jobs ID result from \
the shell)";

const RHAI_INSTEAD: &str = "write that part in Rhai (docs/coming-from-hammerdb.md lists what \
hammer translates)";

/// Tcl's commands hammer does not translate, and what to do instead.
fn tcl_refusal(name: &str) -> Option<&'static str> {
    Some(match name {
        "rename" | "eval" | "subst" | "uplevel" | "upvar" | "namespace" | "interp" | "apply"
        | "trace" | "unknown" | "variable" | "tailcall" | "coroutine" | "yield" | "load"
        | "info" => {
            "hammer translates a script's commands as written, not Tcl that makes or runs code \
             at run time; write the commands out (or write that part in Rhai)"
        }
        "array" | "dict" | "lassign" | "lset" | "lrange" | "lreplace" | "linsert" | "lsort"
        | "lsearch" | "concat" | "lrepeat" | "lreverse" | "lmap" | "join" | "split" => {
            "use plain variables and lists (set, lappend, foreach, llength, lindex), or write \
             that part in Rhai, whose arrays and maps (#{key: value}) do this"
        }
        "source" => {
            "convert that file too (hammer convert FILE.tcl) and run the scripts one after \
             another with hammer auto, or put them together in one Rhai script"
        }
        "package" => "hammer's commands need no package; remove the line",
        "sqlite3" => RESULTS_INSTEAD,
        "exec" | "open|" => "run other programs from the shell script that calls hammer auto",
        "switch" => "use if/elseif/else",
        "regexp" | "regsub" => "use string match, or Rhai's string methods in a .rhai script",
        "format" | "scan" => "put the values in a string (\"$a $b\"), or use expr for numbers",
        "vwait" | "fileevent" | "socket" | "fconfigure" | "chan" | "fcopy" | "seek" | "tell"
        | "thread::send" | "tsv::set" => {
            "hammer's commands block until they are done; there is no event loop to wait on"
        }
        "binary" | "encoding" | "zlib" => RHAI_INSTEAD,
        _ => return None,
    })
}

/// The `string` subcommands hammer translates.
const STRING_SUBCOMMANDS: &str =
    "string is, tolower, toupper, trim, trimleft, trimright, length, equal, match, first";

/// The classes `string is` takes.
const STRING_CLASSES: &[&str] = &[
    "integer", "wide", "double", "boolean", "true", "false", "digit", "alpha", "alnum", "space",
    "upper", "lower",
];

struct Translator {
    /// The types assumed for variables (by Rhai name); absent is unknown.
    types: HashMap<String, Ty>,
    /// The types this pass assigned.
    seen: HashMap<String, Ty>,
    /// Variables with a `let` in scope at the top level.
    declared: HashSet<String>,
    /// `let x;` lines to put before the top-level statement being translated, for variables
    /// first set inside a block (Tcl has no block scope; Rhai has).
    hoisted: Vec<Line>,
    refusals: Vec<Refusal>,
    /// For each enclosing loop, the `for` loop's next step (translated) that a `continue`
    /// runs first, with the indent it was translated at.
    loops: Vec<Option<(Vec<Line>, usize)>>,
    /// Names made up for the generated code.
    made: HashSet<String>,
    /// Every variable the script sets somewhere (known after the first pass).
    known: HashSet<String>,
}

fn wrong_args(line: usize, usage: &str) -> Refusal {
    Refusal::syntax(line, format!("wrong # args: should be \"{usage}\""))
}

fn reindent(lines: &[Line], from: usize, to: usize) -> Vec<Line> {
    lines
        .iter()
        .map(|l| Line::new(l.indent - from.min(l.indent) + to, l.text.clone(), l.source))
        .collect()
}

fn comment_lines(indent: usize, text: &str, line: usize) -> Vec<Line> {
    text.split('\n')
        .enumerate()
        .map(|(i, t)| {
            let t = t.trim_end_matches('\\');
            let body = if t.is_empty() || t.starts_with(' ') {
                format!("//{t}")
            } else {
                format!("// {t}")
            };
            Line::new(indent, body, line + i)
        })
        .collect()
}

impl Translator {
    fn new(types: HashMap<String, Ty>, known: HashSet<String>) -> Self {
        Translator {
            types,
            known,
            seen: HashMap::new(),
            declared: HashSet::new(),
            hoisted: Vec::new(),
            refusals: Vec::new(),
            loops: Vec::new(),
            made: HashSet::new(),
        }
    }

    fn var_ty(&self, id: &str) -> Ty {
        self.types.get(id).copied().unwrap_or(Ty::Unknown)
    }

    fn note(&mut self, id: &str, ty: Ty) {
        let joined = self.seen.get(id).map_or(ty, |t| t.join(ty));
        self.seen.insert(id.to_string(), joined);
    }

    /// A name for the generated code that no variable of the script has.
    fn fresh(&mut self, base: &str) -> String {
        let mut n = 0;
        loop {
            let name = if n == 0 {
                base.to_string()
            } else {
                format!("{base}{n}")
            };
            let taken = self.known.contains(&name)
                || self.types.contains_key(&name)
                || self.seen.contains_key(&name)
                || self.declared.contains(&name)
                || self.made.contains(&name);
            if !taken {
                self.made.insert(name.clone());
                return name;
            }
            n += 1;
        }
    }

    /// The top level: each statement after the `let`s it needs.
    fn top(&mut self, script: &Script) -> Vec<Line> {
        let mut out = Vec::new();
        self.items(script, 0, &mut out, true);
        out
    }

    fn items(&mut self, script: &[Item], indent: usize, out: &mut Vec<Line>, top: bool) {
        let mut last_end: Option<usize> = None;
        for item in script {
            let (line, end) = match item {
                Item::Comment { line, text } => (*line, line + text.matches('\n').count()),
                Item::Command(c) => (c.line, c.end_line),
            };
            if last_end.is_some_and(|e| line > e + 1) {
                out.push(Line::blank());
            }
            last_end = Some(end);
            match item {
                Item::Comment { line, text } => out.extend(comment_lines(indent, text, *line)),
                Item::Command(c) => {
                    let mut stmt = Vec::new();
                    if let Err(r) = self.command(c, indent, &mut stmt) {
                        self.refusals.push(r);
                    }
                    if top {
                        out.append(&mut self.hoisted);
                    }
                    out.append(&mut stmt);
                }
            }
        }
    }

    /// Makes sure `id` has a `let` in scope before code at `indent` uses it.
    fn declare(&mut self, id: &str, indent: usize, line: usize, out: &mut Vec<Line>) {
        if self.declared.contains(id) {
            return;
        }
        self.declared.insert(id.to_string());
        let decl = Line::new(0, format!("let {id};"), line);
        if indent == 0 {
            out.push(decl);
        } else {
            self.hoisted.push(decl);
        }
    }

    /// `set name value` and everything else that assigns.
    fn assign(&mut self, id: &str, value: Value, indent: usize, line: usize, out: &mut Vec<Line>) {
        self.note(id, value.ty);
        if !self.declared.contains(id) && indent == 0 {
            self.declared.insert(id.to_string());
            out.push(Line::new(
                indent,
                format!("let {id} = {};", value.code),
                line,
            ));
            return;
        }
        self.declare(id, indent, line, out);
        out.push(Line::new(indent, format!("{id} = {};", value.code), line));
    }

    /// The Rhai name of a variable named by a word (`set x`, `incr x`, `gets $fd line`).
    fn var_name(&self, w: &Word, usage: &str) -> Result<String, Refusal> {
        let Some(name) = w.literal() else {
            return Err(Refusal::construct(
                w.line,
                format!("{usage} with a variable name made at run time ({})", w.raw),
                "name the variable as written",
            ));
        };
        if name.contains('(') {
            return Err(Refusal::construct(
                w.line,
                format!("the array element {name}"),
                "use a plain variable for each value, or write that part in Rhai with a map \
                 (#{key: value})",
            ));
        }
        Ok(ident(&name))
    }

    fn command(&mut self, c: &Command, indent: usize, out: &mut Vec<Line>) -> Result<(), Refusal> {
        let line = c.line;
        let Some(name) = c.words[0].literal() else {
            return Err(Refusal::construct(
                line,
                format!("a command named by a substitution ({})", c.words[0].raw),
                "name the command as written",
            ));
        };
        let args = &c.words[1..];
        let name = name.trim_start_matches("::");
        match name {
            "set" if args.len() == 2 => {
                let target = args[0].literal();
                if let Some(var) = target.as_deref().and_then(env_name) {
                    let mut pre = Vec::new();
                    let v = self.word(&args[1], indent, &mut pre)?;
                    out.extend(pre);
                    out.push(Line::new(
                        indent,
                        format!("set_env({}, {});", string_literal(var), v.code),
                        line,
                    ));
                    return Ok(());
                }
                let id = self.var_name(&args[0], "set")?;
                let mut pre = Vec::new();
                let v = self.word(&args[1], indent, &mut pre)?;
                out.extend(pre);
                self.assign(&id, v, indent, line, out);
            }
            "set" if args.len() == 1 => {
                let id = self.var_name(&args[0], "set")?;
                out.push(Line::new(indent, format!("{id};"), line));
            }
            "set" => return Err(wrong_args(line, "set varName ?newValue?")),
            "unset" => {
                for w in args {
                    if matches!(w.literal().as_deref(), Some("-nocomplain" | "--")) {
                        continue;
                    }
                    let id = self.var_name(w, "unset")?;
                    self.declare(&id, indent, line, out);
                    out.push(Line::new(indent, format!("{id} = ();"), line));
                }
            }
            "incr" => {
                if args.is_empty() || args.len() > 2 {
                    return Err(wrong_args(line, "incr varName ?increment?"));
                }
                let id = self.var_name(&args[0], "incr")?;
                let mut pre = Vec::new();
                let by = match args.get(1) {
                    Some(w) => self.word(w, indent, &mut pre)?.num(),
                    None => Value::atom("1", Ty::Int),
                };
                out.extend(pre);
                let ty = self.var_ty(&id);
                if !self.declared.contains(&id) {
                    // Tcl sets a variable that is not there to the increment.
                    self.assign(&id, by, indent, line, out);
                } else if ty.numeric() {
                    self.note(&id, Ty::Int.join(ty));
                    out.push(Line::new(indent, format!("{id} += {};", by.code), line));
                } else {
                    // Tcl's incr takes and gives integers only.
                    self.note(&id, Ty::Int);
                    out.push(Line::new(
                        indent,
                        format!("{id} = as_number({id}) + {};", by.at(ADD + 1)),
                        line,
                    ));
                }
            }
            "append" => {
                if args.is_empty() {
                    return Err(wrong_args(line, "append varName ?value value ...?"));
                }
                let id = self.var_name(&args[0], "append")?;
                let mut pre = Vec::new();
                let mut pieces = Vec::new();
                if self.declared.contains(&id) {
                    pieces.push(Value::atom(id.clone(), self.var_ty(&id)).piece());
                }
                for w in &args[1..] {
                    pieces.push(self.word(w, indent, &mut pre)?.piece());
                }
                out.extend(pre);
                let v = Value::atom(interpolate(&pieces), Ty::Str);
                self.assign(&id, v, indent, line, out);
            }
            "lappend" => {
                if args.is_empty() {
                    return Err(wrong_args(line, "lappend varName ?value value ...?"));
                }
                let id = self.var_name(&args[0], "lappend")?;
                let mut pre = Vec::new();
                let mut items = Vec::new();
                for w in &args[1..] {
                    items.push(self.word(w, indent, &mut pre)?.code);
                }
                out.extend(pre);
                let code = if self.declared.contains(&id) {
                    items
                        .iter()
                        .fold(id.clone(), |acc, v| format!("lappend({acc}, {v})"))
                } else {
                    format!("[{}]", items.join(", "))
                };
                self.assign(&id, Value::atom(code, Ty::List), indent, line, out);
            }
            "puts" => self.puts(c, indent, out)?,
            "if" => self.if_command(c, indent, out)?,
            "while" => {
                if args.len() != 2 {
                    return Err(wrong_args(line, "while test command"));
                }
                let mut pre = Vec::new();
                let test = self.condition(&args[0], indent + 1, &mut pre)?;
                self.loops.push(None);
                let mut body = Vec::new();
                let r = self.body(&args[1], indent + 1, &mut body);
                self.loops.pop();
                r?;
                self.loop_head(test, pre, indent, line, out);
                out.extend(body);
                out.push(Line::new(indent, "}", line));
            }
            "for" => self.for_command(c, indent, out)?,
            "foreach" => self.foreach_command(c, indent, out)?,
            "break" | "continue" => {
                if !args.is_empty() {
                    return Err(wrong_args(line, name));
                }
                let Some(inner) = self.loops.last() else {
                    return Err(Refusal::syntax(
                        line,
                        format!("{name} outside a loop: it belongs in while, for or foreach"),
                    ));
                };
                if name == "continue" {
                    if let Some((next, at)) = inner {
                        out.extend(reindent(next, *at, indent));
                    }
                }
                out.push(Line::new(indent, format!("{name};"), line));
            }
            "exit" => {
                let mut pre = Vec::new();
                let code = match args {
                    [] => "exit();".to_string(),
                    [w] => format!("exit({});", self.word(w, indent, &mut pre)?.num().code),
                    _ => return Err(wrong_args(line, "exit ?returnCode?")),
                };
                out.extend(pre);
                out.push(Line::new(indent, code, line));
            }
            "return" => {
                if args.len() > 1 || args.first().is_some_and(|w| w.raw.starts_with('-')) {
                    return Err(Refusal::construct(
                        line,
                        "return with options",
                        "end the script with exit, or raise an error with error",
                    ));
                }
                out.push(Line::new(
                    indent,
                    "exit(); // return: the end of the script",
                    line,
                ));
            }
            "error" => {
                if args.is_empty() || args.len() > 3 {
                    return Err(wrong_args(line, "error message ?info? ?code?"));
                }
                let mut pre = Vec::new();
                let v = self.word(&args[0], indent, &mut pre)?.text();
                out.extend(pre);
                out.push(Line::new(indent, format!("throw {};", v.code), line));
            }
            "after" => {
                if args.len() != 1 {
                    return Err(Refusal::construct(
                        line,
                        "after with a script (an event callback) or a subcommand",
                        "wait with after MS, then run the command",
                    ));
                }
                let mut pre = Vec::new();
                let v = self.word(&args[0], indent, &mut pre)?;
                out.extend(pre);
                let seconds = match canonical_int(&v.code) {
                    Some(ms) => format!("{}", ms as f64 / 1000.0),
                    None if v.lit.is_some() => {
                        return Err(Refusal::construct(
                            line,
                            format!("after {}", args[0].raw),
                            "give after a number of milliseconds",
                        ))
                    }
                    None => format!("{} / 1000.0", v.num().at(MUL)),
                };
                out.push(Line::new(
                    indent,
                    format!("runtimer({seconds}); // after: a wait in milliseconds"),
                    line,
                ));
            }
            "runtimer" => {
                if args.len() != 1 {
                    return Err(wrong_args(line, "runtimer seconds"));
                }
                let mut pre = Vec::new();
                let v = self.word(&args[0], indent, &mut pre)?;
                out.extend(pre);
                out.push(Line::new(
                    indent,
                    format!(
                        "if !vucomplete() {{ runtimer({}); }} // HammerDB's runtimer: waits \
                         unless the virtual users have finished",
                        v.code
                    ),
                    line,
                ));
            }
            "update" => out.push(Line::new(
                indent,
                "// update: hammer has no event loop to run",
                line,
            )),
            "flush" => out.push(Line::new(
                indent,
                "// flush: hammer writes its output at once",
                line,
            )),
            "global" => out.push(Line::new(
                indent,
                format!(
                    "// global {}: a script's variables are all global",
                    args.iter()
                        .map(|w| w.raw.as_str())
                        .collect::<Vec<_>>()
                        .join(" ")
                ),
                line,
            )),
            "proc" => {
                let pname = args.first().and_then(Word::literal).unwrap_or_default();
                let body = args.get(2).map(|w| w.raw.as_str()).unwrap_or("");
                if pname == "runtimer" && body.contains("vucomplete") {
                    out.push(Line::new(
                        indent,
                        "// proc runtimer: hammer's vurun returns when the virtual users have \
                         finished; runtimer N waits N seconds only while they have not",
                        line,
                    ));
                    return Ok(());
                }
                let results = matches!(pname.as_str(), "stdout" | "getjobid" | "getoutput")
                    || body.contains("sqlite");
                return Err(Refusal::construct(
                    line,
                    format!("proc {pname} (a Tcl procedure)"),
                    if results {
                        RESULTS_INSTEAD
                    } else {
                        "write the script in Rhai, where fn defines a function (hammer convert \
                         prints the rest of a script as Rhai once the proc is gone)"
                    },
                ));
            }
            "source" => {
                let file = args.first().map(|w| w.raw.as_str()).unwrap_or("");
                let instead = if file.contains("result") {
                    RESULTS_INSTEAD
                } else {
                    tcl_refusal("source").unwrap_or(RHAI_INSTEAD)
                };
                return Err(Refusal::construct(line, format!("source {file}"), instead));
            }
            "package" => {
                let what = args
                    .iter()
                    .map(|w| w.raw.as_str())
                    .collect::<Vec<_>>()
                    .join(" ");
                let instead = if what.contains("sqlite") {
                    RESULTS_INSTEAD
                } else {
                    tcl_refusal("package").unwrap_or(RHAI_INSTEAD)
                };
                return Err(Refusal::construct(line, format!("package {what}"), instead));
            }
            "close" => {
                if args.len() != 1 {
                    return Err(wrong_args(line, "close channelId"));
                }
                let mut pre = Vec::new();
                let ch = self.word(&args[0], indent, &mut pre)?;
                out.extend(pre);
                out.push(Line::new(indent, format!("close({});", ch.code), line));
            }
            "file"
                if matches!(
                    args.first().and_then(Word::literal).as_deref(),
                    Some("mkdir" | "delete")
                ) =>
            {
                let sub = args[0].literal().unwrap_or_default();
                let mut pre = Vec::new();
                let mut calls = Vec::new();
                for w in &args[1..] {
                    if matches!(w.literal().as_deref(), Some("-force" | "--")) {
                        continue;
                    }
                    let p = self.word(w, indent, &mut pre)?;
                    calls.push(format!("file_{sub}({});", p.code));
                }
                out.extend(pre);
                out.extend(calls.into_iter().map(|c| Line::new(indent, c, line)));
            }
            "catch" => {
                self.catch(c, indent, out, false)?;
            }
            _ => {
                let mut pre = Vec::new();
                let v = self.command_value(c, indent, &mut pre)?;
                out.extend(pre);
                out.push(Line::new(indent, super::statement(&v.code), line));
            }
        }
        Ok(())
    }

    /// `while` or, when the test needs statements before it, `loop` with the test inside.
    fn loop_head(
        &self,
        test: Value,
        pre: Vec<Line>,
        indent: usize,
        line: usize,
        out: &mut Vec<Line>,
    ) {
        if pre.is_empty() {
            out.push(Line::new(indent, format!("while {} {{", test.head()), line));
        } else {
            out.push(Line::new(indent, "loop {", line));
            out.extend(pre);
            out.push(Line::new(
                indent + 1,
                format!("if {} {{ break; }}", test.not().head()),
                line,
            ));
        }
    }

    fn puts(&mut self, c: &Command, indent: usize, out: &mut Vec<Line>) -> Result<(), Refusal> {
        let mut args: Vec<&Word> = c.words[1..].iter().collect();
        let nonewline = args.first().and_then(|w| w.literal()).as_deref() == Some("-nonewline");
        if nonewline {
            args.remove(0);
        }
        let mut pre = Vec::new();
        let code = match args.as_slice() {
            [text] => {
                let v = self.word(text, indent, &mut pre)?;
                let f = if nonewline { "write" } else { "puts" };
                format!("{f}({});", v.code)
            }
            [channel, text] => {
                let v = self.word(text, indent, &mut pre)?;
                match channel.literal().as_deref() {
                    Some("stdout") if nonewline => format!("write({});", v.code),
                    Some("stdout") => format!("puts({});", v.code),
                    Some("stderr") => format!("eputs({});", v.code),
                    _ => {
                        let ch = self.word(channel, indent, &mut pre)?;
                        let f = if nonewline { "write" } else { "puts" };
                        format!("{f}({}, {});", ch.code, v.code)
                    }
                }
            }
            _ => return Err(wrong_args(c.line, "puts ?-nonewline? ?channelId? string")),
        };
        out.extend(pre);
        out.push(Line::new(indent, code, c.line));
        Ok(())
    }

    fn if_command(
        &mut self,
        c: &Command,
        indent: usize,
        out: &mut Vec<Line>,
    ) -> Result<(), Refusal> {
        let w = &c.words;
        let mut i = 1;
        let mut branches: Vec<(&Word, &Word)> = Vec::new();
        let mut otherwise = None;
        loop {
            let Some(cond) = w.get(i) else {
                return Err(Refusal::syntax(
                    c.line,
                    "wrong # args: no expression after \"if\"",
                ));
            };
            i += 1;
            if w.get(i).and_then(Word::literal).as_deref() == Some("then") {
                i += 1;
            }
            let Some(body) = w.get(i) else {
                return Err(Refusal::syntax(
                    cond.line,
                    format!(
                        "wrong # args: no script following \"{}\" argument",
                        cond.raw
                    ),
                ));
            };
            i += 1;
            branches.push((cond, body));
            let Some(next) = w.get(i) else { break };
            match next.literal().as_deref() {
                Some("elseif") => i += 1,
                Some("else") => {
                    otherwise = Some(w.get(i + 1).ok_or_else(|| {
                        Refusal::syntax(next.line, "wrong # args: no script following \"else\"")
                    })?);
                    i += 2;
                    break;
                }
                _ => {
                    otherwise = Some(next);
                    i += 1;
                    break;
                }
            }
        }
        if let Some(extra) = w.get(i) {
            return Err(Refusal::syntax(
                extra.line,
                format!("extra words after \"else\" body: {}", extra.raw),
            ));
        }
        let (cond, body) = branches[0];
        let mut pre = Vec::new();
        let test = self.condition(cond, indent, &mut pre)?;
        out.extend(pre);
        self.if_chain(test, body, &branches[1..], otherwise, indent, c.line, out)
    }

    /// `if test { body } else if ...`, a branch whose test needs statements first nested in
    /// an `else` block.
    #[allow(clippy::too_many_arguments)]
    fn if_chain(
        &mut self,
        test: Value,
        body: &Word,
        rest: &[(&Word, &Word)],
        otherwise: Option<&Word>,
        indent: usize,
        line: usize,
        out: &mut Vec<Line>,
    ) -> Result<(), Refusal> {
        out.push(Line::new(
            indent,
            format!("if {} {{", test.head()),
            body.line,
        ));
        self.body(body, indent + 1, out)?;
        for (i, (cond, body)) in rest.iter().enumerate() {
            let mut pre = Vec::new();
            let test = self.condition(cond, indent + 1, &mut pre)?;
            if pre.is_empty() {
                out.push(Line::new(
                    indent,
                    format!("}} else if {} {{", test.head()),
                    cond.line,
                ));
                self.body(body, indent + 1, out)?;
            } else {
                out.push(Line::new(indent, "} else {", cond.line));
                out.extend(pre);
                self.if_chain(test, body, &rest[i + 1..], otherwise, indent + 1, line, out)?;
                out.push(Line::new(indent, "}", line));
                return Ok(());
            }
        }
        if let Some(body) = otherwise {
            out.push(Line::new(indent, "} else {", body.line));
            self.body(body, indent + 1, out)?;
        }
        out.push(Line::new(indent, "}", line));
        Ok(())
    }

    fn for_command(
        &mut self,
        c: &Command,
        indent: usize,
        out: &mut Vec<Line>,
    ) -> Result<(), Refusal> {
        let [start, test, next, body] = &c.words[1..] else {
            return Err(wrong_args(c.line, "for start test next command"));
        };
        let start_items = self.script_of(start, "for's start")?;
        self.items(&start_items, indent, out, false);
        let next_items = self.script_of(next, "for's next")?;
        let mut step = Vec::new();
        self.loops.push(None);
        self.items(&next_items, indent + 1, &mut step, false);
        self.loops.pop();
        let mut pre = Vec::new();
        let test = self.condition(test, indent + 1, &mut pre)?;
        self.loops.push(Some((step.clone(), indent + 1)));
        let mut lines = Vec::new();
        let r = self.body(body, indent + 1, &mut lines);
        self.loops.pop();
        r?;
        self.loop_head(test, pre, indent, c.line, out);
        out.extend(lines);
        out.extend(step);
        out.push(Line::new(indent, "}", c.line));
        Ok(())
    }

    fn foreach_command(
        &mut self,
        c: &Command,
        indent: usize,
        out: &mut Vec<Line>,
    ) -> Result<(), Refusal> {
        let [var, list, body] = &c.words[1..] else {
            return Err(Refusal::construct(
                c.line,
                "foreach over several lists",
                "loop over one list with one variable: foreach x $list {...}",
            ));
        };
        let name = var.literal().unwrap_or_default();
        if name.split_whitespace().count() != 1 {
            return Err(Refusal::construct(
                var.line,
                format!("foreach with several variables ({})", var.raw),
                "loop over one list with one variable: foreach x $list {...}",
            ));
        }
        let id = self.var_name(var, "foreach")?;
        let (code, elem) = match &list.kind {
            WordKind::Braced(text) => {
                let Some(elems) = tcl_parse::split_list(text) else {
                    return Err(Refusal::syntax(
                        list.line,
                        format!("{{{text}}} is not a list"),
                    ));
                };
                let values: Vec<Value> = elems.iter().map(|e| Value::literal(e)).collect();
                let elem = values
                    .iter()
                    .map(|v| v.ty)
                    .reduce(Ty::join)
                    .unwrap_or(Ty::Unknown);
                let codes: Vec<String> = values.into_iter().map(|v| v.code).collect();
                (format!("[{}]", codes.join(", ")), elem)
            }
            _ => {
                let mut pre = Vec::new();
                let v = self.word(list, indent, &mut pre)?;
                out.extend(pre);
                let code = if v.ty == Ty::List {
                    v.code
                } else {
                    format!("as_list({})", v.code)
                };
                (code, Ty::Unknown)
            }
        };
        // The loop's own variable, a Rhai binding of its own: known inside the loop only, of
        // the elements' type unless the body sets it to something else (then unknown, the
        // body translated again).
        let fresh = self.declared.insert(id.clone());
        let outer = self.types.get(&id).copied();
        let outer_seen = self.seen.remove(&id);
        let saved = (
            self.declared.clone(),
            self.hoisted.len(),
            self.refusals.len(),
            self.made.clone(),
            self.seen.clone(),
        );
        let mut r = Ok(());
        let mut lines = Vec::new();
        for ty in [elem, Ty::Unknown] {
            self.types.insert(id.clone(), ty);
            lines.clear();
            self.loops.push(None);
            r = self.body(body, indent + 1, &mut lines);
            self.loops.pop();
            if self.seen.get(&id).is_none_or(|t| t.join(ty) == ty) {
                break;
            }
            self.declared = saved.0.clone();
            self.hoisted.truncate(saved.1);
            self.refusals.truncate(saved.2);
            self.made = saved.3.clone();
            self.seen = saved.4.clone();
        }
        let inner_seen = self.seen.remove(&id);
        match outer {
            Some(t) => self.types.insert(id.clone(), t),
            None => self.types.remove(&id),
        };
        let merged = match (outer_seen, inner_seen) {
            (Some(a), Some(b)) => Some(a.join(b)),
            (a, b) => a.or(b),
        };
        if let Some(t) = merged {
            self.seen.insert(id.clone(), t);
        }
        if fresh {
            self.declared.remove(&id);
        }
        out.push(Line::new(indent, format!("for {id} in {code} {{"), c.line));
        out.extend(lines);
        r?;
        out.push(Line::new(indent, "}", c.line));
        Ok(())
    }

    /// A braced argument that is a script (a body, for's start and next).
    fn script_of(&self, w: &Word, what: &str) -> Result<Script, Refusal> {
        match &w.kind {
            WordKind::Braced(text) => tcl_parse::parse(text, w.line),
            // `if {$i > 5} break`: a word without substitution is a script too.
            _ if w.literal().is_some() => {
                tcl_parse::parse(&w.literal().unwrap_or_default(), w.line)
            }
            _ => Err(Refusal::construct(
                w.line,
                format!("{what} not in braces ({})", w.raw),
                "put the script in braces: {...}",
            )),
        }
    }

    fn body(&mut self, w: &Word, indent: usize, out: &mut Vec<Line>) -> Result<(), Refusal> {
        let script = self.script_of(w, "a body")?;
        self.items(&script, indent, out, false);
        Ok(())
    }

    /// `catch script ?var?`: a Rhai try; as a value, a flag set in its catch block.
    fn catch(
        &mut self,
        c: &Command,
        indent: usize,
        out: &mut Vec<Line>,
        value: bool,
    ) -> Result<Option<Value>, Refusal> {
        let args = &c.words[1..];
        if args.is_empty() || args.len() > 2 {
            return Err(Refusal::construct(
                c.line,
                if args.len() > 2 {
                    "catch with an options variable"
                } else {
                    "catch without a script"
                },
                "use catch {script} ?resultVar?",
            ));
        }
        let script = self.script_of(&args[0], "catch's script")?;
        let var = match args.get(1) {
            Some(w) => {
                let id = self.var_name(w, "catch")?;
                self.declare(&id, indent, c.line, out);
                self.note(&id, Ty::Unknown);
                Some(id)
            }
            None => None,
        };
        let flag = if value {
            let f = self.fresh("caught");
            out.push(Line::new(indent, format!("let {f} = 0;"), c.line));
            Some(f)
        } else {
            None
        };
        out.push(Line::new(indent, "try {", c.line));
        let commands: Vec<&Command> = script
            .iter()
            .filter_map(|i| match i {
                Item::Command(c) => Some(c),
                Item::Comment { .. } => None,
            })
            .collect();
        match (&var, commands.split_last()) {
            (Some(id), Some((last, _))) => {
                // All but the last as statements; the last one's value is the variable's.
                let upto = script
                    .iter()
                    .position(|i| matches!(i, Item::Command(c) if std::ptr::eq(c, *last)))
                    .unwrap_or(script.len());
                self.items(&script[..upto], indent + 1, out, false);
                let mut pre = Vec::new();
                match self.command_value(last, indent + 1, &mut pre) {
                    Ok(v) => {
                        out.extend(pre);
                        out.push(Line::new(
                            indent + 1,
                            format!("{id} = {};", v.code),
                            last.line,
                        ));
                    }
                    Err(r) => self.refusals.push(r),
                }
            }
            (Some(id), None) => out.push(Line::new(indent + 1, format!("{id} = \"\";"), c.line)),
            (None, _) => self.items(&script, indent + 1, out, false),
        }
        if flag.is_none() && var.is_none() {
            out.push(Line::new(indent, "} catch {", c.line));
        } else {
            let e = self.fresh("err");
            out.push(Line::new(indent, format!("}} catch ({e}) {{"), c.line));
            if let Some(f) = &flag {
                out.push(Line::new(indent + 1, format!("{f} = 1;"), c.line));
            }
            if let Some(id) = &var {
                out.push(Line::new(
                    indent + 1,
                    format!("{id} = error_text({e});"),
                    c.line,
                ));
            }
        }
        out.push(Line::new(indent, "}", c.line));
        Ok(flag.map(|f| Value::atom(f, Ty::Int)))
    }

    /// An `if` or `while` test: an expression, in braces or not, as a Rhai bool.
    fn condition(
        &mut self,
        w: &Word,
        indent: usize,
        pre: &mut Vec<Line>,
    ) -> Result<Value, Refusal> {
        let text = match &w.kind {
            WordKind::Braced(t) => t.clone(),
            WordKind::Quoted(_) => w.raw[1..w.raw.len().saturating_sub(1)].to_string(),
            WordKind::Bare(_) => w.raw.clone(),
        };
        let e = tcl_expr::parse(&text, w.line)?;
        Ok(self.expr(&e, w.line, indent, pre)?.truth())
    }

    /// A word's value.
    fn word(&mut self, w: &Word, indent: usize, pre: &mut Vec<Line>) -> Result<Value, Refusal> {
        match &w.kind {
            WordKind::Braced(t) => Ok(Value::literal(&fold_continuations(t))),
            WordKind::Quoted(parts) | WordKind::Bare(parts) => {
                self.parts(parts, w.line, indent, pre)
            }
        }
    }

    fn parts(
        &mut self,
        parts: &[Part],
        line: usize,
        indent: usize,
        pre: &mut Vec<Line>,
    ) -> Result<Value, Refusal> {
        match parts {
            [] => return Ok(Value::literal("")),
            [one @ (Part::Var { .. } | Part::Script { .. })] => {
                return self.part(one, line, indent, pre)
            }
            _ => {}
        }
        if let Some(text) = parts
            .iter()
            .map(|p| match p {
                Part::Text(t) => Some(t.as_str()),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()
        {
            return Ok(Value::literal(&text.concat()));
        }
        let mut pieces = Vec::new();
        for p in parts {
            match p {
                Part::Text(t) => pieces.push(Piece::Text(t.clone())),
                p => pieces.push(self.part(p, line, indent, pre)?.piece()),
            }
        }
        Ok(Value::atom(interpolate(&pieces), Ty::Str))
    }

    fn part(
        &mut self,
        p: &Part,
        line: usize,
        indent: usize,
        pre: &mut Vec<Line>,
    ) -> Result<Value, Refusal> {
        match p {
            Part::Text(t) => Ok(Value::literal(t)),
            Part::Var { name, index } => self.var(name, index.as_deref(), line, indent, pre),
            Part::Script { line, items } => self.subst(items, *line, indent, pre),
        }
    }

    fn var(
        &mut self,
        name: &str,
        index: Option<&[Part]>,
        line: usize,
        indent: usize,
        pre: &mut Vec<Line>,
    ) -> Result<Value, Refusal> {
        match index {
            Some(index) if name.trim_start_matches("::") == "env" => {
                let key = self.parts(index, line, indent, pre)?;
                Ok(Value::atom(format!("need_env({})", key.code), Ty::Str))
            }
            Some(_) => Err(Refusal::construct(
                line,
                format!("the array variable {name}(...)"),
                "use a plain variable for each value, or write that part in Rhai with a map \
                 (#{key: value})",
            )),
            None => {
                let id = ident(name);
                let ty = self.var_ty(&id);
                Ok(Value::atom(id, ty))
            }
        }
    }

    /// `[script]`: the last command's value, the others run before it.
    fn subst(
        &mut self,
        items: &Script,
        _line: usize,
        indent: usize,
        pre: &mut Vec<Line>,
    ) -> Result<Value, Refusal> {
        let commands: Vec<&Command> = items
            .iter()
            .filter_map(|i| match i {
                Item::Command(c) => Some(c),
                Item::Comment { .. } => None,
            })
            .collect();
        let Some((last, before)) = commands.split_last() else {
            return Ok(Value::literal(""));
        };
        for c in before {
            self.command(c, indent, pre)?;
        }
        self.command_value(last, indent, pre)
    }

    fn args(
        &mut self,
        words: &[Word],
        indent: usize,
        pre: &mut Vec<Line>,
    ) -> Result<Vec<Value>, Refusal> {
        words.iter().map(|w| self.word(w, indent, pre)).collect()
    }

    fn call(
        &mut self,
        f: &str,
        words: &[Word],
        ty: Ty,
        indent: usize,
        pre: &mut Vec<Line>,
    ) -> Result<Value, Refusal> {
        let args = self.args(words, indent, pre)?;
        let codes: Vec<String> = args.into_iter().map(|v| v.code).collect();
        Ok(Value::atom(format!("{f}({})", codes.join(", ")), ty))
    }

    /// A command as a value: `[vurun]`, `[expr {...}]`, `[string tolower $x]`; a command that
    /// has none (puts, incr) runs before and gives its Tcl result.
    fn command_value(
        &mut self,
        c: &Command,
        indent: usize,
        pre: &mut Vec<Line>,
    ) -> Result<Value, Refusal> {
        let line = c.line;
        let Some(name) = c.words[0].literal() else {
            return Err(Refusal::construct(
                line,
                format!("a command named by a substitution ({})", c.words[0].raw),
                "name the command as written",
            ));
        };
        let name = name.trim_start_matches("::");
        let args = &c.words[1..];
        if (commands::find(name).is_some() || HELPERS.contains(&name)) && name != "runtimer" {
            let v = self.call(name, args, command_type(name), indent, pre)?;
            return Ok(match super::job_label(name) {
                Some(_) => Value::atom(super::job_value(name, v.code), Ty::Str),
                None => v,
            });
        }
        match name {
            "expr" => {
                if args.is_empty() {
                    return Err(wrong_args(line, "expr arg ?arg ...?"));
                }
                let text = match args {
                    [Word {
                        kind: WordKind::Braced(t),
                        ..
                    }] => t.clone(),
                    _ => args
                        .iter()
                        .map(|w| match &w.kind {
                            WordKind::Braced(t) => t.clone(),
                            WordKind::Quoted(_) => {
                                w.raw[1..w.raw.len().saturating_sub(1)].to_string()
                            }
                            WordKind::Bare(_) => w.raw.clone(),
                        })
                        .collect::<Vec<_>>()
                        .join(" "),
                };
                let e = tcl_expr::parse(&text, args[0].line)?;
                self.expr(&e, args[0].line, indent, pre)
            }
            "set" if args.len() == 1 => {
                if let Some(var) = args[0].literal().as_deref().and_then(env_name) {
                    return Ok(Value::atom(
                        format!("need_env({})", string_literal(var)),
                        Ty::Str,
                    ));
                }
                let id = self.var_name(&args[0], "set")?;
                let ty = self.var_ty(&id);
                Ok(Value::atom(id, ty))
            }
            "set" | "incr" | "append" | "lappend" if !args.is_empty() => {
                self.command(c, indent, pre)?;
                if let Some(var) = args[0].literal().as_deref().and_then(env_name) {
                    return Ok(Value::atom(
                        format!("need_env({})", string_literal(var)),
                        Ty::Str,
                    ));
                }
                let id = self.var_name(&args[0], name)?;
                let ty = self.var_ty(&id);
                Ok(Value::atom(id, ty))
            }
            "catch" => {
                let v = self.catch(c, indent, pre, true)?;
                Ok(v.unwrap_or_else(|| Value::atom("0", Ty::Int)))
            }
            "list" => {
                let args = self.args(args, indent, pre)?;
                let codes: Vec<String> = args.into_iter().map(|v| v.code).collect();
                Ok(Value::atom(format!("[{}]", codes.join(", ")), Ty::List))
            }
            "llength" => match args {
                [l] => {
                    let v = self.word(l, indent, pre)?;
                    let list = if v.ty == Ty::List {
                        v.receiver()
                    } else {
                        format!("as_list({})", v.code)
                    };
                    Ok(Value::atom(format!("{list}.len()"), Ty::Int))
                }
                _ => Err(wrong_args(line, "llength list")),
            },
            "lindex" => match args {
                [l, i] => {
                    let l = self.word(l, indent, pre)?;
                    let i = self.word(i, indent, pre)?;
                    Ok(Value::atom(
                        format!("lindex({}, {})", l.code, i.code),
                        Ty::Unknown,
                    ))
                }
                _ => Err(Refusal::construct(
                    line,
                    "lindex with other than one index",
                    "use lindex $list INDEX",
                )),
            },
            "string" => self.string_command(c, indent, pre),
            "info" => match args {
                [sub, w] if sub.literal().as_deref() == Some("exists") => {
                    let Some(name) = w.literal() else {
                        return Err(Refusal::construct(
                            line,
                            format!("info exists with a name made at run time ({})", w.raw),
                            "name the variable as written",
                        ));
                    };
                    if let Some(var) = env_name(&name) {
                        let env = format!("env({})", string_literal(var));
                        return Ok(Value::comparison(&env, "!=", "()", EQ));
                    }
                    let id = self.var_name(w, "info exists")?;
                    if self.declared.contains(&id) || self.known.contains(&id) {
                        // Set somewhere (maybe later in a loop): declared, () until then.
                        self.declare(&id, indent, line, pre);
                        Ok(Value::comparison(&id, "!=", "()", EQ))
                    } else {
                        Ok(Value::atom("false", Ty::Bool))
                    }
                }
                _ => Err(Refusal::construct(
                    line,
                    format!(
                        "info {}",
                        args.first().map(|w| w.raw.as_str()).unwrap_or_default()
                    ),
                    "info exists NAME is the one info hammer translates",
                )),
            },
            "open" => match args {
                [_] | [_, _] => self.call("open", args, Ty::Unknown, indent, pre),
                _ => Err(Refusal::construct(
                    line,
                    "open with permissions",
                    "use open NAME ?r|w|a|r+|w+|a+?",
                )),
            },
            "gets" => match args {
                [ch] => self.call("gets", std::slice::from_ref(ch), Ty::Str, indent, pre),
                [ch, var] => {
                    let ch = self.word(ch, indent, pre)?;
                    let id = self.var_name(var, "gets")?;
                    self.declare(&id, indent, line, pre);
                    self.note(&id, Ty::Str);
                    Ok(Value::atom(format!("{id}.gets({})", ch.code), Ty::Int))
                }
                _ => Err(wrong_args(line, "gets channelId ?varName?")),
            },
            "read" => match args {
                [ch] => self.call("read", std::slice::from_ref(ch), Ty::Str, indent, pre),
                _ => Err(Refusal::construct(
                    line,
                    format!(
                        "read {}",
                        args.iter()
                            .map(|w| w.raw.as_str())
                            .collect::<Vec<_>>()
                            .join(" ")
                    ),
                    "use read $fd (the rest of the file); trimmed_right removes the last newline",
                )),
            },
            "eof" => match args {
                [ch] => self.call("eof", std::slice::from_ref(ch), Ty::Bool, indent, pre),
                _ => Err(wrong_args(line, "eof channelId")),
            },
            "pwd" if args.is_empty() => Ok(Value::atom("pwd()", Ty::Str)),
            "cd" if args.len() == 1 => self.call("cd", args, Ty::Str, indent, pre),
            "clock" => match args.first().and_then(Word::literal).as_deref() {
                Some("seconds") if args.len() == 1 => Ok(Value::atom("clock_seconds()", Ty::Int)),
                Some("milliseconds") if args.len() == 1 => {
                    Ok(Value::atom("clock_milliseconds()", Ty::Int))
                }
                Some("clicks")
                    if args.get(1).and_then(Word::literal).as_deref() == Some("-milliseconds") =>
                {
                    Ok(Value::atom("clock_milliseconds()", Ty::Int))
                }
                _ => Err(Refusal::construct(
                    line,
                    format!(
                        "clock {}",
                        args.first().map(|w| w.raw.as_str()).unwrap_or_default()
                    ),
                    "clock seconds and clock milliseconds are translated; print times with \
                     Rhai's timestamp() in a .rhai script",
                )),
            },
            "file" => {
                let sub = args.first().and_then(Word::literal).unwrap_or_default();
                let rest = if args.is_empty() { args } else { &args[1..] };
                let (f, ty) = match sub.as_str() {
                    "exists" => ("file_exists", Ty::Bool),
                    "isfile" => ("file_isfile", Ty::Bool),
                    "isdirectory" => ("file_isdirectory", Ty::Bool),
                    "dirname" => ("file_dirname", Ty::Str),
                    "tail" => ("file_tail", Ty::Str),
                    "normalize" => ("file_normalize", Ty::Str),
                    "join" => {
                        let parts = self.args(rest, indent, pre)?;
                        let codes: Vec<String> = parts.into_iter().map(|v| v.code).collect();
                        return Ok(Value::atom(
                            format!("file_join([{}])", codes.join(", ")),
                            Ty::Str,
                        ));
                    }
                    "mkdir" | "delete" => {
                        self.command(c, indent, pre)?;
                        return Ok(Value::literal(""));
                    }
                    _ => {
                        return Err(Refusal::construct(
                            line,
                            format!("file {sub}"),
                            "file mkdir, delete, exists, isfile, isdirectory, join, dirname, \
                             tail and normalize are translated",
                        ))
                    }
                };
                if rest.len() != 1 {
                    return Err(wrong_args(line, &format!("file {sub} name")));
                }
                self.call(f, rest, ty, indent, pre)
            }
            // Commands that are statements: run first, their value an empty string.
            "puts" | "if" | "while" | "for" | "foreach" | "break" | "continue" | "exit"
            | "return" | "error" | "after" | "runtimer" | "update" | "waittocomplete" | "flush"
            | "global" | "close" | "unset" | "proc" | "source" | "package" => {
                self.command(c, indent, pre)?;
                Ok(Value::literal(""))
            }
            _ => Err(unknown_command(name, line)),
        }
    }

    fn string_command(
        &mut self,
        c: &Command,
        indent: usize,
        pre: &mut Vec<Line>,
    ) -> Result<Value, Refusal> {
        let line = c.line;
        let args = &c.words[1..];
        let sub = args.first().and_then(Word::literal).unwrap_or_default();
        let refuse = |what: String| {
            Refusal::construct(
                line,
                what,
                format!("the {STRING_SUBCOMMANDS} are translated"),
            )
        };
        let rest = if args.is_empty() { args } else { &args[1..] };
        match (sub.as_str(), rest) {
            ("is", _) => {
                let class = rest.first().and_then(Word::literal).unwrap_or_default();
                if !STRING_CLASSES.contains(&class.as_str()) {
                    return Err(Refusal::construct(
                        line,
                        format!("string is {class}"),
                        format!("string is takes {}", STRING_CLASSES.join(", ")),
                    ));
                }
                let (strict, value) = match &rest[1..] {
                    [v] => (false, v),
                    [o, v] if o.literal().as_deref() == Some("-strict") => (true, v),
                    _ => return Err(refuse(format!("string is {class} with options"))),
                };
                let v = self.word(value, indent, pre)?;
                Ok(Value::atom(
                    format!(
                        "string_is({}, {}, {strict})",
                        string_literal(&class),
                        v.code
                    ),
                    Ty::Bool,
                ))
            }
            ("tolower" | "toupper", [w]) => {
                let v = self.word(w, indent, pre)?.text();
                let m = if sub == "tolower" {
                    "to_lower"
                } else {
                    "to_upper"
                };
                Ok(Value::atom(format!("{}.{m}()", v.receiver()), Ty::Str))
            }
            ("trim" | "trimleft" | "trimright", [_] | [_, _]) => {
                let f = match sub.as_str() {
                    "trim" => "trimmed",
                    "trimleft" => "trimmed_left",
                    _ => "trimmed_right",
                };
                self.call(f, rest, Ty::Str, indent, pre)
            }
            ("length", [w]) => {
                let v = self.word(w, indent, pre)?.text();
                Ok(Value::atom(format!("{}.len()", v.receiver()), Ty::Int))
            }
            ("equal", _) => {
                let (nocase, pair) = match rest {
                    [a, b] => (false, [a, b]),
                    [o, a, b] if o.literal().as_deref() == Some("-nocase") => (true, [a, b]),
                    _ => return Err(refuse("string equal with options".into())),
                };
                let a = self.word(pair[0], indent, pre)?.text();
                let b = self.word(pair[1], indent, pre)?.text();
                let (a, b) = if nocase {
                    (
                        format!("{}.to_lower()", a.receiver()),
                        format!("{}.to_lower()", b.receiver()),
                    )
                } else {
                    (a.at(EQ + 1), b.at(EQ + 1))
                };
                Ok(Value::new(format!("{a} == {b}"), Ty::Bool, EQ))
            }
            ("match", [_, _]) => self.call("glob_match", rest, Ty::Bool, indent, pre),
            ("first", [needle, hay]) => {
                let n = self.word(needle, indent, pre)?.text();
                let h = self.word(hay, indent, pre)?.text();
                Ok(Value::atom(
                    format!("{}.index_of({})", h.receiver(), n.code),
                    Ty::Int,
                ))
            }
            _ => Err(refuse(format!("string {sub}"))),
        }
    }

    /// An `expr` tree as Rhai.
    fn expr(
        &mut self,
        e: &Expr,
        line: usize,
        indent: usize,
        pre: &mut Vec<Line>,
    ) -> Result<Value, Refusal> {
        Ok(match e {
            Expr::Int(n) if *n < 0 => Value::new(n.to_string(), Ty::Int, UNARY),
            Expr::Int(n) => Value::atom(n.to_string(), Ty::Int),
            Expr::Float(f) => {
                let code = if f.fract() == 0.0 && f.abs() < 1e15 {
                    format!("{f:.1}")
                } else {
                    format!("{f}")
                };
                let prec = if *f < 0.0 { UNARY } else { ATOM };
                Value::new(code, Ty::Float, prec)
            }
            Expr::Bool(b) => Value::atom(b.to_string(), Ty::Bool),
            Expr::Text(t) => Value::literal(&fold_continuations(t)),
            Expr::Quoted(parts) => self.parts(parts, line, indent, pre)?,
            Expr::Var { name, index } => self.var(name, index.as_deref(), line, indent, pre)?,
            Expr::Script { line, items } => self.subst(items, *line, indent, pre)?,
            Expr::Unary(op, x) => {
                let v = self.expr(x, line, indent, pre)?;
                match *op {
                    "!" => v.not(),
                    "-" => {
                        let v = v.num();
                        let inner = if v.code.starts_with('-') {
                            format!("({})", v.code)
                        } else {
                            v.at(UNARY)
                        };
                        Value::new(format!("-{inner}"), v.ty, UNARY)
                    }
                    _ => {
                        let v = v.num();
                        Value::new(format!("-1 - {}", v.at(ADD + 1)), Ty::Int, ADD)
                    }
                }
            }
            Expr::Binary(op, a, b) => {
                let a = self.expr(a, line, indent, pre)?;
                let b = self.expr(b, line, indent, pre)?;
                binary(op, a, b, line)?
            }
            Expr::Ternary(c, a, b) => {
                let c = self.expr(c, line, indent, pre)?.truth();
                let a = self.expr(a, line, indent, pre)?;
                let b = self.expr(b, line, indent, pre)?;
                Value::new(
                    format!("if {} {{ {} }} else {{ {} }}", c.code, a.code, b.code),
                    a.ty.join(b.ty),
                    LOW,
                )
            }
            Expr::Call(f, args) => {
                let mut vals = Vec::new();
                for a in args {
                    vals.push(self.expr(a, line, indent, pre)?);
                }
                function(f, vals, line)?
            }
        })
    }
}

/// `NAME` of `::env(NAME)` or `env(NAME)`.
fn env_name(name: &str) -> Option<&str> {
    name.trim_start_matches("::")
        .strip_prefix("env(")?
        .strip_suffix(')')
}

fn unknown_command(name: &str, line: usize) -> Refusal {
    if let Some(instead) = tcl_refusal(name) {
        return Refusal::construct(line, format!("Tcl's {name} command"), instead);
    }
    let mut message = format!("invalid command name \"{name}\"");
    let known = commands::names().into_iter().chain(HELPERS.iter().copied());
    if let Some(near) = crate::config::nearest(name, known) {
        message.push_str(&format!("; did you mean {near}?"));
    }
    message.push_str(
        " (hammer's help lists its commands; docs/coming-from-hammerdb.md the Tcl it translates)",
    );
    Refusal::syntax(line, message)
}

fn binary(op: &str, a: Value, b: Value, line: usize) -> Result<Value, Refusal> {
    let arith = |prec: u8, a: Value, b: Value| {
        let (a, b) = (a.num(), b.num());
        let ty = match (a.ty, b.ty) {
            (Ty::Int, Ty::Int) => Ty::Int,
            (Ty::Float, _) | (_, Ty::Float) => Ty::Float,
            _ => Ty::Num,
        };
        Value::new(format!("{} {op} {}", a.at(prec), b.at(prec + 1)), ty, prec)
    };
    Ok(match op {
        "+" | "-" => arith(ADD, a, b),
        "*" | "/" | "%" => arith(MUL, a, b),
        "**" => {
            let (a, b) = (a.num(), b.num());
            let ty = if a.ty == Ty::Int && b.ty == Ty::Int {
                Ty::Int
            } else {
                a.ty.join(b.ty)
            };
            Value::new(format!("{} ** {}", a.at(ATOM), b.at(ATOM)), ty, POW)
        }
        "<<" | ">>" | "&" | "|" | "^" => {
            let (a, b) = (a.num(), b.num());
            Value::atom(format!("({} {op} {})", a.at(ATOM), b.at(ATOM)), Ty::Int)
        }
        "<" | ">" | "<=" | ">=" => {
            if a.ty.numeric() || b.ty.numeric() {
                let (a, b) = (a.num(), b.num());
                Value::comparison(&a.at(CMP + 1), op, &b.at(CMP + 1), CMP)
            } else {
                Value::new(
                    format!("compare({}, {}) {op} 0", a.code, b.code),
                    Ty::Bool,
                    CMP,
                )
            }
        }
        "==" | "!=" => {
            let text_lit = |v: &Value| v.lit.as_deref().is_some_and(|t| t.parse::<f64>().is_err());
            let cmp = |a: Value, b: Value| Value::comparison(&a.at(EQ + 1), op, &b.at(EQ + 1), EQ);
            if a.ty.numeric() && b.ty.numeric() {
                cmp(a, b)
            } else if text_lit(&a) || text_lit(&b) {
                cmp(a.text(), b.text())
            } else if a.ty.numeric() || b.ty.numeric() {
                cmp(a.num(), b.num())
            } else if a.ty == Ty::Str && b.ty == Ty::Str {
                cmp(a, b)
            } else {
                let call = format!("equal({}, {})", a.code, b.code);
                if op == "==" {
                    Value::atom(call, Ty::Bool)
                } else {
                    Value::new(format!("!{call}"), Ty::Bool, UNARY)
                }
            }
        }
        "eq" | "ne" | "lt" | "gt" | "le" | "ge" => {
            let rop = match op {
                "eq" => "==",
                "ne" => "!=",
                "lt" => "<",
                "gt" => ">",
                "le" => "<=",
                _ => ">=",
            };
            let (a, b) = (a.text(), b.text());
            let prec = if matches!(rop, "==" | "!=") { EQ } else { CMP };
            Value::comparison(&a.at(prec + 1), rop, &b.at(prec + 1), prec)
        }
        "in" | "ni" => {
            let found = match b.lit.as_deref().and_then(tcl_parse::split_list) {
                Some(elems) => {
                    let codes: Vec<String> = elems.iter().map(|e| string_literal(e)).collect();
                    format!("({} in [{}])", a.text().code, codes.join(", "))
                }
                None => format!("in_list({}, {})", a.code, b.code),
            };
            if op == "in" {
                Value::atom(found, Ty::Bool)
            } else {
                Value::new(format!("!{found}"), Ty::Bool, UNARY)
            }
        }
        "&&" => {
            let (a, b) = (a.truth(), b.truth());
            Value::new(format!("{} && {}", a.at(AND), b.at(AND + 1)), Ty::Bool, AND)
        }
        "||" => {
            let (a, b) = (a.truth(), b.truth());
            Value::new(format!("{} || {}", a.at(OR), b.at(OR + 1)), Ty::Bool, OR)
        }
        _ => {
            return Err(Refusal::syntax(
                line,
                format!("operator {op} is not translated"),
            ))
        }
    })
}

fn function(f: &str, mut args: Vec<Value>, line: usize) -> Result<Value, Refusal> {
    let want = match f {
        "pow" => 2,
        "min" | "max" => args.len().max(1),
        _ => 1,
    };
    if args.len() != want {
        return Err(Refusal::syntax(
            line,
            format!(
                "{f}() takes {want} argument{}",
                if want == 1 { "" } else { "s" }
            ),
        ));
    }
    let x = args.remove(0);
    Ok(match f {
        "int" | "wide" | "entier" => {
            let x = x.num();
            if x.ty == Ty::Int {
                x
            } else {
                Value::atom(format!("{}.to_int()", x.receiver()), Ty::Int)
            }
        }
        "double" => Value::atom(format!("{}.to_float()", x.num().receiver()), Ty::Float),
        "round" => {
            let x = x.num();
            if x.ty == Ty::Int {
                x
            } else {
                Value::atom(
                    format!("{}.to_float().round().to_int()", x.receiver()),
                    Ty::Int,
                )
            }
        }
        "abs" => {
            let x = x.num();
            let ty = x.ty;
            Value::atom(format!("abs({})", x.code), ty)
        }
        "ceil" => Value::atom(
            format!("{}.to_float().ceiling()", x.num().receiver()),
            Ty::Float,
        ),
        "floor" => Value::atom(
            format!("{}.to_float().floor()", x.num().receiver()),
            Ty::Float,
        ),
        "sqrt" => Value::atom(
            format!("{}.to_float().sqrt()", x.num().receiver()),
            Ty::Float,
        ),
        "pow" => {
            let y = args.remove(0).num();
            Value::new(
                format!(
                    "{}.to_float() ** {}.to_float()",
                    x.num().receiver(),
                    y.receiver()
                ),
                Ty::Float,
                POW,
            )
        }
        "min" | "max" => {
            let mut acc = x.num();
            for y in args {
                let y = y.num();
                let ty = acc.ty.join(y.ty);
                acc = Value::atom(format!("{f}({}, {})", acc.code, y.code), ty);
            }
            acc
        }
        _ => x.truth(),
    })
}

#[cfg(test)]
mod tests;
