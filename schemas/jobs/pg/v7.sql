-- Jobs schema version 7 on PostgreSQL (../v7.sql): a job that was one driver's part of a
-- shared run, with the merged result as that driver computed it. See src/jobs/runs.rs.
CREATE TABLE IF NOT EXISTS job_run (
    job     TEXT COLLATE "C" PRIMARY KEY,
    run     TEXT NOT NULL,
    driver  BIGINT NOT NULL,
    drivers BIGINT NOT NULL,
    merged  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS job_run_run ON job_run (run);
