//! The dictionaries themselves: every key hammer knows, with HammerDB's defaults and our types.
//!
//! Order matters: `print dict` lists keys in the order HammerDB's XML files give them.

use super::spec::{KeySpec, Kind, MINUTES_MAX};
use super::Database;

const DRIVERS: &[&str] = &["test", "timed"];
/// libpq's modes that hammer honours; the verify-* modes check the server's certificate
/// against `pg_sslrootcert` (verify-full its host name too).
pub const PG_SSLMODES: &[&str] = crate::conninfo::SSLMODES;
/// libpq's `require_auth` methods.
pub const PG_AUTH_METHODS: &[&str] = crate::conninfo::AUTH_METHODS;
/// How long a call may wait for its reply before its connection counts as lost, by default:
/// well above any lock wait TPROC-C can cause (InnoDB's `innodb_lock_wait_timeout` is 50 s).
pub const REPLY_TIMEOUT_DEFAULT: &str = "120";
const REPLY_TIMEOUT: Kind = Kind::Int {
    min: 1,
    max: 86_400,
};

const WAREHOUSES: Kind = Kind::Int {
    min: 1,
    max: 100_000,
};
const BUILD_VUS: Kind = Kind::Int { min: 1, max: 1024 };
/// TPROC-H's scale factors: HammerDB's, then the small ones hammer adds for tests.
pub const TPCH_SCALE_FACTORS: &[&str] = &[
    "1", "10", "30", "100", "300", "1000", "3000", "10000", "30000", "100000", "0.01", "0.1",
];
const SCALE_FACT: Kind = Kind::Choice(TPCH_SCALE_FACTORS);
const TPCH_THREADS: Kind = Kind::Int { min: 1, max: 1024 };
/// Seconds a split build's drivers wait for one another (hammer's own).
const BUILD_WAIT: Kind = Kind::Int {
    min: 1,
    max: 86_400,
};
/// How many drivers share a TPROC-H build, and which of them this is (hammer's own).
const BUILD_PARTS: Kind = Kind::Int { min: 1, max: 1024 };

/// A key only some databases of a family have: name after the prefix, default, kind.
pub type ExtraKey = (&'static str, &'static str, Kind);

/// What a PostgreSQL-family database's dictionary holds that its siblings' may not: HammerDB's
/// defaults for where the server is and who administers it (the `tpch_` logins take the same).
#[derive(Debug)]
pub struct PgDefaults {
    /// `*_host`.
    pub host: &'static str,
    /// `*_port`.
    pub port: &'static str,
    /// `*_superuser` and `*_tpch_superuser`.
    pub superuser: &'static str,
    /// `*_superuserpass` and `*_tpch_superuserpass`.
    pub superuserpass: &'static str,
    /// `*_defaultdbase` and `*_tpch_defaultdbase`: the database the superuser logs in to.
    pub defaultdbase: &'static str,
    /// `*_tspace`: the tablespace TPROC-C's schema goes to (TPROC-H's always goes here).
    pub tspace: &'static str,
    /// `tpcc` keys after the family's own (YugabyteDB's `yb_colocation`).
    pub tpcc: &'static [ExtraKey],
}

/// PostgreSQL's dictionary (`pg_*`).
pub const PG_DEFAULTS: PgDefaults = PgDefaults {
    host: "localhost",
    port: "5432",
    superuser: "postgres",
    superuserpass: "postgres",
    defaultdbase: "postgres",
    tspace: "pg_default",
    tpcc: &[],
};

/// CockroachDB's dictionary (`crdb_*`): its SQL port, and `root` on `defaultdb` (an insecure
/// cluster's root has no password; a secure one's is set with `ALTER USER root PASSWORD`).
pub const CRDB_DEFAULTS: PgDefaults = PgDefaults {
    host: "localhost",
    port: "26257",
    superuser: "root",
    superuserpass: "",
    defaultdbase: "defaultdb",
    tspace: "pg_default",
    tpcc: &[],
};

/// YugabyteDB's dictionary (`yb_*`): YSQL's port and superuser, and where its tables go:
/// `yb_colocation` makes the database colocated (its tables share one tablet),
/// `yb_num_tablets` splits each table into that many tablets (0: the server's default).
pub const YB_DEFAULTS: PgDefaults = PgDefaults {
    host: "localhost",
    port: "5433",
    superuser: "yugabyte",
    superuserpass: "yugabyte",
    defaultdbase: "yugabyte",
    tspace: "pg_default",
    tpcc: &[
        ("colocation", "false", Kind::Bool),
        (
            "num_tablets",
            "0",
            Kind::Int {
                min: 0,
                max: 10_000,
            },
        ),
    ],
};

