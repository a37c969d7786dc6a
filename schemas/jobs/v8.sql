-- The jobs database, version 8: the performance profile a TPROC-C run was recorded under
-- (HammerDB's `jobs profileid N`; 0 is no profile and has no row), and the step the script
-- named for it (`jobs profilestep LABEL`, hammer's own; empty when it named none). See
-- src/jobs/profile.rs.
CREATE TABLE IF NOT EXISTS job_profile (
    job     TEXT PRIMARY KEY,
    profile INTEGER NOT NULL,
    step    TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS job_profile_profile ON job_profile (profile);
