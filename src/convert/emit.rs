//! The Rhai a translation writes: indented lines, each with the source line it came from.

/// One line of generated Rhai.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Line {
    pub indent: usize,
    pub text: String,
    /// 1-based line of the source script; 0 for a blank line.
    pub source: usize,
}

impl Line {
    pub fn new(indent: usize, text: impl Into<String>, source: usize) -> Self {
        Line {
            indent,
            text: text.into(),
            source,
        }
    }

    pub fn blank() -> Self {
        Line::new(0, "", 0)
    }
}

/// A translated script: Rhai source and, for each of its lines, the source line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Converted {
    pub rhai: String,
    lines: Vec<usize>,
}

impl Converted {
    pub(crate) fn from_lines(lines: Vec<Line>) -> Self {
        let mut rhai = String::new();
        let mut map = Vec::with_capacity(lines.len());
        let mut last = 1;
        for l in &lines {
            if l.text.is_empty() {
                rhai.push('\n');
            } else {
                for _ in 0..l.indent {
                    rhai.push_str("    ");
                }
                rhai.push_str(&l.text);
                rhai.push('\n');
            }
            if l.source > 0 {
                last = l.source;
            }
            // A blank line points at the line before it, so that every line maps somewhere.
            map.push(if l.source > 0 { l.source } else { last });
        }
        Converted { rhai, lines: map }
    }

    /// The source line behind line `rhai_line` (1-based) of the generated Rhai; the last
    /// line's for a position past the end (Rhai reports an unclosed block there).
    pub fn source_line(&self, rhai_line: usize) -> usize {
        match rhai_line.checked_sub(1) {
            Some(i) if i < self.lines.len() => self.lines[i],
            _ => self.lines.last().copied().unwrap_or(1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rhai_line_knows_its_source_line() {
        let c = Converted::from_lines(vec![
            Line::new(0, "let x = 1;", 3),
            Line::blank(),
            Line::new(0, "if x > 0 {", 5),
            Line::new(1, "puts(x);", 6),
            Line::new(0, "}", 5),
        ]);
        assert_eq!(c.rhai, "let x = 1;\n\nif x > 0 {\n    puts(x);\n}\n");
        assert_eq!(c.source_line(1), 3);
        assert_eq!(c.source_line(2), 3);
        assert_eq!(c.source_line(4), 6);
        assert_eq!(c.source_line(5), 5);
        assert_eq!(c.source_line(99), 5);
        assert_eq!(c.source_line(0), 5);
    }
}
