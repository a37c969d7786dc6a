-- The jobs database, version 5: the host's CPU over a job, in percent of all its CPUs: busy,
-- hammer's own, the database server's (NULL when it was not found on this host) and what the
-- server was taken to be. See src/jobs/cpu.rs.
CREATE TABLE IF NOT EXISTS job_cpu (
    job        TEXT PRIMARY KEY,
    seconds    REAL NOT NULL,
    busy_pct   REAL NOT NULL,
    hammer_pct REAL NOT NULL,
    server_pct REAL,
    server     TEXT NOT NULL
);
