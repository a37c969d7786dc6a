//! What a dictionary key may hold: its kind, default and validation into one canonical text.

/// The type and range of a key. Values are kept as canonical text, as HammerDB keeps them.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// A whole number in `min..=max`.
    Int { min: i64, max: i64 },
    /// 0, which the key gives a meaning of its own (no limit, a computed default), or a whole
    /// number in `min..=max`: the values between would be traps.
    ZeroOr { min: i64, max: i64 },
    /// Minutes, fractions allowed (`0.5` is thirty seconds), in `min..=max`.
    Minutes { min: f64, max: f64 },
    /// A number, fractions allowed, in `min..=max`, or strictly between them when `open`
    /// (a distribution's parameter: sysbench's `--rand-pareto-h`).
    Real { min: f64, max: f64, open: bool },
    /// `true` or `false` (also accepts 1/0, yes/no, on/off).
    Bool,
    /// `0` or `1`, for HammerDB's numeric switches (`show_output`, `tc_log_to_temp`, ...).
    Flag,
    /// One of a fixed set of words, compared case-insensitively and stored as listed.
    Choice(&'static [&'static str]),
    /// Any text, empty included.
    Text,
    /// Non-empty text without whitespace: host names, user and database names.
    Name,
    /// A password: any text, never printed.
    Secret,
    /// A comma-separated list of words from a fixed set, all plain or all negated with `!`
    /// (libpq's `require_auth`), or empty; stored lower-case without blanks.
    Methods(&'static [&'static str]),
    /// A list of servers (`h1,h2:5433`, see [`crate::hostlist`]), stored without blanks;
    /// `empty` says whether no server at all is a valid value.
    Hosts { empty: bool },
    /// Empty, or a PostgreSQL connection string ([`crate::conninfo`]), stored as typed
    /// (trimmed) and shown with its password masked.
    Conninfo,
}

/// The longest rampup or duration: a year, far beyond any run and still a `Duration` that
/// every deadline (`Instant + duration`) can hold.
pub const MINUTES_MAX: f64 = 525_600.0;

impl Kind {
    pub const PORT: Kind = Kind::Int { min: 1, max: 65535 };

    /// Whether the key holds a number (and so has a range).
    pub fn is_numeric(&self) -> bool {
        matches!(
            self,
            Kind::Int { .. } | Kind::ZeroOr { .. } | Kind::Minutes { .. } | Kind::Real { .. }
        )
    }

    /// The values Tab offers: every valid word of an enumerated kind, none for the others.
    pub fn words(&self) -> Vec<String> {
        let words: &[&str] = match self {
            Kind::Bool => &["true", "false"],
            Kind::Flag => &["0", "1"],
            Kind::Choice(w) | Kind::Methods(w) => w,
            _ => &[],
        };
        words.iter().map(|w| w.to_string()).collect()
    }

    /// What a valid value looks like, for error messages.
    pub fn describe(&self) -> String {
        match self {
            Kind::Int { min, max } if *max == i64::MAX => format!("an integer >= {min}"),
            Kind::Int { min, max } => format!("an integer from {min} to {max}"),
            Kind::ZeroOr { min, max } => format!("0 or an integer from {min} to {max}"),
            Kind::Minutes { min, max } if *min > 0.0 => format!(
                "a number of minutes greater than 0 and at most {} (fractions allowed, e.g. 0.5)",
                format_minutes(*max)
            ),
            Kind::Minutes { min, max } => format!(
                "a number of minutes from {} to {} (fractions allowed, e.g. 0.5)",
                format_minutes(*min),
                format_minutes(*max)
            ),
            Kind::Real {
                min,
                max,
                open: true,
            } => format!(
                "a number greater than {} and less than {}",
                format_minutes(*min),
                format_minutes(*max)
            ),
            Kind::Real { min, max, .. } => format!(
                "a number from {} to {}",
                format_minutes(*min),
                format_minutes(*max)
            ),
            Kind::Bool => "true or false".to_string(),
            Kind::Flag => "0 or 1".to_string(),
            Kind::Choice(words) => format!("one of {}", words.join("|")),
            Kind::Text | Kind::Secret => "any text".to_string(),
            Kind::Name => "a non-empty name without spaces".to_string(),
            Kind::Methods(words) => format!(
                "empty, or a comma-separated list of {} (or of their negations, e.g. !{})",
                words.join("|"),
                words[0]
            ),
            Kind::Hosts { empty: true } => format!("empty, or {}", crate::hostlist::DESCRIBE),
            Kind::Hosts { empty: false } => crate::hostlist::DESCRIBE.to_string(),
            Kind::Conninfo => format!("empty, or {}", crate::conninfo::FORMS),
        }
    }

