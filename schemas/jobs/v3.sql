-- The jobs database, version 3: a run's live series (the intervals its live view showed),
-- one JSON document per job (see src/jobs/live.rs).
CREATE TABLE IF NOT EXISTS job_live (
    job    TEXT PRIMARY KEY,
    series TEXT NOT NULL
);
