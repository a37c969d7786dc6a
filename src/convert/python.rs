//! HammerDB's Python front end (`hammerdbcli py auto FILE.py`) to Rhai: its commands as the
//! same functions, `print`, assignments, `if`/`elif`/`else`, `while`, `for`, `with open`,
//! `try`/`except`, and what its scripts take from `os`, `sys` and `time`; the rest refused by
//! line with what to use instead.

use std::collections::HashSet;

use super::emit::{Converted, Line};
use super::py_expr::{ExprParser, FPart, PyExpr, Tok};
use super::{ident, interpolate, string_literal, Piece, Refusal, HELPERS};
use crate::commands;

/// Translates a Python script to Rhai.
pub fn convert(source: &str) -> Result<Converted, Vec<Refusal>> {
    let toks = super::py_expr::tokens(source).map_err(|e| vec![e])?;
    let mut parser = Parser {
        p: ExprParser::new(&toks),
        refusals: Vec::new(),
        defs: HashSet::new(),
        depth: 0,
        in_def: false,
    };
    let stmts = parser.block_until_end();
    let mut refusals = parser.refusals;
    let mut t = Translator {
        defs: parser.defs,
        ..Translator::default()
    };
    let mut out = Vec::new();
    t.stmts(&stmts, 0, &mut out, true);
    refusals.append(&mut t.refusals);
    if !refusals.is_empty() {
        refusals.sort_by_key(|r| r.line);
        refusals.dedup();
        return Err(refusals);
    }
    Ok(Converted::from_lines(out))
}

#[derive(Debug, Clone)]
enum Stmt {
    Comment(usize, String),
    Expr(usize, PyExpr),
    Assign(usize, PyExpr, PyExpr),
    AugAssign(usize, PyExpr, &'static str, PyExpr),
    If(usize, Vec<(PyExpr, Vec<Stmt>)>, Option<Vec<Stmt>>),
    While(usize, PyExpr, Vec<Stmt>),
    For(usize, String, PyExpr, Vec<Stmt>),
    With(usize, PyExpr, Option<String>, Vec<Stmt>),
    Try(usize, Vec<Stmt>, Option<String>, Vec<Stmt>),
    Pass,
    Break(usize),
    Continue(usize),
    /// `import os`: the modules.
    Import(usize, Vec<String>),
    /// `from time import sleep`.
    FromImport(usize, String, Vec<String>),
    Global(usize, Vec<String>),
    Assert(usize, PyExpr, Option<PyExpr>),
    Raise(usize, PyExpr),
    /// `def name(a, b):` at the top of the script: a Rhai `fn`.
    Def(usize, String, Vec<String>, Vec<Stmt>),
    Return(usize, Option<PyExpr>),
}

/// The modules whose functions hammer translates.
const MODULES: &[&str] = &["os", "sys", "time", "os.path", "tclpy"];

struct Parser<'a> {
    p: ExprParser<'a>,
    refusals: Vec<Refusal>,
    /// Functions the script defines.
    defs: HashSet<String>,
    /// How many blocks deep the parser is (a def must be at depth 0).
    depth: usize,
    /// Inside a def's body (return is allowed).
    in_def: bool,
}

