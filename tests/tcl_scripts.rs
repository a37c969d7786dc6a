//! HammerDB's Tcl (and Python) scripts run in hammer as they are: the scripts under
//! `tests/tcl/`, written in HammerDB's dialect, run by `hammer auto FILE.tcl` against the test
//! servers (TPROC-C build, check, a timed run, a profile over virtual-user counts, delete;
//! TPROC-H build, a power run, delete), each also converted with `hammer convert` and the
//! Rhai run with the same outcome. The refusals need no server: each names its line and what
//! to use instead.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{text, Servers};

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/tcl")
        .join(name)
}

struct Run {
    ok: bool,
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Run {
    fn all(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }
}

fn hammer(home: &Path, env: &[(&str, String)], args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_hammer"))
        .args(args)
        .env("HAMMER_HOME", home)
        .envs(env.iter().map(|(k, v)| (k, v.as_str())))
        .output()
        .expect("hammer runs");
    Run {
        ok: out.status.success(),
        code: out.status.code(),
        stdout: text(&out.stdout),
        stderr: text(&out.stderr),
    }
}

/// One database's run of the scripts: its environment, its data directory, its `$TMP`.
struct Session {
    db: &'static str,
    home: tempfile::TempDir,
    tmp: tempfile::TempDir,
    env: Vec<(&'static str, String)>,
}

impl Session {
    fn new(db: &'static str, servers: &Servers) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let (host, port) = match db {
            "pg" => (servers.pg_host.clone(), servers.pg_port),
            _ => (servers.maria_host.clone(), servers.maria_port),
        };
        let env = vec![
            ("TCL_DB", db.to_string()),
            ("TCL_HOST", host),
            ("TCL_PORT", port.to_string()),
            ("TCL_SOCKET", servers.maria_socket.clone()),
            ("HAMMER_PG_SUPERUSERPASS", servers.pg_pass.clone()),
            ("HAMMER_MARIA_PASS", servers.maria_pass.clone()),
            ("TMP", tmp.path().display().to_string()),
            ("PROFILEID", "9".to_string()),
        ];
        Session {
            db,
            home: tempfile::tempdir().unwrap(),
            tmp,
            env,
        }
    }

    fn auto(&self, path: &Path) -> Run {
        hammer(
            self.home.path(),
            &self.env,
            &["auto", path.to_str().expect("a path")],
        )
    }

    /// Runs `name` as it is, and `expect` is in its output.
    fn tcl(&self, name: &str, expect: &[&str]) -> String {
        let run = self.auto(&script(name));
        let all = run.all();
        assert!(run.ok, "{} {name}:\n{all}", self.db);
        for e in expect {
            assert!(all.contains(e), "{} {name}: no {e:?} in\n{all}", self.db);
        }
        all
    }

    /// Converts `name` with `hammer convert`, runs the Rhai, and `expect` is in its output.
    fn converted(&self, name: &str, expect: &[&str]) -> String {
        let conv = hammer(
            self.home.path(),
            &self.env,
            &["convert", script(name).to_str().expect("a path")],
        );
        assert!(conv.ok, "convert {name}:\n{}", conv.all());
        assert!(
            conv.stdout.starts_with("// Converted by hammer convert"),
            "{}",
            conv.stdout
        );
        let rhai = self.tmp.path().join(format!("{name}.rhai"));
        std::fs::write(&rhai, &conv.stdout).unwrap();
        let run = self.auto(&rhai);
        let all = run.all();
        assert!(
            run.ok,
            "{} {name} as Rhai:\n{all}\n{}",
            self.db, conv.stdout
        );
        for e in expect {
            assert!(
                all.contains(e),
                "{} {name} as Rhai: no {e:?} in\n{all}",
                self.db
            );
        }
        all
    }

    /// Both, with the same outcome.
    fn both(&self, name: &str, expect: &[&str]) {
        self.tcl(name, expect);
        self.converted(name, expect);
    }

