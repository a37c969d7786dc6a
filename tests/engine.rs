//! Engine tests: Rhai snippets and bare HammerDB lines run against a session with captured output.

mod common;

use common::Fixture;
use hammer::commands::{self, COMMANDS};
use hammer::shell::completions;

#[test]
fn scope_is_kept_between_inputs() {
    let mut f = Fixture::new();
    f.ok("let w = 4;");
    let lines = f.ok(r#"diset("tpcc", "pg_count_ware", w)"#);
    assert_eq!(
        lines,
        ["Changed tpcc:pg_count_ware from 1 to 4 for PostgreSQL"]
    );
    // A function defined in one input is callable in the next.
    f.ok("fn double(x) { x * 2 }");
    assert_eq!(f.console("double(w)").0, Ok("8".to_string()));
}

#[test]
fn bare_and_function_forms_do_the_same() {
    let mut f = Fixture::new();
    assert_eq!(f.ok("dbset db maria"), ["Database set to MariaDB"]);
    assert_eq!(
        f.ok("diset tpcc maria_count_ware 3"),
        ["Changed tpcc:maria_count_ware from 1 to 3 for MariaDB"]
    );
    assert_eq!(
        f.ok(r#"diset("tpcc", "maria_count_ware", 3);"#),
        ["Value 3 for tpcc:maria_count_ware is the same as existing value 3, no change made"]
    );
    assert_eq!(
        f.ok("vuset vu 8"),
        ["Changed virtual_user_options:virtual_users from 1 to 8 for generic"]
    );
    assert_eq!(f.ok("print vuconf")[0], "Virtual Users = 8");
}

#[test]
fn several_bare_commands_in_one_input() {
    let mut f = Fixture::new();
    let lines = f.ok("dbset db mysql; diset tpcc mysql_count_ware 2\nprint db");
    assert_eq!(lines[0], "Database set to MySQL");
    assert_eq!(
        lines[1],
        "Changed tpcc:mysql_count_ware from 1 to 2 for MySQL"
    );
    assert_eq!(lines[2], "Database MySQL set.");
    // Rhai spanning lines is left alone.
    assert_eq!(
        f.console("let x = [1,\n 2];\nx.len()").0,
        Ok("2".to_string())
    );
}

#[test]
fn print_targets_and_plain_print() {
    let mut f = Fixture::new();
    let db = f.ok("print db");
    assert_eq!(db[0], "Database PostgreSQL set.");
    assert_eq!(
        db[2],
        "PostgreSQL = pg MariaDB = maria MySQL = mysql CockroachDB = crdb YugabyteDB = yb TiDB = tidb"
    );
    assert_eq!(f.ok("print bm"), ["Benchmark set to TPC-C"]);
    let dict = f.ok("print dict");
    assert_eq!(dict[0], "Dictionary Settings for PostgreSQL");
    assert_eq!(dict[1], "connection {");
    assert!(dict.contains(&"tpcc       {".to_string()), "{dict:#?}");
    // HammerDB's print dict: the connection and the current benchmark's section only.
    assert!(!dict.iter().any(|l| l.starts_with("tpch")), "{dict:#?}");
    f.ok("dbset bm TPC-H");
    assert_eq!(f.ok("print bm"), ["Benchmark set to TPC-H"]);
    let dict = f.ok("print dict");
    assert!(dict.iter().any(|l| l.starts_with("tpch")), "{dict:#?}");
    assert!(!dict.iter().any(|l| l.starts_with("tpcc")), "{dict:#?}");
    f.ok("dbset bm TPC-C");
    let generic = f.ok("print(\"generic\")");
    assert_eq!(generic[0], "Generic Dictionary Settings");
    assert!(generic.iter().any(|l| l.starts_with(" tc_refresh_rate")));
    assert_eq!(f.ok("print tcconf")[0], "transaction_counter {");
    // In Rhai, print of anything that is not a target prints it.
    assert_eq!(f.ok(r#"print("hello " + 42)"#), ["hello 42"]);
    assert_eq!(f.ok("print(1 + 1)"), ["2"]);
    let e = f.err("print nonsense");
    assert!(
        e.contains(
            "Usage: print [db|bm|dict|generic|script|vuconf|vucreated|vustatus|vucomplete|tcconf|datagen|connectpool]"
        ),
        "{e}"
    );
    let e = f.err("print()");
    assert!(e.contains("Usage: print"), "{e}");
}

#[test]
fn passwords_never_print() {
    let mut f = Fixture::new();
    let changed = f.ok("diset tpcc pg_superuserpass {pa$$ w;rd[1]}");
    // A password is named, not shown, when it changes: no "from ******** to ********".
    assert_eq!(changed, ["Changed tpcc:pg_superuserpass for PostgreSQL"]);
    let same = f.ok(r#"diset("tpcc", "pg_superuserpass", "pa$$ w;rd[1]")"#);
    assert_eq!(
        same,
        ["Value for tpcc:pg_superuserpass is the same as the existing value, no change made"]
    );
    // The mask itself (a line recalled from the masked history) is not taken as a password.
    let e = f.err("diset tpcc pg_superuserpass ********");
    assert!(
        e.contains("is how hammer shows a password") && e.contains("keeps its value"),
        "{e}"
    );
    let all = f.ok("print dict").join("\n");
    assert!(!all.contains("pa$$"), "{all}");
    assert!(all.contains(" pg_superuserpass    = ********"), "{all}");
    // The value passes through untouched: no Tcl-style quoting.
    let settings = std::fs::read_to_string(f.home.path().join("settings.json")).unwrap();
    assert!(
        settings.contains(r#""pg_superuserpass": "pa$$ w;rd[1]""#),
        "{settings}"
    );
    for db in ["maria", "mysql"] {
        f.ok(&format!("dbset db {db}"));
        let lines = f.ok(&format!("diset tpcc {db}_pass hush"));
        assert!(!lines.join("").contains("hush"), "{lines:?}");
    }
}

#[test]
fn bad_input_is_explained_and_changes_nothing() {
    let mut f = Fixture::new();
    // Unknown command, bare and called.
    let e = f.err("vusett vu 4");
    assert!(
        e.contains(
            "Unknown command vusett; did you mean vuset? Type help for the list of commands"
        ),
        "{e}"
    );
    let e = f.err("vusett(\"vu\", 4)");
    assert!(
        e.contains("Unknown command vusett; did you mean vuset?"),
        "{e}"
    );
    // Wrong number of arguments.
    let e = f.err("diset tpcc pg_count_ware");
    assert!(
        e.contains("Error: Invalid number of arguments")
            && e.contains("Usage: diset dict key value"),
        "{e}"
    );
    let e = f.err("dbset(\"db\")");
    assert!(e.contains("Usage: dbset [db|bm] value"), "{e}");
    let e = f.err("librarycheck now");
    assert!(e.contains("Usage: librarycheck"), "{e}");
    // Unknown dictionary and key.
    let e = f.err("diset tpcx pg_count_ware 4");
    assert!(
        e.contains("Dictionary \"tpcx\" for PostgreSQL does not exist"),
        "{e}"
    );
    let e = f.err("diset tpch pg_count_ware 4");
    assert!(
        e.contains("key \"pg_count_ware\" is in the \"tpcc\" dictionary"),
        "{e}"
    );
    let e = f.err("diset tpcc pg_count_wae 4");
    assert!(e.contains("did you mean pg_count_ware?"), "{e}");
    let e = f.err("diset tpcc pg_port 5433");
    assert!(
        e.contains("key \"pg_port\" is in the \"connection\" dictionary"),
        "{e}"
    );
    // Wrong type and out of range: the old value stays.
    for bad in ["0", "-2", "four", "2.5"] {
        let e = f.err(&format!("diset tpcc pg_count_ware {bad}"));
        assert!(e.contains("must be an integer from 1 to"), "{bad}: {e}");
    }
    let e = f.err("diset tpcc pg_driver fast");
    assert!(e.contains("must be one of test|timed"), "{e}");
    let e = f.err("diset tpcc pg_rampup soon");
    assert!(e.contains("minutes"), "{e}");
    let e = f.err("diset connection pg_sslmode verify-host");
    assert!(
        e.contains("one of disable|allow|prefer|require|verify-ca|verify-full"),
        "{e}"
    );
    let e = f.err("diset connection pg_require_auth md5,!password");
    assert!(e.contains("comma-separated list"), "{e}");
    assert!(f
        .ok("print dict")
        .contains(&" pg_count_ware       = 1".to_string()));
    // Fractional minutes are fine.
    assert_eq!(
        f.ok("diset tpcc pg_duration 0.5"),
        ["Changed tpcc:pg_duration from 5 to 0.5 for PostgreSQL"]
    );
    // vuset, tcset, metset.
    let e = f.err("vuset users 4");
    assert!(
        e.contains("Error: invalid option users") && e.contains("Usage: vuset [vu|delay"),
        "{e}"
    );
    let e = f.err("vuset vu 0");
    assert!(e.contains("must be an integer from 1"), "{e}");
    for bad in ["0", "-1", "abc", "60"] {
        let e = f.err(&format!("tcset refreshrate {bad}"));
        assert!(
            e.contains("tc_refresh_rate keeps its value 10"),
            "{bad}: {e}"
        );
    }
    let e = f.err("metset agent_id port");
    assert!(e.contains("must be an integer from 1 to 65535"), "{e}");
    // Databases hammer does not support.
    for (p, name) in [("ora", "Oracle"), ("mssqls", "MSSQLServer"), ("db2", "Db2")] {
        let e = f.err(&format!("dbset db {p}"));
        assert!(
            e.contains(&format!("{name} ({p}) is not supported by hammer (yet)")),
            "{e}"
        );
        assert!(e.contains("pg maria mysql"), "{e}");
    }
    let e = f.err("dbset db sqlite");
    assert!(
        e.contains("Unknown prefix sqlite, choose one from pg maria mysql"),
        "{e}"
    );
    assert_eq!(
        f.ok("dbset bm TPROC-H"),
        ["Benchmark set to TPROC-H for PostgreSQL"]
    );
    assert_eq!(
        f.ok("loadscript"),
        ["Script loaded, Type \"print script\" to view"]
    );
    let script = f.ok("print script").join("\n");
    assert!(
        script.contains("TPROC-H") && script.contains("power test"),
        "{script}"
    );
    f.ok("dbset bm TPC-C");
    let e = f.err("dbset bm TPC-X");
    assert!(e.contains("Unknown benchmark TPC-X"), "{e}");
    assert_eq!(f.ok("print db")[0], "Database PostgreSQL set.");
}

#[test]
fn setters_confirm_in_hammerdb_words() {
    let mut f = Fixture::new();
    assert_eq!(
        f.ok("dbset bm tproc-c"),
        ["Benchmark set to TPROC-C for PostgreSQL"]
    );
    assert_eq!(
        f.ok("tcset refreshrate 5"),
        ["Transaction Counter refresh rate set to 5"]
    );
    assert_eq!(
        f.ok("tcset logtotemp 1"),
        ["Transaction Counter log to temp set to 1"]
    );
    assert_eq!(
        f.ok("metset agent_hostname dbhost"),
        ["Metrics agent hostname set to dbhost"]
    );
    assert_eq!(
        f.ok("metset agent_id 10001"),
        ["Metrics agent id set to 10001"]
    );
    assert_eq!(
        f.ok("giset commandline jobs_disable 1"),
        ["Changed commandline:jobs_disable from 0 to 1 for generic"]
    );
    // HammerDB's key that does nothing here: kept, with one warning saying why.
    let lines = f.ok("giset commandline keepalive_margin 120");
    assert_eq!(
        lines,
        [
            "Changed commandline:keepalive_margin from 60 to 120 for generic",
            "Warning: commandline:keepalive_margin has no effect in hammer: hammer's vurun \
             always blocks until every virtual user has ended"
        ]
    );
    assert!(f
        .err("giset commandline keepalive_margin -1")
        .contains("keepalive_margin"));
    let vcpu = std::thread::available_parallelism().unwrap().get();
    let lines = f.ok("vuset vu vcpu");
    assert_eq!(
        lines,
        [format!(
            "Changed virtual_user_options:virtual_users from 1 to {vcpu} for generic"
        )]
    );
}

#[test]
fn settings_persist_between_sessions() {
    let mut f = Fixture::new();
    f.ok("dbset db mysql");
    f.ok("diset tpcc mysql_count_ware 9");
    f.ok("vuset delay 20");
    let home = std::mem::replace(&mut f.home, tempfile::tempdir().unwrap());
    drop(f);
    let mut again = Fixture::in_home(home);
    assert_eq!(again.ok("print db")[0], "Database MySQL set.");
    assert!(again
        .ok("print dict")
        .contains(&" mysql_count_ware       = 9".to_string()));
    assert_eq!(again.ok("print vuconf")[1], "User Delay(ms) = 20");
}

#[test]
fn quit_and_exit_end_input() {
    let mut f = Fixture::new();
    for q in ["quit", "exit", "quit()", "exit();", "print(1); quit()"] {
        assert_eq!(f.console(q).0, Ok("<quit 0>".to_string()), "{q}");
    }
    assert_eq!(f.console("exit(3)").0, Ok("<quit 3>".to_string()));
}

#[test]
fn help_lists_every_command_and_describes_one() {
    let mut f = Fixture::new();
    let index = f.ok("help");
    assert!(index[0].ends_with("CLI Help Index"), "{index:?}");
    let listed: Vec<&str> = index.iter().filter_map(|l| l.strip_prefix('\t')).collect();
    assert_eq!(listed, commands::names());
    let one = f.ok("help diset");
    assert_eq!(one[0], "diset - Usage: diset dict key value");
    let e = f.err("help dizet");
    assert!(
        e.contains("Error: invalid option dizet; did you mean diset?")
            && e.contains("Usage: help [buildschema|"),
        "{e}"
    );
}

/// The command table, the Rhai functions, help and completion agree.
#[test]
fn command_table_drives_registration_help_and_completion() {
    let mut f = Fixture::new();
    let help = f.ok("help").join("\n");
    let session = f.engine.session_handle();
    let (_, first_words) = completions(&session.lock().unwrap(), "");
    for cmd in COMMANDS {
        assert!(
            help.contains(&format!("\t{}", cmd.name)),
            "help lacks {}",
            cmd.name
        );
        assert!(
            first_words.contains(&cmd.name.to_string()),
            "completion lacks {}",
            cmd.name
        );
        if cmd.name == "quit" {
            continue;
        }
        // Registered for every arity: too many arguments reach our usage line, not Rhai's
        // "function not found".
        // `clear` of one argument stays Rhai's own (a string's, an array's or a map's).
        let extra = if cmd.name == "clear" { 2 } else { 1 };
        let args = vec!["\"x\""; cmd.max_args + extra].join(", ");
        let e = f.err(&format!("{}({args})", cmd.name));
        assert!(e.contains(&cmd.usage()), "{}: {e}", cmd.name);
    }
    assert_eq!(first_words.len(), COMMANDS.len() + 1, "{first_words:?}");
}

/// The console's `clear` leaves Rhai's own `clear` of a string, an array or a map alone.
#[test]
fn clear_of_a_value_is_still_rhais() {
    let mut f = Fixture::new();
    let out = f.ok(r#"let a = [1, 2]; a.clear(); let m = #{k: 1}; m.clear(); let s = "ab"; s.clear(); print(`${a.len()} ${m.len()} ${s.len()}`); clear();"#);
    assert!(out.iter().any(|l| l == "0 0 0"), "{out:?}");
}

#[test]
fn completion_follows_the_command_and_the_current_database() {
    let f = Fixture::new();
    let session = f.engine.session_handle();
    let s = session.lock().unwrap();
    assert_eq!(completions(&s, "pri").1, ["print"]);
    assert_eq!(completions(&s, "print d").1, ["datagen", "db", "dict"]);
    assert_eq!(completions(&s, "dbset ").1, ["bm", "db"]);
    assert_eq!(completions(&s, "dbset db m").1, ["maria", "mysql"]);
    assert_eq!(
        completions(&s, "diset ").1,
        ["connection", "oltp", "tpcc", "tpch"]
    );
    assert_eq!(completions(&s, "diset tpcc pg_count").1, ["pg_count_ware"]);
    assert_eq!(
        completions(&s, "diset connection pg_").1,
        [
            "pg_host",
            "pg_load_balance",
            "pg_port",
            "pg_read_only_hosts",
            "pg_reply_timeout",
            "pg_require_auth",
            "pg_sslmode",
            "pg_sslrootcert",
            "pg_target_session_attrs",
        ]
    );
    let (start, words) = completions(&s, "diset(\"tpcc\", \"pg_num");
    assert_eq!((start, words), (15, vec!["pg_num_vu".to_string()]));
    assert_eq!(
        completions(&s, "giset transaction_counter tc_r").1,
        ["tc_refresh_rate"]
    );
    // The values of enumerated keys, in either form, and of the options that set them.
    assert_eq!(
        completions(&s, "diset tpcc pg_driver ").1,
        ["test", "timed"]
    );
    assert_eq!(completions(&s, "diset tpcc pg_driver ti").1, ["timed"]);
    assert_eq!(
        completions(&s, "diset(\"tpcc\", \"pg_raiseerror\", ").1,
        ["false", "true"]
    );
    assert!(completions(&s, "diset tpcc pg_count_ware ").1.is_empty());
    assert_eq!(
        completions(&s, "diset connection pg_require_auth ").1,
        ["md5", "none", "password", "scram-sha-256"]
    );
    assert_eq!(completions(&s, "vuset showoutput ").1, ["0", "1"]);
    assert_eq!(
        completions(&s, "giset commandline jobsoutput ").1,
        ["JSON", "text"]
    );
    assert_eq!(completions(&s, "vuset r").1, ["refreshrate", "repeat"]);
    assert_eq!(completions(&s, "tcset r").1, ["refreshrate"]);
    assert_eq!(
        completions(&s, "metset agent_").1,
        ["agent_hostname", "agent_id"]
    );
    assert_eq!(
        completions(&s, "help vu").1,
        [
            "vucomplete",
            "vucreate",
            "vudestroy",
            "vurun",
            "vuset",
            "vustatus"
        ]
    );
    assert!(completions(&s, "diset tpcc maria_").1.is_empty());
}

#[test]
fn librarycheck_names_the_unreachable_server_without_hanging() {
    let mut f = Fixture::new();
    // Port 1 on loopback: nothing listens there.
    f.ok("diset connection pg_port 1");
    f.ok("dbset db maria; diset connection maria_port 1; diset connection maria_socket null");
    f.ok("dbset db mysql; diset connection mysql_port 1; diset connection mysql_socket null");
    let started = std::time::Instant::now();
    let (r, lines) = f.console("let r = librarycheck(); r");
    let text = lines.join("\n");
    assert!(text.contains("Error: cannot connect to PostgreSQL at localhost:1 as user postgres: connection refused"), "{text}");
    assert!(
        text.contains(
            "Error: cannot connect to MariaDB at 127.0.0.1:1 as user root: connection refused"
        ),
        "{text}"
    );
    assert!(r.unwrap().contains("\"ok\": false"));
    // Refused connections answer at once; only a silent host would wait for the timeout.
    assert!(started.elapsed() < hammer::db::CONNECT_TIMEOUT * 2);
}

#[test]
fn librarycheck_gives_up_on_a_silent_server_after_the_connect_timeout() {
    // Completes TCP handshakes and never says a word.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    let mut f = Fixture::new();
    f.ok(&format!(
        "diset connection pg_host 127.0.0.1; diset connection pg_port {port}; \
         dbset db maria; diset connection maria_socket null; diset connection maria_port {port}"
    ));
    let (r, lines) = f.console("librarycheck()");
    assert!(r.is_ok(), "{r:?}");
    let text = lines.join("\n");
    assert!(
        text.contains(&format!("Error: cannot connect to PostgreSQL at 127.0.0.1:{port} as user postgres: server unreachable")),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "Error: cannot connect to MariaDB at 127.0.0.1:{port} as user root: server unreachable"
        )),
        "{text}"
    );
}

#[test]
fn dgset_and_datagenrun() {
    let mut f = Fixture::new();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display().to_string();
    assert_eq!(
        f.ok(&format!("dgset directory {d}")),
        [format!("Set directory to {d} for data generation")]
    );
    assert_eq!(
        f.ok("dgset warehouse 2"),
        ["Set warehouses to 2 for data generation"]
    );
    assert_eq!(
        f.ok("dgset vu 2"),
        ["Set virtual users to 2 for data generation"]
    );
    assert_eq!(
        f.ok("print datagen"),
        [format!("Data Generation set to build a TPC-C schema for PostgreSQL with 2 warehouses with 2 virtual users in {d}")]
    );
    // Bad input: more writers than warehouses, missing or unwritable directory, TPROC-H.
    let e = f.err("dgset vu 3");
    assert!(
        e.contains("You have 3 virtual users building 2 warehouses"),
        "{e}"
    );
    let e = f.err("dgset directory /no/such/dir");
    assert!(e.contains("directory /no/such/dir does not exist"), "{e}");
    let e = f.err("dgset scale_fact 3");
    assert!(
        e.contains("Value 3 for datageneration:gen_scale_fact is not valid"),
        "{e}"
    );
    let e = f.err("dgset ware 2");
    assert!(
        e.contains("Usage: dgset [vu|warehouse|scale_fact|directory] value"),
        "{e}"
    );
    let e = f.err("dgset warehouse 0");
    assert!(e.contains("must be an integer from 1"), "{e}");

    let (r, lines) = f.console("datagenrun()");
    let rows: i64 = r.unwrap().parse().unwrap();
    assert!(rows > 2 * 490_000, "{rows}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("2 WAREHOUSE SCHEMA GENERATED in")),
        "{lines:#?}"
    );
    assert!(
        lines.contains(&"Vuser 2:Generating Stock Wid=2".to_string()),
        "{lines:#?}"
    );
    for t in [
        "item_1",
        "warehouse_1",
        "warehouse_2",
        "order_line_2",
        "new_order_1",
    ] {
        assert!(dir.path().join(format!("{t}.tbl")).exists(), "{t}");
    }
    let w2 = std::fs::read_to_string(dir.path().join("warehouse_2.tbl")).unwrap();
    assert!(w2.starts_with("2|"), "{w2}");
    // A second run would overwrite: refused, files untouched.
    let e = f.err("datagenrun");
    assert!(e.contains("already exists"), "{e}");
}

#[cfg(unix)]
#[test]
fn an_unwritable_directory_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let mut f = Fixture::new();
    let dir = tempfile::tempdir().unwrap();
    let ro = dir.path().join("ro");
    std::fs::create_dir(&ro).unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
    // Permissions do not stop root; sysfs refuses new files even to root.
    let root_can_write = std::fs::File::create(ro.join("probe")).is_ok();
    let target = if root_can_write {
        std::path::PathBuf::from("/sys")
    } else {
        ro
    };
    let e = f.err(&format!("dgset directory {}", target.display()));
    assert!(
        e.contains(&format!("directory {} is not writable", target.display())),
        "{e}"
    );
}

#[test]
fn buildschema_refuses_more_loaders_than_warehouses() {
    let mut f = Fixture::new();
    f.ok("diset tpcc pg_count_ware 2; diset tpcc pg_num_vu 3");
    let e = f.err("buildschema");
    assert!(
        e.contains("You have 3 virtual users building 2 warehouses"),
        "{e}"
    );
}

#[test]
fn build_sizes_below_one_are_refused() {
    let mut f = Fixture::new();
    for db in ["pg", "maria", "mysql"] {
        f.ok(&format!("dbset db {db}"));
        for key in ["count_ware", "num_vu"] {
            let e = f.err(&format!("diset tpcc {db}_{key} 0"));
            assert!(
                e.contains("must be an integer from 1") && e.contains("keeps its value 1"),
                "{e}"
            );
        }
    }
}

#[test]
fn virtual_user_lifecycle_without_a_run() {
    let mut f = Fixture::new();
    assert_eq!(
        f.ok("print script"),
        ["", "No Script loaded: Load with loadscript", ""]
    );
    assert_eq!(f.ok("vustatus"), ["No Virtual Users found"]);
    let e = f.err("vudestroy");
    assert!(e.contains("No Virtual Users found to destroy"), "{e}");
    f.ok("vuset vu 3; diset tpcc pg_rampup 0.5; diset tpcc pg_duration 1.5");
    assert_eq!(
        f.ok("loadscript"),
        ["Script loaded, Type \"print script\" to view"]
    );
    let script = f.ok("print script");
    assert_eq!(script[0], "#OPTIONS");
    assert!(
        script
            .iter()
            .any(|l| l.contains("timed: rampup 0.5 min, duration 1.5 min")),
        "{script:#?}"
    );
    assert!(
        script.iter().any(|l| l.contains("3 + 1 monitor")),
        "{script:#?}"
    );
    // Changing the driver clears the script, as in HammerDB; so does any key of its database.
    f.ok("loadscript");
    let lines = f.ok("diset tpcc pg_total_iterations 50");
    assert_eq!(
        lines[1..],
        [
            "Clearing Script, reload script to activate new setting",
            "Script cleared: vurun loads it again with the new setting"
        ]
    );
    f.ok("loadscript");
    let lines = f.ok("diset tpcc pg_driver test");
    assert_eq!(
        lines[1..],
        [
            "Clearing Script, reload script to activate new setting",
            "Script cleared: vurun loads it again with the new setting"
        ]
    );
    f.ok("diset tpcc pg_driver timed");
    // vucreate loads the script when none is loaded.
    let lines = f.ok("vucreate");
    assert_eq!(
        lines,
        [
            "Script loaded, Type \"print script\" to view",
            "Vuser 1 created MONITOR - WAIT IDLE",
            "Vuser 2 created - WAIT IDLE",
            "Vuser 3 created - WAIT IDLE",
            "Vuser 4 created - WAIT IDLE",
            "4 Virtual Users Created with Monitor VU"
        ]
    );
    assert_eq!(f.ok("print vucreated"), ["4 Virtual Users created"]);
    assert_eq!(
        f.ok("vustatus"),
        [
            "1 = WAIT IDLE",
            "2 = WAIT IDLE",
            "3 = WAIT IDLE",
            "4 = WAIT IDLE"
        ]
    );
    assert_eq!(f.console("vucomplete()").0, Ok("false".to_string()));
    // Bad input while they exist.
    let e = f.err("vucreate");
    assert!(
        e.contains("Virtual Users exist, destroy with vudestroy before creating"),
        "{e}"
    );
    let e = f.err("vuset vu 2");
    assert!(
        e.contains("Virtual Users exist, destroy with vudestroy before changing settings"),
        "{e}"
    );
    let e = f.err("giset virtual_user_options user_delay 10");
    assert!(e.contains("Virtual Users exist"), "{e}");
    let e = f.err("buildschema");
    assert!(
        e.contains("Cannot build schema with Virtual Users active"),
        "{e}"
    );
    let e = f.err("checkschema");
    assert!(
        e.contains("Cannot check schema with Virtual Users active"),
        "{e}"
    );
    let e = f.err("datagenrun");
    assert!(e.contains("Virtual Users active"), "{e}");
    assert_eq!(f.ok("vudestroy"), ["vudestroy success"]);
    f.ok("vuset vu 2");
    f.ok("diset tpcc pg_driver test; vucreate");
    assert_eq!(f.ok("print vucreated"), ["2 Virtual Users created"]);
    let e = f.err("lastrun()");
    assert!(e.contains("No run yet"), "{e}");
}