impl Parser<'_> {
    fn at_end(&self) -> bool {
        self.p.pos >= self.p.toks.len()
    }

    fn block_until_end(&mut self) -> Vec<Stmt> {
        let mut out = Vec::new();
        while !self.at_end() {
            self.statement_into(&mut out);
        }
        out
    }

    /// One line's statements (or a compound statement) into `out`; a refusal is kept and
    /// the line (with its block) skipped.
    fn statement_into(&mut self, out: &mut Vec<Stmt>) {
        match self.statement() {
            Ok(mut s) => out.append(&mut s),
            Err(r) => {
                self.refusals.push(r);
                self.skip_line();
            }
        }
    }

    fn skip_line(&mut self) {
        while let Some(t) = self.p.peek() {
            let t = t.clone();
            self.p.pos += 1;
            if t == Tok::Newline {
                break;
            }
        }
        if self.p.peek() == Some(&Tok::Indent) {
            let mut depth = 0;
            while let Some(t) = self.p.peek() {
                match t {
                    Tok::Indent => depth += 1,
                    Tok::Dedent => depth -= 1,
                    _ => {}
                }
                self.p.pos += 1;
                if depth == 0 {
                    break;
                }
            }
        }
    }

    fn newline(&mut self) -> Result<(), Refusal> {
        match self.p.peek() {
            None => Ok(()),
            Some(Tok::Newline) => {
                self.p.pos += 1;
                Ok(())
            }
            _ => Err(Refusal::syntax(
                self.p.line(),
                format!(
                    "expected the end of the line but found {}",
                    self.p.describe()
                ),
            )),
        }
    }

    /// The block after `:`: an indented block, or simple statements on the same line.
    fn suite(&mut self) -> Result<Vec<Stmt>, Refusal> {
        self.p.expect_op(":")?;
        if self.p.peek() != Some(&Tok::Newline) {
            return self.simple_line();
        }
        self.p.pos += 1;
        let mut comments = Vec::new();
        while let Some(Tok::Comment(c)) = self.p.peek().cloned() {
            comments.push(Stmt::Comment(self.p.line(), c));
            self.p.pos += 1;
        }
        if self.p.peek() != Some(&Tok::Indent) {
            return Err(Refusal::syntax(self.p.line(), "expected an indented block"));
        }
        self.p.pos += 1;
        let mut body = comments;
        self.depth += 1;
        while !self.at_end() && self.p.peek() != Some(&Tok::Dedent) {
            self.statement_into(&mut body);
        }
        self.depth -= 1;
        if self.p.peek() == Some(&Tok::Dedent) {
            self.p.pos += 1;
        }
        Ok(body)
    }

    fn simple_line(&mut self) -> Result<Vec<Stmt>, Refusal> {
        let mut out = vec![self.simple()?];
        while self.p.eat_op(";") {
            if matches!(self.p.peek(), None | Some(Tok::Newline)) {
                break;
            }
            out.push(self.simple()?);
        }
        self.newline()?;
        Ok(out)
    }

    fn name(&mut self) -> Result<String, Refusal> {
        match self.p.peek().cloned() {
            Some(Tok::Name(n)) => {
                self.p.pos += 1;
                Ok(n)
            }
            _ => Err(Refusal::syntax(
                self.p.line(),
                format!("expected a name but found {}", self.p.describe()),
            )),
        }
    }

    fn dotted(&mut self) -> Result<String, Refusal> {
        let mut n = self.name()?;
        while self.p.eat_op(".") {
            n.push('.');
            n.push_str(&self.name()?);
        }
        Ok(n)
    }

    fn statement(&mut self) -> Result<Vec<Stmt>, Refusal> {
        let line = self.p.line();
        let keyword = match self.p.peek() {
            Some(Tok::Comment(c)) => {
                let c = c.clone();
                self.p.pos += 1;
                return Ok(vec![Stmt::Comment(line, c)]);
            }
            Some(Tok::Newline) => {
                self.p.pos += 1;
                return Ok(Vec::new());
            }
            Some(Tok::Indent) => return Err(Refusal::syntax(line, "unexpected indent")),
            Some(Tok::Dedent) => {
                self.p.pos += 1;
                return Ok(Vec::new());
            }
            Some(Tok::Name(n)) => n.clone(),
            _ => String::new(),
        };
        let refuse = |what: &str, instead: &str| Err(Refusal::construct(line, what, instead));
        match keyword.as_str() {
            "if" => {
                self.p.pos += 1;
                let mut branches = vec![(self.p.expr()?, self.suite()?)];
                let mut otherwise = None;
                loop {
                    if self.p.is_name("elif") {
                        self.p.pos += 1;
                        branches.push((self.p.expr()?, self.suite()?));
                    } else if self.p.is_name("else") {
                        self.p.pos += 1;
                        otherwise = Some(self.suite()?);
                        break;
                    } else {
                        break;
                    }
                }
                Ok(vec![Stmt::If(line, branches, otherwise)])
            }
            "while" => {
                self.p.pos += 1;
                let test = self.p.expr()?;
                let body = self.suite()?;
                if self.p.is_name("else") {
                    return refuse(
                        "while ... else",
                        "put the else part after the loop, behind a flag the loop sets",
                    );
                }
                Ok(vec![Stmt::While(line, test, body)])
            }
            "for" => {
                self.p.pos += 1;
                let var = self.name()?;
                if self.p.is_op(",") {
                    return refuse(
                        "for with several variables",
                        "loop with one variable and take the parts inside",
                    );
                }
                if !self.p.is_name("in") {
                    return Err(Refusal::syntax(
                        line,
                        "expected \"in\" after the for variable",
                    ));
                }
                self.p.pos += 1;
                let iter = self.p.expr()?;
                let body = self.suite()?;
                if self.p.is_name("else") {
                    return refuse(
                        "for ... else",
                        "put the else part after the loop, behind a flag the loop sets",
                    );
                }
                Ok(vec![Stmt::For(line, var, iter, body)])
            }
            "with" => {
                self.p.pos += 1;
                let e = self.p.expr()?;
                let var = if self.p.is_name("as") {
                    self.p.pos += 1;
                    Some(self.name()?)
                } else {
                    None
                };
                if self.p.is_op(",") {
                    return refuse("with of several things", "nest one with in another");
                }
                let body = self.suite()?;
                Ok(vec![Stmt::With(line, e, var, body)])
            }
            "try" => {
                self.p.pos += 1;
                let body = self.suite()?;
                if !self.p.is_name("except") {
                    return refuse(
                        "try without except (finally)",
                        "catch the error with except and run the clean-up after the try",
                    );
                }
                self.p.pos += 1;
                let mut var = None;
                if !self.p.is_op(":") {
                    let _kind = self.p.expr()?;
                    if self.p.is_name("as") {
                        self.p.pos += 1;
                        var = Some(self.name()?);
                    }
                }
                let handler = self.suite()?;
                if self.p.is_name("except") {
                    return refuse(
                        "try with several except clauses",
                        "catch every error with one except and tell them apart inside",
                    );
                }
                if self.p.is_name("else") || self.p.is_name("finally") {
                    return refuse("try ... else/finally", "put that code after the try");
                }
                Ok(vec![Stmt::Try(line, body, var, handler)])
            }
            "def" => self.def(line),
            "async" => refuse(
                "async def (a coroutine)",
                "define a plain function with def, or write that part in Rhai",
            ),
            "class" => refuse(
                "class",
                "write that part in Rhai, with maps (#{key: value}) for records",
            ),
            "match" if matches!(self.p.toks.get(self.p.pos + 1), Some((Tok::Name(_), _))) => {
                refuse("match", "use if/elif/else")
            }
            _ => self.simple_line(),
        }
    }

    /// `def name(a, b: str) -> None:` and its body.
    fn def(&mut self, line: usize) -> Result<Vec<Stmt>, Refusal> {
        self.p.pos += 1;
        let name = self.name()?;
        let refuse = |what: String, instead: &str| Err(Refusal::construct(line, what, instead));
        if self.depth > 0 || self.in_def {
            return refuse(
                format!("def {name} inside a block"),
                "define the function at the top level of the script (Rhai's fn lives there)",
            );
        }
        if commands::find(&name).is_some() || HELPERS.contains(&name.as_str()) {
            return refuse(
                format!("def {name}, which would hide hammer's command {name}"),
                "give the function another name",
            );
        }
        self.p.expect_op("(")?;
        let mut params = Vec::new();
        while !self.p.eat_op(")") {
            if self.p.is_op("*") || self.p.is_op("**") || self.p.is_op("/") {
                return refuse(
                    format!("def {name} with *args, **kwargs or a / marker"),
                    "give the function named parameters only",
                );
            }
            params.push(self.name()?);
            if self.p.eat_op(":") {
                let _annotation = self.p.expr()?;
            }
            if self.p.is_op("=") {
                return refuse(
                    format!("def {name} with a default value"),
                    "give every parameter at each call; Rhai has no default arguments",
                );
            }
            if !self.p.eat_op(",") && !self.p.is_op(")") {
                return Err(Refusal::syntax(
                    line,
                    format!("expected , or ) but found {}", self.p.describe()),
                ));
            }
        }
        if self.p.eat_op("->") {
            let _annotation = self.p.expr()?;
        }
        self.defs.insert(name.clone());
        self.in_def = true;
        let body = self.suite();
        self.in_def = false;
        Ok(vec![Stmt::Def(line, name, params, body?)])
    }

    fn simple(&mut self) -> Result<Stmt, Refusal> {
        let line = self.p.line();
        let keyword = match self.p.peek() {
            Some(Tok::Name(n)) => n.clone(),
            _ => String::new(),
        };
        let refuse = |what: &str, instead: &str| Err(Refusal::construct(line, what, instead));
        match keyword.as_str() {
            "pass" => {
                self.p.pos += 1;
                return Ok(Stmt::Pass);
            }
            "break" => {
                self.p.pos += 1;
                return Ok(Stmt::Break(line));
            }
            "continue" => {
                self.p.pos += 1;
                return Ok(Stmt::Continue(line));
            }
            "import" => {
                self.p.pos += 1;
                let mut names = vec![self.dotted()?];
                if self.p.is_name("as") {
                    return refuse("import ... as", "import the module by its name");
                }
                while self.p.eat_op(",") {
                    names.push(self.dotted()?);
                }
                return Ok(Stmt::Import(line, names));
            }
            "from" => {
                self.p.pos += 1;
                let module = self.dotted()?;
                if !self.p.is_name("import") {
                    return Err(Refusal::syntax(line, "expected \"import\""));
                }
                self.p.pos += 1;
                let mut names = vec![self.name()?];
                while self.p.eat_op(",") {
                    names.push(self.name()?);
                }
                return Ok(Stmt::FromImport(line, module, names));
            }
            "global" | "nonlocal" => {
                self.p.pos += 1;
                let mut names = vec![self.name()?];
                while self.p.eat_op(",") {
                    names.push(self.name()?);
                }
                return Ok(Stmt::Global(line, names));
            }
            "assert" => {
                self.p.pos += 1;
                let test = self.p.expr()?;
                let msg = if self.p.eat_op(",") {
                    Some(self.p.expr()?)
                } else {
                    None
                };
                return Ok(Stmt::Assert(line, test, msg));
            }
            "raise" => {
                self.p.pos += 1;
                if matches!(self.p.peek(), None | Some(Tok::Newline)) {
                    return refuse(
                        "raise without an exception",
                        "raise the error with its message: raise Exception(\"...\")",
                    );
                }
                return Ok(Stmt::Raise(line, self.p.expr()?));
            }
            "return" if self.in_def => {
                self.p.pos += 1;
                if matches!(self.p.peek(), None | Some(Tok::Newline)) || self.p.is_op(";") {
                    return Ok(Stmt::Return(line, None));
                }
                return Ok(Stmt::Return(line, Some(self.p.expr()?)));
            }
            "return" => {
                return refuse(
                    "return outside a function",
                    "end the script with sys.exit()",
                )
            }
            "del" => return refuse("del", "set the variable to None"),
            "yield" | "await" => return refuse(&keyword, "write that part in Rhai"),
            _ => {}
        }
        let target = self.p.expr()?;
        if self.p.is_op(",") {
            return refuse("a tuple (a, b = ...)", "assign each variable by itself");
        }
        if self.p.eat_op("=") {
            let value = self.p.expr()?;
            if self.p.is_op("=") {
                return refuse(
                    "a chained assignment (a = b = ...)",
                    "assign each variable by itself",
                );
            }
            if self.p.is_op(",") {
                return refuse("a tuple (a, b = ...)", "assign each variable by itself");
            }
            return Ok(Stmt::Assign(line, target, value));
        }
        for (aug, op) in [
            ("+=", "+"),
            ("-=", "-"),
            ("*=", "*"),
            ("/=", "/"),
            ("%=", "%"),
            ("//=", "//"),
            ("**=", "**"),
        ] {
            if self.p.eat_op(aug) {
                let value = self.p.expr()?;
                return Ok(Stmt::AugAssign(line, target, op, value));
            }
        }
        if self.p.is_op(":") {
            return refuse(
                "a variable annotation (x: int = ...)",
                "assign without the annotation",
            );
        }
        Ok(Stmt::Expr(line, target))
    }
}

