//! The user's documents and the build settings they describe: README.md's length and links,
//! docs/ telling no work history, the release profile's debug information, and the total line
//! of scripts/test.sh (no server needed).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// README.md and every docs/*.md, with their text.
fn documents() -> Vec<(PathBuf, String)> {
    let mut docs = vec![root().join("README.md")];
    let mut more: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/ holds the design notes and measurements")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    more.sort();
    docs.extend(more);
    docs.into_iter()
        .map(|p| {
            let text = read(&p);
            (p, text)
        })
        .collect()
}

#[test]
fn readme_is_at_most_700_lines() {
    let lines = read(&root().join("README.md")).lines().count();
    assert!(
        lines <= 700,
        "README.md has {lines} lines, more than 700: move design notes or measurements to docs/"
    );
}

/// Words that tell when something was done rather than how the software behaves. "session"
/// alone is no such word (hammer has sessions, so do the servers), only with these neighbours.
const HISTORY: &[&str] = &[
    "earlier session",
    "later session",
    "previous session",
    "last session",
    "this session",
    "same session",
    "next session",
    "the last build",
    "the build before",
    "before this change",
    "after this change",
    "before the change",
    "after the change",
    "before and after this",
    "until issue",
    "where issue",
];

/// `issue 17`, `issue #17`, `issues 13 and 17`: the project's tracker, which users never see.
fn names_an_issue(line: &str) -> bool {
    let lower = line.to_lowercase();
    lower.match_indices("issue").any(|(i, _)| {
        let rest = lower[i + "issue".len()..].trim_start_matches('s');
        let rest = rest.trim_start().trim_start_matches('#');
        rest.starts_with(|c: char| c.is_ascii_digit())
    })
}

#[test]
fn documents_tell_no_work_history() {
    let mut found = Vec::new();
    for (path, text) in documents() {
        let name = path.strip_prefix(root()).unwrap().display().to_string();
        for (n, line) in text.lines().enumerate() {
            let lower = line.to_lowercase();
            if names_an_issue(line) {
                found.push(format!("{name}:{}: names an issue: {line}", n + 1));
            }
            for word in HISTORY {
                if lower.contains(word) {
                    found.push(format!("{name}:{}: \"{word}\": {line}", n + 1));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "say how the software behaves and what a figure measured, not when it changed:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_history_check_sees_what_it_should() {
    assert!(names_an_issue("Where issue 17 stops"));
    assert!(names_an_issue("(issue #13)"));
    assert!(names_an_issue("issues 13 and 17"));
    assert!(!names_an_issue("a known issue with sockets"));
    assert!(!names_an_issue("issued 3 statements"));
}

/// GitHub's anchor of a heading: lower case, spaces to hyphens, other punctuation dropped.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            '-' | '_' => Some(c),
            c if c.is_alphanumeric() => Some(c.to_ascii_lowercase()),
            _ => None,
        })
        .collect()
}

fn anchors(text: &str) -> Vec<String> {
    let mut in_code = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
        } else if !in_code && line.starts_with('#') {
            out.push(anchor(line.trim_start_matches('#')));
        }
    }
    out
}

/// The targets of the markdown links `[text](target)` in `text`.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("](") {
        rest = &rest[i + 2..];
        if let Some(end) = rest.find(')') {
            out.push(rest[..end].to_string());
        }
    }
    out
}

