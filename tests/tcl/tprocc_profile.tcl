#!/bin/tclsh
# A performance profile as HammerDB's run_profile scripts make one: the same timed run at
# each virtual-user count of a list, each job id appended to $TMP/<db>_tprocc_profile.
if {![info exists ::env(TMP)] || $::env(TMP) eq ""} {
    set ::env(TMP) "[pwd]/TMP"
    file mkdir $::env(TMP)
}
set tmpdir $::env(TMP)
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
diset tpcc ${db}_driver timed
diset tpcc ${db}_rampup 0
diset tpcc ${db}_duration 0.05
# HammerDB's profile run: the runs are recorded under a performance profile.
giset commandline keepalive_margin 1200
giset timeprofile xt_gather_timeout 1200
jobs profileid 7

# The virtual-user counts: 1, then 2 up to the end in steps of 1.
set end_vu 2
set vu_list {1}
for {set z 2} {$z <= $end_vu} {incr z} { lappend vu_list $z }

set runs 0
foreach z $vu_list {
    loadscript
    vuset vu $z
    vucreate
    set jobid [ vurun ]
    vudestroy
    if {[catch {vudestroy} msg]} { puts "already gone: $msg" }
    set of [ open "$tmpdir/${db}_tprocc_profile" a ]
    puts $of $jobid
    close $of
    incr runs
    puts "PROFILE RUN $runs: $z virtual users, job $jobid"
}
puts "PROFILE COMPLETE: $runs runs"
jobs format text
jobs profile 7
jobs profileid 0
