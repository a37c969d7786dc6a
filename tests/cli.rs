//! Binary tests: `hammer --help/--version`, `hammer auto` scripts, and the console fed by a pipe.

mod common;

use common::{hammer, text};

#[test]
fn help_and_version() {
    let home = tempfile::tempdir().unwrap();
    let out = hammer(home.path(), &["--version"], "");
    assert!(out.status.success());
    assert_eq!(
        text(&out.stdout).trim(),
        format!("hammer {}", hammer::VERSION)
    );
    let out = hammer(home.path(), &["--help"], "");
    assert!(out.status.success());
    let help = text(&out.stdout);
    assert!(
        help.contains("auto") && help.contains("Usage: hammer"),
        "{help}"
    );
}

#[test]
fn piped_console_runs_lines_without_escape_codes() {
    let home = tempfile::tempdir().unwrap();
    let input = "dbset db pg\nlet w = 3;\ndiset(\"tpcc\", \"pg_count_ware\", w)\nfor i in 0..2 {\n  print(`i=${i}`)\n}\nprint dict\nnosuch thing\nprint(\"still running\")\n";
    let out = hammer(home.path(), &[], input);
    let stdout = text(&out.stdout);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        !stdout.contains('\x1b') && !stderr.contains('\x1b'),
        "escape codes in {stdout:?}"
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "Database set to PostgreSQL");
    assert_eq!(
        lines[1],
        "Changed tpcc:pg_count_ware from 1 to 3 for PostgreSQL"
    );
    assert_eq!(lines[2..4], ["i=0", "i=1"]);
    assert_eq!(lines[4], "Dictionary Settings for PostgreSQL");
    assert!(stdout.contains(" pg_count_ware       = 3"), "{stdout}");
    assert_eq!(*lines.last().unwrap(), "still running");
    assert!(stderr.contains("Unknown command nosuch"), "{stderr}");
    // Settings persisted in HAMMER_HOME.
    let saved = std::fs::read_to_string(home.path().join("settings.json")).unwrap();
    assert!(saved.contains("\"pg_count_ware\": \"3\""), "{saved}");
}

#[test]
fn piped_console_exit_status_is_the_last_inputs() {
    let home = tempfile::tempdir().unwrap();
    let out = hammer(home.path(), &[], "print(1)\ndiset tpcc pg_count_ware 0\n");
    assert_eq!(out.status.code(), Some(1));
    let out = hammer(home.path(), &[], "diset tpcc pg_count_ware 0\nprint(1)\n");
    assert_eq!(out.status.code(), Some(0));
    let out = hammer(home.path(), &[], "exit(4)\nprint(\"not reached\")\n");
    assert_eq!(out.status.code(), Some(4));
    assert!(!text(&out.stdout).contains("not reached"));
}

fn script(dir: &std::path::Path, name: &str, body: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, body).unwrap();
    p
}

#[test]
fn auto_runs_a_script_with_arguments() {
    let home = tempfile::tempdir().unwrap();
    let file = script(
        home.path(),
        "build.rhai",
        "#!/usr/bin/env -S hammer auto\n\
         dbset(\"db\", \"maria\");\n\
         diset(\"tpcc\", \"maria_count_ware\", ARGS[0]);\n\
         print(`args: ${ARGS.len()} ${ARGS[1]}`);\n\
         quit();\n\
         print(\"not reached\");\n",
    );
    let out = hammer(
        home.path(),
        &["auto", file.to_str().unwrap(), "5", "-x"],
        "",
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        [
            "Database set to MariaDB",
            "Changed tpcc:maria_count_ware from 1 to 5 for MariaDB",
            "args: 2 -x"
        ]
    );
}