/// A Rhai expression and what it is known to be.
#[derive(Debug, Clone)]
struct Value {
    code: String,
    /// Binds as tightly as a name or call: no parentheses needed around it.
    atom: bool,
    boolean: bool,
}

impl Value {
    fn atom(code: impl Into<String>) -> Self {
        Value {
            code: code.into(),
            atom: true,
            boolean: false,
        }
    }

    fn op(code: impl Into<String>) -> Self {
        Value {
            code: code.into(),
            atom: false,
            boolean: false,
        }
    }

    fn bool(code: impl Into<String>, atom: bool) -> Self {
        Value {
            code: code.into(),
            atom,
            boolean: true,
        }
    }

    fn wrapped(&self) -> String {
        if self.atom {
            self.code.clone()
        } else {
            format!("({})", self.code)
        }
    }

    fn receiver(&self) -> String {
        if self.atom
            && !self
                .code
                .starts_with(|c: char| c.is_ascii_digit() || c == '-')
        {
            self.code.clone()
        } else {
            format!("({})", self.code)
        }
    }

    fn truth(self) -> Value {
        if self.boolean {
            self
        } else {
            Value::bool(format!("truthy({})", self.code), true)
        }
    }

    /// The code without the parentheses around it all, for the head of an `if` or `while`.
    fn head(&self) -> String {
        self.code.clone()
    }
}

#[derive(Default)]
struct Translator {
    declared: HashSet<String>,
    hoisted: Vec<Line>,
    refusals: Vec<Refusal>,
    loops: usize,
    /// Functions taken with `from time import sleep`.
    imported: HashSet<String>,
    /// Functions the script defines.
    defs: HashSet<String>,
    made: usize,
    /// The indent of the current body's top level: 0, or 1 inside a def (where return is
    /// allowed).
    top: usize,
}

const RESULTS: &str = "hammer's jobs command prints a job's figures as HammerDB's result \
scripts do: jobs(JOBID, \"result\"), jobs(JOBID, \"timing\"), jobs(JOBID, \"tcount\")";

impl Translator {
    fn stmts(&mut self, stmts: &[Stmt], indent: usize, out: &mut Vec<Line>, top: bool) {
        let mut last: Option<usize> = None;
        for s in stmts {
            let line = stmt_line(s);
            if let (Some(l), Some(prev)) = (line, last) {
                if l > prev + 1 && top {
                    // Blank lines between top-level statements stay.
                    out.push(Line::blank());
                }
            }
            if let Some(l) = line {
                last = Some(l);
            }
            let mut lines = Vec::new();
            if let Err(r) = self.stmt(s, indent, &mut lines) {
                self.refusals.push(r);
            }
            if top {
                out.append(&mut self.hoisted);
            }
            out.append(&mut lines);
        }
    }

    fn fresh(&mut self, base: &str) -> String {
        self.made += 1;
        format!("{base}_{}", self.made)
    }

    fn declare(&mut self, id: &str, indent: usize, line: usize, out: &mut Vec<Line>) {
        if self.declared.insert(id.to_string()) {
            let decl = Line::new(self.top, format!("let {id};"), line);
            if indent == self.top {
                out.push(decl);
            } else {
                self.hoisted.push(decl);
            }
        }
    }

    fn assign(&mut self, id: &str, code: String, indent: usize, line: usize, out: &mut Vec<Line>) {
        if !self.declared.contains(id) && indent == self.top {
            self.declared.insert(id.to_string());
            out.push(Line::new(indent, format!("let {id} = {code};"), line));
        } else {
            self.declare(id, indent, line, out);
            out.push(Line::new(indent, format!("{id} = {code};"), line));
        }
    }

