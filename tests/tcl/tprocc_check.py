#!/usr/bin/env python3
# The TPROC-C check in HammerDB's Python dialect (hammerdbcli py auto).
import os
db = os.environ['TCL_DB']
dbset('db', db)
dbset('bm', 'TPC-C')
if db == 'pg':
    diset('connection', 'pg_host', os.getenv('TCL_HOST'))
    diset('connection', 'pg_port', os.getenv('TCL_PORT'))
    diset('tpcc', 'pg_superuser', 'postgres')
    diset('tpcc', 'pg_superuserpass', os.environ['HAMMER_PG_SUPERUSERPASS'])
    diset('tpcc', 'pg_defaultdbase', 'postgres')
    diset('tpcc', 'pg_user', 'tcl_tpcc')
    diset('tpcc', 'pg_pass', 'tcl_tpcc')
    diset('tpcc', 'pg_dbase', 'tcl_tpcc')
else:
    diset('connection', 'maria_host', os.getenv('TCL_HOST'))
    diset('connection', 'maria_port', os.getenv('TCL_PORT'))
    diset('connection', 'maria_socket', os.getenv('TCL_SOCKET'))
    diset('tpcc', 'maria_user', 'root')
    diset('tpcc', 'maria_pass', os.environ['HAMMER_MARIA_PASS'])
    diset('tpcc', 'maria_dbase', 'tcl_tpcc')
diset('tpcc', f'{db}_count_ware', 1)
print("CHECK SCHEMA STARTED")
checkschema()
print("CHECK SCHEMA COMPLETED")
exit()
