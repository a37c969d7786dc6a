//! What a job records about the database server: its version and the few settings that shape
//! a benchmark's numbers, read with the same logins `librarycheck` uses.

use super::{mysql, mysql::wire as mywire, postgres, DbError};
use crate::config::{Database, Settings};

/// The PostgreSQL settings a job records.
const PG_SETTINGS: &[&str] = &[
    "shared_buffers",
    "effective_cache_size",
    "work_mem",
    "max_connections",
    "synchronous_commit",
    "max_wal_size",
];

/// The MariaDB/MySQL variables a job records.
const MY_SETTINGS: &[&str] = &[
    "innodb_buffer_pool_size",
    "innodb_log_file_size",
    "innodb_flush_log_at_trx_commit",
    "max_connections",
];

/// The server's version line and key settings as `(name, value)`.
pub async fn server_facts(
    settings: &Settings,
    db: Database,
) -> Result<(String, Vec<(String, String)>), DbError> {
    match db {
        Database::Pg => {
            let t = postgres::PgTarget::admin(settings);
            let conn = postgres::connect(&t).await?;
            let rows = conn
                .client
                .query(
                    "select name, current_setting(name) from pg_settings where name = any($1) \
                     union all select 'server_version', current_setting('server_version') \
                     order by 1",
                    &[&PG_SETTINGS],
                )
                .await;
            conn.close().await;
            let rows = rows.map_err(|e| {
                let (kind, detail) = postgres::classify(&e, false);
                t.peer().failed("cannot query", kind, detail)
            })?;
            let mut version = String::new();
            let mut values = Vec::new();
            for r in rows {
                let (name, value): (String, String) = (r.get(0), r.get(1));
                if name == "server_version" {
                    version = format!("PostgreSQL {value}");
                } else {
                    values.push((name, value));
                }
            }
            Ok((version, values))
        }
        Database::Maria | Database::Mysql => {
            let t = mysql::MyTarget::server(settings, db);
            let mut conn = mywire::connect(&t).await?;
            let sql = format!(
                "select version(), {}",
                MY_SETTINGS
                    .iter()
                    .map(|v| format!("cast(@@{v} as char)"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            let row = conn.query_first(&sql).await;
            conn.close().await;
            let row = row.map_err(|e| t.peer().failed("cannot query", e.kind, e.detail))?;
            let Some(row) = row else {
                return Ok((db.name().to_string(), Vec::new()));
            };
            let text =
                |i: usize| -> String { row.get(i).and_then(mysql::text_of).unwrap_or_default() };
            let values = MY_SETTINGS
                .iter()
                .enumerate()
                .map(|(i, name)| (name.to_string(), text(i + 1)))
                .collect();
            Ok((format!("{} {}", db.name(), text(0)), values))
        }
    }
}