    fn stmt(&mut self, s: &Stmt, indent: usize, out: &mut Vec<Line>) -> Result<(), Refusal> {
        match s {
            Stmt::Comment(line, text) => {
                let body = if text.is_empty() || text.starts_with(' ') {
                    format!("//{text}")
                } else {
                    format!("// {text}")
                };
                out.push(Line::new(indent, body, *line));
            }
            Stmt::Pass => {}
            Stmt::Expr(line, e) => self.expr_stmt(e, *line, indent, out)?,
            Stmt::Assign(line, target, value) => {
                let mut pre = Vec::new();
                let v = self.expr(value, *line, indent, &mut pre)?;
                match target {
                    PyExpr::Name(n) => {
                        out.extend(pre);
                        let id = ident(n);
                        self.assign(&id, v.code, indent, *line, out);
                    }
                    PyExpr::Index(base, key) if is_environ(base) => {
                        let k = self.expr(key, *line, indent, &mut pre)?;
                        out.extend(pre);
                        out.push(Line::new(
                            indent,
                            format!("set_env({}, {});", k.code, v.code),
                            *line,
                        ));
                    }
                    PyExpr::Index(..) | PyExpr::Attr(..) => {
                        let t = self.expr(target, *line, indent, &mut pre)?;
                        out.extend(pre);
                        out.push(Line::new(
                            indent,
                            format!("{} = {};", t.code, v.code),
                            *line,
                        ));
                    }
                    _ => {
                        return Err(Refusal::construct(
                            *line,
                            "an assignment to this target",
                            "assign to a variable",
                        ))
                    }
                }
            }
            Stmt::AugAssign(line, target, op, value) => {
                let PyExpr::Name(n) = target else {
                    return Err(Refusal::construct(
                        *line,
                        format!("{op}= to this target"),
                        "assign to a variable",
                    ));
                };
                let id = ident(n);
                let mut pre = Vec::new();
                let v = self.expr(value, *line, indent, &mut pre)?;
                out.extend(pre);
                let code = match *op {
                    "/" => format!("{id} = to_float({id}) / {};", v.wrapped()),
                    "//" => format!("{id} = ({id} / {}).to_int();", v.wrapped()),
                    op => format!("{id} {op}= {};", v.code),
                };
                out.push(Line::new(indent, code, *line));
            }
            Stmt::If(line, branches, otherwise) => {
                self.if_chain(branches, otherwise.as_deref(), indent, *line, out)?
            }
            Stmt::While(line, test, body) => {
                let mut pre = Vec::new();
                let t = self.expr(test, *line, indent + 1, &mut pre)?.truth();
                self.loops += 1;
                let mut lines = Vec::new();
                self.stmts(body, indent + 1, &mut lines, false);
                self.loops -= 1;
                if pre.is_empty() {
                    out.push(Line::new(indent, format!("while {} {{", t.head()), *line));
                } else {
                    out.push(Line::new(indent, "loop {", *line));
                    out.extend(pre);
                    out.push(Line::new(
                        indent + 1,
                        format!("if !{} {{ break; }}", t.wrapped()),
                        *line,
                    ));
                }
                out.extend(lines);
                out.push(Line::new(indent, "}", *line));
            }
            Stmt::For(line, var, iter, body) => {
                let mut pre = Vec::new();
                let it = self.iterable(iter, *line, indent, &mut pre)?;
                out.extend(pre);
                let id = ident(var);
                let fresh = self.declared.insert(id.clone());
                out.push(Line::new(indent, format!("for {id} in {it} {{"), *line));
                self.loops += 1;
                self.stmts(body, indent + 1, out, false);
                self.loops -= 1;
                if fresh {
                    self.declared.remove(&id);
                }
                out.push(Line::new(indent, "}", *line));
            }
            Stmt::With(line, e, var, body) => {
                let is_open = matches!(e, PyExpr::Call { f, .. } if matches!(&**f, PyExpr::Name(n) if n == "open"));
                if !is_open {
                    return Err(Refusal::construct(
                        *line,
                        "with of anything but open()",
                        "open, use and close the file in turn",
                    ));
                }
                let mut pre = Vec::new();
                let v = self.expr(e, *line, indent, &mut pre)?;
                out.extend(pre);
                let id = match var {
                    Some(n) => ident(n),
                    None => self.fresh("file"),
                };
                self.assign(&id, v.code, indent, *line, out);
                self.stmts(body, indent, out, false);
                out.push(Line::new(
                    indent,
                    format!("close({id}); // the end of with"),
                    *line,
                ));
            }
            Stmt::Try(line, body, var, handler) => {
                out.push(Line::new(indent, "try {", *line));
                self.stmts(body, indent + 1, out, false);
                match var {
                    Some(v) => {
                        let err = self.fresh("err");
                        out.push(Line::new(indent, format!("}} catch ({err}) {{"), *line));
                        out.push(Line::new(
                            indent + 1,
                            format!("let {} = error_text({err});", ident(v)),
                            *line,
                        ));
                    }
                    None => out.push(Line::new(indent, "} catch {", *line)),
                }
                self.stmts(handler, indent + 1, out, false);
                out.push(Line::new(indent, "}", *line));
            }
            Stmt::Break(line) | Stmt::Continue(line) => {
                if self.loops == 0 {
                    return Err(Refusal::syntax(*line, "break or continue outside a loop"));
                }
                let word = if matches!(s, Stmt::Break(_)) {
                    "break"
                } else {
                    "continue"
                };
                out.push(Line::new(indent, format!("{word};"), *line));
            }
            Stmt::Import(line, names) => {
                for n in names {
                    if !MODULES.contains(&n.as_str()) {
                        return Err(Refusal::construct(
                            *line,
                            format!("import {n}"),
                            "hammer translates what HammerDB's scripts use of os, sys and time; write that part in Rhai",
                        ));
                    }
                }
                out.push(Line::new(
                    indent,
                    format!(
                        "// import {}: hammer provides what scripts use of it",
                        names.join(", ")
                    ),
                    *line,
                ));
            }
            Stmt::FromImport(line, module, names) => {
                if module != "time" || names.iter().any(|n| n != "sleep") {
                    return Err(Refusal::construct(
                        *line,
                        format!("from {module} import {}", names.join(", ")),
                        "import the module (import os) and call its functions by their full names",
                    ));
                }
                self.imported.insert("sleep".into());
                out.push(Line::new(
                    indent,
                    "// from time import sleep: sleep(s) waits with runtimer",
                    *line,
                ));
            }
            Stmt::Global(line, names) => out.push(Line::new(
                indent,
                format!(
                    "// global {}: a script's variables are all global",
                    names.join(", ")
                ),
                *line,
            )),
            Stmt::Assert(line, test, msg) => {
                let mut pre = Vec::new();
                let t = self.expr(test, *line, indent, &mut pre)?.truth();
                let m = match msg {
                    Some(m) => self.expr(m, *line, indent, &mut pre)?.code,
                    None => string_literal("assertion failed"),
                };
                out.extend(pre);
                out.push(Line::new(
                    indent,
                    format!("if !{} {{ throw {m}; }}", t.wrapped()),
                    *line,
                ));
            }
            Stmt::Def(line, name, params, body) => self.def(*line, name, params, body, out)?,
            Stmt::Return(line, value) => {
                if self.top == 0 {
                    return Err(Refusal::syntax(*line, "return outside a function"));
                }
                let mut pre = Vec::new();
                let code = match value {
                    Some(v) => format!("return {};", self.expr(v, *line, indent, &mut pre)?.code),
                    None => "return;".to_string(),
                };
                out.extend(pre);
                out.push(Line::new(indent, code, *line));
            }
            Stmt::Raise(line, e) => {
                let mut pre = Vec::new();
                // raise Exception("message"): the message.
                let v = match e {
                    PyExpr::Call { args, .. } if args.len() == 1 => {
                        self.expr(&args[0], *line, indent, &mut pre)?
                    }
                    e => self.expr(e, *line, indent, &mut pre)?,
                };
                out.extend(pre);
                out.push(Line::new(indent, format!("throw text({});", v.code), *line));
            }
        }
        Ok(())
    }

    /// A def as a Rhai fn. A Rhai function sees only its arguments, so a def that reads one
    /// of the script's own variables is refused with that name.
    fn def(
        &mut self,
        line: usize,
        name: &str,
        params: &[String],
        body: &[Stmt],
        out: &mut Vec<Line>,
    ) -> Result<(), Refusal> {
        let mut locals: HashSet<String> = params.iter().cloned().collect();
        bound(body, &mut locals);
        let mut read = Vec::new();
        for s in body {
            reads(s, &mut read);
        }
        if let Some((n, at)) = read.iter().find(|(n, _)| {
            !locals.contains(n)
                && !self.defs.contains(n)
                && !matches!(n.as_str(), "os" | "sys" | "time" | "tclpy" | "__name__")
        }) {
            return Err(Refusal::construct(
                *at,
                format!("def {name} reading the script's variable {n}"),
                format!(
                    "a Rhai function sees only its arguments: pass {n} to {name} as a parameter"
                ),
            ));
        }
        let params: Vec<String> = params.iter().map(|p| ident(p)).collect();
        let saved = (
            std::mem::take(&mut self.declared),
            std::mem::take(&mut self.hoisted),
            self.loops,
        );
        self.declared = params.iter().cloned().collect();
        self.loops = 0;
        self.top = 1;
        let mut lines = Vec::new();
        self.stmts(body, 1, &mut lines, true);
        (self.declared, self.hoisted, self.loops) = saved;
        self.top = 0;
        out.push(Line::new(
            0,
            format!("fn {}({}) {{", ident(name), params.join(", ")),
            line,
        ));
        out.append(&mut lines);
        out.push(Line::new(0, "}", line));
        Ok(())
    }

    fn if_chain(
        &mut self,
        branches: &[(PyExpr, Vec<Stmt>)],
        otherwise: Option<&[Stmt]>,
        indent: usize,
        line: usize,
        out: &mut Vec<Line>,
    ) -> Result<(), Refusal> {
        let mut pre = Vec::new();
        let t = self.expr(&branches[0].0, line, indent, &mut pre)?.truth();
        out.extend(pre);
        out.push(Line::new(indent, format!("if {} {{", t.head()), line));
        self.stmts(&branches[0].1, indent + 1, out, false);
        for (i, (test, body)) in branches.iter().enumerate().skip(1) {
            let mut pre = Vec::new();
            let t = self.expr(test, line, indent + 1, &mut pre)?.truth();
            if pre.is_empty() {
                out.push(Line::new(
                    indent,
                    format!("}} else if {} {{", t.head()),
                    line,
                ));
                self.stmts(body, indent + 1, out, false);
            } else {
                out.push(Line::new(indent, "} else {", line));
                out.extend(pre);
                self.if_chain(&branches[i..], otherwise, indent + 1, line, out)?;
                out.push(Line::new(indent, "}", line));
                return Ok(());
            }
        }
        if let Some(body) = otherwise {
            out.push(Line::new(indent, "} else {", line));
            self.stmts(body, indent + 1, out, false);
        }
        out.push(Line::new(indent, "}", line));
        Ok(())
    }

