//! The error type's tests: each named variant prints the sentence it replaced, word for word.

use super::*;

/// The named variants print what the prose they replace printed, word for word.
#[test]
fn named_variants_print_the_old_sentences() {
    let cases = [
        (
            Error::TooManyBuilders {
                vus: 5,
                warehouses: 4,
                way_out: Some("diset tpcc pg_num_vu or pg_count_ware".into()),
            },
            "Error:Build virtual users must be less than or equal to number of warehouses\n\
             You have 5 virtual users building 4 warehouses (diset tpcc pg_num_vu or pg_count_ware)",
        ),
        (
            Error::TooManyBuilders {
                vus: 5,
                warehouses: 4,
                way_out: None,
            },
            "Error:Build virtual users must be less than or equal to number of warehouses\n\
             You have 5 virtual users building 4 warehouses",
        ),
        (
            Error::UnknownDictionary {
                section: "tpc".into(),
                target: "PostgreSQL".into(),
                valid: vec!["connection".into(), "tpcc".into()],
                hint: "Type \"print dict\" for valid dictionaries and keys for PostgreSQL"
                    .into(),
            },
            "Dictionary \"tpc\" for PostgreSQL does not exist; valid dictionaries are \
             connection, tpcc\nType \"print dict\" for valid dictionaries and keys for PostgreSQL",
        ),
        (
            Error::MaskedPassword {
                mask: "********",
                section: "connection".into(),
                key: "pg_pass".into(),
            },
            "******** is how hammer shows a password, not a password: connection:pg_pass \
             keeps its value; type the password itself (the console's history keeps \
             passwords masked)",
        ),
        (
            Error::UnsupportedDatabase {
                name: "Oracle".into(),
                prefix: "ora".into(),
                valid: vec!["pg".into(), "maria".into()],
            },
            "Oracle (ora) is not supported by hammer (yet); choose one from pg maria",
        ),
        (
            Error::MetricsNotRunning {
                host: Some("localhost".into()),
            },
            "CPU Metrics are not running on localhost",
        ),
        (
            Error::MetricsNotRunning { host: None },
            "CPU Metrics are not running",
        ),
        (
            Error::BareFormInScript {
                call: r#"diset("tpcc", "pg_count_ware", 4)"#.into(),
            },
            r#"HammerDB's bare form works at the console only; in a script write diset("tpcc", "pg_count_ware", 4)"#,
        ),
        (
            Error::AmbiguousJob {
                prefix: "ab".into(),
                ids: vec!["ab1".into(), "ab2".into()],
                more: 0,
            },
            "Jobid ab is the start of several jobs (ab1, ab2); give more of it",
        ),
        (
            Error::AmbiguousJob {
                prefix: "6B0E".into(),
                ids: vec!["6B0E2".into(), "6B0E1".into()],
                more: 3,
            },
            "Jobid 6B0E is the start of several jobs (6B0E2, 6B0E1, and 3 more); give more of it",
        ),
        (
            Error::BadValue {
                section: "tpcc".into(),
                key: "pg_count_ware".into(),
                value: "abc".into(),
                why: "must be an integer".into(),
                kept: "1".into(),
            },
            "Value abc for tpcc:pg_count_ware is not valid: it must be an integer; \
             pg_count_ware keeps its value 1",
        ),
        (
            Error::UnknownKey {
                section: "tpcc".into(),
                target: "PostgreSQL".into(),
                key: "pg_count_wre".into(),
                way_out: ", it cannot be found in any PostgreSQL dictionary; did you mean \
                          pg_count_ware?"
                    .into(),
                hint: "Type \"print dict\" for valid dictionaries and keys for PostgreSQL"
                    .into(),
            },
            "Dictionary \"tpcc\" for PostgreSQL exists but key \"pg_count_wre\" doesn't, it \
             cannot be found in any PostgreSQL dictionary; did you mean pg_count_ware?\n\
             Type \"print dict\" for valid dictionaries and keys for PostgreSQL",
        ),
        (
            Error::NoDirectory {
                dir: "/nope".into(),
                way_out: "dgset directory",
            },
            "Error: directory /nope does not exist; create it or choose another with dgset \
             directory",
        ),
        (
            Error::DirectoryNotWritable {
                dir: "/ro".into(),
                why: "Permission denied".into(),
                way_out: "dgset directory",
            },
            "Error: directory /ro is not writable (Permission denied); choose another with \
             dgset directory",
        ),
        (
            Error::WorkloadUnavailable {
                workload: "TPROC-H",
                db: "MySQL",
            },
            "TPROC-H is not available on MySQL in hammer",
        ),
        (
            Error::TprochScaleMismatch {
                dbname: "tpch".into(),
                prefix: "pg",
                found: "0.01".into(),
                suppliers: 100,
                configured: "1".into(),
            },
            "the TPROC-H schema in database tpch is of scale factor 0.01 (100 suppliers), not \
             pg_scale_fact 1: set diset tpch pg_scale_fact 0.01, or build scale factor 1",
        ),
        (
            Error::UnsupportedBuildOptions {
                options: vec!["a".into(), "b".into()],
            },
            "hammer does not support a or b; set it to false to build",
        ),
        (
            Error::VusExist {
                doing: "changing settings",
            },
            "Error: Virtual Users exist, destroy with vudestroy before changing settings",
        ),
        (
            Error::VusActive {
                what: "build schema".into(),
            },
            "Error: Cannot build schema with Virtual Users active, destroy Virtual Users first \
             with vudestroy",
        ),
        (
            Error::NoScript,
            "Error: There is no workload to run because the Script is empty",
        ),
        (
            Error::SetElsewhere {
                what: "jobs format",
                by: "session",
            },
            "jobs format is set by the session",
        ),
        (
            Error::BadEnv {
                var: "HAMMER_RECONNECT_SECS",
                value: "soon".into(),
                want: "the seconds terminals keep reconnecting, 0 to 86400",
            },
            "HAMMER_RECONNECT_SECS=\"soon\" is not valid: give the seconds terminals keep \
             reconnecting, 0 to 86400",
        ),
        (
            Error::ScriptUnreadable {
                path: "/no/such.rhai".into(),
                why: std::io::Error::from(std::io::ErrorKind::NotFound),
            },
            "Usage: customscript scriptname.rhai\ncannot read /no/such.rhai: entity not found",
        ),
        (
            Error::NoSchema { db: "tpcc".into() },
            "Database tpcc holds no TPROC-C schema: build it with buildschema",
        ),
        (
            Error::SchemaLacksTables {
                db: "tpcc".into(),
                engine: "MariaDB".into(),
                addr: "127.0.0.1:3306".into(),
                tables: vec!["stock".into()],
            },
            "The TPROC-C schema tpcc on MariaDB at 127.0.0.1:3306 lacks table stock: delete \
             it with deleteschema and build it again with buildschema",
        ),
        (
            Error::SchemaLacksTables {
                db: "tpcc".into(),
                engine: "PostgreSQL".into(),
                addr: "localhost:5432".into(),
                tables: vec!["stock".into(), "item".into()],
            },
            "The TPROC-C schema tpcc on PostgreSQL at localhost:5432 lacks tables stock, \
             item: delete it with deleteschema and build it again with buildschema",
        ),
        (
            Error::NoConstantsTable {
                db: "tpcc".into(),
                table: "tpcc_nurand",
            },
            "Database tpcc has no table tpcc_nurand, where hammer's buildschema records the \
             load's NURand constants: the schema was built by another tool; delete it with \
             deleteschema and build it with buildschema",
        ),
        (
            Error::NoWarehouses { db: "tpcc".into() },
            "The TPROC-C schema tpcc has no warehouses: delete it with deleteschema and \
             build it again with buildschema",
        ),
        (
            Error::ConstantsRows {
                db: "tpcc".into(),
                table: "tpcc_nurand",
                rows: 0,
            },
            "Table tpcc_nurand of the TPROC-C schema tpcc holds 0 rows, expected exactly 1 \
             (the NURand load constants): delete the schema with deleteschema and build it \
             again with buildschema",
        ),
        (
            Error::ConstantsOutOfRange {
                db: "tpcc".into(),
                table: "tpcc_nurand",
                c_last_max: 255,
                c_id_max: 1023,
                ol_i_id_max: 8191,
            },
            "Table tpcc_nurand of the TPROC-C schema tpcc holds constants out of range \
             (c_last 0..255, c_id 0..1023, ol_i_id 0..8191): delete the schema with \
             deleteschema and build it again with buildschema",
        ),
        (
            Error::BuildStopped {
                loaded: 100,
                expected: 500,
                why: Box::new(Error::Interrupted),
                db: "PostgreSQL",
            },
            "Schema build stopped after 100 of about 500 rows: interrupted by Ctrl-C\nThe \
             PostgreSQL schema is incomplete: remove it with deleteschema, then run \
             buildschema again",
        ),
        (
            Error::BuildStopped {
                loaded: 0,
                expected: 500,
                why: Box::new(Error::Panicked {
                    what: "a data generation thread",
                }),
                db: "MariaDB",
            },
            "Schema build stopped after 0 of about 500 rows: a data generation thread \
             panicked\nThe MariaDB schema is incomplete: remove it with deleteschema, then \
             run buildschema again",
        ),
        (
            Error::FileExists {
                path: "/d/item_1.tbl".into(),
                way_out: "dgset directory",
            },
            "File /d/item_1.tbl already exists: datagenrun does not overwrite data; choose \
             an empty directory with dgset directory",
        ),
        (
            Error::NoAnswer {
                what: "the pre-run checks",
                within: std::time::Duration::from_millis(2500),
            },
            "the server did not answer the pre-run checks within 2.5 s (the reply timeout)",
        ),
        (
            Error::ServerGone {
                waited: std::time::Duration::from_secs(30),
                why: Box::new(Error::StoppedConnecting),
            },
            "the server did not come back within 30 s: stopped while connecting",
        ),
        (
            Error::ThreadStart {
                what: "a thread of its own",
                why: std::io::Error::from(std::io::ErrorKind::OutOfMemory),
                hint: Some("the limit on threads (ulimit -u) or memory is reached"),
            },
            "cannot start a thread of its own: out of memory; the limit on threads \
             (ulimit -u) or memory is reached",
        ),
        (
            Error::ThreadStart {
                what: "a runtime on its thread",
                why: std::io::Error::from(std::io::ErrorKind::OutOfMemory),
                hint: None,
            },
            "cannot start a runtime on its thread: out of memory",
        ),
        (
            Error::VuThreadPanicked,
            "stopped without an answer: its thread panicked",
        ),
        (Error::NoMonitor, "the workload has no monitor"),
        (
            Error::CannotRun {
                workload: "TPROC-H",
            },
            "Error: hammer cannot run TPROC-H scripts",
        ),
        (
            Error::TxCountFailed {
                which: "end",
                why: Box::new(Error::NoMonitor),
            },
            "cannot take the end transaction count: the workload has no monitor",
        ),
        (
            Error::CannotRun {
                workload: "TPROC-C",
            },
            "Error: hammer cannot run TPROC-C scripts",
        ),
        (
            Error::BadStorageEngine {
                value: "inno db".into(),
                key: "maria_storage_engine".into(),
            },
            "Value inno db for tpcc:maria_storage_engine is not a storage engine name \
             (letters, digits and _, e.g. innodb)",
        ),
        (
            Error::SchemaNotFound {
                db: "tpcc".into(),
                engine: "MariaDB",
                addr: "127.0.0.1:3306".into(),
                key: "maria_dbase".into(),
            },
            "The TPROC-C schema tpcc does not exist on MariaDB at 127.0.0.1:3306: build it \
             with buildschema, or set maria_dbase to the database that holds it",
        ),
        (
            Error::NoSchemaDatabase {
                db: "tpcc".into(),
                database: Database::Pg,
                addr: "localhost:5432".into(),
                missing_user: None,
            },
            "TPROC-C schema database tpcc (pg_dbase) does not exist on PostgreSQL at \
             localhost:5432: build the schema with buildschema, or set pg_dbase and pg_user \
             to those of an existing schema",
        ),
        (
            Error::NoSchemaDatabase {
                db: "tpcc".into(),
                database: Database::Pg,
                addr: "localhost:5432".into(),
                missing_user: Some("tpcc".into()),
            },
            "TPROC-C schema database tpcc (pg_dbase) does not exist on PostgreSQL at \
             localhost:5432 and user tpcc (pg_user) does not either: build the schema with \
             buildschema, or set pg_dbase and pg_user to those of an existing schema",
        ),
        (
            Error::NoSchemaOwner {
                user: "tpcc".into(),
                database: Database::Pg,
                addr: "localhost:5432".into(),
                db: "tpcc".into(),
            },
            "User tpcc (pg_user) does not exist on PostgreSQL at localhost:5432: set pg_user \
             to the owner of the schema in database tpcc, or build the schema with buildschema",
        ),
        (
            Error::LacksProcedures {
                db: "tpcc".into(),
                procedures: vec!["neword".into()],
                key: "maria_no_stored_procs".into(),
            },
            "The TPROC-C schema tpcc lacks the stored procedure neword: delete it with \
             deleteschema and build it again with buildschema, or set maria_no_stored_procs \
             to true to run the transactions as client-side SQL",
        ),
        (
            Error::LacksProcedures {
                db: "tpcc".into(),
                procedures: vec!["neword".into(), "slev".into()],
                key: "mysql_no_stored_procs".into(),
            },
            "The TPROC-C schema tpcc lacks the stored procedures neword, slev: delete it with \
             deleteschema and build it again with buildschema, or set mysql_no_stored_procs \
             to true to run the transactions as client-side SQL",
        ),
        (
            Error::LacksRoutines {
                db: "tpcc".into(),
                routines: vec!["neword".into(), "slev".into()],
                key: "pg_storedprocs".into(),
                procedures: false,
                no_procs_key: "pg_no_stored_procs".into(),
            },
            "Database tpcc lacks the TPROC-C functions neword, slev (pg_storedprocs is false): \
             rebuild the schema (deleteschema, then buildschema), or run the transactions as \
             client-side SQL with diset tpcc pg_no_stored_procs true",
        ),
        (
            Error::LacksRoutines {
                db: "tpcc".into(),
                routines: vec!["payment".into()],
                key: "pg_storedprocs".into(),
                procedures: true,
                no_procs_key: "pg_no_stored_procs".into(),
            },
            "Database tpcc lacks the TPROC-C stored procedures payment (pg_storedprocs is \
             true): rebuild the schema (deleteschema, then buildschema), or run the \
             transactions as client-side SQL with diset tpcc pg_no_stored_procs true",
        ),
        (
            Error::RoutinesOfOtherKind {
                db: "tpcc".into(),
                key: "pg_storedprocs".into(),
                procedures: false,
            },
            "Database tpcc has the TPROC-C transactions as stored procedures, but \
             pg_storedprocs is false, which calls functions: set diset tpcc pg_storedprocs \
             true to call the stored procedures, or rebuild the schema with pg_storedprocs \
             false (deleteschema, then buildschema)",
        ),
        (
            Error::RoutinesOfOtherKind {
                db: "tpcc".into(),
                key: "pg_storedprocs".into(),
                procedures: true,
            },
            "Database tpcc has the TPROC-C transactions as functions, but pg_storedprocs is \
             true, which calls stored procedures: set diset tpcc pg_storedprocs false to call \
             the functions, or rebuild the schema with pg_storedprocs true (deleteschema, \
             then buildschema)",
        ),
        (
            Error::SchemaMisfit {
                db: "tpcc".into(),
                calls: Some("stored procedures"),
                detail: "no such procedure".into(),
            },
            "Database tpcc does not fit the TPROC-C stored procedures (no such procedure): the \
             schema was built by another tool or version; remove it with deleteschema and \
             build it with buildschema",
        ),
        (
            Error::SchemaMisfit {
                db: "tpcc".into(),
                calls: None,
                detail: "no such column".into(),
            },
            "Database tpcc does not fit hammer's client-side SQL (no such column): the schema \
             was built by another tool or version; remove it with deleteschema and build it \
             with buildschema",
        ),
        (
            Error::DatabaseNotEmpty { db: "tpcc".into() },
            "Database tpcc exists but is not empty, specify a new or empty database name, or \
             remove the existing schema with deleteschema",
        ),
        (
            Error::MayNotCreate {
                admin: "postgres".into(),
                key: "pg_superuser".into(),
                what: Creatable::Role,
                name: "tpcc".into(),
            },
            "User postgres (pg_superuser) may not create roles, so cannot create user tpcc: it \
             needs the SUPERUSER or CREATEROLE attribute; set pg_superuser to a role that has \
             it, or create role tpcc first",
        ),
        (
            Error::MayNotCreate {
                admin: "postgres".into(),
                key: "pg_superuser".into(),
                what: Creatable::Database,
                name: "tpcc".into(),
            },
            "User postgres (pg_superuser) may not create databases, so cannot create database \
             tpcc: it needs the SUPERUSER or CREATEDB attribute; set pg_superuser to a role \
             that has it, or create an empty database tpcc first",
        ),
        (
            Error::UserLoginRefused {
                user: "tpcc".into(),
                pass_key: "pg_pass".into(),
                why: "password authentication failed".into(),
                user_key: "pg_user".into(),
            },
            "User tpcc exists but does not log in with pg_pass (password authentication \
             failed); hammer did not create it, so leaves its password alone: set pg_pass to \
             its password, or choose another pg_user",
        ),
        (
            Error::LacksPrivilege {
                peer: Box::new(Peer {
                    db: Database::Maria,
                    addr: "127.0.0.1:3306".into(),
                    user: "tpcc".into(),
                }),
                what: "create database tpcc".into(),
                right: "CREATE",
                fix: "GRANT CREATE ON *.* to it".into(),
                said: "Access denied".into(),
            },
            "User tpcc may not create database tpcc on MariaDB at 127.0.0.1:3306: it lacks the \
             CREATE privilege; GRANT CREATE ON *.* to it (server said: Access denied)",
        ),
        (
            Error::AnalyzeFailed {
                table: "tpcc.stock".into(),
                engine: "MySQL",
                addr: "127.0.0.1:3306".into(),
                said: "Table is marked as crashed".into(),
            },
            "ANALYZE TABLE tpcc.stock failed on MySQL at 127.0.0.1:3306: Table is marked as \
             crashed",
        ),
        (
            Error::SystemDatabase {
                key: "maria_dbase".into(),
                db: "mysql".into(),
                engine: "MariaDB",
            },
            "maria_dbase is mysql, a MariaDB system database: deleteschema drops only TPROC-C \
             schemas",
        ),
        (
            Error::AdminDatabase {
                db: "postgres".into(),
                key: "pg_defaultdbase".into(),
            },
            "Database postgres is pg_defaultdbase, which hammer connects to as the superuser; \
             it will not drop it",
        ),
    ];
    for (e, want) in cases {
        assert_eq!(e.to_string(), want);
    }
    let why = rhai::ParseErrorType::UnknownOperator("@".into());
    let want = format!("x.rhai:3:7: {why}");
    let e = Error::ScriptSyntax {
        path: "x.rhai".into(),
        line: 3,
        column: 7,
        why: Box::new(why),
    };
    assert_eq!(e.to_string(), want);
    let e = Error::ScriptFailed {
        path: "x.rhai".into(),
        line: 2,
        column: 4,
        message: "no such table".into(),
    };
    assert_eq!(e.to_string(), "x.rhai:2:4: no such table");
}

