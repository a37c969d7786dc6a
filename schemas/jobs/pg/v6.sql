-- Jobs schema version 6 on PostgreSQL (../v6.sql): Primary and Replica mode (switchmode).
-- See src/modes/.
CREATE TABLE IF NOT EXISTS mode_member (
    id        BIGINT NOT NULL,
    member    BIGINT NOT NULL,
    hostname  TEXT NOT NULL,
    pid       BIGINT NOT NULL,
    joined_ms BIGINT NOT NULL,
    beat_ms   BIGINT NOT NULL,
    left_ms   BIGINT,
    PRIMARY KEY (id, member)
);
CREATE TABLE IF NOT EXISTS mode_command (
    id      BIGINT NOT NULL,
    seq     BIGINT NOT NULL,
    target  BIGINT NOT NULL,
    command TEXT NOT NULL,
    args    TEXT NOT NULL,
    extra   TEXT,
    at_ms   BIGINT NOT NULL,
    PRIMARY KEY (id, seq)
);