    fn expr_stmt(
        &mut self,
        e: &PyExpr,
        line: usize,
        indent: usize,
        out: &mut Vec<Line>,
    ) -> Result<(), Refusal> {
        // A docstring: a comment.
        if let PyExpr::Str(s) = e {
            for (i, l) in s.lines().enumerate() {
                out.push(Line::new(indent, format!("// {l}"), line + i));
            }
            return Ok(());
        }
        if let PyExpr::Call { f, args, .. } = e {
            // list.append(x) changes the list in place.
            if let PyExpr::Attr(obj, m) = &**f {
                if m == "append" && args.len() == 1 {
                    let mut pre = Vec::new();
                    let o = self.expr(obj, line, indent, &mut pre)?;
                    let v = self.expr(&args[0], line, indent, &mut pre)?;
                    out.extend(pre);
                    out.push(Line::new(
                        indent,
                        format!("{}.push({});", o.code, v.code),
                        line,
                    ));
                    return Ok(());
                }
                // tclpy.eval('...') as a statement: the Tcl's statements too.
                if matches!(&**obj, PyExpr::Name(n) if n == "tclpy") && m == "eval" {
                    let (pre, value) = self.tcl(args, line)?;
                    out.extend(
                        pre.into_iter()
                            .map(|l| Line::new(l.indent + indent, l.text, line)),
                    );
                    if value != "\"\"" {
                        out.push(Line::new(indent, super::statement(&value), line));
                    }
                    return Ok(());
                }
            }
        }
        let mut pre = Vec::new();
        let v = self.expr(e, line, indent, &mut pre)?;
        out.extend(pre);
        out.push(Line::new(indent, super::statement(&v.code), line));
        Ok(())
    }

    /// `tclpy.eval('vurun')`: the Tcl translated.
    fn tcl(&mut self, args: &[PyExpr], line: usize) -> Result<(Vec<Line>, String), Refusal> {
        let [PyExpr::Str(code)] = args else {
            return Err(Refusal::construct(
                line,
                "tclpy.eval of Tcl made at run time",
                "call the command as a function: vurun(), jobs(jobid, \"result\")",
            ));
        };
        super::tcl::inline(code, line)
    }

    fn iterable(
        &mut self,
        e: &PyExpr,
        line: usize,
        indent: usize,
        pre: &mut Vec<Line>,
    ) -> Result<String, Refusal> {
        Ok(self.expr(e, line, indent, pre)?.code)
    }

    fn args(
        &mut self,
        args: &[PyExpr],
        line: usize,
        indent: usize,
        pre: &mut Vec<Line>,
    ) -> Result<Vec<String>, Refusal> {
        args.iter()
            .map(|a| Ok(self.expr(a, line, indent, pre)?.code))
            .collect()
    }

    fn expr(
        &mut self,
        e: &PyExpr,
        line: usize,
        indent: usize,
        pre: &mut Vec<Line>,
    ) -> Result<Value, Refusal> {
        Ok(match e {
            PyExpr::Name(n) => match n.as_str() {
                "__name__" => Value::atom("\"__main__\""),
                "os" | "sys" | "time" | "tclpy" => {
                    return Err(Refusal::construct(
                        line,
                        format!("the module {n} as a value"),
                        "call its functions: os.getenv(...), sys.exit(...), time.sleep(...)",
                    ))
                }
                _ => Value::atom(ident(n)),
            },
            PyExpr::Int(i) if *i < 0 => Value::op(i.to_string()),
            PyExpr::Int(i) => Value::atom(i.to_string()),
            PyExpr::Float(f) => {
                let code = if f.fract() == 0.0 && f.abs() < 1e15 {
                    format!("{f:.1}")
                } else {
                    format!("{f}")
                };
                if *f < 0.0 {
                    Value::op(code)
                } else {
                    Value::atom(code)
                }
            }
            PyExpr::Str(s) => Value::atom(string_literal(s)),
            PyExpr::Bool(b) => Value::bool(b.to_string(), true),
            PyExpr::None => Value::atom("()"),
            PyExpr::FStr(parts) => {
                let mut pieces = Vec::new();
                for p in parts {
                    match p {
                        FPart::Text(t) => pieces.push(Piece::Text(t.clone())),
                        FPart::Expr(e) => pieces.push(Piece::Value(format!(
                            "text({})",
                            self.expr(e, line, indent, pre)?.code
                        ))),
                    }
                }
                if pieces.len() == 1 {
                    if let Piece::Value(v) = &pieces[0] {
                        return Ok(Value::atom(v.clone()));
                    }
                }
                Value::atom(interpolate(&pieces))
            }
            PyExpr::List(items) | PyExpr::Tuple(items) | PyExpr::Set(items) => Value::atom(
                format!("[{}]", self.args(items, line, indent, pre)?.join(", ")),
            ),
            PyExpr::Dict(pairs) => {
                let mut fields = Vec::new();
                for (k, v) in pairs {
                    let PyExpr::Str(k) = k else {
                        return Err(Refusal::construct(
                            line,
                            "a dictionary with keys that are not strings",
                            "use string keys",
                        ));
                    };
                    fields.push(format!(
                        "{}: {}",
                        string_literal(k),
                        self.expr(v, line, indent, pre)?.code
                    ));
                }
                Value::atom(format!("#{{{}}}", fields.join(", ")))
            }
            PyExpr::Attr(base, name) => {
                if module_of(base).is_some() || is_environ(e) {
                    return Err(Refusal::construct(
                        line,
                        format!("{} as a value", dotted(e)),
                        "call its functions, or read os.environ[\"NAME\"]",
                    ));
                }
                let b = self.expr(base, line, indent, pre)?;
                Value::atom(format!("{}.{name}", b.receiver()))
            }
            PyExpr::Index(base, key) => {
                let k = self.expr(key, line, indent, pre)?;
                if is_environ(base) {
                    Value::atom(format!("need_env({})", k.code))
                } else {
                    let b = self.expr(base, line, indent, pre)?;
                    Value::atom(format!("{}[{}]", b.receiver(), k.code))
                }
            }
            PyExpr::Call { f, args, kwargs } => self.call(f, args, kwargs, line, indent, pre)?,
            PyExpr::Unary(op, x) => {
                let v = self.expr(x, line, indent, pre)?;
                match *op {
                    "-" => Value::op(format!(
                        "-{}",
                        if v.code.starts_with('-') {
                            format!("({})", v.code)
                        } else {
                            v.wrapped()
                        }
                    )),
                    _ => {
                        return Err(Refusal::construct(
                            line,
                            format!("the operator {op}"),
                            "write that part in Rhai",
                        ))
                    }
                }
            }
            PyExpr::Binary(op, a, b) => {
                if *op == "%" && matches!(**a, PyExpr::Str(_)) {
                    return Err(Refusal::construct(
                        line,
                        "% formatting of a string",
                        "use an f-string: f\"{value}\"",
                    ));
                }
                if *op == "@" {
                    return Err(Refusal::construct(
                        line,
                        "the operator @",
                        "write that part in Rhai",
                    ));
                }
                let (a, b) = (
                    self.expr(a, line, indent, pre)?,
                    self.expr(b, line, indent, pre)?,
                );
                match *op {
                    "/" => Value::op(format!("to_float({}) / {}", a.code, b.wrapped())),
                    "//" => Value::atom(format!("({} / {}).to_int()", a.wrapped(), b.wrapped())),
                    "**" => Value::op(format!("{} ** {}", a.wrapped(), b.wrapped())),
                    "|" | "&" | "^" | "<<" | ">>" => {
                        Value::atom(format!("({} {op} {})", a.wrapped(), b.wrapped()))
                    }
                    op => Value::op(format!("{} {op} {}", a.wrapped(), b.wrapped())),
                }
            }
            PyExpr::Compare(first, rest) => {
                let mut left = first.as_ref().clone();
                let mut parts = Vec::new();
                for (op, right) in rest {
                    parts.push(self.compare(&left, op, right, line, indent, pre)?);
                    left = right.clone();
                }
                if parts.len() == 1 {
                    parts.remove(0)
                } else {
                    Value::bool(
                        parts
                            .iter()
                            .map(|p| p.wrapped())
                            .collect::<Vec<_>>()
                            .join(" && "),
                        false,
                    )
                }
            }
            PyExpr::Not(x) => {
                let v = self.expr(x, line, indent, pre)?.truth();
                Value::bool(format!("!{}", v.wrapped()), true)
            }
            PyExpr::And(a, b) | PyExpr::Or(a, b) => {
                let is_and = matches!(e, PyExpr::And(..));
                let (a, b) = (
                    self.expr(a, line, indent, pre)?,
                    self.expr(b, line, indent, pre)?,
                );
                if a.boolean && b.boolean {
                    let op = if is_and { "&&" } else { "||" };
                    Value::bool(format!("{} {op} {}", a.wrapped(), b.wrapped()), false)
                } else {
                    // Python's and/or give one of their operands.
                    let v = self.fresh("v");
                    let (yes, no) = if is_and {
                        (b.code, v.clone())
                    } else {
                        (v.clone(), b.code)
                    };
                    Value::atom(format!(
                        "{{ let {v} = {}; if truthy({v}) {{ {yes} }} else {{ {no} }} }}",
                        a.code
                    ))
                }
            }
            PyExpr::IfElse(c, a, b) => {
                let c = self.expr(c, line, indent, pre)?.truth();
                let (a, b) = (
                    self.expr(a, line, indent, pre)?,
                    self.expr(b, line, indent, pre)?,
                );
                Value::op(format!(
                    "if {} {{ {} }} else {{ {} }}",
                    c.code, a.code, b.code
                ))
            }
        })
    }

