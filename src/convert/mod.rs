//! HammerDB's scripts in hammer: translators from its Tcl dialect ([`tcl`]) and its Python
//! front end ([`python`]) to Rhai, which `hammer auto FILE.tcl` runs and `hammer convert` prints.
//!
//! A translation is plain text to plain text: it knows the command table (which words are
//! hammer's commands) and nothing of the session. Every generated Rhai line remembers the
//! source line it came from, so an error at run time names the Tcl or Python line. Whatever
//! has no translation is refused by name with its line and what to use instead; nothing is
//! dropped without a word. The functions the generated Rhai calls beyond hammer's commands
//! (`puts`, `open`, `as_number`, ...) are registered by `script::host`.

mod emit;
mod py_expr;
pub mod python;
pub mod tcl;
mod tcl_expr;
mod tcl_parse;

use std::fmt;
use std::path::Path;

pub use emit::Converted;

/// The languages HammerDB's CLI runs scripts in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    Tcl,
    Python,
}

impl Language {
    /// The language of a script by its extension (`.tcl`, `.py`); `None` for anything else,
    /// which hammer runs as Rhai.
    pub fn of(path: &Path) -> Option<Language> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "tcl" => Some(Language::Tcl),
            "py" => Some(Language::Python),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Language::Tcl => "Tcl",
            Language::Python => "Python",
        }
    }
}

/// Something in a script that has no translation: its line, and a message that names the
/// construct and says what to use instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// 1-based line in the source script.
    pub line: usize,
    pub message: String,
}

impl Refusal {
    /// A construct hammer does not translate, and the way out.
    pub fn construct(
        line: usize,
        construct: impl fmt::Display,
        instead: impl fmt::Display,
    ) -> Self {
        Refusal {
            line,
            message: format!("{construct} is not translated: {instead}"),
        }
    }

    /// A script that is not well formed (an open brace, a quote never closed).
    pub fn syntax(line: usize, message: impl Into<String>) -> Self {
        Refusal {
            line,
            message: message.into(),
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.line, self.message)
    }
}

/// Translates `source` written in `language` to Rhai; every refusal when anything cannot be
/// translated, in line order.
pub fn convert(source: &str, language: Language) -> Result<Converted, Vec<Refusal>> {
    match language {
        Language::Tcl => tcl::convert(source),
        Language::Python => python::convert(source),
    }
}

/// Splits a Tcl list (`1 2 {a b}`) into its elements; `None` when it is no proper list.
pub fn split_tcl_list(text: &str) -> Option<Vec<String>> {
    tcl_parse::split_list(text)
}

/// The comment `hammer convert` puts above the Rhai it prints: where it came from and how to run it.
pub fn header(path: &Path, language: Language) -> String {
    let name = path.display();
    format!(
        "// Converted by hammer convert {} from {name} ({} as HammerDB's CLI runs it).\n\
         // Run it with: hammer auto FILE.rhai\n",
        crate::VERSION,
        language.name()
    )
}

/// HammerDB's helpers that are no command but that its example scripts call, and the type
/// of what they return.
pub(crate) const HELPERS: &[&str] = &["numberOfCPUs", "numberOfWHs"];

/// The commands that make a job, and the label HammerDB's return value gives it
/// (`Benchmark Run jobid=ID`): a converted script's `set jobid [ vurun ]` holds that text, as
/// HammerDB's does, so a file a run script writes reads as HammerDB's.
pub(crate) fn job_label(name: &str) -> Option<&'static str> {
    Some(match name {
        "buildschema" => "Schema Build",
        "checkschema" => "Schema Check",
        "deleteschema" => "Schema Delete",
        "datagenrun" => "Data Generation",
        "vurun" => "Benchmark Run",
        _ => return None,
    })
}

/// A job-making command's call as the value HammerDB's command returns.
pub(crate) fn job_value(name: &str, call: String) -> String {
    match job_label(name) {
        Some(label) => format!("job_reply({}, {call})", string_literal(label)),
        None => call,
    }
}

/// A statement whose value is not used: a job-making command's call as it is.
pub(crate) fn statement(code: &str) -> String {
    let bare = code.strip_prefix("job_reply(").and_then(|rest| {
        let label = job_label_of_literal(rest)?;
        rest.strip_prefix(&format!("{}, ", string_literal(label)))?
            .strip_suffix(')')
    });
    format!("{};", bare.unwrap_or(code))
}

fn job_label_of_literal(rest: &str) -> Option<&'static str> {
    [
        "buildschema",
        "checkschema",
        "deleteschema",
        "datagenrun",
        "vurun",
    ]
    .into_iter()
    .filter_map(job_label)
    .find(|l| rest.starts_with(&string_literal(l)))
}

/// Rhai's keywords and reserved words: a variable of the script with one of these names
/// gets a trailing underscore.
const RHAI_RESERVED: &[&str] = &[
    "let",
    "const",
    "if",
    "else",
    "switch",
    "do",
    "while",
    "until",
    "loop",
    "for",
    "in",
    "break",
    "continue",
    "return",
    "throw",
    "try",
    "catch",
    "fn",
    "private",
    "import",
    "export",
    "as",
    "global",
    "true",
    "false",
    "this",
    "Fn",
    "call",
    "curry",
    "is_shared",
    "is_def_fn",
    "is_def_var",
    "type_of",
    "print",
    "debug",
    "eval",
    "var",
    "static",
    "goto",
    "exit",
    "match",
    "case",
    "public",
    "protected",
    "new",
    "use",
    "with",
    "module",
    "package",
    "super",
    "spawn",
    "thread",
    "go",
    "sync",
    "async",
    "await",
    "yield",
    "default",
    "void",
    "null",
    "nil",
    "shared",
    "is",
    "ARGS",
];

