//! The functions scripts get beside HammerDB's commands: output lines (`puts`), files (`open`,
//! `gets`, `close`, `file_mkdir`), the environment (`env`, `need_env`, `set_env`), HammerDB's
//! helpers (`numberOfCPUs`, `numberOfWHs`), and Tcl's loose values (`as_number`, `as_bool`,
//! `as_list`, `text`) that scripts converted from Tcl and Python call. Handy in Rhai as well.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use rhai::{Array, Dynamic, Engine, EvalAltResult, ImmutableString, Map, INT};

use crate::output::Output;

type Result<T> = std::result::Result<T, Box<EvalAltResult>>;

fn fail<T>(message: impl Into<String>) -> Result<T> {
    Err(message.into().into())
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The state the functions share: the output, a line begun by `write` and not yet ended,
/// and the environment variables `set_env` set (kept here: changing the process's own
/// environment while other threads may read it is not safe).
#[derive(Clone)]
pub struct Host {
    out: Output,
    pending: Arc<Mutex<String>>,
    env: Arc<Mutex<HashMap<String, Option<String>>>>,
}

impl Host {
    /// Prints a line begun with `write` and not ended: the end of a script ends it.
    pub fn finish_line(&self) {
        let rest = std::mem::take(&mut *lock(&self.pending));
        if !rest.is_empty() {
            self.out.line(rest);
        }
    }

    /// Prints a line, after the text a `write` left waiting for its end.
    pub fn line(&self, text: &str) {
        let mut pending = lock(&self.pending);
        let whole = format!("{}{text}", std::mem::take(&mut *pending));
        drop(pending);
        self.out.line(whole);
    }

    fn write(&self, text: &str) {
        let mut pending = lock(&self.pending);
        pending.push_str(text);
        while let Some(i) = pending.find('\n') {
            let line: String = pending.drain(..=i).collect();
            self.out.line(line.trim_end_matches('\n'));
        }
    }

    fn env(&self, name: &str) -> Option<String> {
        match lock(&self.env).get(name) {
            Some(v) => v.clone(),
            None => std::env::var(name).ok(),
        }
    }
}

/// A file opened by `open`: Tcl's channel, named `file1`, `file2`, ... as Tcl names them.
#[derive(Clone)]
pub struct Channel(Arc<Mutex<ChannelState>>);

struct ChannelState {
    name: String,
    reader: Option<BufReader<File>>,
    writer: Option<File>,
    eof: bool,
    closed: bool,
}

static CHANNELS: AtomicUsize = AtomicUsize::new(1);

impl Channel {
    fn open(path: &str, mode: &str) -> Result<Channel> {
        let mut o = OpenOptions::new();
        let (read, write) = match mode {
            "r" => (true, false),
            "r+" => (true, true),
            "w" => (false, true),
            "w+" => (true, true),
            "a" => (false, true),
            "a+" => (true, true),
            other => {
                return fail(format!(
                    "open {path}: access mode \"{other}\" is not one hammer takes; use r, r+, w, w+, a or a+"
                ))
            }
        };
        if path.starts_with('|') {
            return fail(format!(
                "open \"{path}\": hammer does not run commands through pipes; run them from the shell"
            ));
        }
        o.read(read);
        match mode {
            "w" | "w+" => {
                o.write(true).create(true).truncate(true);
            }
            "a" | "a+" => {
                o.append(true).create(true);
            }
            "r+" => {
                o.write(true);
            }
            _ => {}
        }
        let file = o
            .open(path)
            .map_err(|e| format!("couldn't open \"{path}\": {}", e.to_string().to_lowercase()))?;
        let (reader, writer) = match (read, write) {
            (true, true) => {
                let w = file
                    .try_clone()
                    .map_err(|e| format!("couldn't open \"{path}\": {e}"))?;
                (Some(BufReader::new(file)), Some(w))
            }
            (true, false) => (Some(BufReader::new(file)), None),
            _ => (None, Some(file)),
        };
        let n = CHANNELS.fetch_add(1, Ordering::Relaxed);
        Ok(Channel(Arc::new(Mutex::new(ChannelState {
            name: format!("file{n}"),
            reader,
            writer,
            eof: false,
            closed: false,
        }))))
    }

    fn state(&self) -> Result<MutexGuard<'_, ChannelState>> {
        let s = lock(&self.0);
        if s.closed {
            return fail(format!(
                "can not find channel named \"{}\" (it is closed)",
                s.name
            ));
        }
        Ok(s)
    }

    fn name(&self) -> String {
        lock(&self.0).name.clone()
    }

    fn write(&self, text: &str) -> Result<()> {
        let mut s = self.state()?;
        let name = s.name.clone();
        let Some(w) = s.writer.as_mut() else {
            return fail(format!("channel \"{name}\" wasn't opened for writing"));
        };
        w.write_all(text.as_bytes())
            .map_err(|e| format!("error writing \"{name}\": {e}").into())
    }

    fn read_line(&self) -> Result<Option<String>> {
        let mut s = self.state()?;
        let name = s.name.clone();
        let Some(r) = s.reader.as_mut() else {
            return fail(format!("channel \"{name}\" wasn't opened for reading"));
        };
        let mut line = String::new();
        let n = r
            .read_line(&mut line)
            .map_err(|e| format!("error reading \"{name}\": {e}"))?;
        if n == 0 {
            s.eof = true;
            return Ok(None);
        }
        if line.ends_with('\n') {
            line.pop();
            if line.ends_with('\r') {
                line.pop();
            }
        } else {
            s.eof = true;
        }
        Ok(Some(line))
    }

    fn read_all(&self) -> Result<String> {
        let mut s = self.state()?;
        let name = s.name.clone();
        let Some(r) = s.reader.as_mut() else {
            return fail(format!("channel \"{name}\" wasn't opened for reading"));
        };
        let mut text = String::new();
        r.read_to_string(&mut text)
            .map_err(|e| format!("error reading \"{name}\": {e}"))?;
        s.eof = true;
        Ok(text)
    }

    fn close(&self) -> Result<()> {
        let mut s = self.state()?;
        if let Some(w) = s.writer.as_mut() {
            w.flush().map_err(|e| format!("error closing: {e}"))?;
        }
        s.reader = None;
        s.writer = None;
        s.closed = true;
        Ok(())
    }
}

