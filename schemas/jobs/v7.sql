-- The jobs database, version 7: a job that was one driver's part of a run several hammer
-- drivers shared (hammer's own; HammerDB has no such runs): the run's name, this driver's
-- number, how many drivers the run had, and the merged result as this driver computed it
-- (JSON, `jobs::runs::MergedRun`). `jobs` groups the parts of one run by name and window.
-- See src/jobs/runs.rs.
CREATE TABLE IF NOT EXISTS job_run (
    job     TEXT PRIMARY KEY,
    run     TEXT NOT NULL,
    driver  INTEGER NOT NULL,
    drivers INTEGER NOT NULL,
    merged  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS job_run_run ON job_run (run);
