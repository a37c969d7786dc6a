#!/bin/tclsh
# Builds a one-warehouse TPROC-C schema, HammerDB-style: the database from $TCL_DB (pg or
# maria), the server from $TCL_HOST/$TCL_PORT/$TCL_SOCKET, passwords from the environment.
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

set warehouse 1
set vu [ expr { min($warehouse, [ numberOfCPUs ]) } ]
diset tpcc ${db}_count_ware $warehouse
diset tpcc ${db}_num_vu $vu
if { $warehouse >= 200 } {
    diset tpcc ${db}_partition true
} else {
    diset tpcc ${db}_partition false
}

puts "SCHEMA BUILD STARTED"
buildschema
puts "SCHEMA BUILD COMPLETED"
