#!/bin/tclsh
# A timed TPROC-C run of a few seconds on one virtual user; the job id goes to
# $TMP/<db>_tprocc as HammerDB's run scripts leave it for their result scripts.
set tmpdir $::env(TMP)
set db $::env(TCL_DB)
puts "SETTING CONFIGURATION"
dbset db $db
dbset bm TPC-C

if {$db eq "pg"} {
    diset connection pg_host $::env(TCL_HOST)
    diset connection pg_port $::env(TCL_PORT)
    diset tpcc pg_superuser postgres
    diset tpcc pg_superuserpass $::env(HAMMER_PG_SUPERUSERPASS)
    diset tpcc pg_defaultdbase postgres
    diset tpcc pg_user tcl_tpcc
    diset tpcc pg_pass tcl_tpcc
    diset tpcc pg_dbase tcl_tpcc
} else {
    diset connection maria_host $::env(TCL_HOST)
    diset connection maria_port $::env(TCL_PORT)
    diset connection maria_socket $::env(TCL_SOCKET)
    diset tpcc maria_user root
    diset tpcc maria_pass $::env(HAMMER_MARIA_PASS)
    diset tpcc maria_dbase tcl_tpcc
}
diset tpcc ${db}_count_ware 1
diset tpcc ${db}_driver timed
diset tpcc ${db}_total_iterations 10000000
diset tpcc ${db}_rampup 0
diset tpcc ${db}_duration 0.1

loadscript
puts "TEST STARTED"
vuset vu 1
vucreate
set jobid [ vurun ]
vudestroy
puts "TEST COMPLETE"
puts $jobid
set of [ open $tmpdir/${db}_tprocc w ]
puts $of $jobid
close $of