/// A value as Tcl writes it: nothing for unit, a list's elements separated by spaces (in
/// braces when they hold spaces), numbers and strings as they are.
pub fn text(v: &Dynamic) -> String {
    if v.is_unit() {
        return String::new();
    }
    if let Some(a) = v.read_lock::<Array>() {
        return a
            .iter()
            .map(|e| {
                let t = text(e);
                if t.is_empty()
                    || t.contains(|c: char| c.is_whitespace() || "{}\"[]$\\;".contains(c))
                {
                    format!("{{{t}}}")
                } else {
                    t
                }
            })
            .collect::<Vec<_>>()
            .join(" ");
    }
    if let Some(c) = v.read_lock::<Channel>() {
        return c.name();
    }
    v.to_string()
}

fn number_of(text: &str) -> Option<Dynamic> {
    let t = text.trim();
    if let Ok(n) = t.parse::<INT>() {
        return Some(n.into());
    }
    let (neg, digits) = match t.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        if let Ok(n) = INT::from_str_radix(hex, 16) {
            return Some((if neg { -n } else { n }).into());
        }
    }
    match t.parse::<f64>() {
        Ok(f) if f.is_finite() && !t.eq_ignore_ascii_case("nan") => Some(f.into()),
        _ => None,
    }
}

/// A value as a number: integers and floats as they are, `true` 1, a string that holds one.
pub fn as_number(v: &Dynamic) -> Result<Dynamic> {
    if v.is_int() || v.is_float() {
        return Ok(v.clone());
    }
    if let Ok(b) = v.as_bool() {
        return Ok(INT::from(b).into());
    }
    if v.is_unit() {
        return fail("expected a number but got an empty value (a variable that was never set?)");
    }
    let t = text(v);
    number_of(&t).map_or_else(|| fail(format!("expected a number but got \"{t}\"")), Ok)
}

