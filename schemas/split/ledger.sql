-- hammer's own ledger of a schema that several hammer processes ("drivers") build at once
-- (src/bench/split.rs): one row per share of the schema a driver claimed (`first_unit` to
-- `last_unit`: warehouses for TPROC-C, parts for TPROC-H), and the schema's own row
-- (`first_unit` 0, `last_unit` the schema's total) with the facts every driver loads with
-- (TPROC-C's NURand load constants, TPROC-H's scale factor) and the build's stage.
-- One text for PostgreSQL and MariaDB/MySQL: only SQL both take. Each statement is named by
-- a `-- name:` line and ends at a `-- go` line; `{{x}}` is a value the code fills in (numbers,
-- and texts it has reduced to letters, digits and `._:=-`).
--
-- States: a share is `loading` (its driver beats its heartbeat), `loaded` or `failed` (its
-- driver stopped and said so); the schema is `loading`, `finishing` (keys being added),
-- `complete`, or `incomplete` (its creator stopped waiting for missing shares).

-- name: create
CREATE TABLE hammer_build_parts (
    first_unit integer NOT NULL,
    last_unit  integer NOT NULL,
    state      varchar(16) NOT NULL,
    host       varchar(255) NOT NULL,
    pid        bigint NOT NULL,
    token      bigint NOT NULL,
    beats      bigint NOT NULL,
    started    timestamp NULL,
    heartbeat  timestamp NULL,
    ended      timestamp NULL,
    facts      varchar(1000) NOT NULL,
    PRIMARY KEY (first_unit)
)
-- go
-- name: exists
SELECT count(*) FROM information_schema.tables
 WHERE table_name = 'hammer_build_parts'
   AND (table_catalog = '{{dbname}}' OR table_schema = '{{dbname}}')
-- go
-- name: insert
INSERT INTO hammer_build_parts
       (first_unit, last_unit, state, host, pid, token, beats, started, heartbeat, facts)
VALUES ({{first}}, {{last}}, '{{state}}', '{{host}}', {{pid}}, {{token}}, 0,
        CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, '{{facts}}')
-- go
-- name: read
SELECT first_unit, last_unit, state, host, pid, token,
       CAST(started AS char(19)), CAST(ended AS char(19)),
       CASE WHEN heartbeat < CURRENT_TIMESTAMP - INTERVAL '{{stale}}' SECOND THEN 1 ELSE 0 END,
       facts
  FROM hammer_build_parts ORDER BY first_unit
-- go
-- name: read_locked
SELECT first_unit, last_unit, state, host, pid, token,
       CAST(started AS char(19)), CAST(ended AS char(19)),
       CASE WHEN heartbeat < CURRENT_TIMESTAMP - INTERVAL '{{stale}}' SECOND THEN 1 ELSE 0 END,
       facts
  FROM hammer_build_parts ORDER BY first_unit FOR UPDATE
-- go
-- name: drop_share
DELETE FROM hammer_build_parts WHERE first_unit = {{first}} AND token = {{token}}
-- go
-- The schema's row and the driver's share, by key: InnoDB locks only the rows it reads.
-- name: beat
UPDATE hammer_build_parts SET heartbeat = CURRENT_TIMESTAMP, beats = beats + 1
 WHERE first_unit IN (0, {{first}}) AND token = {{token}}
-- go
-- name: held
SELECT count(*) FROM hammer_build_parts WHERE first_unit = {{first}} AND token = {{token}}
-- go
-- name: mark
UPDATE hammer_build_parts SET state = '{{state}}', ended = CURRENT_TIMESTAMP
 WHERE first_unit = {{first}} AND token = {{token}}
-- go
-- name: stage
UPDATE hammer_build_parts SET state = '{{state}}', ended = CURRENT_TIMESTAMP
 WHERE first_unit = 0
-- go
-- name: take_schema
UPDATE hammer_build_parts
   SET state = 'finishing', host = '{{host}}', pid = {{pid}}, token = {{token}},
       heartbeat = CURRENT_TIMESTAMP
 WHERE first_unit = 0