/// What a MariaDB/MySQL-family database's dictionary holds that its siblings' may not:
/// HammerDB's defaults for where the server is and who logs in, and the keys only it has.
#[derive(Debug)]
pub struct MyDefaults {
    /// `*_host`.
    pub host: &'static str,
    /// `*_port`.
    pub port: &'static str,
    /// `*_socket`.
    pub socket: &'static str,
    /// `*_user` and `*_tpch_user`.
    pub user: &'static str,
    /// `*_pass` and `*_tpch_pass`.
    pub pass: &'static str,
    /// `connection` keys after the family's own (MySQL's `mysql_oceanbase_port`).
    pub connection: &'static [ExtraKey],
    /// `tpcc` keys after the family's own (MariaDB's `maria_purge`).
    pub tpcc: &'static [ExtraKey],
}

/// MariaDB's dictionary (`maria_*`).
pub const MARIA_DEFAULTS: MyDefaults = MyDefaults {
    host: "127.0.0.1",
    port: "3306",
    socket: "/tmp/mariadb.sock",
    user: "root",
    pass: "maria",
    connection: &[],
    tpcc: &[("purge", "false", Kind::Bool)],
};

/// MySQL's dictionary (`mysql_*`).
pub const MYSQL_DEFAULTS: MyDefaults = MyDefaults {
    host: "127.0.0.1",
    port: "3306",
    socket: "/tmp/mysql.sock",
    user: "root",
    pass: "mysql",
    connection: &[("oceanbase_port", "2881", Kind::PORT)],
    tpcc: &[],
};

/// TiDB's dictionary (`tidb_*`): its SQL port, `root` without a password, no socket.
pub const TIDB_DEFAULTS: MyDefaults = MyDefaults {
    host: "127.0.0.1",
    port: "4000",
    socket: "null",
    user: "root",
    pass: "",
    connection: &[],
    tpcc: &[],
};