/// A value as a truth: booleans, numbers (non-zero is true), and Tcl's words (true, yes, on,
/// false, no, off).
pub fn as_bool(v: &Dynamic) -> Result<bool> {
    if let Ok(b) = v.as_bool() {
        return Ok(b);
    }
    if let Ok(n) = v.as_int() {
        return Ok(n != 0);
    }
    if let Ok(f) = v.as_float() {
        return Ok(f != 0.0);
    }
    let t = text(v);
    match t.trim().to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" => Ok(true),
        "false" | "no" | "off" => Ok(false),
        s => match number_of(s) {
            Some(n) => as_bool(&n),
            None => fail(format!("expected a boolean value but got \"{t}\"")),
        },
    }
}

/// A value's truth as Python sees it: false for false, nothing, zero and empty strings,
/// arrays and maps; true otherwise.
pub fn truthy(v: &Dynamic) -> bool {
    if let Ok(b) = v.as_bool() {
        return b;
    }
    if v.is_unit() {
        return false;
    }
    if let Ok(n) = v.as_int() {
        return n != 0;
    }
    if let Ok(f) = v.as_float() {
        return f != 0.0;
    }
    if let Some(s) = v.read_lock::<ImmutableString>() {
        return !s.is_empty();
    }
    if let Some(a) = v.read_lock::<Array>() {
        return !a.is_empty();
    }
    if let Some(m) = v.read_lock::<Map>() {
        return !m.is_empty();
    }
    true
}

/// A value as a list: an array as it is, nothing as an empty list, a string split as Tcl
/// splits a list (`{1 2 {a b}}`), anything else a list of one.
pub fn as_list(v: &Dynamic) -> Result<Array> {
    if let Some(a) = v.read_lock::<Array>() {
        return Ok(a.clone());
    }
    if v.is_unit() {
        return Ok(Array::new());
    }
    if v.is_string() {
        let t = text(v);
        return match crate::convert::split_tcl_list(&t) {
            Some(items) => Ok(items.into_iter().map(Dynamic::from).collect()),
            None => fail(format!("\"{t}\" is not a list (an open brace or quote)")),
        };
    }
    Ok(vec![v.clone()])
}

fn equal(a: &Dynamic, b: &Dynamic) -> bool {
    compare(a, b) == 0
}

/// Tcl's comparison: as numbers when both are numbers, else as strings; -1, 0 or 1.
fn compare(a: &Dynamic, b: &Dynamic) -> INT {
    let as_f64 = |v: &Dynamic| -> Option<f64> {
        if v.is_unit() {
            return None;
        }
        let n = if v.is_int() || v.is_float() {
            v.clone()
        } else {
            number_of(&text(v))?
        };
        n.as_float()
            .ok()
            .or_else(|| n.as_int().ok().map(|i| i as f64))
    };
    let ord = match (as_f64(a), as_f64(b)) {
        (Some(x), Some(y)) => x.partial_cmp(&y).unwrap_or(std::cmp::Ordering::Equal),
        _ => text(a).cmp(&text(b)),
    };
    ord as INT
}

/// Tcl's `string match`: `*`, `?`, `[chars]` and `\x`.
pub fn glob_match(pattern: &str, s: &str) -> bool {
    fn go(p: &[char], s: &[char]) -> bool {
        match p.first() {
            None => s.is_empty(),
            Some('*') => (0..=s.len()).any(|i| go(&p[1..], &s[i..])),
            Some('?') => !s.is_empty() && go(&p[1..], &s[1..]),
            Some('[') => {
                let Some(close) = p.iter().position(|&c| c == ']') else {
                    return !s.is_empty() && s[0] == '[' && go(&p[1..], &s[1..]);
                };
                let Some(&c) = s.first() else { return false };
                let set = &p[1..close];
                let mut hit = false;
                let mut i = 0;
                while i < set.len() {
                    if i + 2 < set.len() && set[i + 1] == '-' {
                        hit |= set[i] <= c && c <= set[i + 2];
                        i += 3;
                    } else {
                        hit |= set[i] == c;
                        i += 1;
                    }
                }
                hit && go(&p[close + 1..], &s[1..])
            }
            Some('\\') if p.len() > 1 => !s.is_empty() && s[0] == p[1] && go(&p[2..], &s[1..]),
            Some(&c) => !s.is_empty() && s[0] == c && go(&p[1..], &s[1..]),
        }
    }
    let p: Vec<char> = pattern.chars().collect();
    let s: Vec<char> = s.chars().collect();
    go(&p, &s)
}