    /// Checks `raw` and returns it in canonical form, or says why it is not valid.
    pub fn parse(&self, raw: &str) -> Result<String, String> {
        let t = raw.trim();
        let bad = || Err(format!("must be {}", self.describe()));
        // A number, but not one the key takes: said as such, with the range.
        let out_of_range = || Err(format!("is out of range, must be {}", self.describe()));
        match self {
            Kind::Int { min, max } => match t.parse::<i64>() {
                Ok(v) if v >= *min && v <= *max => Ok(v.to_string()),
                Ok(_) => out_of_range(),
                // Beyond i64 (`9223372036854775808`, `1e300`) is out of range too; `1.5` and
                // `abc` are not integers at all.
                Err(_) => match t.parse::<f64>() {
                    Ok(v) if v.is_finite() && (v < *min as f64 || v > *max as f64) => {
                        out_of_range()
                    }
                    Ok(v) if v.is_infinite() => out_of_range(),
                    _ => bad(),
                },
            },
            Kind::ZeroOr { min, max } => match t.parse::<i64>() {
                Ok(0) => Ok("0".to_string()),
                _ => Kind::Int {
                    min: *min,
                    max: *max,
                }
                .parse(t)
                .map_err(|why| why.replace("an integer from", "0 or an integer from")),
            },
            Kind::Minutes { min, max } => match t.parse::<f64>() {
                Ok(v) if v.is_finite() && v >= *min && v <= *max => Ok(format_minutes(v)),
                Ok(v) if !v.is_nan() => out_of_range(),
                _ => bad(),
            },
            Kind::Real { min, max, open } => match t.parse::<f64>() {
                Ok(v) if v.is_finite() && !*open && v >= *min && v <= *max => Ok(format_minutes(v)),
                Ok(v) if v.is_finite() && *open && v > *min && v < *max => Ok(format_minutes(v)),
                Ok(v) if !v.is_nan() => out_of_range(),
                _ => bad(),
            },
            Kind::Bool => match parse_bool(t) {
                Some(b) => Ok(b.to_string()),
                None => bad(),
            },
            Kind::Flag => match parse_bool(t) {
                Some(b) => Ok(if b { "1" } else { "0" }.to_string()),
                None => bad(),
            },
            Kind::Choice(words) => match words.iter().find(|w| w.eq_ignore_ascii_case(t)) {
                Some(w) => Ok((*w).to_string()),
                None => bad(),
            },
            Kind::Text | Kind::Secret => Ok(raw.to_string()),
            Kind::Name => {
                if t.is_empty() || t.chars().any(char::is_whitespace) {
                    bad()
                } else {
                    Ok(t.to_string())
                }
            }
            Kind::Methods(words) => {
                if t.is_empty() {
                    return Ok(String::new());
                }
                let items: Vec<String> = t
                    .split(',')
                    .map(|w| w.trim().to_ascii_lowercase())
                    .collect();
                let negated = items.iter().filter(|w| w.starts_with('!')).count();
                let known = items
                    .iter()
                    .all(|w| words.contains(&w.trim_start_matches('!')));
                if !known || (negated != 0 && negated != items.len()) {
                    return bad();
                }
                Ok(items.join(","))
            }
            Kind::Hosts { empty } => match crate::hostlist::parse(t) {
                Ok(items) if items.is_empty() && !empty => bad(),
                Ok(items) => Ok(crate::hostlist::canonical(&items)),
                Err(why) => Err(format!("has {why}; it must be {}", self.describe())),
            },
            Kind::Conninfo if t.is_empty() => Ok(String::new()),
            Kind::Conninfo => match crate::conninfo::parse(t) {
                Ok(_) => Ok(t.to_string()),
                Err(why) => Err(format!("{why}; it must be {}", self.describe())),
            },
        }
    }
}