/// Which family's dictionary a database has, with its row of defaults: every database names
/// its row here (the compiler asks for it), and this is the one place that says which
/// defaults a database has; the families' dialects read theirs from here.
#[derive(Debug, Clone, Copy)]
pub enum Family {
    Pg(&'static PgDefaults),
    My(&'static MyDefaults),
}

/// The family and defaults of `db`'s dictionary.
pub fn family(db: Database) -> Family {
    match db {
        Database::Pg => Family::Pg(&PG_DEFAULTS),
        Database::Maria => Family::My(&MARIA_DEFAULTS),
        Database::Mysql => Family::My(&MYSQL_DEFAULTS),
        Database::Crdb => Family::Pg(&CRDB_DEFAULTS),
        Database::Yb => Family::Pg(&YB_DEFAULTS),
        Database::Tidb => Family::My(&TIDB_DEFAULTS),
    }
}

/// The keys of one database's `connection`, `tpcc`, `tpch` and `oltp` sections.
pub fn database_keys(db: Database) -> Vec<KeySpec> {
    let family = family(db);
    let mut keys = match family {
        Family::Pg(defaults) => pg_keys(db, defaults),
        Family::My(defaults) => mysql_family_keys(db, defaults),
    };
    keys.extend(tpch_keys(db, &family));
    keys.extend(oltp_keys(db, &family));
    keys
}

/// sysbench's OLTP tests, as `*_oltp_test` names them (its Lua scripts' names).
pub const OLTP_TESTS: &[&str] = &[
    "oltp_read_write",
    "oltp_read_only",
    "oltp_write_only",
    "oltp_point_select",
    "oltp_update_index",
    "oltp_update_non_index",
    "oltp_insert",
    "oltp_delete",
    "select_random_points",
    "select_random_ranges",
];

/// sysbench's `--rand-type` distributions: 1.0.20's four, and `zipfian` of its later
/// versions.
pub const OLTP_RAND_TYPES: &[&str] = &["uniform", "gaussian", "special", "pareto", "zipfian"];

/// A count of statements per transaction (`*_oltp_point_selects`, ...).
const PER_EVENT: Kind = Kind::Int {
    min: 0,
    max: 1_000_000,
};

/// The `oltp` section (hammer's own workload, OLTP): sysbench's options under their own
/// names, `<prefix>_oltp_<option>`, with sysbench 1.0.20's defaults; the logins as TPROC-H's
/// (`sbtest`, sysbench's user and database, where hammer makes them).
fn oltp_keys(db: Database, family: &Family) -> Vec<KeySpec> {
    let t = |k: &str, d: &str, kind| KeySpec::new("oltp", db.key(&format!("oltp_{k}")), d, kind);
    let int = |min, max| Kind::Int { min, max };
    let mut keys = match family {
        Family::Pg(defaults) => vec![
            t("superuser", defaults.superuser, Kind::Name),
            t("superuserpass", defaults.superuserpass, Kind::Secret),
            t("defaultdbase", defaults.defaultdbase, Kind::Name),
            t("user", "sbtest", Kind::Name),
            t("pass", "sbtest", Kind::Secret),
            t("dbase", "sbtest", Kind::Name),
        ],
        Family::My(defaults) => vec![
            t("user", defaults.user, Kind::Name),
            t("pass", defaults.pass, Kind::Secret),
            t("dbase", "sbtest", Kind::Name),
            // sysbench's `--mysql_storage_engine`.
            t("storage_engine", "innodb", Kind::Name),
        ],
    };
    keys.extend([
        // `prepare`: parallel loaders (sysbench's `--threads` of its prepare).
        t("build_threads", "1", BUILD_VUS),
        t("tables", "1", int(1, 100_000)),
        // `id` is an INTEGER: at most 2^31 - 1 rows.
        t("table_size", "10000", int(0, i64::from(i32::MAX))),
        t("auto_inc", "true", Kind::Bool),
        t("secondary", "false", Kind::Bool),
        t("create_secondary", "true", Kind::Bool),
        // `run`: which test, for how long (minutes, as `*_duration`; 0 is no time limit,
        // sysbench's `--time=0`), how many events (0: no limit) and at what rate (events per
        // second; 0: as fast as they go).
        t("test", "oltp_read_write", Kind::Choice(OLTP_TESTS)),
        t(
            "rampup",
            "0",
            Kind::Minutes {
                min: 0.0,
                max: MINUTES_MAX,
            },
        ),
        t(
            "duration",
            "5",
            Kind::Minutes {
                min: 0.0,
                max: MINUTES_MAX,
            },
        ),
        t("events", "0", int(0, i64::from(u32::MAX))),
        t("rate", "0", int(0, 1_000_000_000)),
        t("range_size", "100", int(1, i64::from(i32::MAX))),
        t("point_selects", "10", PER_EVENT),
        t("simple_ranges", "1", PER_EVENT),
        t("sum_ranges", "1", PER_EVENT),
        t("order_ranges", "1", PER_EVENT),
        t("distinct_ranges", "1", PER_EVENT),
        t("index_updates", "1", PER_EVENT),
        t("non_index_updates", "1", PER_EVENT),
        t("delete_inserts", "1", PER_EVENT),
        t("range_selects", "true", Kind::Bool),
        t("skip_trx", "false", Kind::Bool),
        t("reconnect", "0", int(0, i64::from(u32::MAX))),
        // select_random_points' and select_random_ranges' own options.
        t("random_points", "10", int(1, 100_000)),
        t("number_of_ranges", "10", int(1, 100_000)),
        t("delta", "5", int(0, i64::from(i32::MAX))),
        // sysbench's `--rand-*` options.
        t("rand_type", "special", Kind::Choice(OLTP_RAND_TYPES)),
        t("rand_spec_iter", "12", int(1, 1_000)),
        t("rand_spec_pct", "1", int(0, 100)),
        // 100 would leave no value to the gaussian part (sysbench divides by 100 - res).
        t("rand_spec_res", "75", int(0, 99)),
        t("rand_seed", "0", int(0, i64::from(i32::MAX))),
        t(
            "rand_pareto_h",
            "0.2",
            Kind::Real {
                min: 0.0,
                max: 1.0,
                open: true,
            },
        ),
        t(
            "rand_zipfian_exp",
            "0.8",
            Kind::Real {
                min: 0.0,
                max: 100.0,
                open: false,
            },
        ),
    ]);
    keys
}

/// The `tpch` section: TPROC-H's build keys, then its driver's, with HammerDB's defaults.
fn tpch_keys(db: Database, family: &Family) -> Vec<KeySpec> {
    let t = |k: &str, d: &str, kind| KeySpec::new("tpch", db.key(k), d, kind);
    let mut keys = vec![t("scale_fact", "1", SCALE_FACT)];
    match family {
        Family::Pg(defaults) => keys.extend([
            t("tpch_superuser", defaults.superuser, Kind::Name),
            t("tpch_superuserpass", defaults.superuserpass, Kind::Secret),
            t("tpch_defaultdbase", defaults.defaultdbase, Kind::Name),
            t("tpch_user", "tpch", Kind::Name),
            t("tpch_pass", "tpch", Kind::Secret),
            t("tpch_dbase", "tpch", Kind::Name),
            t("num_tpch_threads", "1", TPCH_THREADS),
        ]),
        Family::My(defaults) => keys.extend([
            t("tpch_user", defaults.user, Kind::Name),
            t("tpch_pass", defaults.pass, Kind::Secret),
            t("tpch_dbase", "tpch", Kind::Name),
            t("num_tpch_threads", "1", TPCH_THREADS),
            t("tpch_storage_engine", "innodb", Kind::Name),
        ]),
    }
    // hammer's own: a build split between several drivers, each loading part
    // `tpch_build_part` of `tpch_build_parts` of every table (dbgen's parts); part 1 creates
    // the schema and adds the keys once every part is loaded (see `bench::split`).
    keys.extend([
        t("tpch_build_part", "1", BUILD_PARTS),
        t("tpch_build_parts", "1", BUILD_PARTS),
        t("tpch_build_wait", "600", BUILD_WAIT),
    ]);
    keys.extend([
        t(
            "total_querysets",
            "1",
            Kind::Int {
                min: 1,
                max: 100_000,
            },
        ),
        t("raise_query_error", "false", Kind::Bool),
        t("verbose", "false", Kind::Bool),
        t("refresh_on", "false", Kind::Bool),
    ]);
    if let Family::Pg(_) = family {
        keys.push(t(
            "degree_of_parallel",
            "2",
            Kind::Int { min: 1, max: 1024 },
        ));
    }
    keys.extend([
        t(
            "update_sets",
            "1",
            Kind::Int {
                min: 1,
                max: 100_000,
            },
        ),
        t(
            "trickle_refresh",
            "1000",
            Kind::Int {
                min: 0,
                max: 3_600_000,
            },
        ),
        t("refresh_verbose", "false", Kind::Bool),
        // hammer's own: the specification's validation parameters, and each answer checked
        // against the published answer set where hammer holds one.
        t("validate", "false", Kind::Bool),
    ]);
    // HammerDB's keys for other engines (Greenplum, Redshift, OceanBase, cloud query sets):
    // kept with HammerDB's defaults, checked, and answered with why they do nothing here.
    match db {
        Database::Pg => keys.extend([
            t("tpch_tspace", "pg_default", Kind::Name),
            t("tpch_gpcompat", "false", Kind::Bool),
            t("tpch_gpcompress", "false", Kind::Bool),
            t("cloud_query", "false", Kind::Bool),
            t("rs_compat", "false", Kind::Bool),
        ]),
        Database::Maria => keys.push(t("cloud_query", "false", Kind::Bool)),
        Database::Mysql => keys.extend([
            t("cloud_query", "false", Kind::Bool),
            t("tpch_obcompat", "false", Kind::Bool),
            t("ob_tenant_name", "", Kind::Text),
            t(
                "ob_partition_num",
                "1",
                Kind::Int {
                    min: 1,
                    max: 1_000_000,
                },
            ),
        ]),
        _ => {}
    }
    keys
}

fn pg_keys(db: Database, defaults: &PgDefaults) -> Vec<KeySpec> {
    let c = |k: &str, d: &str, kind| KeySpec::new("connection", db.key(k), d, kind);
    let t = |k: &str, d: &str, kind| KeySpec::new("tpcc", db.key(k), d, kind);
    let mut keys = vec![
        c("host", defaults.host, Kind::Hosts { empty: false }),
        c("port", defaults.port, Kind::PORT),
        c("sslmode", "prefer", Kind::Choice(PG_SSLMODES)),
        // hammer's additions, libpq's names: the CA file for verify-ca/verify-full, and the
        // authentication methods the client accepts.
        c("sslrootcert", "", Kind::Text),
        c("require_auth", "", Kind::Methods(PG_AUTH_METHODS)),
        c("reply_timeout", REPLY_TIMEOUT_DEFAULT, REPLY_TIMEOUT),
    ];
    keys.extend(cluster_keys(db));
    keys.extend([
        t("count_ware", "1", WAREHOUSES),
        t("num_vu", "1", BUILD_VUS),
    ]);
    keys.extend(range_keys(db));
    keys.extend([
        t("superuser", defaults.superuser, Kind::Name),
        t("superuserpass", defaults.superuserpass, Kind::Secret),
        t("defaultdbase", defaults.defaultdbase, Kind::Name),
        t("user", "tpcc", Kind::Name),
        t("pass", "tpcc", Kind::Secret),
        t("dbase", "tpcc", Kind::Name),
        schemas_key(db),
        t("tspace", defaults.tspace, Kind::Name),
        t("vacuum", "false", Kind::Bool),
        t("dritasnap", "false", Kind::Bool),
        t("oracompat", "false", Kind::Bool),
        t("cituscompat", "false", Kind::Bool),
        t("storedprocs", "false", Kind::Bool),
        t("partition", "false", Kind::Bool),
        // hammer's addition: client-side SQL on PostgreSQL too (HammerDB has it for MySQL only).
        t("no_stored_procs", "false", Kind::Bool),
    ]);
    keys.extend(driver_keys(db));
    keys.extend(
        defaults
            .tpcc
            .iter()
            .map(|(k, d, kind)| t(k, d, kind.clone())),
    );
    keys
}

fn mysql_family_keys(db: Database, defaults: &MyDefaults) -> Vec<KeySpec> {
    let c = |k: &str, d: &str, kind| KeySpec::new("connection", db.key(k), d, kind);
    let t = |k: &str, d: &str, kind| KeySpec::new("tpcc", db.key(k), d, kind);
    let mut keys = vec![
        c("host", defaults.host, Kind::Hosts { empty: false }),
        c("port", defaults.port, Kind::PORT),
        c("socket", defaults.socket, Kind::Text),
        c("ssl", "false", Kind::Bool),
        c("ssl_two_way", "false", Kind::Bool),
        c("ssl_linux_capath", "/etc/mysql/certs", Kind::Text),
        c("ssl_windows_capath", "C:\\mysql\\certs", Kind::Text),
        c("ssl_ca", "ca-cert.pem", Kind::Text),
        c("ssl_cert", "client-cert.pem", Kind::Text),
        c("ssl_key", "client-key.pem", Kind::Text),
        c("ssl_cipher", "server", Kind::Text),
        // hammer's additions: with a CA, check the server's host name too; how long a call
        // waits for its reply.
        c("ssl_verify_hostname", "true", Kind::Bool),
        c("reply_timeout", REPLY_TIMEOUT_DEFAULT, REPLY_TIMEOUT),
    ];
    keys.extend(cluster_keys(db));
    keys.extend(
        defaults
            .connection
            .iter()
            .map(|(k, d, kind)| c(k, d, kind.clone())),
    );
    keys.extend([
        t("count_ware", "1", WAREHOUSES),
        t("num_vu", "1", BUILD_VUS),
    ]);
    keys.extend(range_keys(db));
    keys.extend([
        t("user", defaults.user, Kind::Name),
        t("pass", defaults.pass, Kind::Secret),
        t("dbase", "tpcc", Kind::Name),
        schemas_key(db),
        t("storage_engine", "innodb", Kind::Name),
        t("partition", "false", Kind::Bool),
        t("history_pk", "false", Kind::Bool),
        t("prepared", "false", Kind::Bool),
        t("no_stored_procs", "false", Kind::Bool),
    ]);
    keys.extend(driver_keys(db));
    keys.extend(
        defaults
            .tpcc
            .iter()
            .map(|(k, d, kind)| t(k, d, kind.clone())),
    );
    keys
}

/// libpq's `target_session_attrs` values: what a connection must find on a server of the
/// host list to keep it.
pub const SESSION_ATTRS: &[&str] = &[
    "any",
    "read-write",
    "read-only",
    "primary",
    "standby",
    "prefer-standby",
];

/// How connections spread over the host list: `round_robin` (terminal and loader n start at
/// host n), libpq's `disable` (every connection tries the hosts in order) and `random`.
pub const LOAD_BALANCE: &[&str] = &["round_robin", "disable", "random"];

/// hammer's cluster keys, in every family's `connection` dictionary: what a server of the host
/// list must be (libpq's `target_session_attrs`), how connections spread over it, and the
/// servers Order-Status and Stock-Level go to.
fn cluster_keys(db: Database) -> Vec<KeySpec> {
    let c = |k: &str, d: &str, kind| KeySpec::new("connection", db.key(k), d, kind);
    vec![
        c("target_session_attrs", "any", Kind::Choice(SESSION_ATTRS)),
        c("load_balance", "round_robin", Kind::Choice(LOAD_BALANCE)),
        c("read_only_hosts", "", Kind::Hosts { empty: true }),
    ]
}

/// The most schemas `*_schemas` asks for: each is a database of its own, built one after
/// another.
pub const SCHEMAS_MAX: i64 = 1000;

/// hammer's own, in every family's `tpcc` dictionary: how many identical TPROC-C schemas
/// (databases `<dbase>1` .. `<dbase>N`) a build makes and a run spreads its virtual users over
/// (see `tpcc::schemas`); 1 is the one schema `*_dbase` names, as in HammerDB.
fn schemas_key(db: Database) -> KeySpec {
    KeySpec::new(
        "tpcc",
        db.key("schemas"),
        "1",
        Kind::Int {
            min: 1,
            max: SCHEMAS_MAX,
        },
    )
}

/// hammer's own: the warehouses one driver of several owns, out of the schema's
/// `*_count_ware`. `buildschema` loads only them (and the item table once, from the driver
/// whose range starts at 1); a run's terminals take their home warehouses only among them.
/// `owned_ware` 0 is every warehouse from `first_ware` to the last. `build_wait` is how long,
/// in seconds, a split build's driver waits for the creator (the driver of warehouse 1) to
/// create the schema, and the creator for warehouses nobody has started loading.
fn range_keys(db: Database) -> Vec<KeySpec> {
    let t = |k: &str, d: &str, kind| KeySpec::new("tpcc", db.key(k), d, kind);
    vec![
        t("first_ware", "1", WAREHOUSES),
        t(
            "owned_ware",
            "0",
            Kind::Int {
                min: 0,
                max: 100_000,
            },
        ),
        t("build_wait", "600", BUILD_WAIT),
    ]
}

/// The driver keys every database shares, under its own prefix.
fn driver_keys(db: Database) -> Vec<KeySpec> {
    let t = |k: &str, d: &str, kind| KeySpec::new("tpcc", db.key(k), d, kind);
    vec![
        // A trillion: months at a million transactions a second, and a count every integer
        // type the driver uses can hold.
        t(
            "total_iterations",
            "10000000",
            Kind::Int {
                min: 1,
                max: 1_000_000_000_000,
            },
        ),
        t("raiseerror", "false", Kind::Bool),
        t("keyandthink", "false", Kind::Bool),
        t("driver", "timed", Kind::Choice(DRIVERS)),
        t(
            "rampup",
            "2",
            Kind::Minutes {
                min: 0.0,
                max: MINUTES_MAX,
            },
        ),
        t(
            "duration",
            "5",
            Kind::Minutes {
                min: f64::MIN_POSITIVE,
                max: MINUTES_MAX,
            },
        ),
        t("allwarehouse", "false", Kind::Bool),
        t("timeprofile", "false", Kind::Bool),
        t("async_scale", "false", Kind::Bool),
        t(
            "async_client",
            "10",
            Kind::Int {
                min: 1,
                max: 100_000,
            },
        ),
        t("async_verbose", "false", Kind::Bool),
        t(
            "async_delay",
            "1000",
            Kind::Int {
                min: 0,
                max: 3_600_000,
            },
        ),
        t(
            "async_pool",
            "0",
            Kind::Int {
                min: 0,
                max: 100_000,
            },
        ),
        t("connect_pool", "false", Kind::Bool),
    ]
}

/// The generic dictionary: the sections of HammerDB's generic.xml that a CLI user meets.
pub fn generic_keys() -> Vec<KeySpec> {
    let k = |s: &'static str, key: &str, d: &str, kind| KeySpec::new(s, key, d, kind);
    vec![
        k(
            "benchmark",
            "rdbms",
            "PostgreSQL",
            Kind::Choice(&super::NAMES),
        ),
        k(
            "benchmark",
            "bm",
            crate::benchmarks::TPROC_C.alias,
            Kind::Choice(&crate::benchmarks::ALIASES),
        ),
        k(
            "benchmark",
            "first_result",
            "NOPM",
            Kind::Choice(&["NOPM", "TPM"]),
        ),
        k(
            "virtual_user_options",
            "virtual_users",
            "1",
            Kind::Int {
                min: 1,
                max: 100_000,
            },
        ),
        k(
            "virtual_user_options",
            "user_delay",
            "500",
            Kind::Int {
                min: 0,
                max: 3_600_000,
            },
        ),
        k(
            "virtual_user_options",
            "repeat_delay",
            "500",
            Kind::Int {
                min: 0,
                max: 3_600_000,
            },
        ),
        // HammerDB's vuset takes a Tcl integer: 32 bits.
        k(
            "virtual_user_options",
            "iterations",
            "1",
            Kind::Int {
                min: 1,
                max: i32::MAX as i64,
            },
        ),
        k("virtual_user_options", "show_output", "1", Kind::Flag),
        k("virtual_user_options", "log_to_temp", "0", Kind::Flag),
        k("virtual_user_options", "unique_log_name", "0", Kind::Flag),
        k("virtual_user_options", "no_log_buffer", "0", Kind::Flag),
        k("virtual_user_options", "log_timestamps", "0", Kind::Flag),
        k(
            "virtual_user_options",
            "refresh_rate",
            "10",
            Kind::Int { min: 0, max: 3600 },
        ),
        k(
            "transaction_counter",
            "tc_refresh_rate",
            "10",
            Kind::Int { min: 1, max: 59 },
        ),
        k("transaction_counter", "tc_log_to_temp", "0", Kind::Flag),
        k("transaction_counter", "tc_unique_log_name", "0", Kind::Flag),
        k("transaction_counter", "tc_log_timestamps", "0", Kind::Flag),
        k(
            "transaction_counter",
            "tc_graph_ribbon",
            "false",
            Kind::Bool,
        ),
        k("metrics", "agent_hostname", "localhost", Kind::Name),
        k("metrics", "agent_id", "10000", Kind::PORT),
        k(
            "metrics",
            "metrics_interval",
            "2",
            Kind::Int { min: 1, max: 3600 },
        ),
        k("metrics", "metrics_per_cpu", "0", Kind::Flag),
        k("datageneration", "gen_count_ware", "1", WAREHOUSES),
        k("datageneration", "gen_scale_fact", "1", SCALE_FACT),
        k("datageneration", "gen_num_vu", "1", BUILD_VUS),
        k("datageneration", "gen_directory", "", Kind::Text),
        // hammer's own: one benchmark run by several hammer processes (see crate::drivers).
        k("drivers", "drivers_run", "", Kind::Text),
        k(
            "drivers",
            "drivers_count",
            "1",
            Kind::Int {
                min: 1,
                max: 10_000,
            },
        ),
        k(
            "drivers",
            "drivers_delay",
            "0",
            Kind::Minutes {
                min: 0.0,
                max: MINUTES_MAX,
            },
        ),
        k(
            "drivers",
            "drivers_wait",
            "600",
            Kind::Int {
                min: 1,
                max: 86_400,
            },
        ),
        k(
            "drivers",
            "drivers_number",
            "0",
            Kind::Int {
                min: 0,
                max: 10_000,
            },
        ),
        k("drivers", "drivers_step", "0", Kind::Flag),
        // HammerDB's: the Primary a Replica follows when `switchmode replica` names none
        // (see crate::modes).
        k("mode", "hostname", "localhost", Kind::Name),
        k(
            "mode",
            "id",
            "0",
            Kind::Int {
                min: 0,
                max: i32::MAX as i64,
            },
        ),
        k("commandline", "sqlite_db", "TMP", Kind::Text),
        // HammerDB's seconds added to rampup + duration before vurun gives up waiting.
        k(
            "commandline",
            "keepalive_margin",
            "60",
            Kind::Int {
                min: 0,
                max: 31_536_000,
            },
        ),
        k(
            "commandline",
            "jobsoutput",
            "JSON",
            Kind::Choice(&["JSON", "text"]),
        ),
        k("commandline", "jobs_disable", "0", Kind::Flag),
        // hammer's own: where the jobs are kept. Empty: the SQLite file (`sqlite_db`, else
        // jobs.db in the data directory); a PostgreSQL connection string: that server's
        // database, which several hammer drivers on several machines share (docs/jobs.md).
        k("commandline", "jobs_store", "", Kind::Conninfo),
        k(
            "commandline",
            "jobs_profile_id",
            "0",
            Kind::Int {
                min: 0,
                max: i32::MAX as i64,
            },
        ),
        // hammer's own: how far a script may grow its data and nest its calls, so that a
        // runaway loop ends with an error naming the key rather than with the machine's
        // memory. Applied at each console input or script run (see script::limits).
        // The floors keep the console usable: a limit the line that raises it cannot pass
        // (`giset commandline max_string_size 10000000` holds strings, calls and operations)
        // would lock every later session out.
        k(
            "commandline",
            "max_string_size",
            "10000000",
            script_size(1000),
        ),
        // A hundred thousand: the series of an eight-hour metstop (seven entries a sample,
        // one sample every two seconds) or a long job's output lines fit.
        k("commandline", "max_array_size", "100000", script_size(100)),
        k("commandline", "max_map_size", "100000", script_size(100)),
        k(
            "commandline",
            "max_call_levels",
            "64",
            Kind::Int {
                min: 8,
                max: MAX_CALL_LEVELS,
            },
        ),
        // 0: no limit; a busy script still stops on Ctrl-C.
        k(
            "commandline",
            "max_operations",
            "0",
            Kind::ZeroOr {
                min: 10_000,
                max: 1_000_000_000_000_000,
            },
        ),
        // MiB the whole process may hold while a script runs; 0 is half the machine's.
        k(
            "commandline",
            "max_script_memory",
            "0",
            Kind::ZeroOr {
                min: 256,
                max: 1 << 30,
            },
        ),
        // HammerDB's sections that have no effect here (`unused_key` says why): kept with
        // HammerDB's defaults so that its scripts set them, checked, and are told so.
        k("theme", "scaletheme", "dark", Kind::Name),
        k("theme", "pixelsperpoint", "auto", Kind::Name),
        k("sqlitedb", "sqlitedb_dir", "TMP", Kind::Text),
        k("code_highlight", "highlight", "true", Kind::Bool),
        k("code_highlight", "quote_passwords", "true", Kind::Bool),
        k(
            "autopilot",
            "apmode",
            "disabled",
            Kind::Choice(&["disabled", "enabled"]),
        ),
        k(
            "autopilot",
            "autopilot_duration",
            "10",
            Kind::Int {
                min: 1,
                max: MINUTES_MAX as i64,
            },
        ),
        k(
            "autopilot",
            "autopilot_sequence",
            "1 2 4 8 12 16 20 24",
            Kind::Text,
        ),
        k("webservice", "ws_port", "8080", Kind::PORT),
        // Empty: hammer submits nowhere, and its offline reports name no site.
        k("tpcoss", "submit_url", "", Kind::Text),
        k(
            "timeprofile",
            "profiler",
            "xtprof",
            Kind::Choice(&["xtprof", "etprof"]),
        ),
        k("timeprofile", "xt_unique_log_name", "0", Kind::Flag),
        // Minutes HammerDB's monitor waits for the virtual users' timings.
        k(
            "timeprofile",
            "xt_gather_timeout",
            "60",
            Kind::Int {
                min: 0,
                max: MINUTES_MAX as i64,
            },
        ),
        k("timeprofile", "xt_job_storage", "1", Kind::Flag),
        // Samples per transaction type: 0 keeps all; HammerDB's range otherwise.
        k(
            "timeprofile",
            "xt_reservoir",
            "10000",
            Kind::ZeroOr {
                min: 10_000,
                max: 1_000_000,
            },
        ),
        k("hdb_version", "version", "v6.0", Kind::Name),
    ]
}

/// A script's string (bytes), array (items) or map (entries), its nested ones counted in:
/// up to a billion, never unlimited.
const fn script_size(min: i64) -> Kind {
    Kind::Int {
        min,
        max: 1_000_000_000,
    }
}

/// The deepest nesting of script functions: each level takes the main thread's stack, whose
/// usual 8 MiB holds about 240 levels of a small function in a debug build; this leaves room
/// for bigger ones (a test recurses this deep).
pub const MAX_CALL_LEVELS: i64 = 100;

/// HammerDB keys that hammer knows but does not use, and why: a HammerDB user setting one
/// gets this instead of "unknown key".
pub fn unused_key(key: &str) -> Option<&'static str> {
    let why = match key {
        "scaletheme" | "pixelsperpoint" | "highlight" | "tc_graph_ribbon" => {
            "it only affects HammerDB's GUI"
        }
        "quote_passwords" => "hammer passes passwords through untouched, so nothing needs quoting",
        "sqlitedb_dir" => {
            "hammer keeps its settings in its data directory (HAMMER_HOME overrides it)"
        }
        "keepalive_margin" => "hammer's vurun always blocks until every virtual user has ended",
        "autopilot_duration" | "autopilot_sequence" | "apmode" => {
            "it only affects HammerDB's GUI autopilot; loop over vuset vu and vurun in a script"
        }
        "version" => "it is HammerDB's version; hammer's is in hammer --version",
        "submit_url" => "hammer does not submit results anywhere",
        "profiler" | "xt_unique_log_name" | "xt_gather_timeout" | "xt_job_storage"
        | "xt_reservoir" => "hammer records every transaction's latency in HDR histograms",
        "ws_port" => "hammer has no web service: jobs and hammer jobs give the same results",
        "pg_tpch_tspace" => "hammer builds TPROC-H in the database's default tablespace",
        "pg_tpch_gpcompat" | "pg_tpch_gpcompress" => "hammer does not support Greenplum",
        "pg_rs_compat" => "hammer does not support Redshift",
        "pg_cloud_query" | "maria_cloud_query" | "mysql_cloud_query" => {
            "hammer has no cloud analytic query set"
        }
        "mysql_tpch_obcompat"
        | "mysql_ob_tenant_name"
        | "mysql_ob_partition_num"
        | "mysql_oceanbase_port" => "hammer does not support OceanBase",
        _ => return None,
    };
    Some(why)
}

#[cfg(test)]
mod tests {
    use super::super::{Settings, Target};
    use super::*;

