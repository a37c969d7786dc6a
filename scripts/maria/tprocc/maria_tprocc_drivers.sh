#!/usr/bin/env bash
# Several hammer drivers on this machine, one TPROC-C benchmark on MariaDB: N drivers over N
# warehouse ranges of one schema, one common window, one merged result (the merged TEST
# RESULT line, the merged transaction table and one row per driver).
#   scripts/maria/tprocc/maria_tprocc_drivers.sh N [rampup_min] [duration_min]
# Defaults: 2 drivers, 1 minute rampup, 2 minutes measured. Build the schema first
# (maria_tprocc_build.rhai); the connection lines are maria_tprocc_run.rhai's.
# Env: STEPS=1 staggers the drivers' starts; WAREHOUSES (4), VUS (per driver, 2), DBASE,
# DBUSER, HAMMER, KEEP_LOGS=1: see scripts/lib/tprocc_drivers.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../../lib/tprocc_drivers.sh" maria "$here/maria_tprocc_run.rhai" "$@"