    fn read_tmp(&self, file: &str) -> String {
        std::fs::read_to_string(self.tmp.path().join(file)).unwrap_or_default()
    }
}

/// The databases the scripts make, dropped whatever the test did.
struct Cleanup(&'static str);

impl Drop for Cleanup {
    fn drop(&mut self) {
        let servers = Servers::get();
        for name in ["tcl_tpcc", "tcl_tpch"] {
            if self.0 == "pg" {
                servers.pg_exec(
                    "postgres",
                    &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
                );
                servers.pg_exec("postgres", &format!("DROP ROLE IF EXISTS {name}"));
            } else {
                servers.maria_exec("mysql", &[&format!("DROP DATABASE IF EXISTS {name}")]);
            }
        }
    }
}

fn scripts_on(db: &'static str) {
    let servers = Servers::get();
    servers.require();
    let _cleanup = Cleanup(db);
    let s = Session::new(db, &servers);
    let deleted = "has been deleted successfully";

    // TPROC-C: whatever an earlier run left goes first; built by the Tcl.
    s.tcl(
        "tprocc_delete.tcl",
        &["DROP SCHEMA STARTED", "DROP SCHEMA COMPLETED"],
    );
    s.tcl(
        "tprocc_build.tcl",
        &[
            "SCHEMA BUILD STARTED",
            "TPROC-C schema built: 1 warehouses",
            "SCHEMA BUILD COMPLETED",
        ],
    );
    let checked = [
        "CHECK SCHEMA STARTED",
        "Schema has been checked successfully",
        "CHECK SCHEMA COMPLETED",
    ];
    s.both("tprocc_check.tcl", &checked);
    s.both("tprocc_check.py", &checked);

    // A timed run: `set jobid [ vurun ]`, `puts $jobid`, and the id in $TMP as HammerDB leaves it.
    for converted in [false, true] {
        let run = if converted {
            s.converted("tprocc_run.tcl", &[])
        } else {
            s.tcl("tprocc_run.tcl", &[])
        };
        assert!(
            run.contains("TEST RESULT : System achieved "),
            "{db}:\n{run}"
        );
        // `[ vurun ]` is HammerDB's value, `Benchmark Run jobid=ID`, in the file and printed.
        let written = s.read_tmp(&format!("{db}_tprocc"));
        let id = written
            .trim()
            .strip_prefix("Benchmark Run jobid=")
            .unwrap_or_else(|| panic!("{db}: {written:?} is not HammerDB's vurun value"));
        assert_eq!(id.len(), 24, "{db}: job id {id:?}");
        assert!(
            run.contains(&format!("TEST COMPLETE\nBenchmark Run jobid={id}\n")),
            "{db}: {id} not printed:\n{run}"
        );
    }

    // A profile over 1 and 2 virtual users: one job each, their ids appended to a file.
    for run in [
        s.tcl("tprocc_profile.tcl", &[]),
        s.converted("tprocc_profile.tcl", &[]),
    ] {
        for expected in [
            "PROFILE RUN 1: 1 virtual users, job ",
            "PROFILE RUN 2: 2 virtual users, job ",
            "PROFILE COMPLETE: 2 runs",
            "Setting performance profile id to 7",
            "Performance profile 7: ",
            "already gone: No Virtual Users found to destroy",
        ] {
            assert!(run.contains(expected), "{db}: no {expected:?} in\n{run}");
        }
        assert_eq!(
            run.matches("TEST RESULT : System achieved ").count(),
            2,
            "{run}"
        );
    }
    assert_eq!(
        s.read_tmp(&format!("{db}_tprocc_profile")).lines().count(),
        4
    );
    // The same in HammerDB's Python dialect, with helper functions (def) as its run_profile
    // scripts have; PROFILEID from the environment, as theirs.
    let run = s.tcl("tprocc_profile.py", &["PROFILE COMPLETE"]);
    for expected in [
        "PROFILE STEP 1 VU, job Benchmark Run jobid=",
        "PROFILE STEP 2 VUs, job Benchmark Run jobid=",
        "Setting performance profile id to 9",
        "Performance profile 9: ",
    ] {
        assert!(run.contains(expected), "{db}: no {expected:?} in\n{run}");
    }
    assert_eq!(
        s.read_tmp(&format!("{db}_tprocc_profile_py"))
            .lines()
            .count(),
        2
    );

    // Deleted by the Rhai, built again by the Rhai, deleted by the Tcl.
    s.converted("tprocc_delete.tcl", &[deleted]);
    s.converted("tprocc_build.tcl", &["TPROC-C schema built: 1 warehouses"]);
    s.tcl("tprocc_delete.tcl", &[deleted]);

    // TPROC-H at scale factor 0.01: built, a power run, deleted, by each.
    s.tcl("tproch_delete.tcl", &["DROP SCHEMA COMPLETED"]);
    let built = "TPROC-H schema built: scale factor 0.01, 86805 rows";
    let power = [
        "TEST STARTED",
        "Vuser 1:Completed 1 query set(s) in ",
        "TEST COMPLETE",
    ];
    s.tcl("tproch_build.tcl", &[built]);
    s.both("tproch_run.tcl", &power);
    let id = s.read_tmp(&format!("{db}_tproch"));
    assert_eq!(
        id.trim().strip_prefix("Benchmark Run jobid=").map(str::len),
        Some(24),
        "{db}: TPROC-H job {id:?}"
    );
    s.converted("tproch_delete.tcl", &[deleted]);
    s.converted("tproch_build.tcl", &[built]);
    s.tcl("tproch_delete.tcl", &[deleted]);
}

#[test]
fn hammerdb_tcl_scripts_on_postgresql() {
    scripts_on("pg");
}

#[test]
fn hammerdb_tcl_scripts_on_mariadb() {
    scripts_on("maria");
}

/// A script of our own in a temporary directory.
fn write(dir: &Path, name: &str, body: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, body).unwrap();
    p
}

/// Each construct hammer does not translate stops `hammer auto` (status 1, nothing run) and
/// `hammer convert` (status 1, no Rhai printed) with `FILE:LINE:` and what to do instead.
#[test]
fn untranslatable_constructs_name_their_line_and_the_way_out() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let cases: &[(&str, &str, usize, &str)] = &[
        ("proc.tcl", "puts one\nproc double {x} { return [expr {$x * 2}] }\n", 2, "proc double (a Tcl procedure) is not translated: write the script in Rhai, where fn defines a function"),
        ("rename.tcl", "# result redirection\n\nrename puts __puts\n", 3, "Tcl's rename command is not translated"),
        ("eval.tcl", "set cmd vurun\neval $cmd\n", 2, "Tcl's eval command is not translated"),
        ("subst.tcl", "set x [subst {$y}]\n", 1, "Tcl's subst command is not translated"),
        ("uplevel.tcl", "uplevel #0 {set x 1}\n", 1, "Tcl's uplevel command is not translated"),
        ("source.tcl", "set tmpdir $::env(TMP)\nset ::outputfile $tmpdir/pg_tprocc\nsource ./scripts/tcl/generic/generic_tprocc_result.tcl\n", 3, "is not translated: hammer's jobs command prints a job's figures as HammerDB's result scripts do: jobs JOBID result, jobs JOBID timing"),
        ("namespace.tcl", "namespace eval ::x { }\n", 1, "Tcl's namespace command is not translated"),
        ("array.tcl", "dbset db pg\narray set opts {a 1}\n", 2, "Tcl's array command is not translated"),
        ("sqlite.tcl", "package require sqlite3\n", 1, "package require sqlite3 is not translated: hammer's jobs command"),
        ("def.py", "import os\nlimit = 3\n\ndef fatal(msg):\n    print(msg, limit)\n", 5, "def fatal reading the script's variable limit is not translated: a Rhai function sees only its arguments"),
    ];
    for (name, body, line, message) in cases {
        let path = write(dir.path(), name, body);
        let shown = path.display().to_string();
        for mode in ["auto", "convert"] {
            let run = hammer(home.path(), &[], &[mode, &shown]);
            assert_eq!(run.code, Some(1), "{mode} {name}:\n{}", run.all());
            let expected = format!("{shown}:{line}: ");
            let first = run.stderr.lines().next().unwrap_or_default();
            assert!(
                first.starts_with(&expected) && first.contains(message),
                "{mode} {name}: want {expected}...{message}, got\n{}",
                run.all()
            );
            assert!(
                run.stdout.is_empty(),
                "{mode} {name} printed:\n{}",
                run.stdout
            );
        }
    }
}

