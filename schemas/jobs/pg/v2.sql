-- Jobs schema version 2 on PostgreSQL (../v2.sql): how the connection to the server went and
-- the hammer that ran the job.
ALTER TABLE job_system ADD COLUMN IF NOT EXISTS transport TEXT;
ALTER TABLE job_system ADD COLUMN IF NOT EXISTS hammer_version TEXT;
ALTER TABLE job_system ADD COLUMN IF NOT EXISTS hammer_build TEXT;
