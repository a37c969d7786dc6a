//! Tcl's `expr` language parsed to a tree: numbers, strings, variables, command
//! substitutions, the operators by Tcl's precedence, and the math functions.

use super::tcl_parse::{Parser, Part, Script, WordKind};
use super::Refusal;

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Expr {
    Int(i64),
    /// A floating-point literal, as written in Rhai (`1.5`, `1e3` becomes `1000.0`).
    Float(f64),
    Bool(bool),
    /// A braced string or a word without substitution.
    Text(String),
    /// A quoted string with substitutions.
    Quoted(Vec<Part>),
    Var {
        name: String,
        index: Option<Vec<Part>>,
    },
    Script {
        line: usize,
        items: Script,
    },
    Unary(&'static str, Box<Expr>),
    Binary(&'static str, Box<Expr>, Box<Expr>),
    Ternary(Box<Expr>, Box<Expr>, Box<Expr>),
    Call(String, Vec<Expr>),
}

/// Binary operators from the loosest to the tightest, as Tcl groups them.
const LEVELS: &[&[&str]] = &[
    &["||"],
    &["&&"],
    &["|"],
    &["^"],
    &["&"],
    &["in", "ni"],
    &["eq", "ne", "lt", "gt", "le", "ge"],
    &["==", "!="],
    &["<", ">", "<=", ">="],
    &["<<", ">>"],
    &["+", "-"],
    &["*", "/", "%"],
    &["**"],
];

/// The math functions hammer translates.
pub(crate) const FUNCTIONS: &[&str] = &[
    "int", "wide", "entier", "double", "round", "abs", "ceil", "floor", "sqrt", "pow", "min",
    "max", "bool",
];

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Expr(Expr),
    Op(&'static str),
    Word(String),
    Open,
    Close,
    Comma,
    Question,
    Colon,
}

const OPS: &[&str] = &[
    "**", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+", "-", "*", "/", "%", "<", ">", "!",
    "~", "&", "|", "^",
];

/// Parses the text of an expression whose first line is `line`.
pub(crate) fn parse(text: &str, line: usize) -> Result<Expr, Refusal> {
    let toks = tokens(text, line)?;
    let mut p = ExprParser { toks, pos: 0, line };
    let e = p.ternary()?;
    if p.pos < p.toks.len() {
        return Err(p.error(&format!("unexpected {} in expression", p.describe())));
    }
    Ok(e)
}

fn tokens(text: &str, line: usize) -> Result<Vec<(Tok, usize)>, Refusal> {
    let mut p = Parser::new(text, line);
    let mut out = Vec::new();
    loop {
        loop {
            match p.peek() {
                Some(c) if c.is_whitespace() => {
                    p.bump();
                }
                Some('\\') if p.peek_at(1) == Some('\n') => {
                    p.bump();
                    p.bump();
                }
                _ => break,
            }
        }
        let at = p.line;
        let Some(c) = p.peek() else { break };
        let tok = match c {
            '$' => match p.var()? {
                Some(Part::Var { name, index }) => Tok::Expr(Expr::Var { name, index }),
                _ => {
                    return Err(Refusal::syntax(
                        at,
                        "a $ with no variable name in expression",
                    ))
                }
            },
            '[' => match p.bracket()? {
                Part::Script { line, items } => Tok::Expr(Expr::Script { line, items }),
                _ => unreachable!("a bracket is a script"),
            },
            '"' => {
                p.bump();
                let parts = p.parts(|c| c == '"', false)?;
                if p.bump() != Some('"') {
                    return Err(Refusal::syntax(at, "missing \" in expression"));
                }
                Tok::Expr(Expr::Quoted(parts))
            }
            '{' => match p.braced()? {
                WordKind::Braced(t) => Tok::Expr(Expr::Text(t)),
                _ => unreachable!("braced gives braced"),
            },
            '(' => {
                p.bump();
                Tok::Open
            }
            ')' => {
                p.bump();
                Tok::Close
            }
            ',' => {
                p.bump();
                Tok::Comma
            }
            '?' => {
                p.bump();
                Tok::Question
            }
            ':' => {
                p.bump();
                Tok::Colon
            }
            c if c.is_ascii_digit()
                || (c == '.' && p.peek_at(1).is_some_and(|d| d.is_ascii_digit())) =>
            {
                number(&mut p, at)?
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let mut w = String::new();
                while let Some(c) = p.peek().filter(|c| c.is_ascii_alphanumeric() || *c == '_') {
                    w.push(c);
                    p.bump();
                }
                match w.as_str() {
                    "eq" => Tok::Op("eq"),
                    "ne" => Tok::Op("ne"),
                    "in" => Tok::Op("in"),
                    "ni" => Tok::Op("ni"),
                    "lt" => Tok::Op("lt"),
                    "gt" => Tok::Op("gt"),
                    "le" => Tok::Op("le"),
                    "ge" => Tok::Op("ge"),
                    _ => Tok::Word(w),
                }
            }
            _ => {
                let rest: String = (0..2).filter_map(|i| p.peek_at(i)).collect();
                let Some(op) = OPS.iter().find(|op| rest.starts_with(**op)) else {
                    return Err(Refusal::syntax(
                        at,
                        format!("unexpected character {c:?} in expression"),
                    ));
                };
                for _ in 0..op.len() {
                    p.bump();
                }
                Tok::Op(op)
            }
        };
        out.push((tok, at));
    }
    Ok(out)
}

fn number(p: &mut Parser, at: usize) -> Result<Tok, Refusal> {
    let mut s = String::new();
    if p.peek() == Some('0') && matches!(p.peek_at(1), Some('x' | 'X')) {
        p.bump();
        p.bump();
        while let Some(c) = p.peek().filter(char::is_ascii_hexdigit) {
            s.push(c);
            p.bump();
        }
        return i64::from_str_radix(&s, 16)
            .map(|n| Tok::Expr(Expr::Int(n)))
            .map_err(|_| Refusal::syntax(at, format!("bad hexadecimal number 0x{s}")));
    }
    let mut float = false;
    while let Some(c) = p.peek() {
        if c.is_ascii_digit() {
            s.push(c);
        } else if c == '.' && !float {
            float = true;
            s.push(c);
        } else if matches!(c, 'e' | 'E')
            && (p.peek_at(1).is_some_and(|d| d.is_ascii_digit())
                || (matches!(p.peek_at(1), Some('+' | '-'))
                    && p.peek_at(2).is_some_and(|d| d.is_ascii_digit())))
        {
            float = true;
            s.push(c);
            p.bump();
            s.push(p.peek().unwrap_or('0'));
        } else {
            break;
        }
        p.bump();
    }
    if float {
        s.parse()
            .map(|f| Tok::Expr(Expr::Float(f)))
            .map_err(|_| Refusal::syntax(at, format!("bad number {s}")))
    } else {
        s.parse()
            .map(|n| Tok::Expr(Expr::Int(n)))
            .map_err(|_| Refusal::syntax(at, format!("number {s} is too large")))
    }
}

struct ExprParser {
    toks: Vec<(Tok, usize)>,
    pos: usize,
    line: usize,
}

impl ExprParser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.0)
    }

    fn at(&self) -> usize {
        self.toks.get(self.pos).map_or(self.line, |t| t.1)
    }

    fn error(&self, message: &str) -> Refusal {
        Refusal::syntax(self.at(), message.to_string())
    }

    fn describe(&self) -> String {
        match self.peek() {
            None => "end".into(),
            Some(Tok::Op(o)) => format!("\"{o}\""),
            Some(Tok::Word(w)) => format!("word \"{w}\""),
            Some(Tok::Open) => "\"(\"".into(),
            Some(Tok::Close) => "\")\"".into(),
            Some(Tok::Comma) => "\",\"".into(),
            Some(Tok::Question) => "\"?\"".into(),
            Some(Tok::Colon) => "\":\"".into(),
            Some(Tok::Expr(_)) => "operand".into(),
        }
    }

    fn ternary(&mut self) -> Result<Expr, Refusal> {
        let cond = self.binary(0)?;
        if self.peek() == Some(&Tok::Question) {
            self.pos += 1;
            let a = self.ternary()?;
            if self.peek() != Some(&Tok::Colon) {
                return Err(self.error(&format!("expected \":\" but found {}", self.describe())));
            }
            self.pos += 1;
            let b = self.ternary()?;
            return Ok(Expr::Ternary(Box::new(cond), Box::new(a), Box::new(b)));
        }
        Ok(cond)
    }

    fn binary(&mut self, level: usize) -> Result<Expr, Refusal> {
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut left = self.binary(level + 1)?;
        loop {
            let op = match self.peek() {
                Some(Tok::Op(op)) if LEVELS[level].contains(op) => *op,
                _ => return Ok(left),
            };
            self.pos += 1;
            if op == "**" {
                // Right-associative.
                let right = self.binary(level)?;
                return Ok(Expr::Binary(op, Box::new(left), Box::new(right)));
            }
            let right = self.binary(level + 1)?;
            left = Expr::Binary(op, Box::new(left), Box::new(right));
        }
    }

    fn unary(&mut self) -> Result<Expr, Refusal> {
        match self.peek() {
            Some(Tok::Op(op @ ("-" | "+" | "!" | "~"))) => {
                let op = *op;
                self.pos += 1;
                let e = self.unary()?;
                Ok(match (op, e) {
                    ("-", Expr::Int(n)) => Expr::Int(-n),
                    ("-", Expr::Float(f)) => Expr::Float(-f),
                    ("+", e) => e,
                    (op, e) => Expr::Unary(op, Box::new(e)),
                })
            }
            _ => self.primary(),
        }
    }

    fn primary(&mut self) -> Result<Expr, Refusal> {
        let Some(tok) = self.peek().cloned() else {
            return Err(self.error("missing operand at the end of the expression"));
        };
        self.pos += 1;
        match tok {
            Tok::Expr(e) => Ok(e),
            Tok::Open => {
                let e = self.ternary()?;
                if self.peek() != Some(&Tok::Close) {
                    return Err(
                        self.error(&format!("expected \")\" but found {}", self.describe()))
                    );
                }
                self.pos += 1;
                Ok(e)
            }
            Tok::Word(w) => {
                if self.peek() == Some(&Tok::Open) {
                    let at = self.at();
                    self.pos += 1;
                    let mut args = Vec::new();
                    if self.peek() != Some(&Tok::Close) {
                        loop {
                            args.push(self.ternary()?);
                            match self.peek() {
                                Some(Tok::Comma) => self.pos += 1,
                                Some(Tok::Close) => break,
                                _ => {
                                    return Err(self.error(&format!(
                                        "expected \",\" or \")\" but found {}",
                                        self.describe()
                                    )))
                                }
                            }
                        }
                    }
                    self.pos += 1;
                    if !FUNCTIONS.contains(&w.as_str()) {
                        return Err(Refusal::construct(
                            at,
                            format!("the math function {w}()"),
                            format!("use one of {}", FUNCTIONS.join(", ")),
                        ));
                    }
                    return Ok(Expr::Call(w, args));
                }
                match w.to_ascii_lowercase().as_str() {
                    "true" | "yes" | "on" => Ok(Expr::Bool(true)),
                    "false" | "no" | "off" => Ok(Expr::Bool(false)),
                    "inf" | "nan" => Err(self.error(&format!("{w} is not a number hammer takes"))),
                    _ => Err(Refusal::syntax(
                        self.toks[self.pos - 1].1,
                        format!("invalid bareword \"{w}\" in expression: put a string in quotes or braces"),
                    )),
                }
            }
            _ => {
                self.pos -= 1;
                Err(self.error(&format!("unexpected {} in expression", self.describe())))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(n: &str) -> Box<Expr> {
        Box::new(Expr::Var {
            name: n.into(),
            index: None,
        })
    }

    #[test]
    fn precedence_is_tcl_s() {
        let e = parse("$a + 2 * $b >= 200 && !$c", 1).unwrap();
        assert_eq!(
            e,
            Expr::Binary(
                "&&",
                Box::new(Expr::Binary(
                    ">=",
                    Box::new(Expr::Binary(
                        "+",
                        var("a"),
                        Box::new(Expr::Binary("*", Box::new(Expr::Int(2)), var("b")))
                    )),
                    Box::new(Expr::Int(200))
                )),
                Box::new(Expr::Unary("!", var("c")))
            )
        );
        assert_eq!(
            parse("2 ** 3 ** 2", 1).unwrap(),
            Expr::Binary(
                "**",
                Box::new(Expr::Int(2)),
                Box::new(Expr::Binary(
                    "**",
                    Box::new(Expr::Int(3)),
                    Box::new(Expr::Int(2))
                ))
            )
        );
    }

    #[test]
    fn operands_of_every_kind() {
        assert_eq!(parse("1.5", 1).unwrap(), Expr::Float(1.5));
        assert_eq!(parse("1e3", 1).unwrap(), Expr::Float(1000.0));
        assert_eq!(parse("0x1f", 1).unwrap(), Expr::Int(31));
        assert_eq!(parse("-4", 1).unwrap(), Expr::Int(-4));
        assert_eq!(parse("true", 1).unwrap(), Expr::Bool(true));
        assert_eq!(parse("{abc}", 1).unwrap(), Expr::Text("abc".into()));
        assert!(matches!(parse("\"a$b\"", 1).unwrap(), Expr::Quoted(p) if p.len() == 2));
        assert!(matches!(
            parse("[ numberOfCPUs ]", 1).unwrap(),
            Expr::Script { .. }
        ));
        assert!(matches!(parse("$x ? 1 : 2", 1).unwrap(), Expr::Ternary(..)));
        assert!(matches!(
            parse("int(ceil($x / 10.0))", 1).unwrap(),
            Expr::Call(f, a) if f == "int" && a.len() == 1
        ));
        assert!(matches!(
            parse("$u in {1 true}", 1).unwrap(),
            Expr::Binary("in", ..)
        ));
    }

    #[test]
    fn mistakes_name_what_is_wrong() {
        assert!(parse("$a +", 1)
            .unwrap_err()
            .message
            .contains("missing operand"));
        assert!(parse("(1", 1)
            .unwrap_err()
            .message
            .contains("expected \")\""));
        assert!(parse("abc", 1)
            .unwrap_err()
            .message
            .contains("invalid bareword"));
        let e = parse("1 +\n rand()", 4).unwrap_err();
        assert_eq!(e.line, 5);
        assert!(e.message.contains("rand()"), "{e}");
        assert!(parse("1 2", 1).unwrap_err().message.contains("unexpected"));
    }
}