/// An error at run time is reported at the Tcl line, `FILE.tcl:LINE: message`, and the script
/// exits 1 as HammerDB's does on an uncaught error; `exit N` is the status; a missing file
/// names itself; `hammer convert` takes .tcl and .py only.
#[test]
fn errors_and_statuses_are_hammerdb_s() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "bad_key.tcl",
        "puts \"SETTING CONFIGURATION\"\ndbset db pg\n\nif {1} {\n    diset tpcc pg_count_wre 4\n}\nputs never\n",
    );
    let shown = path.display().to_string();
    let run = hammer(home.path(), &[], &["auto", &shown]);
    assert_eq!(run.code, Some(1), "{}", run.all());
    assert!(run.stdout.contains("SETTING CONFIGURATION") && !run.stdout.contains("never"));
    assert!(
        run.stderr.starts_with(&format!("{shown}:5: "))
            && run.stderr.contains("did you mean pg_count_ware?"),
        "{}",
        run.all()
    );

    let path = write(
        dir.path(),
        "status.tcl",
        "set n [expr {1 + 2}]\nif {$n == 3} { exit $n }\nputs never\n",
    );
    let run = hammer(home.path(), &[], &["auto", path.to_str().unwrap()]);
    assert_eq!(run.code, Some(3), "{}", run.all());

    let path = write(
        dir.path(),
        "status.py",
        "import sys\nprint('py')\nsys.exit(4)\n",
    );
    let run = hammer(home.path(), &[], &["auto", path.to_str().unwrap()]);
    assert_eq!(
        (run.code, run.stdout.as_str()),
        (Some(4), "py\n"),
        "{}",
        run.all()
    );

    let missing = dir.path().join("missing.tcl");
    let run = hammer(home.path(), &[], &["auto", missing.to_str().unwrap()]);
    assert_eq!(run.code, Some(1));
    assert!(
        run.stderr.contains("missing.tcl: cannot read script"),
        "{}",
        run.all()
    );

    let run = hammer(home.path(), &[], &["convert", "x.rhai"]);
    assert_eq!(run.code, Some(2));
    assert!(
        run.stderr
            .contains("takes a Tcl (.tcl) or Python (.py) script"),
        "{}",
        run.all()
    );
}