    #[test]
    fn every_database_has_a_tpch_dictionary_with_hammerdbs_defaults() {
        let s = Settings::defaults();
        let pg = s.db(Database::Pg);
        for (k, v) in [
            ("pg_scale_fact", "1"),
            ("pg_tpch_superuser", "postgres"),
            ("pg_tpch_defaultdbase", "postgres"),
            ("pg_tpch_user", "tpch"),
            ("pg_tpch_dbase", "tpch"),
            ("pg_num_tpch_threads", "1"),
            ("pg_total_querysets", "1"),
            ("pg_raise_query_error", "false"),
            ("pg_verbose", "false"),
            ("pg_refresh_on", "false"),
            ("pg_update_sets", "1"),
            ("pg_trickle_refresh", "1000"),
            ("pg_refresh_verbose", "false"),
            ("pg_degree_of_parallel", "2"),
        ] {
            assert_eq!(pg.get(k), v, "{k}");
        }
        assert!(pg.sections().contains(&"tpch"));
        for (db, pass) in [(Database::Maria, "maria"), (Database::Mysql, "mysql")] {
            let d = s.db(db);
            let p = db.prefix();
            for (k, v) in [
                ("scale_fact", "1"),
                ("tpch_user", "root"),
                ("tpch_pass", pass),
                ("tpch_dbase", "tpch"),
                ("num_tpch_threads", "1"),
                ("tpch_storage_engine", "innodb"),
                ("total_querysets", "1"),
                ("refresh_on", "false"),
                ("update_sets", "1"),
                ("trickle_refresh", "1000"),
                ("refresh_verbose", "false"),
            ] {
                assert_eq!(d.get(&format!("{p}_{k}")), v, "{p}_{k}");
            }
        }
    }

