//! A TPROC-C terminal's connections and which one each transaction runs on: its own; a second
//! one for Order-Status and Stock-Level when the dictionary names servers for reads
//! (`*_read_only_hosts`); or, with HammerDB's connect pool (`*_connect_pool`), the pool's
//! named connections, one picked per transaction by its type's policy (`config::pool`).
//!
//! A terminal opens all its connections when it connects and closes them together; a lost
//! one fails its transaction with `Failure::Lost`, so the runtime reconnects the terminal,
//! which opens every one of them again along its route.

use rand::rngs::SmallRng;

use super::inputs::Kind;
use super::random::uniform;
use super::txn::TxnConn;
use crate::config::pool::{ConnectPool, Policy, TRANSACTIONS};
use crate::config::Database;
use crate::error::{Error, Result};

/// Where a transaction runs among a terminal's connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    /// The terminal's own connection.
    Own,
    /// Its connection to a server for reads.
    Reads,
    /// The connect pool's connection at this index of [`Pool::ids`].
    Named(usize),
}

impl Which {
    /// The connection's slot in a terminal's tally: own, reads, then the named ones.
    pub fn slot(self) -> usize {
        match self {
            Which::Own => 0,
            Which::Reads => 1,
            Which::Named(i) => 2 + i,
        }
    }
}

/// The connect pool as a run uses it: the named connections its transactions list, and per
/// transaction type (in [`Kind::ALL`]'s order) their indices and policy.
#[derive(Debug, Clone, PartialEq)]
pub struct Pool {
    /// The named connections each terminal opens, in the order the pool names them.
    pub ids: Vec<String>,
    pub routes: [(Vec<usize>, Policy); 5],
    /// What the run must say before it starts (a policy hammer does not know).
    pub warnings: Vec<String>,
}

impl Pool {
    /// The run's view of `pool`, or why a run cannot use it (nothing listed, an id named
    /// nowhere).
    pub fn of(pool: &ConnectPool, db: Database) -> Result<Pool> {
        pool.check(db).map_err(|why| Error::ConnectPool { why })?;
        let ids: Vec<String> = pool
            .connections
            .iter()
            .map(|n| n.id.clone())
            .filter(|id| pool.sprocs.iter().any(|s| s.connections.contains(id)))
            .collect();
        let mut warnings = Vec::new();
        let route = |k: Kind| {
            // TRANSACTIONS and Kind::ALL name the five in one order.
            let (txn, sproc) = (TRANSACTIONS[k.index()], &pool.sprocs[k.index()]);
            let (policy, warning) = sproc.policy(txn);
            let at = sproc
                .connections
                .iter()
                .filter_map(|id| ids.iter().position(|i| i == id))
                .collect();
            ((at, policy), warning)
        };
        let routes = Kind::ALL.map(|k| {
            let (r, w) = route(k);
            warnings.extend(w);
            r
        });
        Ok(Pool {
            ids,
            routes,
            warnings,
        })
    }

    /// The connection a transaction of `kind` goes to: `turn` is the terminal's round-robin
    /// counter per type.
    pub fn choose(&self, kind: Kind, turn: &mut [usize; 5], rng: &mut SmallRng) -> Which {
        let (at, policy) = &self.routes[kind.index()];
        let pick = match (policy, at.len()) {
            (_, 0) => return Which::Own,
            (Policy::FirstNamed, _) => 0,
            (Policy::LastNamed, n) => n - 1,
            (Policy::Random, n) => uniform(rng, 1, n as u32) as usize - 1,
            (Policy::RoundRobin, n) => {
                let t = &mut turn[kind.index()];
                let pick = *t % n;
                *t = t.wrapping_add(1);
                pick
            }
        };
        Which::Named(at[pick])
    }
}

/// Where a transaction of `kind` goes when the terminal has a connection for reads.
pub fn with_reads(kind: Kind) -> Which {
    match kind {
        Kind::OrderStatus | Kind::StockLevel => Which::Reads,
        _ => Which::Own,
    }
}