fn string_is(class: &str, v: &Dynamic, strict: bool) -> Result<bool> {
    let t = text(v);
    if t.is_empty() {
        return Ok(!strict);
    }
    let all = |f: fn(char) -> bool| t.chars().all(f);
    Ok(match class {
        "integer" | "wide" => {
            let s = t.trim();
            let s = s.strip_prefix(['-', '+']).unwrap_or(s);
            !s.is_empty()
                && (s.chars().all(|c| c.is_ascii_digit())
                    || s.strip_prefix("0x")
                        .is_some_and(|h| !h.is_empty() && h.chars().all(|c| c.is_ascii_hexdigit())))
        }
        "double" => number_of(&t).is_some(),
        "boolean" => as_bool(&Dynamic::from(t.clone())).is_ok(),
        "true" => as_bool(&Dynamic::from(t.clone())).unwrap_or(false),
        "false" => as_bool(&Dynamic::from(t.clone())).is_ok_and(|b| !b),
        "digit" => all(|c| c.is_ascii_digit()),
        "alpha" => all(char::is_alphabetic),
        "alnum" => all(char::is_alphanumeric),
        "space" => all(char::is_whitespace),
        "upper" => all(char::is_uppercase),
        "lower" => all(char::is_lowercase),
        other => return fail(format!("string is {other}: not a class hammer knows")),
    })
}

/// HammerDB's suggested warehouse count: 8 per logical CPU, rounded up to a multiple of 10
/// up to 100, at most 4000.
pub fn number_of_whs(cpus: INT) -> INT {
    let wh = cpus * 8;
    let wh = if wh <= 100 { (wh + 9) / 10 * 10 } else { wh };
    wh.min(4000)
}

fn cpus() -> INT {
    std::thread::available_parallelism().map_or(1, |n| n.get() as INT)
}

fn lexical_normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

fn trimmed(v: &Dynamic, chars: Option<&str>, left: bool, right: bool) -> String {
    let t = text(v);
    let hit = |c: char| chars.map_or(c.is_whitespace(), |set| set.contains(c));
    let t = if left { t.trim_start_matches(hit) } else { &t };
    let t = if right { t.trim_end_matches(hit) } else { t };
    t.to_string()
}

/// Registers the functions; the returned handle ends a line begun by `write`.
/// What HammerDB's job-making command returns: `Benchmark Run jobid=ID`, or `Benchmark Run
/// (No jobid)` when no job was recorded.
pub fn job_reply(label: &str, id: &Dynamic) -> String {
    if id.is_unit() {
        format!("{label} (No jobid)")
    } else {
        format!("{label} jobid={}", text(id))
    }
}

