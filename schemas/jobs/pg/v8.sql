-- Jobs schema version 8 on PostgreSQL (../v8.sql): the performance profile a TPROC-C run was
-- recorded under, and the step the script named for it. See src/jobs/profile.rs.
CREATE TABLE IF NOT EXISTS job_profile (
    job     TEXT COLLATE "C" PRIMARY KEY,
    profile BIGINT NOT NULL,
    step    TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS job_profile_profile ON job_profile (profile);