/// One terminal's connections.
pub struct Links<C> {
    pub own: C,
    pub reads: Option<C>,
    /// The connect pool's, in [`Pool::ids`]' order.
    pub named: Vec<C>,
}

impl<C: TxnConn> Links<C> {
    /// The connection `which` names; the terminal's own when it has no such connection.
    pub fn get(&mut self, which: Which) -> &mut C {
        match which {
            Which::Reads => self.reads.as_mut().unwrap_or(&mut self.own),
            Which::Named(i) if i < self.named.len() => &mut self.named[i],
            Which::Own | Which::Named(_) => &mut self.own,
        }
    }

    /// Where each connection went, by slot ([`Which::slot`]): `None` for a slot it has not.
    pub fn nodes(&self) -> Vec<Option<String>> {
        let mut v = vec![
            Some(self.own.node().to_string()),
            self.reads.as_ref().map(|c| c.node().to_string()),
        ];
        v.extend(self.named.iter().map(|c| Some(c.node().to_string())));
        v
    }

    pub async fn close(self) {
        let Links { own, reads, named } = self;
        own.close().await;
        if let Some(r) = reads {
            r.close().await;
        }
        for c in named {
            c.close().await;
        }
    }

    pub fn into_blocking(self) -> Result<Self> {
        let Links { own, reads, named } = self;
        Ok(Links {
            own: own.into_blocking()?,
            reads: reads.map(C::into_blocking).transpose()?,
            named: named
                .into_iter()
                .map(C::into_blocking)
                .collect::<Result<_>>()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Settings;

    fn pool(policy: &str) -> Pool {
        let s = Settings::defaults();
        let (dict, db) = (s.db(Database::Pg), Database::Pg);
        let mut p = ConnectPool::default();
        for id in ["c1", "c2", "c3"] {
            p.set(dict, db, id, "pg_host", "h").unwrap();
        }
        p.set(dict, db, "neworder", "connections", "c1 c3").unwrap();
        p.set(dict, db, "neworder", "policy", policy).unwrap();
        p.set(dict, db, "payment", "connections", "c3").unwrap();
        Pool::of(&p, db).unwrap()
    }

    #[test]
    fn each_policy_picks_as_hammerdb_does() {
        let mut rng: SmallRng = rand::SeedableRng::seed_from_u64(7);
        let mut turn = [0; 5];
        let mut picks = |p: &Pool, k: Kind| -> Vec<Which> {
            (0..4).map(|_| p.choose(k, &mut turn, &mut rng)).collect()
        };
        // c2 is listed nowhere: terminals do not open it.
        let first = pool("first_named");
        assert_eq!(first.ids, ["c1", "c3"]);
        assert_eq!(picks(&first, Kind::NewOrder), [Which::Named(0); 4]);
        assert_eq!(picks(&first, Kind::Payment), [Which::Named(1); 4]);
        assert_eq!(picks(&first, Kind::Delivery), [Which::Own; 4]);
        assert_eq!(
            picks(&pool("last_named"), Kind::NewOrder),
            [Which::Named(1); 4]
        );
        assert_eq!(
            picks(&pool("round_robin"), Kind::NewOrder),
            [
                Which::Named(0),
                Which::Named(1),
                Which::Named(0),
                Which::Named(1)
            ]
        );
        let random = pool("random");
        let seen: Vec<Which> = (0..200)
            .map(|_| random.choose(Kind::NewOrder, &mut [0; 5], &mut rng))
            .collect();
        assert!(seen.contains(&Which::Named(0)) && seen.contains(&Which::Named(1)));
        let odd = pool("fastest");
        assert_eq!(odd.routes[0].1, Policy::FirstNamed);
        assert_eq!(odd.warnings.len(), 1, "{:?}", odd.warnings);
    }

    #[test]
    fn reads_go_to_the_reads_connection() {
        let to: Vec<Which> = Kind::ALL.into_iter().map(with_reads).collect();
        assert_eq!(
            to,
            [
                Which::Own,
                Which::Own,
                Which::Own,
                Which::Reads,
                Which::Reads
            ]
        );
    }
}