    fn compare(
        &mut self,
        a: &PyExpr,
        op: &str,
        b: &PyExpr,
        line: usize,
        indent: usize,
        pre: &mut Vec<Line>,
    ) -> Result<Value, Refusal> {
        if matches!(op, "in" | "not in") && is_environ(b) {
            let k = self.expr(a, line, indent, pre)?;
            let eq = if op == "in" { "!=" } else { "==" };
            return Ok(Value::bool(format!("env({}) {eq} ()", k.code), false));
        }
        let (a, b) = (
            self.expr(a, line, indent, pre)?,
            self.expr(b, line, indent, pre)?,
        );
        Ok(match op {
            "in" => Value::bool(format!("({} in {})", a.wrapped(), b.wrapped()), true),
            "not in" => Value::bool(format!("!({} in {})", a.wrapped(), b.wrapped()), true),
            "is" => Value::bool(format!("{} == {}", a.wrapped(), b.wrapped()), false),
            "is not" => Value::bool(format!("{} != {}", a.wrapped(), b.wrapped()), false),
            op => Value::bool(format!("{} {op} {}", a.wrapped(), b.wrapped()), false),
        })
    }

    fn call(
        &mut self,
        f: &PyExpr,
        args: &[PyExpr],
        kwargs: &[(String, PyExpr)],
        line: usize,
        indent: usize,
        pre: &mut Vec<Line>,
    ) -> Result<Value, Refusal> {
        let name = dotted(f);
        let no_kwargs = |this: &Self| -> Result<(), Refusal> {
            let _ = this;
            match kwargs.first() {
                Some((k, _)) => Err(Refusal::construct(
                    line,
                    format!("the keyword argument {k}= of {name}"),
                    "pass the arguments in order",
                )),
                None => Ok(()),
            }
        };
        let call = |this: &mut Self, f: &str, pre: &mut Vec<Line>| -> Result<Value, Refusal> {
            Ok(Value::atom(format!(
                "{f}({})",
                this.args(args, line, indent, pre)?.join(", ")
            )))
        };
        let one = |this: &mut Self, pre: &mut Vec<Line>| -> Result<Value, Refusal> {
            match args {
                [a] => this.expr(a, line, indent, pre),
                _ => Err(Refusal::syntax(
                    line,
                    format!("{name}() takes one argument"),
                )),
            }
        };
        // Methods of a value: strings, lists, files.
        if let PyExpr::Attr(obj, m) = f {
            if module_of(obj).is_none() && !is_environ(obj) {
                no_kwargs(self)?;
                let o = self.expr(obj, line, indent, pre)?;
                let a = self.args(args, line, indent, pre)?;
                let recv = o.receiver();
                return Ok(match (m.as_str(), a.as_slice()) {
                    ("strip", []) => Value::atom(format!("trimmed({})", o.code)),
                    ("strip", [c]) => Value::atom(format!("trimmed({}, {c})", o.code)),
                    ("lstrip", []) => Value::atom(format!("trimmed_left({})", o.code)),
                    ("rstrip", []) => Value::atom(format!("trimmed_right({})", o.code)),
                    ("lower", []) => Value::atom(format!("{recv}.to_lower()")),
                    ("upper", []) => Value::atom(format!("{recv}.to_upper()")),
                    ("startswith", [p]) => Value::bool(format!("{recv}.starts_with({p})"), true),
                    ("endswith", [p]) => Value::bool(format!("{recv}.ends_with({p})"), true),
                    ("split", [s]) => Value::atom(format!("{recv}.split({s})")),
                    ("write", [t]) => Value::atom(format!("write({}, {t})", o.code)),
                    ("close", []) => Value::atom(format!("close({})", o.code)),
                    ("read", []) => Value::atom(format!("read({})", o.code)),
                    ("get", [k]) => Value::atom(format!("{recv}[{k}]")),
                    _ => {
                        return Err(Refusal::construct(
                            line,
                            format!("the method .{m}()"),
                            "strip, lstrip, rstrip, lower, upper, startswith, endswith, split, \
                             append, and a file's write, read and close are translated",
                        ))
                    }
                });
            }
        }
        let env_default = |this: &mut Self, pre: &mut Vec<Line>| -> Result<Value, Refusal> {
            let a = this.args(args, line, indent, pre)?;
            Ok(match a.as_slice() {
                [k] => Value::atom(format!("env({k})")),
                [k, d] => Value::op(format!("env({k}) ?? {d}")),
                _ => {
                    return Err(Refusal::syntax(
                        line,
                        format!("{name}() takes a name and a default"),
                    ))
                }
            })
        };
        Ok(match name.as_str() {
            "print" => {
                let mut end = None;
                let mut sep = None;
                let mut stderr = false;
                for (k, v) in kwargs {
                    match (k.as_str(), v) {
                        ("end", v) => end = Some(self.expr(v, line, indent, pre)?),
                        ("sep", v) => sep = Some(self.expr(v, line, indent, pre)?),
                        ("flush", _) => {}
                        ("file", v) if dotted(v) == "sys.stderr" => stderr = true,
                        ("file", v) if dotted(v) == "sys.stdout" => {}
                        (k, _) => {
                            return Err(Refusal::construct(
                                line,
                                format!("print with {k}="),
                                "print to stdout, or write to an open file",
                            ))
                        }
                    }
                }
                let vals = self.args(args, line, indent, pre)?;
                let text = match (vals.as_slice(), &sep) {
                    ([], _) => "\"\"".to_string(),
                    ([one], _) => one.clone(),
                    (many, sep) => {
                        let mut pieces = Vec::new();
                        for (i, v) in many.iter().enumerate() {
                            if i > 0 {
                                match sep {
                                    Some(s) => pieces.push(Piece::Value(s.code.clone())),
                                    None => pieces.push(Piece::Text(" ".into())),
                                }
                            }
                            pieces.push(Piece::Value(format!("text({v})")));
                        }
                        interpolate(&pieces)
                    }
                };
                let f = match (&end, stderr) {
                    (_, true) => "eputs",
                    (Some(e), false) if e.code == "\"\"" => "write",
                    (Some(e), false) if e.code != "\"\\n\"" => {
                        return Err(Refusal::construct(
                            line,
                            "print with an end= other than \"\" or \"\\n\"",
                            "print the text with its ending in it",
                        ));
                    }
                    _ => "print",
                };
                Value::atom(format!("{f}({text})"))
            }
            "exit" | "quit" | "sys.exit" => {
                no_kwargs(self)?;
                match args {
                    [] => Value::atom("exit()"),
                    [PyExpr::Int(_)] => call(self, "exit", pre)?,
                    // sys.exit("message"): the message on stderr, status 1.
                    [PyExpr::Str(m)] => {
                        Value::atom(format!("{{ eputs({}); exit(1) }}", string_literal(m)))
                    }
                    [a] => {
                        // sys.exit("message") prints the message and exits 1.
                        let v = self.expr(a, line, indent, pre)?;
                        Value::atom(format!("exit(as_number({}))", v.code))
                    }
                    _ => return Err(Refusal::syntax(line, "exit() takes at most one argument")),
                }
            }
            "str" => Value::atom(format!("text({})", one(self, pre)?.code)),
            "int" => Value::atom(format!("as_number({}).to_int()", one(self, pre)?.code)),
            "float" => Value::atom(format!("as_number({}).to_float()", one(self, pre)?.code)),
            "bool" => one(self, pre)?.truth(),
            "len" => Value::atom(format!("{}.len()", one(self, pre)?.receiver())),
            "abs" => Value::atom(format!("abs({})", one(self, pre)?.code)),
            "round" if args.len() == 1 => Value::atom(format!(
                "to_float({}).round().to_int()",
                one(self, pre)?.code
            )),
            "min" | "max" if args.len() == 2 => call(self, &name, pre)?,
            "range" => {
                let a = self.args(args, line, indent, pre)?;
                match a.as_slice() {
                    [n] => Value::atom(format!("range(0, {n})")),
                    [_, _] | [_, _, _] => Value::atom(format!("range({})", a.join(", "))),
                    _ => {
                        return Err(Refusal::syntax(
                            line,
                            "range() takes one to three arguments",
                        ))
                    }
                }
            }
            // list(range(...)): the numbers as an array; list(a_list): its copy (a Rhai
            // array is copied on assignment).
            "list" if args.len() == 1 && kwargs.is_empty() => match &args[0] {
                PyExpr::Call { f, .. } if dotted(f) == "range" => {
                    let r = self.expr(&args[0], line, indent, pre)?;
                    let (l, x) = (self.fresh("list"), self.fresh("x"));
                    Value::atom(format!(
                        "{{ let {l} = []; for {x} in {} {{ {l}.push({x}); }} {l} }}",
                        r.code
                    ))
                }
                PyExpr::List(_) => self.expr(&args[0], line, indent, pre)?,
                _ => {
                    return Err(Refusal::construct(
                        line,
                        "list() of anything but range() or a list",
                        "build the list with a for loop and append",
                    ))
                }
            },
            "open" => {
                let a = self.args(args, line, indent, pre)?;
                for (k, _) in kwargs {
                    if !matches!(k.as_str(), "encoding" | "newline" | "errors") {
                        return Err(Refusal::construct(
                            line,
                            format!("open with {k}="),
                            "open NAME with a mode: open(name, \"w\")",
                        ));
                    }
                }
                match a.as_slice() {
                    [p] => Value::atom(format!("open({p})")),
                    [p, m] => {
                        let mode = match &args[1] {
                            PyExpr::Str(m) => string_literal(&m.replace(['b', 't'], "")),
                            _ => m.clone(),
                        };
                        Value::atom(format!("open({p}, {mode})"))
                    }
                    _ => {
                        return Err(Refusal::construct(
                            line,
                            "open with buffering",
                            "open(name, mode)",
                        ))
                    }
                }
            }
            "os.getenv" | "os.environ.get" => env_default(self, pre)?,
            "os.getcwd" => Value::atom("pwd()"),
            "os.chdir" => Value::atom(format!("cd({})", one(self, pre)?.code)),
            "os.cpu_count" => Value::atom("numberOfCPUs()"),
            "os.makedirs" | "os.mkdir" => {
                for (k, _) in kwargs {
                    if k != "exist_ok" {
                        return Err(Refusal::construct(
                            line,
                            format!("{name} with {k}="),
                            "os.makedirs(path, exist_ok=True)",
                        ));
                    }
                }
                Value::atom(format!("file_mkdir({})", one(self, pre)?.code))
            }
            "os.remove" | "os.unlink" => {
                Value::atom(format!("file_delete({})", one(self, pre)?.code))
            }
            "os.path.join" => Value::atom(format!(
                "file_join([{}])",
                self.args(args, line, indent, pre)?.join(", ")
            )),
            "os.path.exists" => Value::bool(format!("file_exists({})", one(self, pre)?.code), true),
            "os.path.isfile" => Value::bool(format!("file_isfile({})", one(self, pre)?.code), true),
            "os.path.isdir" => {
                Value::bool(format!("file_isdirectory({})", one(self, pre)?.code), true)
            }
            "os.path.dirname" => Value::atom(format!("file_dirname({})", one(self, pre)?.code)),
            "os.path.basename" => Value::atom(format!("file_tail({})", one(self, pre)?.code)),
            "os.path.abspath" | "os.path.realpath" | "os.path.normpath" => {
                Value::atom(format!("file_normalize({})", one(self, pre)?.code))
            }
            "time.sleep" => Value::atom(format!("runtimer({})", one(self, pre)?.code)),
            "sleep" if self.imported.contains("sleep") => {
                Value::atom(format!("runtimer({})", one(self, pre)?.code))
            }
            "time.time" => Value::atom("(clock_milliseconds() / 1000.0)"),
            "tclpy.eval" => {
                let (lines, value) = self.tcl(args, line)?;
                if !lines.is_empty() {
                    return Err(Refusal::construct(
                        line,
                        "tclpy.eval of a Tcl command with no value, used as a value",
                        "call it as a statement of its own",
                    ));
                }
                Value::atom(value)
            }
            "exec" | "eval" | "compile" => {
                let text = format!("{args:?}");
                let instead = if text.contains("result") {
                    RESULTS
                } else {
                    "convert that script too (hammer convert FILE.py) and run the scripts one after another"
                };
                return Err(Refusal::construct(line, format!("{name}()"), instead));
            }
            n if commands::find(n).is_some() || HELPERS.contains(&n) => {
                no_kwargs(self)?;
                let v = call(self, n, pre)?;
                match super::job_label(n) {
                    Some(_) => Value::atom(super::job_value(n, v.code)),
                    None => v,
                }
            }
            n if self.defs.contains(n) => {
                no_kwargs(self)?;
                call(self, &ident(n), pre)?
            }
            n => {
                let instead = if PY_BUILTINS.contains(&n) {
                    "build values with for loops, append and f-strings, or write that part in Rhai"
                        .to_string()
                } else if n.contains('.') {
                    format!("hammer translates {}", SUPPORTED_CALLS)
                } else {
                    let known = commands::names().into_iter().chain(HELPERS.iter().copied());
                    match crate::config::nearest(n, known) {
                        Some(near) => {
                            format!("did you mean {near}? (hammer's help lists its commands)")
                        }
                        None => {
                            "call hammer's commands (help lists them) or write that part in Rhai"
                                .into()
                        }
                    }
                };
                return Err(Refusal::construct(line, format!("the call {n}()"), instead));
            }
        })
    }
}