pub fn register(engine: &mut Engine, out: Output) -> Host {
    let host = Host {
        out,
        pending: Arc::new(Mutex::new(String::new())),
        env: Arc::new(Mutex::new(HashMap::new())),
    };
    engine.register_type_with_name::<Channel>("channel");
    engine.register_fn("to_string", |c: &mut Channel| c.name());
    engine.register_fn("to_debug", |c: &mut Channel| c.name());

    // Output: a whole line, a line to stderr, and text that a later line ends.
    let h = host.clone();
    engine.register_fn("puts", move |v: Dynamic| h.line(&text(&v)));
    engine.register_fn("puts", |c: Channel, v: Dynamic| {
        c.write(&format!("{}\n", text(&v)))
    });
    let h = host.clone();
    engine.register_fn("puts", move |c: ImmutableString, v: Dynamic| {
        match c.as_str() {
            "stdout" => {
                h.line(&text(&v));
                Ok(())
            }
            "stderr" => {
                h.out.error(text(&v));
                Ok(())
            }
            other => fail(format!("can not find channel named \"{other}\"")),
        }
    });
    let h = host.clone();
    engine.register_fn("eputs", move |v: Dynamic| h.out.error(text(&v)));
    let h = host.clone();
    engine.register_fn("write", move |v: Dynamic| h.write(&text(&v)));
    engine.register_fn("write", |c: Channel, v: Dynamic| c.write(&text(&v)));

    // Files.
    engine.register_fn("open", |p: Dynamic| Channel::open(&text(&p), "r"));
    engine.register_fn("open", |p: Dynamic, mode: Dynamic| {
        Channel::open(&text(&p), &text(&mode))
    });
    engine.register_fn("close", |c: Channel| c.close());
    engine.register_fn("gets", |c: Channel| {
        c.read_line().map(Option::unwrap_or_default)
    });
    engine.register_fn("gets", |var: &mut Dynamic, c: Channel| -> Result<INT> {
        Ok(match c.read_line()? {
            Some(line) => {
                let n = line.chars().count() as INT;
                *var = line.into();
                n
            }
            None => {
                *var = "".into();
                -1
            }
        })
    });
    engine.register_fn("read", |c: Channel| c.read_all());
    engine.register_fn("eof", |c: Channel| -> Result<bool> { Ok(c.state()?.eof) });
    engine.register_fn("file_mkdir", |p: Dynamic| -> Result<()> {
        let p = text(&p);
        std::fs::create_dir_all(&p)
            .map_err(|e| format!("can't create directory \"{p}\": {e}").into())
    });
    engine.register_fn("file_delete", |p: Dynamic| -> Result<()> {
        let p = text(&p);
        let path = Path::new(&p);
        let r = if path.is_dir() {
            std::fs::remove_dir_all(path)
        } else if path.exists() {
            std::fs::remove_file(path)
        } else {
            Ok(())
        };
        r.map_err(|e| format!("error deleting \"{p}\": {e}").into())
    });
    engine.register_fn("file_exists", |p: Dynamic| Path::new(&text(&p)).exists());
    engine.register_fn("file_isfile", |p: Dynamic| Path::new(&text(&p)).is_file());
    engine.register_fn("file_isdirectory", |p: Dynamic| {
        Path::new(&text(&p)).is_dir()
    });
    engine.register_fn("file_join", |parts: Array| {
        let mut p = PathBuf::new();
        for part in &parts {
            p.push(text(part));
        }
        p.display().to_string()
    });
    engine.register_fn("file_dirname", |p: Dynamic| {
        let p = text(&p);
        match Path::new(&p).parent() {
            Some(d) if !d.as_os_str().is_empty() => d.display().to_string(),
            _ if p.starts_with('/') => "/".to_string(),
            _ => ".".to_string(),
        }
    });
    engine.register_fn("file_tail", |p: Dynamic| {
        let p = text(&p);
        Path::new(&p)
            .file_name()
            .map_or(String::new(), |n| n.to_string_lossy().into_owned())
    });
    engine.register_fn("file_normalize", |p: Dynamic| {
        let p = PathBuf::from(text(&p));
        let abs = if p.is_absolute() {
            p
        } else {
            std::env::current_dir().unwrap_or_default().join(p)
        };
        lexical_normalize(&abs).display().to_string()
    });
    engine.register_fn("pwd", || {
        std::env::current_dir().map_or(String::new(), |d| d.display().to_string())
    });
    engine.register_fn("cd", |p: Dynamic| -> Result<()> {
        let p = text(&p);
        std::env::set_current_dir(&p)
            .map_err(|e| format!("couldn't change working directory to \"{p}\": {e}").into())
    });

    // The environment: `env` is () when unset, `need_env` an error that names the variable.
    let h = host.clone();
    engine.register_fn("env", move |name: &str| {
        h.env(name).map_or(Dynamic::UNIT, Dynamic::from)
    });
    let h = host.clone();
    engine.register_fn("need_env", move |name: &str| -> Result<String> {
        h.env(name).map_or_else(
            || fail(format!("environment variable {name} is not set")),
            Ok,
        )
    });
    let h = host.clone();
    engine.register_fn("set_env", move |name: &str, v: Dynamic| {
        let value = (!v.is_unit()).then(|| text(&v));
        lock(&h.env).insert(name.to_string(), value);
    });

    // HammerDB's helpers for its example scripts.
    engine.register_fn("numberOfCPUs", cpus);
    engine.register_fn("numberOfWHs", || number_of_whs(cpus()));

    // Tcl's loose values.
    engine.register_fn("text", |v: Dynamic| text(&v));
    engine.register_fn("as_number", |v: Dynamic| as_number(&v));
    engine.register_fn("as_bool", |v: Dynamic| as_bool(&v));
    engine.register_fn("as_list", |v: Dynamic| as_list(&v));
    engine.register_fn("truthy", |v: Dynamic| truthy(&v));
    engine.register_fn("lappend", |l: Dynamic, v: Dynamic| -> Result<Array> {
        let mut a = as_list(&l)?;
        a.push(v);
        Ok(a)
    });
    engine.register_fn("lindex", |l: Dynamic, i: Dynamic| -> Result<Dynamic> {
        let a = as_list(&l)?;
        let last = a.len() as INT - 1;
        let it = text(&i);
        let at = match it.strip_prefix("end") {
            Some("") => last,
            Some(rest) => match rest.strip_prefix('-').and_then(|n| n.parse::<INT>().ok()) {
                Some(n) => last - n,
                None => return fail(format!("bad index \"{it}\": use an integer, end or end-N")),
            },
            None => as_number(&i)?
                .as_int()
                .map_err(|_| format!("bad index \"{it}\": use an integer, end or end-N"))?,
        };
        Ok(usize::try_from(at)
            .ok()
            .and_then(|k| a.get(k).cloned())
            .unwrap_or_else(|| "".into()))
    });
    engine.register_fn("in_list", |v: Dynamic, l: Dynamic| -> Result<bool> {
        let t = text(&v);
        Ok(as_list(&l)?.iter().any(|e| text(e) == t))
    });
    engine.register_fn("equal", |a: Dynamic, b: Dynamic| equal(&a, &b));
    engine.register_fn("compare", |a: Dynamic, b: Dynamic| compare(&a, &b));
    engine.register_fn("string_is", |class: &str, v: Dynamic, strict: bool| {
        string_is(class, &v, strict)
    });
    engine.register_fn("trimmed", |v: Dynamic| trimmed(&v, None, true, true));
    engine.register_fn("trimmed", |v: Dynamic, c: Dynamic| {
        trimmed(&v, Some(&text(&c)), true, true)
    });
    engine.register_fn("trimmed_left", |v: Dynamic| trimmed(&v, None, true, false));
    engine.register_fn("trimmed_left", |v: Dynamic, c: Dynamic| {
        trimmed(&v, Some(&text(&c)), true, false)
    });
    engine.register_fn("trimmed_right", |v: Dynamic| trimmed(&v, None, false, true));
    engine.register_fn("trimmed_right", |v: Dynamic, c: Dynamic| {
        trimmed(&v, Some(&text(&c)), false, true)
    });
    engine.register_fn("glob_match", |p: Dynamic, s: Dynamic| {
        glob_match(&text(&p), &text(&s))
    });
    engine.register_fn("clock_seconds", || {
        (crate::clock::unix_ms(std::time::SystemTime::now()) / 1000) as INT
    });
    engine.register_fn("clock_milliseconds", || {
        crate::clock::unix_ms(std::time::SystemTime::now()) as INT
    });
    // A job-making command's value as HammerDB returns it: `Benchmark Run jobid=ID`.
    engine.register_fn("job_reply", |label: ImmutableString, v: Dynamic| {
        job_reply(&label, &v)
    });
    // What a caught error says: a failed job's message, or the error itself.
    engine.register_fn("error_text", |e: Dynamic| -> String {
        if let Some(m) = e.read_lock::<Map>() {
            if let Some(msg) = m.get("message") {
                return text(msg);
            }
        }
        text(&e)
    });
    host
}

#[cfg(test)]
mod tests;
