//! HammerDB's cluster connect pool (`*_connect_pool`, HammerDB's `<prefix>cpool.xml`), one per
//! database: named connections, each some of the database's connection keys over the
//! dictionary's, and for each transaction the connections it goes to and the policy that picks
//! one of them. `cpset`, `cpclear` and `print connectpool` keep it; it persists with the
//! settings.

use serde_json::{Map, Value};

use super::{Database, Dict, MASK};

/// The transactions a pool routes, in HammerDB's words and TPROC-C's order.
pub const TRANSACTIONS: [&str; 5] = [
    "neworder",
    "payment",
    "delivery",
    "stocklevel",
    "orderstatus",
];

/// How a transaction picks one of its connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// Always the first listed.
    FirstNamed,
    /// Always the last listed.
    LastNamed,
    /// Any, at random, each time.
    Random,
    /// Each in turn, per terminal.
    RoundRobin,
}

impl Policy {
    /// HammerDB's words, in [`Policy`]'s order.
    pub const WORDS: [&'static str; 4] = ["first_named", "last_named", "random", "round_robin"];

    /// The policy a word names.
    pub fn of(word: &str) -> Option<Policy> {
        match word {
            "first_named" => Some(Policy::FirstNamed),
            "last_named" => Some(Policy::LastNamed),
            "random" => Some(Policy::Random),
            "round_robin" => Some(Policy::RoundRobin),
            _ => None,
        }
    }

    /// HammerDB's word for it.
    pub fn word(self) -> &'static str {
        Self::WORDS[self as usize]
    }
}

/// One named connection: the keys it sets over the dictionary's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    pub id: String,
    pub keys: Vec<(String, String)>,
}

/// What one transaction goes to.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Sproc {
    /// Ids of named connections, in order.
    pub connections: Vec<String>,
    /// The policy as set; empty is `first_named`, an unknown word too (said as a warning).
    pub policy: String,
}

impl Sproc {
    /// The policy this transaction follows, and the warning an unknown word deserves.
    pub fn policy(&self, txn: &str) -> (Policy, Option<String>) {
        match Policy::of(&self.policy) {
            Some(p) => (p, None),
            None if self.policy.is_empty() => (Policy::FirstNamed, None),
            None => (
                Policy::FirstNamed,
                Some(format!(
                    "connect pool policy '{}' of {txn} is not one of {}: {txn} uses first_named",
                    self.policy,
                    Policy::WORDS.join(", ")
                )),
            ),
        }
    }
}

/// One database's connect pool.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ConnectPool {
    /// The named connections, in the order first set.
    pub connections: Vec<Named>,
    /// Per transaction, in [`TRANSACTIONS`]' order.
    pub sprocs: [Sproc; 5],
}

/// The keys a named connection may set: the connection dictionary's, and the login's
/// (`pg_user`, `pg_pass`, `pg_dbase` and their like).
pub fn settable(dict: &Dict, db: Database, key: &str) -> bool {
    let login = ["user", "pass", "dbase"].map(|k| db.key(k));
    dict.spec(key)
        .is_some_and(|s| s.section == "connection" || login.contains(&s.key))
}

impl ConnectPool {
    pub fn is_empty(&self) -> bool {
        self.connections.is_empty() && self.sprocs.iter().all(|s| *s == Sproc::default())
    }

    /// The named connection `id`.
    pub fn named(&self, id: &str) -> Option<&Named> {
        self.connections.iter().find(|n| n.id == id)
    }