/// Python's built-in functions hammer does not translate.
const PY_BUILTINS: &[&str] = &[
    "list",
    "dict",
    "set",
    "tuple",
    "sorted",
    "reversed",
    "enumerate",
    "zip",
    "map",
    "filter",
    "sum",
    "any",
    "all",
    "input",
    "isinstance",
    "type",
    "format",
    "repr",
    "getattr",
    "setattr",
    "hasattr",
    "iter",
    "next",
    "chr",
    "ord",
    "hex",
    "oct",
    "bin",
    "divmod",
    "hash",
    "id",
    "vars",
    "globals",
    "locals",
    "dir",
    "help",
    "super",
    "object",
    "bytes",
    "bytearray",
];

const SUPPORTED_CALLS: &str = "os.getenv, os.environ, os.getcwd, os.chdir, os.cpu_count, \
os.makedirs, os.mkdir, os.remove, os.path.join/exists/isfile/isdir/dirname/basename/abspath, \
sys.exit, time.sleep, time.time and tclpy.eval";

fn stmt_line(s: &Stmt) -> Option<usize> {
    match s {
        Stmt::Comment(l, _)
        | Stmt::Expr(l, _)
        | Stmt::Assign(l, ..)
        | Stmt::AugAssign(l, ..)
        | Stmt::If(l, ..)
        | Stmt::While(l, ..)
        | Stmt::For(l, ..)
        | Stmt::With(l, ..)
        | Stmt::Try(l, ..)
        | Stmt::Break(l)
        | Stmt::Continue(l)
        | Stmt::Import(l, _)
        | Stmt::FromImport(l, ..)
        | Stmt::Global(l, _)
        | Stmt::Assert(l, ..)
        | Stmt::Raise(l, _)
        | Stmt::Def(l, ..)
        | Stmt::Return(l, _) => Some(*l),
        Stmt::Pass => None,
    }
}

