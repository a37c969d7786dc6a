-- The jobs database, version 1: what a fresh jobs.db holds (see src/jobs/store/mod.rs).
CREATE TABLE IF NOT EXISTS jobs (
    id          TEXT PRIMARY KEY,
    kind        TEXT NOT NULL,
    db          TEXT NOT NULL,
    workload    TEXT NOT NULL,
    mode        TEXT NOT NULL DEFAULT '',
    vus         INTEGER,
    warehouses  INTEGER,
    status      TEXT NOT NULL,
    note        TEXT,
    started_ms  INTEGER NOT NULL,
    ended_ms    INTEGER,
    hostname    TEXT NOT NULL,
    pid         INTEGER NOT NULL,
    pid_started INTEGER,
    settings    TEXT NOT NULL,
    returned    TEXT
);
CREATE INDEX IF NOT EXISTS jobs_profile ON jobs (db, workload, mode, vus, warehouses);
CREATE TABLE IF NOT EXISTS job_output (
    job   TEXT NOT NULL,
    at_ms INTEGER NOT NULL,
    vu    INTEGER NOT NULL,
    line  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS job_output_job ON job_output (job);
CREATE TABLE IF NOT EXISTS job_result (
    job                TEXT PRIMARY KEY,
    nopm               REAL,
    tpm                REAL,
    active_vus         INTEGER NOT NULL,
    seconds            REAL NOT NULL,
    failed_vus         INTEGER NOT NULL,
    reconnects         INTEGER NOT NULL,
    transactions       INTEGER NOT NULL,
    client_cpu_seconds REAL,
    stopped_early      TEXT
);
CREATE TABLE IF NOT EXISTS job_timing (
    job         TEXT NOT NULL,
    seq         INTEGER NOT NULL,
    name        TEXT NOT NULL,
    committed   INTEGER NOT NULL,
    rolled_back INTEGER NOT NULL,
    retried     INTEGER NOT NULL,
    failed      INTEGER NOT NULL,
    mean_ms     REAL NOT NULL,
    p50_ms      REAL NOT NULL,
    p95_ms      REAL NOT NULL,
    p99_ms      REAL NOT NULL,
    max_ms      REAL NOT NULL,
    histogram   BLOB,
    PRIMARY KEY (job, seq)
);
CREATE TABLE IF NOT EXISTS job_tcount (
    job   TEXT NOT NULL,
    at_ms INTEGER NOT NULL,
    tpm   REAL NOT NULL,
    nopm  REAL
);
CREATE INDEX IF NOT EXISTS job_tcount_job ON job_tcount (job);
CREATE TABLE IF NOT EXISTS job_metric (
    job   TEXT NOT NULL,
    at_ms INTEGER NOT NULL,
    usr   REAL NOT NULL,
    sys   REAL NOT NULL,
    irq   REAL NOT NULL,
    idle  REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS job_metric_job ON job_metric (job);
CREATE TABLE IF NOT EXISTS job_system (
    job             TEXT PRIMARY KEY,
    hostname        TEXT NOT NULL,
    os              TEXT NOT NULL,
    cpu_model       TEXT NOT NULL,
    cpu_count       INTEGER NOT NULL,
    physical_cores  INTEGER,
    memory_bytes    INTEGER NOT NULL,
    server_version  TEXT,
    server_settings TEXT NOT NULL
);
