#!/bin/tclsh
# A TPROC-H power run: one virtual user, one query set, on tproch_build.tcl's schema.
set tmpdir $::env(TMP)
set db $::env(TCL_DB)
puts "SETTING CONFIGURATION"
dbset db $db
dbset bm TPC-H

if {$db eq "pg"} {
    diset connection pg_host $::env(TCL_HOST)
    diset connection pg_port $::env(TCL_PORT)
    diset tpch pg_tpch_superuser postgres
    diset tpch pg_tpch_superuserpass $::env(HAMMER_PG_SUPERUSERPASS)
    diset tpch pg_tpch_defaultdbase postgres
    diset tpch pg_tpch_user tcl_tpch
    diset tpch pg_tpch_pass tcl_tpch
    diset tpch pg_tpch_dbase tcl_tpch
} else {
    diset connection maria_host $::env(TCL_HOST)
    diset connection maria_port $::env(TCL_PORT)
    diset connection maria_socket $::env(TCL_SOCKET)
    diset tpch maria_tpch_user root
    diset tpch maria_tpch_pass $::env(HAMMER_MARIA_PASS)
    diset tpch maria_tpch_dbase tcl_tpch
}
diset tpch ${db}_scale_fact 0.01
diset tpch ${db}_total_querysets 1
diset tpch ${db}_refresh_on false

loadscript
puts "TEST STARTED"
vuset vu 1
vucreate
set jobid [ vurun ]
vudestroy
puts "TEST COMPLETE"
puts $jobid
set of [ open $tmpdir/${db}_tproch w ]
puts $of $jobid
close $of
