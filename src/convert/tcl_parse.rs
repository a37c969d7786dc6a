//! Tcl's syntax, by its twelve rules: a script of commands, each a list of words; words in
//! braces (literal), in quotes or bare (with `$var`, `[script]` and backslash substitution);
//! comments at a command's start; every command and word knows its line.

use super::Refusal;

/// A script: commands and the comments between them.
pub(crate) type Script = Vec<Item>;

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Item {
    Command(Command),
    /// `# text` at a command's start (the text after `#`).
    Comment {
        line: usize,
        text: String,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Command {
    pub line: usize,
    /// The line the command ends on (a braced body can span many).
    pub end_line: usize,
    pub words: Vec<Word>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Word {
    pub line: usize,
    pub kind: WordKind,
    /// The word as written, for `expr` arguments and conditions that are not braced.
    pub raw: String,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum WordKind {
    /// `{...}`: the text between the braces as written (a body, an expression, a literal).
    Braced(String),
    /// `"..."`: text and substitutions.
    Quoted(Vec<Part>),
    /// Anything else: text and substitutions.
    Bare(Vec<Part>),
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Part {
    Text(String),
    /// `$name`, `${name}` or `$name(index)`.
    Var {
        name: String,
        index: Option<Vec<Part>>,
    },
    /// `[script]`.
    Script {
        line: usize,
        items: Script,
    },
}

impl Word {
    /// The word's value when it holds no substitution: a braced word's text (with Tcl's
    /// backslash-newline folded to a space), or a bare or quoted word's text.
    pub fn literal(&self) -> Option<String> {
        match &self.kind {
            WordKind::Braced(text) => Some(fold_continuations(text)),
            WordKind::Quoted(parts) | WordKind::Bare(parts) => {
                let mut out = String::new();
                for p in parts {
                    match p {
                        Part::Text(t) => out.push_str(t),
                        _ => return None,
                    }
                }
                Some(out)
            }
        }
    }
}

/// Tcl's backslash-newline (with the white space after it) as one space.
pub(crate) fn fold_continuations(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some('\n') => {
                    chars.next();
                    while matches!(chars.peek(), Some(' ' | '\t')) {
                        chars.next();
                    }
                    out.push(' ');
                }
                Some(&n) => {
                    out.push(c);
                    out.push(n);
                    chars.next();
                }
                None => out.push(c),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Parses a whole script whose first line is `line`.
pub(crate) fn parse(text: &str, line: usize) -> Result<Script, Refusal> {
    let mut p = Parser::new(text, line);
    p.script(false)
}

/// Splits a Tcl list (the text of `{1 2 {a b}}`) into its elements, without substitution;
/// `None` when it is no proper list (an open brace or quote).
pub(crate) fn split_list(text: &str) -> Option<Vec<String>> {
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let mut out = Vec::new();
    loop {
        while i < chars.len() && chars[i].is_whitespace() {
            i += 1;
        }
        if i >= chars.len() {
            return Some(out);
        }
        let mut word = String::new();
        match chars[i] {
            '{' => {
                let mut depth = 1;
                i += 1;
                loop {
                    let c = *chars.get(i)?;
                    i += 1;
                    match c {
                        '\\' => {
                            word.push(c);
                            word.push(*chars.get(i)?);
                            i += 1;
                        }
                        '{' => {
                            depth += 1;
                            word.push(c);
                        }
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                            word.push(c);
                        }
                        c => word.push(c),
                    }
                }
            }
            '"' => {
                i += 1;
                loop {
                    let c = *chars.get(i)?;
                    i += 1;
                    match c {
                        '\\' => {
                            word.push(*chars.get(i)?);
                            i += 1;
                        }
                        '"' => break,
                        c => word.push(c),
                    }
                }
            }
            _ => {
                while i < chars.len() && !chars[i].is_whitespace() {
                    if chars[i] == '\\' && i + 1 < chars.len() {
                        i += 1;
                    }
                    word.push(chars[i]);
                    i += 1;
                }
            }
        }
        if i < chars.len() && !chars[i].is_whitespace() {
            return None;
        }
        out.push(word);
    }
}

pub(crate) struct Parser {
    chars: Vec<char>,
    pub pos: usize,
    pub line: usize,
}

impl Parser {
    pub fn new(text: &str, line: usize) -> Self {
        Parser {
            chars: text.chars().collect(),
            pos: 0,
            line,
        }
    }

    pub fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    pub fn peek_at(&self, n: usize) -> Option<char> {
        self.chars.get(self.pos + n).copied()
    }

    pub fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += 1;
        if c == '\n' {
            self.line += 1;
        }
        Some(c)
    }

    pub fn at_end(&self) -> bool {
        self.pos >= self.chars.len()
    }

    fn slice(&self, from: usize) -> String {
        self.chars[from..self.pos].iter().collect()
    }

    /// Commands up to the end, or up to the `]` that closes a command substitution.
    pub fn script(&mut self, in_bracket: bool) -> Result<Script, Refusal> {
        let start_line = self.line;
        let mut items = Vec::new();
        loop {
            // Between commands: white space, newlines, semicolons, backslash-newlines.
            loop {
                match self.peek() {
                    Some(c) if c.is_whitespace() || c == ';' => {
                        self.bump();
                    }
                    Some('\\') if self.peek_at(1) == Some('\n') => {
                        self.bump();
                        self.bump();
                    }
                    _ => break,
                }
            }
            match self.peek() {
                None if in_bracket => {
                    return Err(Refusal::syntax(
                        start_line,
                        "missing close-bracket: the [ opened on this line is never closed",
                    ))
                }
                None => return Ok(items),
                Some(']') if in_bracket => {
                    self.bump();
                    return Ok(items);
                }
                Some('#') => {
                    let line = self.line;
                    self.bump();
                    let from = self.pos;
                    while let Some(c) = self.peek() {
                        if c == '\n' {
                            break;
                        }
                        if c == '\\' && self.peek_at(1) == Some('\n') {
                            self.bump();
                        }
                        self.bump();
                    }
                    items.push(Item::Comment {
                        line,
                        text: self.slice(from),
                    });
                }
                Some(_) => {
                    let cmd = self.command(in_bracket)?;
                    if !cmd.words.is_empty() {
                        items.push(Item::Command(cmd));
                    }
                }
            }
        }
    }

    fn command(&mut self, in_bracket: bool) -> Result<Command, Refusal> {
        let line = self.line;
        let mut words = Vec::new();
        loop {
            loop {
                match self.peek() {
                    Some(' ' | '\t' | '\r') => {
                        self.bump();
                    }
                    Some('\\') if self.peek_at(1) == Some('\n') => {
                        self.bump();
                        self.bump();
                    }
                    _ => break,
                }
            }
            match self.peek() {
                None | Some('\n' | ';') => break,
                Some(']') if in_bracket => break,
                Some(_) => words.push(self.word(in_bracket)?),
            }
        }
        Ok(Command {
            line,
            end_line: self.line,
            words,
        })
    }

    fn ends_word(c: char, in_bracket: bool) -> bool {
        c.is_whitespace() || c == ';' || (in_bracket && c == ']')
    }

    fn word(&mut self, in_bracket: bool) -> Result<Word, Refusal> {
        let line = self.line;
        let from = self.pos;
        let kind = match self.peek() {
            Some('{') => {
                if self.peek_at(1) == Some('*')
                    && self.peek_at(2) == Some('}')
                    && self.peek_at(3).is_some_and(|c| !c.is_whitespace())
                {
                    return Err(Refusal::construct(
                        line,
                        "{*} (argument expansion)",
                        "pass each argument as its own word",
                    ));
                }
                let kind = self.braced()?;
                self.after_close(line, "close-brace", in_bracket)?;
                kind
            }
            Some('"') => {
                self.bump();
                let parts = self.parts(|c| c == '"', false)?;
                if self.bump() != Some('"') {
                    return Err(Refusal::syntax(
                        line,
                        "missing \": the quote opened on this line is never closed",
                    ));
                }
                self.after_close(line, "close-quote", in_bracket)?;
                WordKind::Quoted(parts)
            }
            _ => WordKind::Bare(self.parts(|c| Self::ends_word(c, in_bracket), true)?),
        };
        Ok(Word {
            line,
            kind,
            raw: self.slice(from),
        })
    }

    fn after_close(&self, line: usize, what: &str, in_bracket: bool) -> Result<(), Refusal> {
        match self.peek() {
            Some(c) if !Self::ends_word(c, in_bracket) => Err(Refusal::syntax(
                line,
                format!("extra characters after {what}: {c:?} (a space must follow it)"),
            )),
            _ => Ok(()),
        }
    }

    /// A braced word, from its `{` past its `}`: the text between, as written.
    pub fn braced(&mut self) -> Result<WordKind, Refusal> {
        let line = self.line;
        self.bump();
        let from = self.pos;
        let mut depth = 1;
        loop {
            match self.peek() {
                None => {
                    return Err(Refusal::syntax(
                        line,
                        "missing close-brace: the { opened on this line is never closed",
                    ))
                }
                Some('\\') => {
                    self.bump();
                    self.bump();
                }
                Some('{') => {
                    depth += 1;
                    self.bump();
                }
                Some('}') => {
                    depth -= 1;
                    if depth == 0 {
                        let text = self.slice(from);
                        self.bump();
                        return Ok(WordKind::Braced(text));
                    }
                    self.bump();
                }
                Some(_) => {
                    self.bump();
                }
            }
        }
    }

    /// Text and substitutions up to a character `stop` says ends them (not consumed).
    /// `bare`: a word outside quotes, where a newline always ends it.
    pub fn parts(&mut self, stop: impl Fn(char) -> bool, bare: bool) -> Result<Vec<Part>, Refusal> {
        let mut parts = Vec::new();
        let mut text = String::new();
        let flush = |text: &mut String, parts: &mut Vec<Part>| {
            if !text.is_empty() {
                parts.push(Part::Text(std::mem::take(text)));
            }
        };
        while let Some(c) = self.peek() {
            if stop(c) || (bare && c == '\n') {
                break;
            }
            match c {
                '\\' => {
                    self.bump();
                    self.escape(&mut text);
                }
                '$' => match self.var()? {
                    Some(part) => {
                        flush(&mut text, &mut parts);
                        parts.push(part);
                    }
                    None => text.push('$'),
                },
                '[' => {
                    flush(&mut text, &mut parts);
                    parts.push(self.bracket()?);
                }
                c => {
                    self.bump();
                    text.push(c);
                }
            }
        }
        flush(&mut text, &mut parts);
        Ok(parts)
    }

    /// `[script]`, from its `[` past its `]`.
    pub fn bracket(&mut self) -> Result<Part, Refusal> {
        let line = self.line;
        self.bump();
        let items = self.script(true)?;
        Ok(Part::Script { line, items })
    }

    /// A variable at `$`: `Some` with the part, or `None` (the `$` consumed) when no name
    /// follows, so that the `$` is text.
    pub fn var(&mut self) -> Result<Option<Part>, Refusal> {
        let line = self.line;
        self.bump();
        if self.peek() == Some('{') {
            self.bump();
            let from = self.pos;
            while self.peek().is_some_and(|c| c != '}') {
                self.bump();
            }
            if self.at_end() {
                return Err(Refusal::syntax(
                    line,
                    "missing close-brace for a ${name} variable",
                ));
            }
            let name = self.slice(from);
            self.bump();
            return Ok(Some(Part::Var { name, index: None }));
        }
        let from = self.pos;
        loop {
            match self.peek() {
                Some(c) if c.is_ascii_alphanumeric() || c == '_' => {
                    self.bump();
                }
                Some(':') if self.peek_at(1) == Some(':') => {
                    self.bump();
                    self.bump();
                    while self.peek() == Some(':') {
                        self.bump();
                    }
                }
                _ => break,
            }
        }
        if self.pos == from {
            return Ok(None);
        }
        let name = self.slice(from);
        let index = if self.peek() == Some('(') {
            self.bump();
            let parts = self.parts(|c| c == ')', false)?;
            if self.bump() != Some(')') {
                return Err(Refusal::syntax(
                    line,
                    format!("missing ) after ${name}(: the array index is never closed"),
                ));
            }
            Some(parts)
        } else {
            None
        };
        Ok(Some(Part::Var { name, index }))
    }

    /// A backslash sequence, the backslash consumed.
    fn escape(&mut self, text: &mut String) {
        let Some(c) = self.bump() else {
            text.push('\\');
            return;
        };
        match c {
            'n' => text.push('\n'),
            't' => text.push('\t'),
            'r' => text.push('\r'),
            'a' => text.push('\u{7}'),
            'b' => text.push('\u{8}'),
            'f' => text.push('\u{c}'),
            'v' => text.push('\u{b}'),
            '\n' => {
                while matches!(self.peek(), Some(' ' | '\t')) {
                    self.bump();
                }
                text.push(' ');
            }
            'x' | 'u' | 'U' => {
                let max = match c {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let mut value = 0u32;
                let mut n = 0;
                while n < max {
                    match self.peek().and_then(|d| d.to_digit(16)) {
                        Some(d) => {
                            value = value * 16 + d;
                            self.bump();
                            n += 1;
                        }
                        None => break,
                    }
                }
                if n == 0 {
                    text.push(c);
                } else {
                    text.push(char::from_u32(value).unwrap_or('\u{fffd}'));
                }
            }
            '0'..='7' => {
                let mut value = c.to_digit(8).unwrap_or(0);
                let mut n = 1;
                while n < 3 {
                    match self.peek().and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            self.bump();
                            n += 1;
                        }
                        None => break,
                    }
                }
                text.push(char::from_u32(value).unwrap_or('\u{fffd}'));
            }
            c => text.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commands(src: &str) -> Vec<Command> {
        parse(src, 1)
            .unwrap()
            .into_iter()
            .filter_map(|i| match i {
                Item::Command(c) => Some(c),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn commands_split_at_newlines_and_semicolons() {
        let cmds = commands("dbset db pg; dbset bm TPC-C\n\n  diset tpcc pg_count_ware 4\n");
        assert_eq!(cmds.len(), 3);
        assert_eq!(cmds[0].line, 1);
        assert_eq!(cmds[1].line, 1);
        assert_eq!(cmds[2].line, 3);
        let lits: Vec<_> = cmds[2].words.iter().map(|w| w.literal().unwrap()).collect();
        assert_eq!(lits, ["diset", "tpcc", "pg_count_ware", "4"]);
    }

    #[test]
    fn comments_start_commands_only() {
        let items = parse("# one\nputs a ;# two\nputs #three", 1).unwrap();
        assert_eq!(
            items[0],
            Item::Comment {
                line: 1,
                text: " one".into()
            }
        );
        assert!(matches!(&items[2], Item::Comment { line: 2, text } if text == " two"));
        let Item::Command(c) = &items[3] else {
            panic!()
        };
        assert_eq!(c.words[1].literal().unwrap(), "#three");
    }

    #[test]
    fn continuations_join_lines() {
        let cmds = commands("diset tpcc \\\n   pg_count_ware 4\nputs x");
        assert_eq!(cmds[0].words.len(), 4);
        assert_eq!(cmds[1].line, 3);
        assert_eq!(
            fold_continuations("a \\\n    b"),
            "a  b",
            "the newline and the indent after it are one space"
        );
    }

    #[test]
    fn words_braced_quoted_and_substituted() {
        let cmds =
            commands("set of [ open \"$tmpdir/x.${n}\" w ]\nset l {a {b c}}\nputs $::env(TMP)");
        let WordKind::Bare(parts) = &cmds[0].words[2].kind else {
            panic!()
        };
        let Part::Script { items, .. } = &parts[0] else {
            panic!()
        };
        let Item::Command(open) = &items[0] else {
            panic!()
        };
        assert_eq!(
            open.words[1].kind,
            WordKind::Quoted(vec![
                Part::Var {
                    name: "tmpdir".into(),
                    index: None
                },
                Part::Text("/x.".into()),
                Part::Var {
                    name: "n".into(),
                    index: None
                },
            ])
        );
        assert_eq!(cmds[1].words[2].kind, WordKind::Braced("a {b c}".into()));
        assert_eq!(
            cmds[2].words[1].kind,
            WordKind::Bare(vec![Part::Var {
                name: "::env".into(),
                index: Some(vec![Part::Text("TMP".into())])
            }])
        );
    }

    #[test]
    fn backslashes_and_a_lone_dollar() {
        let cmds = commands(r#"puts "a\tb\x41\101 \$x $ \[""#);
        assert_eq!(cmds[0].words[1].literal().unwrap(), "a\tbAA $x $ [");
    }

    #[test]
    fn lines_are_counted_inside_words() {
        let cmds = commands("if {1} {\n  puts a\n}\nputs \"x\ny\"\nputs z");
        assert_eq!(cmds[0].line, 1);
        assert_eq!(cmds[0].end_line, 3);
        assert_eq!(cmds[1].line, 4);
        assert_eq!(cmds[2].line, 6);
    }

    #[test]
    fn unbalanced_input_names_its_line() {
        let e = parse("puts a\nif {1} {\nputs b\n", 1).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("missing close-brace"), "{e}");
        let e = parse("set x [vurun\n", 1).unwrap_err();
        assert_eq!(e.line, 1);
        assert!(e.message.contains("close-bracket"), "{e}");
        let e = parse("puts \"abc\n", 1).unwrap_err();
        assert!(e.message.contains("missing \""), "{e}");
        let e = parse("puts {a}b", 1).unwrap_err();
        assert!(
            e.message.contains("extra characters after close-brace"),
            "{e}"
        );
        let e = parse("foo {*}$args", 1).unwrap_err();
        assert!(e.message.contains("{*}"), "{e}");
    }

    #[test]
    fn lists_split_into_elements() {
        assert_eq!(
            split_list(" 1 \"two\" {3 4} ").unwrap(),
            ["1", "two", "3 4"]
        );
        assert_eq!(split_list("").unwrap(), Vec::<String>::new());
        assert_eq!(split_list("a $b").unwrap(), ["a", "$b"]);
        assert_eq!(split_list("a {b"), None);
        assert_eq!(split_list("{a}b"), None);
    }
}
