-- Jobs schema version 3 on PostgreSQL (../v3.sql): a run's live series, one JSON document per
-- job (see src/jobs/live.rs).
CREATE TABLE IF NOT EXISTS job_live (
    job    TEXT COLLATE "C" PRIMARY KEY,
    series TEXT NOT NULL
);