#[test]
fn relative_links_point_at_files_and_headings_that_exist() {
    let mut broken = Vec::new();
    let mut to_docs = 0;
    for (path, text) in documents() {
        let dir = path.parent().unwrap();
        let name = path.strip_prefix(root()).unwrap().display().to_string();
        for link in links(&text) {
            if link.contains("://") || link.starts_with("mailto:") {
                continue;
            }
            let (file, frag) = link.split_once('#').unwrap_or((&link, ""));
            let target = if file.is_empty() {
                path.clone()
            } else {
                dir.join(file)
            };
            if name == "README.md" && file.starts_with("docs/") {
                to_docs += 1;
            }
            if !target.exists() {
                broken.push(format!(
                    "{name}: ({link}): {} does not exist",
                    target.display()
                ));
            } else if !frag.is_empty() && !anchors(&read(&target)).iter().any(|a| a == frag) {
                broken.push(format!("{name}: ({link}): no heading makes #{frag}"));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    assert!(to_docs > 0, "README.md links to no file under docs/");
}

#[test]
fn anchors_follow_github() {
    assert_eq!(
        anchor(" Where hammer differs from HammerDB"),
        "where-hammer-differs-from-hammerdb"
    );
    assert_eq!(
        anchor(" Monitoring: transaction counter, CPU metrics and the agent"),
        "monitoring-transaction-counter-cpu-metrics-and-the-agent"
    );
    assert_eq!(anchor(" TPROC-C"), "tproc-c");
    assert_eq!(
        links("see [a](docs/a.md) and [b](#b-c)."),
        vec!["docs/a.md", "#b-c"]
    );
}

/// The `key = value` lines of one `[section]` of Cargo.toml, comments dropped.
fn toml_section(toml: &str, section: &str) -> Option<Vec<(String, String)>> {
    let header = format!("[{section}]");
    let mut lines = toml.lines().skip_while(|l| l.trim() != header);
    lines.next()?;
    Some(
        lines
            .take_while(|l| !l.trim_start().starts_with('['))
            .filter_map(|l| {
                let l = l.split('#').next().unwrap_or("").trim();
                let (k, v) = l.split_once('=')?;
                Some((k.trim().to_string(), v.trim().trim_matches('"').to_string()))
            })
            .collect(),
    )
}

/// A panic's backtrace names lines (line tables kept), and the binary stays lean (no full
/// debug information, no strip that would take the line tables too).
#[test]
fn release_profile_keeps_line_tables_only() {
    let toml = read(&root().join("Cargo.toml"));
    let release = toml_section(&toml, "profile.release").expect("Cargo.toml has [profile.release]");
    let get = |key: &str| {
        release
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    };
    assert_eq!(
        get("debug"),
        Some("line-tables-only"),
        "[profile.release] debug: line tables name a panic's lines without full debug information"
    );
    assert!(
        matches!(get("strip"), None | Some("none" | "false")),
        "[profile.release] strip = {:?} would remove the line tables",
        get("strip")
    );
    // A per-package override must not bring full debug information back for hammer.
    for section in [
        "profile.release.package.hammer",
        "profile.release.package.\"*\"",
    ] {
        if let Some(keys) = toml_section(&toml, section) {
            for (k, v) in keys {
                if k == "debug" {
                    assert!(
                        matches!(v.as_str(), "line-tables-only" | "none" | "false" | "0"),
                        "[{section}] debug = {v} brings full debug information back"
                    );
                }
            }
        }
    }
}

/// Runs scripts/ci/sum-tests.sh on `log`, returning its exit status, stdout and stderr.
fn sum_tests(seconds: &str, log: &str) -> (Option<i32>, String, String) {
    use std::io::Write;
    let mut child = Command::new("/bin/bash")
        .arg(root().join("scripts/ci/sum-tests.sh"))
        .arg(seconds)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(log.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn test_sh_total_sums_every_result_line() {
    // Three binaries with results (one coloured as cargo colours it on a terminal, one
    // failed), one that crashed without a result, and a test's own output that quotes a
    // result line and must not count.
    let log = "\
\x20    Running unittests src/lib.rs (target/debug/deps/hammer-0a1b)

running 14 tests
test result: ok. 12 passed; 0 failed; 2 ignored; 0 measured; 0 filtered out; finished in 0.51s

\x1b[1m\x1b[92m     Running\x1b[0m tests/cli.rs (target/debug/deps/cli-2c3d)
    the child said: test result: ok. 99 passed; 0 failed; 0 ignored
test result: FAILED. 30 passed; 2 failed; 1 ignored; 0 measured; 0 filtered out; finished in 12.03s

     Running tests/jobs.rs (target/debug/deps/jobs-4e5f)
error: test failed, to rerun pass `--test jobs`
     Running tests/verdicts.rs (target/debug/deps/verdicts-6a7b)
test result: ok. 7 passed; 0 failed; 0 ignored; 0 measured; 3 filtered out; finished in 3.20s
";
    let (code, out, err) = sum_tests("843", log);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        out,
        "49 passed, 2 failed, 3 ignored, 1 test binary ended without a result in 14 min 3 s\n"
    );

    let (_, out, _) = sum_tests("3725", "test result: ok. 1 passed; 0 failed; 0 ignored;\n");
    assert_eq!(out, "1 passed, 0 failed, 0 ignored in 1 h 2 min 5 s\n");
    let (_, out, _) = sum_tests("9", "error: could not compile `hammer`\n");
    assert_eq!(out, "0 passed, 0 failed, 0 ignored (no test ran) in 9 s\n");
}

#[test]
fn test_sh_total_refuses_a_bad_time() {
    let (code, out, err) = sum_tests("12s", "");
    assert_eq!(code, Some(2));
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("the wall time must be a whole number of seconds (got '12s')"),
        "{err}"
    );
}

/// test.sh keeps cargo's exit status and ends with the total whatever happens: the total
/// comes from the EXIT trap, and the tests' output is teed into the log it sums.
#[test]
fn test_sh_streams_and_sums_in_its_exit_trap() {
    let body = read(&root().join("scripts/test.sh"));
    assert!(
        body.contains("trap finish EXIT"),
        "test.sh sums up in its EXIT trap"
    );
    assert!(body.contains("scripts/ci/sum-tests.sh"));
    assert!(
        body.contains("| tee \"$log\"") && body.contains("rc=${PIPESTATUS[0]}"),
        "test.sh streams cargo's output live and keeps cargo's exit status"
    );
}

/// `src/lib.rs`'s map (its `//!` documentation) names every module the crate declares, so a
/// new room cannot go unmapped.
#[test]
fn the_crate_map_names_every_module() {
    let lib = read(&root().join("src/lib.rs"));
    let map: String = lib
        .lines()
        .filter(|l| l.starts_with("//!"))
        .collect::<Vec<_>>()
        .join("\n");
    let modules: Vec<&str> = lib
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod "))
        .map(|m| m.trim_end_matches(';'))
        .collect();
    assert!(modules.len() > 10, "src/lib.rs declares {modules:?}");
    let missing: Vec<&&str> = modules
        .iter()
        .filter(|m| !map.contains(&format!("[`{m}`]")))
        .collect();
    assert!(
        missing.is_empty(),
        "src/lib.rs's map does not name {missing:?}: add each to its room in the //! list"
    );
}
