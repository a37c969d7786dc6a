-- The jobs database, version 4: TPROC-H runs (their figures, the time and rows of every query
-- of every query set, the refresh functions) and the transaction counter's metric, `tpm` or
-- `qph` (TPROC-H's counter counts queries per hour). See src/jobs/store/mod.rs.
ALTER TABLE job_tcount ADD COLUMN metric TEXT NOT NULL DEFAULT 'tpm';
CREATE TABLE IF NOT EXISTS job_tpch (
    job             TEXT PRIMARY KEY,
    scale_factor    REAL NOT NULL,
    query_streams   INTEGER NOT NULL,
    geomean         REAL,
    geomean_queries INTEGER NOT NULL,
    querysets       INTEGER NOT NULL,
    queries         INTEGER NOT NULL,
    failed_queries  INTEGER NOT NULL,
    query_seconds   REAL NOT NULL,
    sets_seconds    REAL NOT NULL,
    power_at_size      REAL,
    throughput_at_size REAL,
    qphh               REAL,
    answers_checked    INTEGER NOT NULL,
    answers_matched    INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS job_query_set (
    job       TEXT NOT NULL,
    seq       INTEGER NOT NULL,
    vu        INTEGER NOT NULL,
    stream    INTEGER NOT NULL,
    query_set INTEGER NOT NULL,
    seconds   REAL NOT NULL,
    PRIMARY KEY (job, seq)
);
CREATE TABLE IF NOT EXISTS job_query (
    job      TEXT NOT NULL,
    set_seq  INTEGER NOT NULL,
    seq      INTEGER NOT NULL,
    position INTEGER NOT NULL,
    query    INTEGER NOT NULL,
    seconds  REAL NOT NULL,
    rows     INTEGER NOT NULL,
    error    TEXT,
    PRIMARY KEY (job, set_seq, seq)
);
CREATE TABLE IF NOT EXISTS job_refresh (
    job      TEXT NOT NULL,
    seq      INTEGER NOT NULL,
    vu       INTEGER NOT NULL,
    pair     INTEGER NOT NULL,
    function TEXT NOT NULL,
    name     TEXT NOT NULL,
    seconds  REAL NOT NULL,
    rows     INTEGER NOT NULL,
    error    TEXT,
    PRIMARY KEY (job, seq)
);
