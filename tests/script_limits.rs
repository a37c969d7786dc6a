//! Bounded scripts: a script that grows a string, an array or a map without end, nests its
//! calls too deep or runs too long ends with an error naming the limit and its key (exit 1),
//! never with an abort.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What `hammer` ended with: its exit code and its output.
struct Ended {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// `hammer` with `HAMMER_HOME` at `home`, whose settings file holds `generic` (JSON of the
/// generic dictionary's keys). Killed, and the test failed, if it runs for minutes: a limit
/// that does not hold must not hang the suite.
fn hammer(home: &Path, generic: &str, args: &[&str], stdin: &str) -> Ended {
    std::fs::write(
        home.join("settings.json"),
        format!(r#"{{"generic": {generic}}}"#),
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_hammer"))
        .args(args)
        .env("HAMMER_HOME", home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("hammer starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(180) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("hammer {args:?} still running after 3 minutes");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let ended = Ended {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    // A refused setting would leave the test's script under the defaults it meant to lower.
    assert!(
        !ended.stderr.contains("Warning: settings file"),
        "{}",
        ended.stderr
    );
    ended
}

/// Runs `body` as a script under `generic` settings; it must end with exit 1 and the limit
/// of `key` named with `limit`.
fn ends_at_limit(generic: &str, body: &str, key: &str, limit: &str) {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("grow.rhai");
    std::fs::write(&file, body).unwrap();
    let out = hammer(home.path(), generic, &["auto", file.to_str().unwrap()], "");
    let named = format!("{limit}, the limit commandline:{key} sets");
    assert_eq!(out.code, Some(1), "{body}: {}\n{}", out.stdout, out.stderr);
    assert!(
        out.stderr.contains("Script limit: ")
            && out.stderr.contains(&named)
            && out.stderr.contains(&format!("giset commandline {key} ")),
        "{body}: {}",
        out.stderr
    );
    assert!(!out.stdout.contains("not reached"), "{}", out.stdout);
}

/// The settings of every test: a memory guard well below the machine's, so that a size limit
/// that failed would still end the test's script rather than the machine.
const GUARDED: &str = r#""max_script_memory": "1024""#;

#[test]
fn a_doubling_string_ends_at_max_string_size() {
    ends_at_limit(
        &format!("{{{GUARDED}}}"),
        "let s = \"x\";\nloop { s += s; }\nprint(\"not reached\");\n",
        "max_string_size",
        "grew past 10000000 bytes",
    );
}

#[test]
fn a_doubling_array_ends_at_max_array_size() {
    ends_at_limit(
        &format!("{{{GUARDED}}}"),
        "let a = [1];\nloop { a += a; }\nprint(\"not reached\");\n",
        "max_array_size",
        "grew past 100000 items",
    );
}

#[test]
fn a_pushed_array_and_a_growing_map_end_at_their_keys() {
    ends_at_limit(
        &format!(r#"{{{GUARDED}, "max_array_size": "500"}}"#),
        "let a = [];\nloop { a.push(\"item\"); }\n",
        "max_array_size",
        "grew past 500 items",
    );
    ends_at_limit(
        &format!(r#"{{{GUARDED}, "max_map_size": "500"}}"#),
        "let m = #{};\nlet i = 0;\nloop { m += #{}; m[`k${i}`] = i; i += 1; }\n",
        "max_map_size",
        "grew past 500 entries",
    );
    // The strings within an array count against the string limit together.
    ends_at_limit(
        &format!(r#"{{{GUARDED}, "max_string_size": "1000"}}"#),
        "let a = [];\nloop { a.push(\"0123456789\"); }\n",
        "max_string_size",
        "grew past 1000 bytes",
    );
}

#[test]
fn a_map_grown_by_index_ends_at_the_memory_guard() {
    // Rhai does not check the map an index assignment adds to; the memory guard does.
    ends_at_limit(
        r#"{"max_script_memory": "300"}"#,
        "let big = \"y\";\nfor n in 0..17 { big += big; }\nlet m = #{};\nlet i = 0;\n\
         loop { m[`k${i}`] = big + i; i += 1; }\n",
        "max_script_memory",
        "past 300 MiB",
    );
}

#[test]
fn deep_recursion_ends_at_max_call_levels_and_the_deepest_allowed_fits_the_stack() {
    let body = |depth: u32| {
        format!(
            "fn g(n) {{ let r = f(n); r }}\n\
             fn f(n) {{\n  if n <= 0 {{ return 0; }}\n  let m = #{{a: [1, 2]}};\n  \
             let v = [g(n - 1)];\n  let s = `${{v[0]}}`;\n  v[0] + 1\n}}\n\
             print(`depth ${{f({depth})}}`);\n"
        )
    };
    ends_at_limit(
        &format!("{{{GUARDED}}}"),
        &body(1000),
        "max_call_levels",
        "deeper than 64 levels",
    );
    // The range's top, 100 levels, runs in a debug build's main thread.
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("deep.rhai");
    std::fs::write(&file, body(49)).unwrap();
    let out = hammer(
        home.path(),
        &format!(r#"{{{GUARDED}, "max_call_levels": "100"}}"#),
        &["auto", file.to_str().unwrap()],
        "",
    );
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    assert_eq!(out.stdout.trim(), "depth 49");
}

#[test]
fn a_busy_loop_ends_at_max_operations_when_set() {
    ends_at_limit(
        &format!(r#"{{{GUARDED}, "max_operations": "10000"}}"#),
        "let i = 0;\nloop { i += 1; }\n",
        "max_operations",
        "ran more than 10000 operations",
    );
}

#[test]
fn a_limit_set_at_the_console_holds_from_the_next_input() {
    let home = tempfile::tempdir().unwrap();
    let out = hammer(
        home.path(),
        &format!("{{{GUARDED}}}"),
        &[],
        &format!(
            "giset commandline max_string_size 1000\n\
             let s = \"x\"; loop {{ s += s; }}\n\
             print(\"the session goes on\")\n\
             let long = \"{}\";\n",
            "y".repeat(2000)
        ),
    );
    // The last input failed: exit 1, as a piped console's last input says.
    assert_eq!(out.code, Some(1), "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout
            .contains("Changed commandline:max_string_size from 10000000 to 1000 for generic"),
        "{}",
        out.stdout
    );
    assert!(
        out.stderr
            .contains("grew past 1000 bytes, the limit commandline:max_string_size sets"),
        "{}",
        out.stderr
    );
    assert!(out.stdout.contains("the session goes on"), "{}", out.stdout);
    assert!(
        out.stderr.contains(
            "a literal holds more than 1000 bytes, the limit commandline:max_string_size sets"
        ),
        "{}",
        out.stderr
    );
    // Its range is said when the value is not one.
    let out = hammer(
        home.path(),
        &format!("{{{GUARDED}}}"),
        &[],
        "giset commandline max_call_levels 1000\n",
    );
    assert!(
        out.stderr.contains(
            "Value 1000 for commandline:max_call_levels is not valid: it is out of range, \
             must be an integer from 8 to 100"
        ),
        "{}",
        out.stderr
    );
}