#[test]
fn auto_reports_file_line_and_column() {
    let home = tempfile::tempdir().unwrap();
    let file = script(
        home.path(),
        "bad.rhai",
        "#!hammer\ndbset(\"db\", \"pg\");\n  diset(\"tpcc\", \"pg_count_ware\", 0);\nprint(\"not reached\");\n",
    );
    let out = hammer(home.path(), &["auto", file.to_str().unwrap()], "");
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    let expected = format!(
        "{}:3:3: Value 0 for tpcc:pg_count_ware is not valid",
        file.display()
    );
    assert!(stderr.starts_with(&expected), "{stderr}");
    assert!(!text(&out.stdout).contains("not reached"));

    let syntax = script(home.path(), "syntax.rhai", "let x = 1;\nlet y = (2 + ;\n");
    let out = hammer(home.path(), &["auto", syntax.to_str().unwrap()], "");
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with(&format!("{}:2:", syntax.display())),
        "{stderr}"
    );

    // HammerDB's bare form in a script: that very line in the function form, and exit 1.
    for (body, at, call) in [
        (
            "dbset(\"db\", \"pg\");\n\ndiset tpcc pg_count_ware 4\nprint(\"not reached\");\n",
            3,
            r#"diset("tpcc", "pg_count_ware", 4)"#,
        ),
        ("dbset(\"db\", \"pg\");\nvudestroy\n", 2, "vudestroy()"),
        ("vudestroy\ndbset(\"db\", \"pg\");\n", 1, "vudestroy()"),
        ("dbset db pg;\n", 1, r#"dbset("db", "pg")"#),
    ] {
        let bare = script(home.path(), "bare.rhai", body);
        let out = hammer(home.path(), &["auto", bare.to_str().unwrap()], "");
        assert_eq!(out.status.code(), Some(1), "{body}");
        let stderr = text(&out.stderr);
        let expected = format!(
            "{}:{at}:1: HammerDB's bare form works at the console only; in a script write {call}\n",
            bare.display()
        );
        assert_eq!(stderr, expected, "{body}");
        assert!(!text(&out.stdout).contains("not reached"));
    }

    let wrong_arity = script(home.path(), "arity.rhai", "\n\nvuset(\"vu\");\n");
    let out = hammer(home.path(), &["auto", wrong_arity.to_str().unwrap()], "");
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(":3:1: Error: vuset takes 2 arguments\nUsage: vuset [vu|"),
        "{stderr}"
    );
}

#[test]
fn auto_with_a_missing_file_fails_clearly() {
    let home = tempfile::tempdir().unwrap();
    let out = hammer(home.path(), &["auto", "/no/such/script.rhai"], "");
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("/no/such/script.rhai: cannot read script"),
        "{stderr}"
    );
}

#[test]
fn auto_exit_code_passes_through() {
    let home = tempfile::tempdir().unwrap();
    let file = script(home.path(), "exit.rhai", "if ARGS.len() == 0 { exit(7) }\n");
    let out = hammer(home.path(), &["auto", file.to_str().unwrap()], "");
    assert_eq!(out.status.code(), Some(7));
}

#[test]
fn a_usage_error_exits_2_and_help_exits_0() {
    let home = tempfile::tempdir().unwrap();
    let out = hammer(home.path(), &["autoo", "x.rhai"], "");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("autoo"), "{}", text(&out.stderr));
    let out = hammer(home.path(), &["--help"], "");
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("Usage: hammer"));
}

#[test]
fn ctrl_c_stops_a_script_even_in_a_pure_rhai_loop() {
    let home = tempfile::tempdir().unwrap();
    // try/catch does not catch Ctrl-C: the script ends, with the shell's status for SIGINT.
    let file = script(
        home.path(),
        "loop.rhai",
        "let i = 0;\ntry { loop { i += 1; } } catch { print(\"caught\"); }\nprint(\"after\");\n",
    );
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_hammer"))
        .args(["auto", file.to_str().unwrap()])
        .env("HAMMER_HOME", home.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(700));
    let sent = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("loop.rhai:2:") && stderr.contains("Interrupted by Ctrl-C"),
        "{stderr}"
    );
    let stdout = text(&out.stdout);
    assert!(
        !stdout.contains("caught") && !stdout.contains("after"),
        "{stdout}"
    );
}

/// The newcomer's scripts: without cargo they stop at once and name the toolchain; their long
/// steps say what they do and cargo's progress is shown (no `--quiet` build that looks hung).
#[test]
fn newcomer_scripts_name_the_toolchain_and_show_progress() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let empty = tempfile::tempdir().unwrap();
    for name in ["demo.sh", "test.sh"] {
        let path = root.join("scripts").join(name);
        let out = std::process::Command::new("/bin/bash")
            .arg(&path)
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", empty.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{name}");
        let err = text(&out.stderr);
        assert!(
            err.contains(&format!(
                "{name}: cargo not found: hammer needs Rust 1.88 or newer"
            )),
            "{name}: {err}"
        );
        let body = std::fs::read_to_string(&path).unwrap();
        for line in body
            .lines()
            .filter(|l| l.trim_start().starts_with("cargo "))
        {
            assert!(!line.contains("--quiet"), "{name}: {line}");
        }
        assert!(body.contains("step \"building"), "{name}");
    }
    let demo = std::fs::read_to_string(root.join("scripts/demo.sh")).unwrap();
    assert!(demo.contains("step \"data directory (settings, history, jobs.db): $HAMMER_HOME\""));
    assert!(demo.contains("HAMMER_HOME=$HAMMER_HOME ./target/release/hammer jobs"));
    // The version the scripts and README name is the one Cargo.toml asks for.
    let toml = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    assert!(toml.contains("rust-version = \"1.88\""));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    assert!(readme.contains("hammer needs Rust 1.88 or newer"));
}
