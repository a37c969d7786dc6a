#!/bin/tclsh
# Checks the TPROC-C schema tprocc_build.tcl builds (same settings).
set db $::env(TCL_DB)
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

puts "CHECK SCHEMA STARTED"
checkschema
puts "CHECK SCHEMA COMPLETED"