/// `hammer convert` prints Rhai that runs as the Tcl does, under a header naming the source.
#[test]
fn convert_prints_rhai_that_runs_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let body = "# count to three\nset total 0\nforeach i {1 2 3} {\n    incr total $i\n}\n\
                puts \"total $total on [expr {[numberOfCPUs] > 0 ? {some} : {no}}] CPUs\"\n\
                set fd [open $::env(TMP)/out w]\nputs $fd done\nclose $fd\n";
    let path = write(dir.path(), "count.tcl", body);
    let env = [("TMP", dir.path().display().to_string())];
    let conv = hammer(home.path(), &env, &["convert", path.to_str().unwrap()]);
    assert!(conv.ok, "{}", conv.all());
    assert!(conv.stdout.starts_with(&format!(
        "// Converted by hammer convert {} from {}",
        env!("CARGO_PKG_VERSION"),
        path.display()
    )));
    assert!(
        conv.stdout.contains(
            "// count to three\nlet total = 0;\nfor i in [1, 2, 3] {\n    total += i;\n}\n"
        ),
        "{}",
        conv.stdout
    );
    let rhai = write(dir.path(), "count.rhai", &conv.stdout);
    for p in [&path, &rhai] {
        let run = hammer(home.path(), &env, &["auto", p.to_str().unwrap()]);
        assert!(run.ok, "{}", run.all());
        assert_eq!(run.stdout, "total 6 on some CPUs\n");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("out")).unwrap(),
            "done\n"
        );
        std::fs::remove_file(dir.path().join("out")).unwrap();
    }
}
