-- Jobs schema version 4 on PostgreSQL (../v4.sql): TPROC-H runs (figures, every query of every
-- query set, the refresh functions) and the transaction counter's metric, `tpm` or `qph`.
ALTER TABLE job_tcount ADD COLUMN IF NOT EXISTS metric TEXT NOT NULL DEFAULT 'tpm';
CREATE TABLE IF NOT EXISTS job_tpch (
    job             TEXT COLLATE "C" PRIMARY KEY,
    scale_factor    DOUBLE PRECISION NOT NULL,
    query_streams   BIGINT NOT NULL,
    geomean         DOUBLE PRECISION,
    geomean_queries BIGINT NOT NULL,
    querysets       BIGINT NOT NULL,
    queries         BIGINT NOT NULL,
    failed_queries  BIGINT NOT NULL,
    query_seconds   DOUBLE PRECISION NOT NULL,
    sets_seconds    DOUBLE PRECISION NOT NULL,
    power_at_size      DOUBLE PRECISION,
    throughput_at_size DOUBLE PRECISION,
    qphh               DOUBLE PRECISION,
    answers_checked    BIGINT NOT NULL,
    answers_matched    BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS job_query_set (
    job       TEXT COLLATE "C" NOT NULL,
    seq       BIGINT NOT NULL,
    vu        BIGINT NOT NULL,
    stream    BIGINT NOT NULL,
    query_set BIGINT NOT NULL,
    seconds   DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (job, seq)
);
CREATE TABLE IF NOT EXISTS job_query (
    job      TEXT COLLATE "C" NOT NULL,
    set_seq  BIGINT NOT NULL,
    seq      BIGINT NOT NULL,
    position BIGINT NOT NULL,
    query    BIGINT NOT NULL,
    seconds  DOUBLE PRECISION NOT NULL,
    rows     BIGINT NOT NULL,
    error    TEXT,
    PRIMARY KEY (job, set_seq, seq)
);
CREATE TABLE IF NOT EXISTS job_refresh (
    job      TEXT COLLATE "C" NOT NULL,
    seq      BIGINT NOT NULL,
    vu       BIGINT NOT NULL,
    pair     BIGINT NOT NULL,
    function TEXT NOT NULL,
    name     TEXT NOT NULL,
    seconds  DOUBLE PRECISION NOT NULL,
    rows     BIGINT NOT NULL,
    error    TEXT,
    PRIMARY KEY (job, seq)
);
