//! A full data directory, on a real full file system (a small tmpfs this test mounts, so it
//! runs as root, as CI does): a timed run on PostgreSQL prints its result with one warning,
//! leaves no ABORTED job and the settings file whole; a disk that fills during a run still
//! gets the run's end recorded.

mod common;

use std::path::{Path, PathBuf};

use common::{hammer, text, Servers};

/// A tmpfs of `size` mounted on a new temporary directory, unmounted when dropped.
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    fn mount(size: &str) -> Tmpfs {
        let dir = tempfile::tempdir().expect("temp dir");
        let out = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .output()
            .expect("the mount command runs");
        assert!(
            out.status.success(),
            "cannot mount a {size} tmpfs on {} to fill it ({}): this test needs root, as CI \
             runs it; run it as root (sudo -E cargo test --test full_disk)",
            dir.path().display(),
            text(&out.stderr).trim()
        );
        Tmpfs { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let umount = |lazy: bool| {
            let mut c = std::process::Command::new("umount");
            if lazy {
                c.arg("-l");
            }
            c.arg(self.dir.path()).status().is_ok_and(|s| s.success())
        };
        // A process still holding a file there (it should not) makes it busy: detach it then.
        if !umount(false) {
            umount(true);
        }
    }
}

/// Fills the file system of `dir` with the file `fill` until it is full.
fn fill(dir: &Path) -> PathBuf {
    use std::io::Write;
    let path = dir.join("fill");
    let mut f = std::fs::File::create(&path).expect("the fill file");
    let chunk = vec![1u8; 64 * 1024];
    let e = loop {
        if let Err(e) = f.write_all(&chunk) {
            break e;
        }
    };
    assert_eq!(e.raw_os_error(), Some(28), "filled until ENOSPC, got {e}");
    // The last bytes of a page-sized remainder.
    let _ = f.write_all(&[1u8; 512]);
    path
}

/// Every line of stdout and stderr.
fn lines(out: &std::process::Output) -> Vec<String> {
    text(&out.stdout)
        .lines()
        .chain(text(&out.stderr).lines())
        .map(String::from)
        .collect()
}

fn warnings(lines: &[String]) -> Vec<&String> {
    lines.iter().filter(|l| l.contains("Warning")).collect()
}

/// The files of `dir` whose name starts with `prefix`.
fn leftovers(dir: &Path, prefix: &str) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("the home")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(prefix))
        .collect()
}