/// The names a def's body binds: assignments, for and with variables, except names.
fn bound(stmts: &[Stmt], names: &mut HashSet<String>) {
    for s in stmts {
        match s {
            Stmt::Assign(_, PyExpr::Name(n), _) | Stmt::AugAssign(_, PyExpr::Name(n), ..) => {
                names.insert(n.clone());
            }
            Stmt::If(_, branches, otherwise) => {
                for (_, b) in branches {
                    bound(b, names);
                }
                if let Some(b) = otherwise {
                    bound(b, names);
                }
            }
            Stmt::While(_, _, b) => bound(b, names),
            Stmt::For(_, v, _, b) => {
                names.insert(v.clone());
                bound(b, names);
            }
            Stmt::With(_, _, v, b) => {
                if let Some(v) = v {
                    names.insert(v.clone());
                }
                bound(b, names);
            }
            Stmt::Try(_, b, v, h) => {
                if let Some(v) = v {
                    names.insert(v.clone());
                }
                bound(b, names);
                bound(h, names);
            }
            _ => {}
        }
    }
}

/// The names a statement reads as values (not the functions it calls), with their lines.
fn reads(s: &Stmt, out: &mut Vec<(String, usize)>) {
    match s {
        Stmt::Expr(l, e) | Stmt::Raise(l, e) | Stmt::Return(l, Some(e)) => expr_reads(e, *l, out),
        Stmt::Assign(l, t, v) => {
            if !matches!(t, PyExpr::Name(_)) {
                expr_reads(t, *l, out);
            }
            expr_reads(v, *l, out);
        }
        Stmt::AugAssign(l, t, _, v) => {
            expr_reads(t, *l, out);
            expr_reads(v, *l, out);
        }
        Stmt::If(l, branches, otherwise) => {
            for (t, b) in branches {
                expr_reads(t, *l, out);
                b.iter().for_each(|s| reads(s, out));
            }
            if let Some(b) = otherwise {
                b.iter().for_each(|s| reads(s, out));
            }
        }
        Stmt::While(l, t, b) | Stmt::For(l, _, t, b) | Stmt::With(l, t, _, b) => {
            expr_reads(t, *l, out);
            b.iter().for_each(|s| reads(s, out));
        }
        Stmt::Try(_, b, _, h) => b.iter().chain(h).for_each(|s| reads(s, out)),
        Stmt::Assert(l, t, m) => {
            expr_reads(t, *l, out);
            if let Some(m) = m {
                expr_reads(m, *l, out);
            }
        }
        Stmt::Global(l, names) => out.extend(names.iter().map(|n| (n.clone(), *l))),
        _ => {}
    }
}

fn expr_reads(e: &PyExpr, line: usize, out: &mut Vec<(String, usize)>) {
    match e {
        PyExpr::Name(n) => out.push((n.clone(), line)),
        PyExpr::FStr(parts) => {
            for p in parts {
                if let FPart::Expr(e) = p {
                    expr_reads(e, line, out);
                }
            }
        }
        PyExpr::List(v) | PyExpr::Tuple(v) | PyExpr::Set(v) => {
            v.iter().for_each(|e| expr_reads(e, line, out))
        }
        PyExpr::Dict(kv) => kv.iter().for_each(|(k, v)| {
            expr_reads(k, line, out);
            expr_reads(v, line, out);
        }),
        // os.path: the module, not a variable.
        PyExpr::Attr(b, _) => {
            if module_of(b).is_none() {
                expr_reads(b, line, out)
            }
        }
        PyExpr::Call { f, args, kwargs } => {
            if !matches!(&**f, PyExpr::Name(_)) {
                expr_reads(f, line, out);
            }
            args.iter().for_each(|e| expr_reads(e, line, out));
            kwargs.iter().for_each(|(_, e)| expr_reads(e, line, out));
        }
        PyExpr::Index(a, b) | PyExpr::Binary(_, a, b) | PyExpr::And(a, b) | PyExpr::Or(a, b) => {
            expr_reads(a, line, out);
            expr_reads(b, line, out);
        }
        PyExpr::Unary(_, a) | PyExpr::Not(a) => expr_reads(a, line, out),
        PyExpr::Compare(a, rest) => {
            expr_reads(a, line, out);
            rest.iter().for_each(|(_, e)| expr_reads(e, line, out));
        }
        PyExpr::IfElse(a, b, c) => {
            expr_reads(a, line, out);
            expr_reads(b, line, out);
            expr_reads(c, line, out);
        }
        PyExpr::Int(_) | PyExpr::Float(_) | PyExpr::Str(_) | PyExpr::Bool(_) | PyExpr::None => {}
    }
}

/// `os.path.join` for an attribute chain on names, `""` otherwise.
fn dotted(e: &PyExpr) -> String {
    match e {
        PyExpr::Name(n) => n.clone(),
        PyExpr::Attr(b, n) => {
            let b = dotted(b);
            if b.is_empty() {
                String::new()
            } else {
                format!("{b}.{n}")
            }
        }
        _ => String::new(),
    }
}

/// The module an attribute chain starts from (`os` of `os.path`).
fn module_of(e: &PyExpr) -> Option<&'static str> {
    let d = dotted(e);
    let first = d.split('.').next().unwrap_or("");
    ["os", "sys", "time", "tclpy"]
        .into_iter()
        .find(|m| *m == first)
}

fn is_environ(e: &PyExpr) -> bool {
    dotted(e) == "os.environ"
}

#[cfg(test)]
mod tests;