/// The Rhai name of a script variable: the name itself when Rhai takes it, else the name with
/// other characters as `_` and a trailing `_`.
pub(crate) fn ident(name: &str) -> String {
    let name = name.trim_start_matches("::");
    let valid = {
        let mut chars = name.chars();
        let first_ok = match chars.next() {
            Some(c) if c.is_ascii_alphabetic() => true,
            Some('_') => name.chars().skip(1).any(|c| c.is_ascii_alphanumeric()),
            _ => false,
        };
        first_ok && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    if valid && !RHAI_RESERVED.contains(&name) {
        return name.to_string();
    }
    let mut out: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if !out.starts_with(|c: char| c.is_ascii_alphabetic()) {
        out.insert_str(0, "v_");
    }
    out.push('_');
    out
}

/// A Rhai string literal holding `s` exactly.
pub(crate) fn string_literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// One piece of a string built from text and values.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Piece {
    Text(String),
    /// A Rhai expression whose value is put in as text.
    Value(String),
}

/// A Rhai expression for the string made of `pieces`: a plain literal when there is no
/// value in it, the expression itself when it is one value alone (`"$x"`), else an
/// interpolated string (`` `${dir}/file.${n}` ``) that stays on one line.
pub(crate) fn interpolate(pieces: &[Piece]) -> String {
    let mut merged: Vec<Piece> = Vec::new();
    for p in pieces {
        match (merged.last_mut(), p) {
            (Some(Piece::Text(a)), Piece::Text(b)) => a.push_str(b),
            (_, Piece::Text(t)) if t.is_empty() => {}
            _ => merged.push(p.clone()),
        }
    }
    match merged.as_slice() {
        [] => "\"\"".to_string(),
        [Piece::Text(t)] => string_literal(t),
        _ => {
            let mut out = String::from("`");
            for p in &merged {
                match p {
                    Piece::Value(e) => {
                        out.push_str("${");
                        out.push_str(e);
                        out.push('}');
                    }
                    Piece::Text(t) => {
                        let mut chars = t.chars().peekable();
                        while let Some(c) = chars.next() {
                            match c {
                                '`' => out.push_str("``"),
                                // Kept on one line, and no backslash that could join a `${`.
                                '\n' => out.push_str("${\"\\n\"}"),
                                '\r' => out.push_str("${\"\\r\"}"),
                                '\t' => out.push_str("${\"\\t\"}"),
                                '\\' => out.push_str("${\"\\\\\"}"),
                                '$' if chars.peek() == Some(&'{') => out.push_str("${\"$\"}"),
                                c => out.push(c),
                            }
                        }
                    }
                }
            }
            out.push('`');
            out
        }
    }
}

/// Whether `s` is an integer as it would be written in Rhai (no leading zeros, no sign but
/// `-`), so that the literal keeps its text when printed.
pub(crate) fn canonical_int(s: &str) -> Option<i64> {
    let digits = s.strip_prefix('-').unwrap_or(s);
    let plain = !digits.is_empty()
        && digits.chars().all(|c| c.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'));
    if !plain || s == "-0" {
        return None;
    }
    s.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_language_is_the_extension() {
        assert_eq!(Language::of(Path::new("a/b.tcl")), Some(Language::Tcl));
        assert_eq!(Language::of(Path::new("b.TCL")), Some(Language::Tcl));
        assert_eq!(Language::of(Path::new("b.py")), Some(Language::Python));
        assert_eq!(Language::of(Path::new("b.rhai")), None);
        assert_eq!(Language::of(Path::new("tcl")), None);
    }

    #[test]
    fn names_rhai_reserves_get_an_underscore() {
        assert_eq!(ident("jobid"), "jobid");
        assert_eq!(ident("::outputfile"), "outputfile");
        assert_eq!(ident("in"), "in_");
        assert_eq!(ident("my-var"), "my_var_");
        assert_eq!(ident("2x"), "v_2x_");
        assert_eq!(ident("_"), "v___");
        assert_eq!(ident("_a"), "_a");
    }

    #[test]
    fn strings_with_values_interpolate_on_one_line() {
        use Piece::*;
        assert_eq!(interpolate(&[]), "\"\"");
        assert_eq!(interpolate(&[Text("a\"b".into())]), r#""a\"b""#);
        assert_eq!(interpolate(&[Value("x".into())]), "`${x}`");
        assert_eq!(
            interpolate(&[Value("d".into()), Text("/f.".into()), Value("n".into())]),
            "`${d}/f.${n}`"
        );
        assert_eq!(
            interpolate(&[Text("a`\n\\${".into()), Value("x".into())]),
            "`a``${\"\\n\"}${\"\\\\\"}${\"$\"}{${x}`"
        );
    }

    #[test]
    fn only_canonical_integers_are_numbers() {
        assert_eq!(canonical_int("4"), Some(4));
        assert_eq!(canonical_int("-12"), Some(-12));
        assert_eq!(canonical_int("0"), Some(0));
        assert_eq!(canonical_int("007"), None);
        assert_eq!(canonical_int("+4"), None);
        assert_eq!(canonical_int("-0"), None);
        assert_eq!(canonical_int("4.0"), None);
        assert_eq!(canonical_int("99999999999999999999"), None);
    }
}