    /// `cpset id key value`: a key of a named connection (`cpset c1 pg_host h1`), or a
    /// transaction's `connections` (ids separated by spaces or commas) or `policy`. Returns
    /// what changed, in a line, and a warning for a policy hammer does not know; or why the
    /// input is refused.
    pub fn set(
        &mut self,
        dict: &Dict,
        db: Database,
        id: &str,
        key: &str,
        value: &str,
    ) -> Result<(String, Option<String>), String> {
        if let Some(i) = TRANSACTIONS.iter().position(|t| *t == id) {
            let sproc = &mut self.sprocs[i];
            return match key {
                "connections" => {
                    let ids: Vec<String> = value
                        .split(|c: char| c == ',' || c.is_whitespace())
                        .filter(|s| !s.is_empty())
                        .map(str::to_string)
                        .collect();
                    if let Some(bad) = ids.iter().find(|i| !valid_id(i)) {
                        return Err(format!(
                            "connection id '{bad}' is not a name (letters, digits, _ and -, \
                             not a transaction's name)"
                        ));
                    }
                    sproc.connections = ids;
                    Ok((
                        format!(
                            "Connect pool: {id} goes to {}",
                            if sproc.connections.is_empty() {
                                "the terminal's own connection".to_string()
                            } else {
                                sproc.connections.join(" ")
                            }
                        ),
                        None,
                    ))
                }
                "policy" => {
                    sproc.policy = value.trim().to_string();
                    let (policy, warning) = sproc.policy(id);
                    Ok((
                        format!("Connect pool: {id} policy {}", policy.word()),
                        warning,
                    ))
                }
                other => Err(format!(
                    "key '{other}' is not a key of transaction {id}: valid keys are \
                     connections and policy"
                )),
            };
        }
        if !valid_id(id) {
            return Err(format!(
                "'{id}' is neither a transaction ({}) nor a connection name (letters, digits, _ \
                 and -, such as c1)",
                TRANSACTIONS.join(", ")
            ));
        }
        if !settable(dict, db, key) {
            let valid: Vec<&str> = dict
                .specs()
                .iter()
                .map(|s| s.key.as_str())
                .filter(|k| settable(dict, db, k))
                .collect();
            return Err(format!(
                "key '{key}' is not a connection key of {}: valid keys are {}",
                db.name(),
                valid.join(", ")
            ));
        }
        let spec = dict.spec(key).expect("a settable key has a spec");
        let value = spec.kind.parse(value).map_err(|why| {
            let shown = if spec.is_secret() { MASK } else { value };
            format!("value {shown} of {id} {key} is not valid: it {why}")
        })?;
        let shown = if spec.is_secret() {
            MASK.to_string()
        } else {
            value.clone()
        };
        let named = match self.connections.iter_mut().position(|n| n.id == id) {
            Some(i) => &mut self.connections[i],
            None => {
                self.connections.push(Named {
                    id: id.to_string(),
                    keys: Vec::new(),
                });
                self.connections.last_mut().expect("just pushed")
            }
        };
        match named.keys.iter_mut().find(|(k, _)| k == key) {
            Some(kv) => kv.1 = value,
            None => named.keys.push((key.to_string(), value)),
        }
        Ok((format!("Connect pool: {id} {key} set to {shown}"), None))
    }

    /// Why a run in connect-pool mode cannot use this pool: no transaction listed, or a
    /// listed id that names no connection.
    pub fn check(&self, db: Database) -> Result<(), String> {
        if self.sprocs.iter().all(|s| s.connections.is_empty()) {
            return Err(format!(
                "{} is true but no transaction of the {} connect pool lists a connection: set \
                 them with cpset (cpset(\"c1\", \"{}\", \"host1\"); cpset(\"neworder\", \
                 \"connections\", \"c1\")), or set {} false",
                db.key("connect_pool"),
                db.name(),
                db.key("host"),
                db.key("connect_pool")
            ));
        }
        for (txn, sproc) in TRANSACTIONS.iter().zip(&self.sprocs) {
            if let Some(id) = sproc.connections.iter().find(|id| self.named(id).is_none()) {
                let known: Vec<&str> = self.connections.iter().map(|n| n.id.as_str()).collect();
                return Err(format!(
                    "{txn} lists connection {id}, which the connect pool does not name \
                     (named: {}): set one of its keys with cpset(\"{id}\", \"{}\", \"host\")",
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    },
                    db.key("host")
                ));
            }
        }
        Ok(())
    }

    /// `print connectpool`: the named connections (passwords masked), then each transaction.
    pub fn render(&self, dict: &Dict, db: Database) -> String {
        let mut out = format!("Connect pool for {}", db.name());
        if self.is_empty() {
            out.push_str(" is empty: configure it with cpset");
            return out;
        }
        out.push_str("\nconnections {\n");
        for n in &self.connections {
            let keys: Vec<String> = n
                .keys
                .iter()
                .map(|(k, v)| {
                    let secret = dict.spec(k).is_some_and(|s| s.is_secret());
                    format!("{k} = {}", if secret { MASK } else { v })
                })
                .collect();
            out.push_str(&format!(" {} {{ {} }}\n", n.id, keys.join(", ")));
        }
        out.push_str("}\nsprocs {\n");
        for (txn, s) in TRANSACTIONS.iter().zip(&self.sprocs) {
            let (policy, _) = s.policy(txn);
            let to = if s.connections.is_empty() {
                "(the terminal's own connection)".to_string()
            } else {
                s.connections.join(" ")
            };
            out.push_str(&format!(
                " {txn:<11} = connections {to}, policy {}\n",
                policy.word()
            ));
        }
        out.push('}');
        out
    }

    /// The pool as the settings file keeps it.
    pub fn to_json(&self) -> Value {
        let mut root = Map::new();
        let mut conns = Map::new();
        for n in &self.connections {
            let keys: Map<String, Value> = n
                .keys
                .iter()
                .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                .collect();
            conns.insert(n.id.clone(), Value::Object(keys));
        }
        root.insert("connections".into(), Value::Object(conns));
        for (txn, s) in TRANSACTIONS.iter().zip(&self.sprocs) {
            let mut m = Map::new();
            m.insert("connections".into(), Value::String(s.connections.join(" ")));
            m.insert("policy".into(), Value::String(s.policy.clone()));
            root.insert((*txn).into(), Value::Object(m));
        }
        Value::Object(root)
    }

    /// A pool from the settings file, each entry checked as `cpset` checks it; what is
    /// refused is left out and said in the warnings.
    pub fn from_json(v: &Value, dict: &Dict, db: Database) -> (Self, Vec<String>) {
        let mut pool = ConnectPool::default();
        let mut warnings = Vec::new();
        let Value::Object(root) = v else {
            return (pool, vec!["its connect pool is not an object".into()]);
        };
        let text = |v: &Value| match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let mut put = |pool: &mut ConnectPool, id: &str, key: &str, value: &str| {
            if let Err(why) = pool.set(dict, db, id, key, value) {
                warnings.push(format!("connect pool entry {id} {key} left out: {why}"));
            }
        };
        if let Some(Value::Object(conns)) = root.get("connections") {
            for (id, keys) in conns {
                if let Value::Object(keys) = keys {
                    for (k, v) in keys {
                        put(&mut pool, id, k, &text(v));
                    }
                }
            }
        }
        for txn in TRANSACTIONS {
            if let Some(Value::Object(m)) = root.get(txn) {
                for key in ["connections", "policy"] {
                    if let Some(v) = m.get(key) {
                        put(&mut pool, txn, key, &text(v));
                    }
                }
            }
        }
        (pool, warnings)
    }
}

