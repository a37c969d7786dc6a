#!/usr/bin/env python3
# A performance profile as HammerDB's Python run_profile scripts make one: PROFILEID from the
# environment, checked by a helper function; the same timed run at each virtual-user count of a
# list; each job id appended to $TMP/<db>_tprocc_profile_py.
import os
import sys


def fatal(msg: str) -> None:
    print(msg)
    sys.exit(1)


def step_label(vus):
    # A local variable and a return, as helper functions have.
    label = f"{vus} VU"
    if vus > 1:
        return label + "s"
    return label


tmpdir = os.getenv("TMP")
if not tmpdir:
    tmpdir = os.path.join(os.getcwd(), "TMP")
    os.makedirs(tmpdir, exist_ok=True)
db = os.environ["TCL_DB"]

if "PROFILEID" not in os.environ:
    fatal("ERROR: PROFILEID not set in environment")
try:
    profileid = int(os.environ["PROFILEID"])
except ValueError:
    fatal(f"ERROR: PROFILEID must be an integer, got: '{os.environ['PROFILEID']}'")
if profileid < 2:
    fatal(f"ERROR: PROFILEID must be > 1. Got: {profileid}")

dbset("db", db)
dbset("bm", "TPC-C")
if db == "pg":
    diset("connection", "pg_host", os.getenv("TCL_HOST"))
    diset("connection", "pg_port", os.getenv("TCL_PORT"))
    diset("tpcc", "pg_superuser", "postgres")
    diset("tpcc", "pg_superuserpass", os.environ["HAMMER_PG_SUPERUSERPASS"])
    diset("tpcc", "pg_defaultdbase", "postgres")
    diset("tpcc", "pg_user", "tcl_tpcc")
    diset("tpcc", "pg_pass", "tcl_tpcc")
    diset("tpcc", "pg_dbase", "tcl_tpcc")
else:
    diset("connection", "maria_host", os.getenv("TCL_HOST"))
    diset("connection", "maria_port", os.getenv("TCL_PORT"))
    diset("connection", "maria_socket", os.getenv("TCL_SOCKET"))
    diset("tpcc", "maria_user", "root")
    diset("tpcc", "maria_pass", os.environ["HAMMER_MARIA_PASS"])
    diset("tpcc", "maria_dbase", "tcl_tpcc")
diset("tpcc", f"{db}_driver", "timed")
diset("tpcc", f"{db}_rampup", 0)
diset("tpcc", f"{db}_duration", 0.05)
giset("commandline", "keepalive_margin", 1200)
giset("timeprofile", "xt_gather_timeout", 1200)
jobs("profileid", str(profileid))

# The virtual-user counts: 1, then 2 up to the end.
end_vu = 2
vu_list = [1] + list(range(2, end_vu + 1))
outfile = os.path.join(tmpdir, f"{db}_tprocc_profile_py")
for z in vu_list:
    loadscript()
    vuset("vu", str(z))
    vucreate()
    jobid = vurun()
    vudestroy()
    with open(outfile, "a", encoding="utf-8") as f:
        f.write(str(jobid) + "\n")
    print(f"PROFILE STEP {step_label(z)}, job {jobid}")
print("PROFILE COMPLETE")
jobs("profile", str(profileid))