/// `hammer` running `vurun`, with the file system of `root` filled as soon as the run prints
/// that it measures; its output, and the fill file.
fn run_filling(home: &Path, root: &Path) -> (std::process::Output, PathBuf) {
    use std::io::{BufRead, Write};
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_hammer"))
        .env("HAMMER_HOME", home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("hammer starts");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(b"vurun\n").expect("write stdin");
    drop(stdin);
    let stdout = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    let mut seen = Vec::new();
    let mut filler = None;
    for line in stdout.lines() {
        let line = line.expect("a line of output");
        if filler.is_none() && line.contains("Timing test period") {
            filler = Some(fill(root));
        }
        seen.extend_from_slice(line.as_bytes());
        seen.push(b'\n');
    }
    let mut out = child.wait_with_output().expect("hammer ends");
    out.stdout = seen;
    let filler =
        filler.unwrap_or_else(|| panic!("the run never measured: {}", lines(&out).join("\n")));
    (out, filler)
}

/// The jobs as `hammer jobs --json list` lists them.
fn jobs(home: &Path) -> Vec<serde_json::Value> {
    let out = hammer(home, &["jobs", "--json", "list"], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    match serde_json::from_slice(&out.stdout) {
        Ok(serde_json::Value::Array(a)) => a,
        other => panic!("jobs --json list: {other:?}: {}", text(&out.stdout)),
    }
}

fn jobid(lines: &[String]) -> String {
    lines
        .iter()
        .find_map(|l| l.strip_prefix("Benchmark Run jobid="))
        .unwrap_or_else(|| panic!("no job id line:\n{}", lines.join("\n")))
        .to_string()
}

#[test]
fn a_full_data_directory_loses_no_result_and_no_settings_file() {
    let servers = Servers::get();
    servers.require();
    let fs = Tmpfs::mount("8m");
    let home = fs.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let unique = format!("hammer_fulldisk_{}", std::process::id());

    // Set up while there is room: the settings file and a 1-warehouse schema.
    let setup = format!(
        "{}\ndbset db pg\ndiset tpcc pg_dbase {unique}\ndiset tpcc pg_user {unique}\n\
         diset tpcc pg_count_ware 1\ndiset tpcc pg_num_vu 1\nbuildschema\n\
         diset tpcc pg_driver timed\ndiset tpcc pg_rampup 0\ndiset tpcc pg_duration 0.05\n\
         vuset vu 1\n",
        servers.configure()
    );
    let out = hammer(&home, &[], &setup);
    assert_eq!(out.status.code(), Some(0), "{}", lines(&out).join("\n"));
    let settings = home.join("settings.json");
    let before = std::fs::read_to_string(&settings).expect("settings saved");

    // The disk full from the start: changes that cannot be saved, then a run.
    let filler = fill(fs.path());
    let out = hammer(
        &home,
        &[],
        "diset tpcc pg_duration 0.06\ndiset tpcc pg_keyandthink true\n\
         diset tpcc pg_keyandthink false\nvurun\ndiset tpcc pg_duration 0.04\n",
    );
    let all = lines(&out);
    let shown = all.join("\n");
    assert_eq!(out.status.code(), Some(0), "{shown}");
    assert!(
        all.iter()
            .any(|l| l.contains("TEST RESULT : System achieved ")),
        "the result is printed: {shown}"
    );
    let w = warnings(&all);
    assert_eq!(w.len(), 1, "one warning says what is not saved: {shown}");
    assert!(
        w[0].contains("disk is full") && w[0].contains("settings.json"),
        "{shown}"
    );
    let id = jobid(&all);
    // The old settings file stands whole, and nothing was left beside it.
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), before);
    assert!(leftovers(&home, "settings.json.tmp").is_empty());
    assert!(leftovers(&home, "jobs.db-reserve").is_empty());

    // With room again: no job is left RUNNING or ABORTED; the run, unrecorded, is absent.
    std::fs::remove_file(&filler).unwrap();
    let listed = jobs(&home);
    assert!(
        listed.iter().all(|j| j["status"] == "SUCCESS"),
        "{listed:#?}"
    );
    assert!(listed.iter().all(|j| j["id"] != id.as_str()), "{listed:#?}");

    // A disk that fills while a run runs: once the run measures (its job begun, room for
    // its end set aside), the disk is filled; the run's end is still recorded.
    let (out, filler) = run_filling(&home, fs.path());
    let all = lines(&out);
    let shown = all.join("\n");
    assert_eq!(out.status.code(), Some(0), "{shown}");
    let result = all
        .iter()
        .find_map(|l| {
            l.split_once("TEST RESULT : System achieved ")?
                .1
                .split_once(" NOPM")?
                .0
                .parse::<f64>()
                .ok()
        })
        .unwrap_or_else(|| panic!("the result is printed: {shown}"));
    let w = warnings(&all);
    assert_eq!(w.len(), 1, "one warning: {shown}");
    let id = jobid(&all);
    assert!(
        w[0].contains(&format!("job {id} is recorded with its end")),
        "{shown}"
    );
    std::fs::remove_file(&filler).unwrap();
    let listed = jobs(&home);
    let run = listed
        .iter()
        .find(|j| j["id"] == id.as_str())
        .unwrap_or_else(|| panic!("{listed:#?}"));
    assert_eq!(run["status"], "SUCCESS", "{run}");
    assert_eq!(run["nopm"].as_f64().map(f64::round), Some(result), "{run}");
    assert!(leftovers(&home, "jobs.db-reserve").is_empty());
    serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(&settings).unwrap())
        .expect("the settings file is whole JSON");

    let out = hammer(&home, &[], "deleteschema\n");
    assert_eq!(out.status.code(), Some(0), "{}", lines(&out).join("\n"));
}