/// A connection id: letters, digits, `_` and `-`, and not a transaction's name.
fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !TRANSACTIONS.contains(&id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Settings;

    #[test]
    fn cpset_checks_ids_keys_and_values_and_round_trips_through_json() {
        let s = Settings::defaults();
        let (dict, db) = (s.db(Database::Pg), Database::Pg);
        let mut pool = ConnectPool::default();
        assert!(pool.set(dict, db, "c1", "pg_host", "h1").is_ok());
        assert!(pool.set(dict, db, "c1", "pg_port", "5433").is_ok());
        assert!(pool.set(dict, db, "c2", "pg_pass", "secret").is_ok());
        let bad_port = pool.set(dict, db, "c1", "pg_port", "70000").unwrap_err();
        assert!(bad_port.contains("70000"), "{bad_port}");
        let bad_key = pool.set(dict, db, "c1", "pg_rampup", "1").unwrap_err();
        assert!(
            bad_key.contains("pg_rampup") && bad_key.contains("pg_host"),
            "{bad_key}"
        );
        let bad_id = pool.set(dict, db, "c 1", "pg_host", "h").unwrap_err();
        assert!(bad_id.contains("neworder"), "{bad_id}");
        pool.set(dict, db, "neworder", "connections", "c1, c2")
            .unwrap();
        let (_, warning) = pool.set(dict, db, "payment", "policy", "fastest").unwrap();
        assert!(warning.is_some_and(|w| w.contains("first_named")));
        assert_eq!(pool.sprocs[0].connections, ["c1", "c2"]);
        assert_eq!(pool.check(db), Ok(()));
        let text = pool.render(dict, db);
        assert!(
            text.contains("pg_pass = ********") && !text.contains("secret"),
            "{text}"
        );

        let (back, warnings) = ConnectPool::from_json(&pool.to_json(), dict, db);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(back, pool);

        pool.set(dict, db, "delivery", "connections", "c9").unwrap();
        let why = pool.check(db).unwrap_err();
        assert!(why.contains("c9") && why.contains("c1, c2"), "{why}");
        let empty = ConnectPool::default().check(db).unwrap_err();
        assert!(empty.contains("pg_connect_pool"), "{empty}");
    }

    #[test]
    fn policies_read_hammerdbs_words() {
        for w in Policy::WORDS {
            assert_eq!(Policy::of(w).map(Policy::word), Some(w));
        }
        let unknown = Sproc {
            connections: vec![],
            policy: "x".into(),
        };
        assert_eq!(unknown.policy("payment").0, Policy::FirstNamed);
    }
}
