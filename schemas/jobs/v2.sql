-- Jobs schema version 2: how the connection to the server went (socket, TCP, TLS and its
-- version) and the hammer that ran the job (its version and build profile).
ALTER TABLE job_system ADD COLUMN transport TEXT;
ALTER TABLE job_system ADD COLUMN hammer_version TEXT;
ALTER TABLE job_system ADD COLUMN hammer_build TEXT;
