-- The jobs database, version 6: Primary and Replica mode (switchmode). A Primary's session
-- and the hammer processes following it (member 0 is the Primary, 1, 2, ... its Replicas in
-- the order they joined), and the commands it sends them (target 0: every Replica; n:
-- Replica n alone). Times are milliseconds since the epoch. See src/modes/.
CREATE TABLE IF NOT EXISTS mode_member (
    id        INTEGER NOT NULL,
    member    INTEGER NOT NULL,
    hostname  TEXT NOT NULL,
    pid       INTEGER NOT NULL,
    joined_ms INTEGER NOT NULL,
    beat_ms   INTEGER NOT NULL,
    left_ms   INTEGER,
    PRIMARY KEY (id, member)
);
CREATE TABLE IF NOT EXISTS mode_command (
    id      INTEGER NOT NULL,
    seq     INTEGER NOT NULL,
    target  INTEGER NOT NULL,
    command TEXT NOT NULL,
    args    TEXT NOT NULL,
    extra   TEXT,
    at_ms   INTEGER NOT NULL,
    PRIMARY KEY (id, seq)
);