    #[test]
    fn scale_factors_are_hammerdbs_and_the_small_test_ones() {
        let mut s = Settings::defaults();
        let pg = Target::Db(Database::Pg);
        for sf in ["0.01", "0.1", "1", "10", "30", "100000"] {
            s.set(pg, "tpch", "pg_scale_fact", sf).unwrap();
            assert_eq!(s.db(Database::Pg).get("pg_scale_fact"), sf);
        }
        let e = s
            .set(pg, "tpch", "pg_scale_fact", "2")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("Value 2 for tpch:pg_scale_fact is not valid")
                && e.contains("one of 1|10|30|100|300|1000|3000|10000|30000|100000|0.01|0.1"),
            "{e}"
        );
        let maria = Target::Db(Database::Maria);
        let e = s
            .set(maria, "tpch", "maria_num_tpch_threads", "0")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("Value 0 for tpch:maria_num_tpch_threads is not valid")
                && e.contains("an integer from 1 to 1024"),
            "{e}"
        );
        // HammerDB's Greenplum key is kept and checked; setting it warns (session's giset).
        s.set(pg, "tpch", "pg_tpch_gpcompat", "true").unwrap();
        assert!(s
            .set(pg, "tpch", "pg_tpch_gpcompat", "maybe")
            .unwrap_err()
            .to_string()
            .contains("pg_tpch_gpcompat"));
        assert_eq!(
            unused_key("pg_tpch_gpcompat"),
            Some("hammer does not support Greenplum")
        );
    }
}
