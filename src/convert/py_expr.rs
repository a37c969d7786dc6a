//! Python's tokens (with indentation as INDENT and DEDENT) and its expressions parsed to a
//! tree, the subset HammerDB's Python scripts use.

use super::Refusal;

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tok {
    Name(String),
    Int(i64),
    Float(f64),
    Str(String),
    FStr(Vec<FPart>),
    Op(&'static str),
    Newline,
    Indent,
    Dedent,
    /// A comment on a line of its own (the text after `#`).
    Comment(String),
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum FPart {
    Text(String),
    Expr(PyExpr),
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum PyExpr {
    Name(String),
    Int(i64),
    Float(f64),
    Str(String),
    FStr(Vec<FPart>),
    Bool(bool),
    None,
    List(Vec<PyExpr>),
    Tuple(Vec<PyExpr>),
    Set(Vec<PyExpr>),
    Dict(Vec<(PyExpr, PyExpr)>),
    Attr(Box<PyExpr>, String),
    Call {
        f: Box<PyExpr>,
        args: Vec<PyExpr>,
        kwargs: Vec<(String, PyExpr)>,
    },
    Index(Box<PyExpr>, Box<PyExpr>),
    Unary(&'static str, Box<PyExpr>),
    Binary(&'static str, Box<PyExpr>, Box<PyExpr>),
    /// `a < b <= c`: the first operand and each operator with its right side.
    Compare(Box<PyExpr>, Vec<(&'static str, PyExpr)>),
    Not(Box<PyExpr>),
    And(Box<PyExpr>, Box<PyExpr>),
    Or(Box<PyExpr>, Box<PyExpr>),
    IfElse(Box<PyExpr>, Box<PyExpr>, Box<PyExpr>),
}

const OPS: &[&str] = &[
    "**=", "//=", ">>=", "<<=", "...", "**", "//", "==", "!=", "<=", ">=", "+=", "-=", "*=", "/=",
    "%=", "&=", "|=", "^=", "->", "<<", ">>", ":=", "+", "-", "*", "/", "%", "<", ">", "=", "(",
    ")", "[", "]", "{", "}", ",", ":", ".", ";", "@", "&", "|", "^", "~",
];

/// The tokens of a script, each with its line.
pub(crate) fn tokens(source: &str) -> Result<Vec<(Tok, usize)>, Refusal> {
    let chars: Vec<char> = source.chars().collect();
    let mut out: Vec<(Tok, usize)> = Vec::new();
    let mut i = 0;
    let mut line = 1;
    let mut depth = 0usize;
    let mut indents = vec![0usize];
    let mut at_line_start = true;
    // Comment lines wait for the next line of code, so that they go with it: after the
    // dedent that ends a block, not at the end of the block.
    let mut comments: Vec<(Tok, usize)> = Vec::new();
    while i < chars.len() {
        if at_line_start && depth == 0 {
            let mut width = 0;
            let mut j = i;
            while j < chars.len() && matches!(chars[j], ' ' | '\t' | '\u{c}') {
                width = if chars[j] == '\t' {
                    (width / 8 + 1) * 8
                } else {
                    width + 1
                };
                j += 1;
            }
            match chars.get(j) {
                None => break,
                Some('\n') => {
                    i = j + 1;
                    line += 1;
                    continue;
                }
                Some('\r') => {
                    i = j + 1;
                    continue;
                }
                Some('#') => {
                    let start = j + 1;
                    let mut k = start;
                    while k < chars.len() && chars[k] != '\n' {
                        k += 1;
                    }
                    let text: String = chars[start..k].iter().collect();
                    comments.push((Tok::Comment(text.trim_end_matches('\r').to_string()), line));
                    i = k;
                    continue;
                }
                _ => {}
            }
            let current = *indents.last().unwrap_or(&0);
            if width > current {
                indents.push(width);
                out.push((Tok::Indent, line));
            } else {
                while width < *indents.last().unwrap_or(&0) {
                    indents.pop();
                    out.push((Tok::Dedent, line));
                }
                if width != *indents.last().unwrap_or(&0) {
                    return Err(Refusal::syntax(
                        line,
                        "unindent does not match any outer indentation level",
                    ));
                }
            }
            out.append(&mut comments);
            i = j;
            at_line_start = false;
        }
        let c = chars[i];
        match c {
            '\n' => {
                if depth == 0 {
                    out.push((Tok::Newline, line));
                    at_line_start = true;
                }
                line += 1;
                i += 1;
            }
            ' ' | '\t' | '\r' | '\u{c}' => i += 1,
            '#' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '\\' if chars.get(i + 1) == Some(&'\n') => {
                i += 2;
                line += 1;
            }
            c if c.is_ascii_digit()
                || (c == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit)) =>
            {
                let start = i;
                while i < chars.len()
                    && (chars[i].is_ascii_alphanumeric()
                        || chars[i] == '_'
                        || chars[i] == '.'
                        || (matches!(chars[i], '+' | '-')
                            && matches!(chars[i - 1], 'e' | 'E')
                            && !chars[start..i].iter().any(|c| matches!(c, 'x' | 'X'))))
                {
                    i += 1;
                }
                let text: String = chars[start..i].iter().filter(|c| **c != '_').collect();
                let tok = if let Some(hex) =
                    text.strip_prefix("0x").or_else(|| text.strip_prefix("0X"))
                {
                    i64::from_str_radix(hex, 16).ok().map(Tok::Int)
                } else if text.contains(['.', 'e', 'E']) {
                    text.parse().ok().map(Tok::Float)
                } else {
                    text.parse().ok().map(Tok::Int)
                };
                let Some(tok) = tok else {
                    return Err(Refusal::syntax(line, format!("bad number {text}")));
                };
                out.push((tok, line));
            }
            c if c.is_alphabetic() || c == '_' => {
                let start = i;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                let prefix = word.to_ascii_lowercase();
                let is_prefix = matches!(
                    prefix.as_str(),
                    "r" | "f" | "b" | "u" | "rf" | "fr" | "rb" | "br"
                );
                if is_prefix && matches!(chars.get(i), Some('"' | '\'')) {
                    let (tok, next, lines) =
                        string(&chars, i, line, prefix.contains('r'), prefix.contains('f'))?;
                    out.push((tok, line));
                    line += lines;
                    i = next;
                } else {
                    out.push((Tok::Name(word), line));
                }
            }
            '"' | '\'' => {
                let (tok, next, lines) = string(&chars, i, line, false, false)?;
                out.push((tok, line));
                line += lines;
                i = next;
            }
            _ => {
                let rest: String = chars[i..chars.len().min(i + 3)].iter().collect();
                let Some(op) = OPS.iter().find(|op| rest.starts_with(**op)) else {
                    return Err(Refusal::syntax(line, format!("unexpected character {c:?}")));
                };
                match *op {
                    "(" | "[" | "{" => depth += 1,
                    ")" | "]" | "}" => depth = depth.saturating_sub(1),
                    _ => {}
                }
                out.push((Tok::Op(op), line));
                i += op.len();
            }
        }
    }
    if !matches!(
        out.last(),
        None | Some((Tok::Newline | Tok::Comment(_) | Tok::Dedent, _))
    ) {
        out.push((Tok::Newline, line));
    }
    while indents.len() > 1 {
        indents.pop();
        out.push((Tok::Dedent, line));
    }
    out.append(&mut comments);
    Ok(out)
}

/// A string literal from its quote: the token, where it ends, and the newlines inside it.
fn string(
    chars: &[char],
    start: usize,
    line: usize,
    raw: bool,
    f: bool,
) -> Result<(Tok, usize, usize), Refusal> {
    let q = chars[start];
    let triple = chars.get(start + 1) == Some(&q) && chars.get(start + 2) == Some(&q);
    let mut i = start + if triple { 3 } else { 1 };
    let mut text = String::new();
    let mut lines = 0;
    loop {
        let Some(&c) = chars.get(i) else {
            return Err(Refusal::syntax(line, "unterminated string literal"));
        };
        if c == q && (!triple || (chars.get(i + 1) == Some(&q) && chars.get(i + 2) == Some(&q))) {
            i += if triple { 3 } else { 1 };
            break;
        }
        if c == '\n' {
            if !triple {
                return Err(Refusal::syntax(line, "unterminated string literal"));
            }
            lines += 1;
        }
        if c == '\\' && !raw {
            i += 1;
            let Some(&e) = chars.get(i) else { continue };
            i += 1;
            match e {
                'n' => text.push('\n'),
                't' => text.push('\t'),
                'r' => text.push('\r'),
                '0' => text.push('\0'),
                '\\' => text.push('\\'),
                '\'' => text.push('\''),
                '"' => text.push('"'),
                '\n' => lines += 1,
                'x' | 'u' | 'U' => {
                    let n = match e {
                        'x' => 2,
                        'u' => 4,
                        _ => 8,
                    };
                    let hex: String = chars[i..chars.len().min(i + n)].iter().collect();
                    match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                        Some(ch) if hex.len() == n => text.push(ch),
                        _ => return Err(Refusal::syntax(line, format!("bad escape \\{e}{hex}"))),
                    }
                    i += n;
                }
                e => {
                    text.push('\\');
                    text.push(e);
                }
            }
            continue;
        }
        if c == '\\' && raw {
            text.push(c);
            if let Some(&n) = chars.get(i + 1) {
                text.push(n);
                i += 2;
                continue;
            }
        }
        text.push(c);
        i += 1;
    }
    if !f {
        return Ok((Tok::Str(text), i, lines));
    }
    Ok((Tok::FStr(fstring(&text, line)?), i, lines))
}

fn fstring(text: &str, line: usize) -> Result<Vec<FPart>, Refusal> {
    let chars: Vec<char> = text.chars().collect();
    let mut parts = Vec::new();
    let mut lit = String::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '{' if chars.get(i + 1) == Some(&'{') => {
                lit.push('{');
                i += 2;
            }
            '}' if chars.get(i + 1) == Some(&'}') => {
                lit.push('}');
                i += 2;
            }
            '{' => {
                let mut depth = 1;
                let mut j = i + 1;
                while j < chars.len() {
                    match chars[j] {
                        '{' | '[' | '(' => depth += 1,
                        '}' | ']' | ')' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
                let inner: String = chars[i + 1..j.min(chars.len())].iter().collect();
                if j >= chars.len() {
                    return Err(Refusal::syntax(line, "f-string: expecting '}'"));
                }
                if inner.contains(['!', ':']) && !inner.contains("!=") {
                    return Err(Refusal::construct(
                        line,
                        format!("the f-string format {{{inner}}}"),
                        "put the value in alone ({name}), or format it first with str() or round()",
                    ));
                }
                if !lit.is_empty() {
                    parts.push(FPart::Text(std::mem::take(&mut lit)));
                }
                parts.push(FPart::Expr(parse(&inner, line)?));
                i = j + 1;
            }
            c => {
                lit.push(c);
                i += 1;
            }
        }
    }
    if !lit.is_empty() {
        parts.push(FPart::Text(lit));
    }
    Ok(parts)
}

/// Parses one expression's text (an f-string's `{...}`).
pub(crate) fn parse(text: &str, line: usize) -> Result<PyExpr, Refusal> {
    let toks: Vec<(Tok, usize)> = tokens(text.trim())?
        .into_iter()
        .filter(|(t, _)| !matches!(t, Tok::Newline | Tok::Indent | Tok::Dedent))
        .map(|(t, _)| (t, line))
        .collect();
    let mut p = ExprParser::new(&toks);
    let e = p.expr()?;
    if p.pos < toks.len() {
        return Err(Refusal::syntax(
            line,
            format!("unexpected {} in expression", p.describe()),
        ));
    }
    Ok(e)
}

/// An expression parser over a slice of tokens, from `pos`.
pub(crate) struct ExprParser<'a> {
    pub toks: &'a [(Tok, usize)],
    pub pos: usize,
}

impl<'a> ExprParser<'a> {
    pub fn new(toks: &'a [(Tok, usize)]) -> Self {
        ExprParser { toks, pos: 0 }
    }

    pub fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.0)
    }

    pub fn line(&self) -> usize {
        self.toks
            .get(self.pos)
            .or_else(|| self.toks.last())
            .map_or(1, |t| t.1)
    }

    pub fn is_op(&self, op: &str) -> bool {
        matches!(self.peek(), Some(Tok::Op(o)) if *o == op)
    }

    pub fn is_name(&self, name: &str) -> bool {
        matches!(self.peek(), Some(Tok::Name(n)) if n == name)
    }

    pub fn eat_op(&mut self, op: &str) -> bool {
        if self.is_op(op) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    pub fn expect_op(&mut self, op: &str) -> Result<(), Refusal> {
        if self.eat_op(op) {
            Ok(())
        } else {
            Err(Refusal::syntax(
                self.line(),
                format!("expected \"{op}\" but found {}", self.describe()),
            ))
        }
    }

    pub fn describe(&self) -> String {
        match self.peek() {
            None | Some(Tok::Newline) => "the end of the line".into(),
            Some(Tok::Name(n)) => format!("\"{n}\""),
            Some(Tok::Op(o)) => format!("\"{o}\""),
            Some(Tok::Int(n)) => n.to_string(),
            Some(Tok::Float(f)) => f.to_string(),
            Some(Tok::Str(_) | Tok::FStr(_)) => "a string".into(),
            Some(Tok::Indent) => "an indented block".into(),
            Some(Tok::Dedent) => "the end of a block".into(),
            Some(Tok::Comment(_)) => "a comment".into(),
        }
    }

    /// A full expression, with `x if c else y`; a bare tuple `a, b` is refused by callers.
    pub fn expr(&mut self) -> Result<PyExpr, Refusal> {
        if self.is_name("lambda") {
            return Err(Refusal::construct(
                self.line(),
                "lambda (a Python function)",
                "write the expression out where it is used",
            ));
        }
        let e = self.or()?;
        if self.is_name("if") {
            self.pos += 1;
            let c = self.or()?;
            if !self.is_name("else") {
                return Err(Refusal::syntax(
                    self.line(),
                    "expected \"else\" in a conditional expression",
                ));
            }
            self.pos += 1;
            let b = self.expr()?;
            return Ok(PyExpr::IfElse(Box::new(c), Box::new(e), Box::new(b)));
        }
        Ok(e)
    }

    fn or(&mut self) -> Result<PyExpr, Refusal> {
        let mut e = self.and()?;
        while self.is_name("or") {
            self.pos += 1;
            e = PyExpr::Or(Box::new(e), Box::new(self.and()?));
        }
        Ok(e)
    }

    fn and(&mut self) -> Result<PyExpr, Refusal> {
        let mut e = self.not()?;
        while self.is_name("and") {
            self.pos += 1;
            e = PyExpr::And(Box::new(e), Box::new(self.not()?));
        }
        Ok(e)
    }

    fn not(&mut self) -> Result<PyExpr, Refusal> {
        if self.is_name("not") {
            self.pos += 1;
            return Ok(PyExpr::Not(Box::new(self.not()?)));
        }
        self.comparison()
    }

    fn comparison(&mut self) -> Result<PyExpr, Refusal> {
        let first = self.binary(0)?;
        let mut rest = Vec::new();
        loop {
            let op = match self.peek() {
                Some(Tok::Op(o @ ("<" | ">" | "==" | "!=" | "<=" | ">="))) => *o,
                Some(Tok::Name(n)) if n == "in" => "in",
                Some(Tok::Name(n))
                    if n == "not"
                        && matches!(self.toks.get(self.pos + 1), Some((Tok::Name(m), _)) if m == "in") =>
                {
                    self.pos += 1;
                    "not in"
                }
                Some(Tok::Name(n)) if n == "is" => {
                    if matches!(self.toks.get(self.pos + 1), Some((Tok::Name(m), _)) if m == "not")
                    {
                        self.pos += 1;
                        "is not"
                    } else {
                        "is"
                    }
                }
                _ => break,
            };
            self.pos += 1;
            rest.push((op, self.binary(0)?));
        }
        if rest.is_empty() {
            Ok(first)
        } else {
            Ok(PyExpr::Compare(Box::new(first), rest))
        }
    }

    fn binary(&mut self, level: usize) -> Result<PyExpr, Refusal> {
        const LEVELS: &[&[&str]] = &[
            &["|"],
            &["^"],
            &["&"],
            &["<<", ">>"],
            &["+", "-"],
            &["*", "/", "//", "%", "@"],
        ];
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut e = self.binary(level + 1)?;
        loop {
            let op = match self.peek() {
                Some(Tok::Op(o)) if LEVELS[level].contains(o) => *o,
                _ => return Ok(e),
            };
            self.pos += 1;
            e = PyExpr::Binary(op, Box::new(e), Box::new(self.binary(level + 1)?));
        }
    }

    fn unary(&mut self) -> Result<PyExpr, Refusal> {
        match self.peek() {
            Some(Tok::Op(o @ ("-" | "+" | "~"))) => {
                let o = *o;
                self.pos += 1;
                let e = self.unary()?;
                Ok(match (o, e) {
                    ("-", PyExpr::Int(n)) => PyExpr::Int(-n),
                    ("-", PyExpr::Float(f)) => PyExpr::Float(-f),
                    ("+", e) => e,
                    (o, e) => PyExpr::Unary(o, Box::new(e)),
                })
            }
            _ => self.power(),
        }
    }

    fn power(&mut self) -> Result<PyExpr, Refusal> {
        let base = self.postfix()?;
        if self.eat_op("**") {
            let exp = self.unary()?;
            return Ok(PyExpr::Binary("**", Box::new(base), Box::new(exp)));
        }
        Ok(base)
    }

    fn postfix(&mut self) -> Result<PyExpr, Refusal> {
        let mut e = self.atom()?;
        loop {
            if self.eat_op(".") {
                let Some(Tok::Name(n)) = self.peek().cloned() else {
                    return Err(Refusal::syntax(
                        self.line(),
                        format!("expected a name after \".\" but found {}", self.describe()),
                    ));
                };
                self.pos += 1;
                e = PyExpr::Attr(Box::new(e), n);
            } else if self.eat_op("(") {
                let mut args = Vec::new();
                let mut kwargs = Vec::new();
                while !self.is_op(")") {
                    if self.is_op("*") || self.is_op("**") {
                        return Err(Refusal::construct(
                            self.line(),
                            "* and ** arguments",
                            "pass each argument by itself",
                        ));
                    }
                    let kw = match (self.peek(), self.toks.get(self.pos + 1)) {
                        (Some(Tok::Name(n)), Some((Tok::Op("="), _))) => Some(n.clone()),
                        _ => None,
                    };
                    if let Some(k) = kw {
                        self.pos += 2;
                        kwargs.push((k, self.expr()?));
                    } else {
                        args.push(self.expr()?);
                    }
                    if !self.eat_op(",") {
                        break;
                    }
                }
                self.expect_op(")")?;
                e = PyExpr::Call {
                    f: Box::new(e),
                    args,
                    kwargs,
                };
            } else if self.eat_op("[") {
                let i = self.expr()?;
                if self.is_op(":") {
                    return Err(Refusal::construct(
                        self.line(),
                        "a slice (x[a:b])",
                        "take the values one by one, or write that part in Rhai",
                    ));
                }
                self.expect_op("]")?;
                e = PyExpr::Index(Box::new(e), Box::new(i));
            } else {
                return Ok(e);
            }
        }
    }

    fn atom(&mut self) -> Result<PyExpr, Refusal> {
        let line = self.line();
        let Some(tok) = self.peek().cloned() else {
            return Err(Refusal::syntax(
                line,
                "missing expression at the end of the line",
            ));
        };
        self.pos += 1;
        Ok(match tok {
            Tok::Int(n) => PyExpr::Int(n),
            Tok::Float(f) => PyExpr::Float(f),
            Tok::Str(s) => {
                // Adjacent literals join.
                let mut s = s;
                let mut parts: Option<Vec<FPart>> = None;
                loop {
                    match self.peek().cloned() {
                        Some(Tok::Str(t)) => match &mut parts {
                            Some(p) => p.push(FPart::Text(t)),
                            None => s.push_str(&t),
                        },
                        Some(Tok::FStr(f)) => {
                            let p = parts
                                .get_or_insert_with(|| vec![FPart::Text(std::mem::take(&mut s))]);
                            p.extend(f);
                        }
                        _ => break,
                    }
                    self.pos += 1;
                }
                match parts {
                    Some(p) => PyExpr::FStr(p),
                    None => PyExpr::Str(s),
                }
            }
            Tok::FStr(mut f) => {
                loop {
                    match self.peek().cloned() {
                        Some(Tok::Str(t)) => f.push(FPart::Text(t)),
                        Some(Tok::FStr(g)) => f.extend(g),
                        _ => break,
                    }
                    self.pos += 1;
                }
                PyExpr::FStr(f)
            }
            Tok::Name(n) => match n.as_str() {
                "True" => PyExpr::Bool(true),
                "False" => PyExpr::Bool(false),
                "None" => PyExpr::None,
                "yield" | "await" | "lambda" => {
                    return Err(Refusal::construct(line, n, "write that part in Rhai"))
                }
                _ => PyExpr::Name(n),
            },
            Tok::Op("(") => {
                if self.eat_op(")") {
                    return Ok(PyExpr::Tuple(Vec::new()));
                }
                let first = self.expr()?;
                if self.is_name("for") {
                    return Err(self.comprehension());
                }
                if self.eat_op(")") {
                    return Ok(first);
                }
                let mut items = vec![first];
                while self.eat_op(",") && !self.is_op(")") {
                    items.push(self.expr()?);
                }
                self.expect_op(")")?;
                PyExpr::Tuple(items)
            }
            Tok::Op("[") => {
                let mut items = Vec::new();
                while !self.is_op("]") {
                    items.push(self.expr()?);
                    if self.is_name("for") {
                        return Err(self.comprehension());
                    }
                    if !self.eat_op(",") {
                        break;
                    }
                }
                self.expect_op("]")?;
                PyExpr::List(items)
            }
            Tok::Op("{") => {
                let mut items = Vec::new();
                let mut pairs = Vec::new();
                while !self.is_op("}") {
                    let k = self.expr()?;
                    if self.is_name("for") {
                        return Err(self.comprehension());
                    }
                    if self.eat_op(":") {
                        pairs.push((k, self.expr()?));
                    } else {
                        items.push(k);
                    }
                    if !self.eat_op(",") {
                        break;
                    }
                }
                self.expect_op("}")?;
                if pairs.is_empty() && !items.is_empty() {
                    PyExpr::Set(items)
                } else if items.is_empty() {
                    PyExpr::Dict(pairs)
                } else {
                    return Err(Refusal::syntax(
                        line,
                        "a set or dictionary that mixes key: value and values",
                    ));
                }
            }
            _ => {
                self.pos -= 1;
                return Err(Refusal::syntax(
                    line,
                    format!("unexpected {} in expression", self.describe()),
                ));
            }
        })
    }

    fn comprehension(&self) -> Refusal {
        Refusal::construct(
            self.line(),
            "a comprehension ([x for x in ...])",
            "build the list with a for loop and append",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<Tok> {
        tokens(src).unwrap().into_iter().map(|t| t.0).collect()
    }

    #[test]
    fn indentation_becomes_blocks() {
        let t = kinds("if x:\n    a()\n    # note\n\nb()\n");
        assert_eq!(
            t,
            vec![
                Tok::Name("if".into()),
                Tok::Name("x".into()),
                Tok::Op(":"),
                Tok::Newline,
                Tok::Indent,
                Tok::Name("a".into()),
                Tok::Op("("),
                Tok::Op(")"),
                Tok::Newline,
                // A comment line goes with the code after it: after the block's end.
                Tok::Dedent,
                Tok::Comment(" note".into()),
                Tok::Name("b".into()),
                Tok::Op("("),
                Tok::Op(")"),
                Tok::Newline,
            ]
        );
        assert!(tokens("if x:\n    a()\n  b()\n")
            .unwrap_err()
            .message
            .contains("unindent"));
    }

    #[test]
    fn brackets_join_lines_and_lines_are_counted() {
        let t = tokens("f(1,\n  2)\ng()\n").unwrap();
        let g = t.iter().find(|(t, _)| *t == Tok::Name("g".into())).unwrap();
        assert_eq!(g.1, 3);
        assert!(!t[..6].iter().any(|(t, _)| *t == Tok::Newline));
    }

    #[test]
    fn strings_of_every_kind() {
        assert_eq!(kinds("'a\\tb'")[0], Tok::Str("a\tb".into()));
        assert_eq!(kinds("r'a\\tb'")[0], Tok::Str("a\\tb".into()));
        assert_eq!(kinds("\"\"\"x\ny\"\"\"")[0], Tok::Str("x\ny".into()));
        assert_eq!(
            kinds("f\"n={n}{{x}}\"")[0],
            Tok::FStr(vec![
                FPart::Text("n=".into()),
                FPart::Expr(PyExpr::Name("n".into())),
                FPart::Text("{x}".into())
            ])
        );
        assert!(tokens("f'{x:.2f}'")
            .unwrap_err()
            .message
            .contains("f-string format"));
        assert!(tokens("'abc").unwrap_err().message.contains("unterminated"));
    }

    #[test]
    fn expressions_by_python_s_precedence() {
        let e = parse("not a or b and c == 1 + 2 * 3", 1).unwrap();
        assert!(matches!(e, PyExpr::Or(..)));
        let e = parse("os.environ.get('X', 'd')", 1).unwrap();
        assert!(matches!(&e, PyExpr::Call { args, .. } if args.len() == 2));
        let e = parse("x not in {'1', 'on'}", 1).unwrap();
        assert!(matches!(&e, PyExpr::Compare(_, ops) if ops[0].0 == "not in"));
        assert!(matches!(
            parse("a if c else b", 1).unwrap(),
            PyExpr::IfElse(..)
        ));
        assert!(matches!(
            parse("-2 ** 2", 1).unwrap(),
            PyExpr::Unary("-", _)
        ));
        assert!(parse("[x for x in y]", 1)
            .unwrap_err()
            .message
            .contains("comprehension"));
        assert!(parse("a[1:2]", 1).unwrap_err().message.contains("slice"));
        assert!(parse("lambda x: x", 1)
            .unwrap_err()
            .message
            .contains("lambda"));
    }
}
