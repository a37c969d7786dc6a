//! The pre-run fitness questions of `tpcc::fitness`, answered in PostgreSQL's SQL.

use futures_util::future::join_all;
use tokio_postgres::Client;

use super::outputs::failed;
use super::sql::{statement_texts, Flavour, ROUTINES};
use crate::db::postgres::classify;
use crate::error::{Error, Result};
use crate::fault::Peer;
use crate::tpcc::fitness::{Fitness, NURAND_TABLE};

/// The fitness questions, on the owner's connection.
pub(super) struct PgFitness<'a> {
    pub(super) client: &'a Client,
    pub(super) peer: &'a Peer,
    /// The schema's database.
    pub(super) db: &'a str,
    pub(super) flavour: Flavour,
    /// The keys that choose the flavour: `pg_storedprocs`, `pg_no_stored_procs`.
    pub(super) procs_key: String,
    pub(super) no_procs_key: String,
}

impl Fitness for PgFitness<'_> {
    async fn missing_tables(&mut self, tables: &[&'static str]) -> Result<Vec<String>> {
        let sql = "SELECT t FROM unnest($1::text[]) WITH ORDINALITY AS u(t, n)
                    WHERE to_regclass(u.t) IS NULL ORDER BY u.n";
        Ok(self
            .client
            .query(sql, &[&tables])
            .await
            .map_err(|e| failed(self.peer, "cannot check", "tables", &e))?
            .iter()
            .map(|r| r.get(0))
            .collect())
    }

    async fn max_warehouse(&mut self) -> Result<Option<i64>> {
        let max: Option<i32> = self
            .client
            .query_one("SELECT max(w_id)::int FROM warehouse", &[])
            .await
            .map_err(|e| failed(self.peer, "cannot check", "warehouses", &e))?
            .get(0);
        Ok(max.map(i64::from))
    }

    async fn routines(&mut self) -> Result<()> {
        self.check_routines().await
    }

    async fn nurand(&mut self) -> Result<Vec<[Option<i64>; 3]>> {
        let rows = self
            .client
            .query(
                "SELECT c_last::int, c_id::int, ol_i_id::int FROM tpcc_nurand",
                &[],
            )
            .await
            .map_err(|e| failed(self.peer, "cannot check", NURAND_TABLE, &e))?;
        Ok(rows
            .iter()
            .map(|r| [0, 1, 2].map(|i| r.get::<_, Option<i32>>(i).map(i64::from)))
            .collect())
    }

    /// Preparing what the terminals will run shows any routine or column of another shape.
    async fn statements(&mut self) -> Result<()> {
        let flavour = self.flavour;
        let texts = statement_texts(flavour);
        let prepared = join_all(texts.iter().map(|t| self.client.prepare(t))).await;
        if let Some(Err(e)) = prepared.into_iter().find(|p| p.is_err()) {
            let (_, detail) = classify(&e, false);
            return Err(Error::SchemaMisfit {
                db: self.db.to_string(),
                calls: flavour.routines().map(|(_, words)| words),
                detail,
            });
        }
        Ok(())
    }
}

impl PgFitness<'_> {
    /// The routines this flavour calls are all there; if only the other flavour's are, say so
    /// and how to choose (HammerDB switches silently; hammer does not).
    async fn check_routines(&self) -> Result<()> {
        let Some((kind, _)) = self.flavour.routines() else {
            return Ok(());
        };
        let sql = "SELECT p.proname::text, p.prokind::text FROM pg_proc p
                     JOIN pg_namespace n ON n.oid = p.pronamespace
                    WHERE n.nspname = current_schema() AND p.proname = ANY ($1::text[])";
        let found: Vec<(String, String)> = self
            .client
            .query(sql, &[&ROUTINES.as_slice()])
            .await
            .map_err(|e| failed(self.peer, "cannot check", "routines", &e))?
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect();
        let has = |name: &str, k: &str| found.iter().any(|(n, fk)| n == name && fk == k);
        let missing: Vec<&str> = ROUTINES.iter().copied().filter(|n| !has(n, kind)).collect();
        if missing.is_empty() {
            return Ok(());
        }
        // `procs_key` true calls the stored procedures ("p"), false the functions ("f").
        let procedures = kind == "p";
        let other = if procedures { "f" } else { "p" };
        if ROUTINES.iter().all(|n| has(n, other)) {
            return Err(Error::RoutinesOfOtherKind {
                db: self.db.to_string(),
                key: self.procs_key.clone(),
                procedures,
            });
        }
        Err(Error::LacksRoutines {
            db: self.db.to_string(),
            routines: missing.into_iter().map(String::from).collect(),
            key: self.procs_key.clone(),
            procedures,
            no_procs_key: self.no_procs_key.clone(),
        })
    }
}
