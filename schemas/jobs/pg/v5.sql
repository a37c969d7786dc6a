-- Jobs schema version 5 on PostgreSQL (../v5.sql): the host's CPU over a job, in percent of
-- all its CPUs. See src/jobs/cpu.rs.
CREATE TABLE IF NOT EXISTS job_cpu (
    job        TEXT COLLATE "C" PRIMARY KEY,
    seconds    DOUBLE PRECISION NOT NULL,
    busy_pct   DOUBLE PRECISION NOT NULL,
    hammer_pct DOUBLE PRECISION NOT NULL,
    server_pct DOUBLE PRECISION,
    server     TEXT NOT NULL
);