fn parse_bool(t: &str) -> Option<bool> {
    match t.to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" => Some(true),
        "false" | "0" | "no" | "off" => Some(false),
        _ => None,
    }
}

/// `2` stays `2`, `0.5` stays `0.5`: whole minutes print as HammerDB prints them.
fn format_minutes(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// One key of a dictionary section.
#[derive(Debug, Clone)]
pub struct KeySpec {
    pub section: &'static str,
    pub key: String,
    pub default: String,
    pub kind: Kind,
}

impl KeySpec {
    pub fn new(section: &'static str, key: impl Into<String>, default: &str, kind: Kind) -> Self {
        let key = key.into();
        debug_assert!(kind.parse(default).is_ok(), "default of {key} is not valid");
        KeySpec {
            section,
            key,
            default: default.to_string(),
            kind,
        }
    }

    /// Passwords are every key whose name holds `pass`, as the issue defines them.
    pub fn is_secret(&self) -> bool {
        self.kind == Kind::Secret || self.key.contains("pass")
    }

    /// A value of this key as hammer prints it anywhere: a password as [`MASK`], a
    /// connection string with its password masked, anything else as it is.
    pub fn show(&self, value: &str) -> String {
        if self.is_secret() {
            MASK.to_string()
        } else if self.kind == Kind::Conninfo {
            crate::conninfo::mask(value)
        } else {
            value.to_string()
        }
    }

    /// The password inside a value of this key that is not one itself (a connection
    /// string's), for the console's history to mask wherever it is typed.
    pub fn inner_secret(&self, value: &str) -> Option<String> {
        match self.kind {
            Kind::Conninfo if !value.trim().is_empty() => {
                crate::conninfo::parse(value).ok().and_then(|c| c.password)
            }
            _ => None,
        }
    }
}

/// What a password looks like wherever hammer prints one.
pub const MASK: &str = "********";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_are_checked_against_their_range() {
        let k = Kind::Int {
            min: 1,
            max: i64::MAX,
        };
        assert_eq!(k.parse(" 4 ").unwrap(), "4");
        assert!(k.parse("0").unwrap_err().contains(">= 1"));
        assert!(k.parse("abc").is_err());
        assert!(k.parse("1.5").is_err());
        let k = Kind::Int { min: 1, max: 59 };
        for high in [
            "60",
            "9223372036854775807",
            "9223372036854775808",
            "1e300",
            "-1",
            "inf",
        ] {
            assert_eq!(
                k.parse(high).unwrap_err(),
                "is out of range, must be an integer from 1 to 59",
                "{high}"
            );
        }
        for not_a_number in ["", "NaN", "1.5", "x", "0x10"] {
            assert_eq!(
                k.parse(not_a_number).unwrap_err(),
                "must be an integer from 1 to 59",
                "{not_a_number}"
            );
        }
        assert_eq!(Kind::PORT.parse("65535").unwrap(), "65535");
        assert!(Kind::PORT
            .parse("65536")
            .unwrap_err()
            .contains("1 to 65535"));
    }

    #[test]
    fn zero_or_a_range() {
        let k = Kind::ZeroOr {
            min: 100,
            max: 1000,
        };
        assert_eq!(k.parse("0").unwrap(), "0");
        assert_eq!(k.parse(" 100").unwrap(), "100");
        assert_eq!(
            k.parse("99").unwrap_err(),
            "is out of range, must be 0 or an integer from 100 to 1000"
        );
        assert_eq!(
            k.parse("1e300").unwrap_err(),
            "is out of range, must be 0 or an integer from 100 to 1000"
        );
        assert_eq!(
            k.parse("").unwrap_err(),
            "must be 0 or an integer from 100 to 1000"
        );
    }

    #[test]
    fn minutes_accept_fractions() {
        let k = Kind::Minutes {
            min: 0.0,
            max: MINUTES_MAX,
        };
        assert_eq!(k.parse("0.5").unwrap(), "0.5");
        assert_eq!(k.parse("2").unwrap(), "2");
        assert_eq!(k.parse("2.0").unwrap(), "2");
        assert_eq!(k.parse("0").unwrap(), "0");
        assert!(k.parse("-1").is_err());
        assert!(k.parse("NaN").is_err());
        assert!(k.parse("inf").is_err());
        let positive = Kind::Minutes {
            min: f64::MIN_POSITIVE,
            max: MINUTES_MAX,
        };
        assert!(positive.parse("0").is_err());
        assert_eq!(positive.parse("0.1").unwrap(), "0.1");
        assert_eq!(positive.parse("525600").unwrap(), "525600");
        for high in ["525600.5", "9223372036854775807", "1e300", "inf", "-inf"] {
            assert_eq!(
                positive.parse(high).unwrap_err(),
                "is out of range, must be a number of minutes greater than 0 and at most 525600 \
                 (fractions allowed, e.g. 0.5)",
                "{high}"
            );
        }
        assert!(k.parse("-1").unwrap_err().contains("from 0 to 525600"));
        assert!(k.parse("NaN").unwrap_err().starts_with("must be"));
    }

    #[test]
    fn reals_take_fractions_within_closed_or_open_bounds() {
        let closed = Kind::Real {
            min: 0.0,
            max: 100.0,
            open: false,
        };
        assert_eq!(closed.parse(" 0.8 ").unwrap(), "0.8");
        assert_eq!(closed.parse("0").unwrap(), "0");
        assert_eq!(closed.parse("100.0").unwrap(), "100");
        assert_eq!(
            closed.parse("-0.5").unwrap_err(),
            "is out of range, must be a number from 0 to 100"
        );
        assert_eq!(
            closed.parse("abc").unwrap_err(),
            "must be a number from 0 to 100"
        );
        let open = Kind::Real {
            min: 0.0,
            max: 1.0,
            open: true,
        };
        assert_eq!(open.parse("0.2").unwrap(), "0.2");
        for edge in ["0", "1", "inf", "1e300"] {
            assert_eq!(
                open.parse(edge).unwrap_err(),
                "is out of range, must be a number greater than 0 and less than 1",
                "{edge}"
            );
        }
        assert!(open.parse("NaN").unwrap_err().starts_with("must be"));
    }

    #[test]
    fn booleans_and_flags_are_canonical() {
        assert_eq!(Kind::Bool.parse("TRUE").unwrap(), "true");
        assert_eq!(Kind::Bool.parse("0").unwrap(), "false");
        assert_eq!(Kind::Flag.parse("true").unwrap(), "1");
        assert!(Kind::Bool
            .parse("maybe")
            .unwrap_err()
            .contains("true or false"));
    }

    #[test]
    fn choices_keep_their_listed_spelling() {
        let k = Kind::Choice(&["test", "timed"]);
        assert_eq!(k.parse("TIMED").unwrap(), "timed");
        assert_eq!(k.parse("x").unwrap_err(), "must be one of test|timed");
    }

    #[test]
    fn method_lists_are_all_plain_or_all_negated() {
        let k = Kind::Methods(&["password", "md5", "scram-sha-256", "none"]);
        assert_eq!(k.parse("").unwrap(), "");
        assert_eq!(
            k.parse(" SCRAM-SHA-256, md5 ").unwrap(),
            "scram-sha-256,md5"
        );
        assert_eq!(k.parse("!password").unwrap(), "!password");
        assert!(k.parse("md5,!password").is_err());
        assert!(k.parse("kerberos").unwrap_err().contains("!password"));
    }

    #[test]
    fn names_refuse_blanks_and_secrets_keep_everything() {
        assert!(Kind::Name.parse("").is_err());
        assert!(Kind::Name.parse("a b").is_err());
        assert_eq!(Kind::Secret.parse(" p$ss;[w] ").unwrap(), " p$ss;[w] ");
    }
}