/// A task's failure prints as the words it replaces, the join error after them.
#[tokio::test]
async fn task_failures_name_the_task() {
    let task = tokio::spawn(std::future::pending::<()>());
    task.abort();
    let why = task.await.expect_err("aborted");
    let said = why.to_string();
    let e = Error::TaskFailed {
        task: "a loader",
        why,
    };
    assert_eq!(e.to_string(), format!("a loader task failed: {said}"));
}

/// The named variants keep `Error` as small as the catch-alls left it: it is moved on
/// every `Result` the run returns.
#[test]
fn error_stays_small() {
    assert!(
        std::mem::size_of::<Error>() <= 128,
        "{}",
        std::mem::size_of::<Error>()
    );
}

/// An error of one schema of several names the schema, and a lost server stays one to ride
/// out (the monitor's readings try again on it).
#[test]
fn an_error_in_one_schema_names_it_and_keeps_its_kind() {
    let peer = crate::fault::Peer {
        db: crate::config::Database::Pg,
        addr: "h:5432".into(),
        user: "tpcc".into(),
    };
    let lost = Error::Db(peer.failed("cannot read", crate::fault::Failure::Lost, "gone"));
    assert!(lost.is_connection_loss());
    let e = Error::InSchema {
        schema: "tpcc2".into(),
        why: Box::new(lost),
    };
    assert!(e.to_string().starts_with("schema tpcc2: "), "{e}");
    assert!(e.is_connection_loss());
    let e = Error::InSchema {
        schema: "tpcc2".into(),
        why: Box::new(Error::Interrupted),
    };
    assert!(!e.is_connection_loss());
}
