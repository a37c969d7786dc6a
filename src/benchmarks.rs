//! The benchmarks hammer knows by name: each one's name, HammerDB's compatible alias and its
//! dictionary, on the ground floor so that settings, jobs and errors can name them. Which code
//! runs each is `workloads`' business (it pairs every entry here with its code, and a test
//! there checks that the two lists agree).

/// A benchmark's names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Named {
    /// `TPROC-C`: the name jobs record and messages use.
    pub name: &'static str,
    /// `TPC-C`: HammerDB's compatible name, as `bm` stores it.
    pub alias: &'static str,
    /// `tpcc`: the dictionary section its keys live in (`diset tpcc ...`).
    pub dictionary: &'static str,
}

impl Named {
    /// The spellings a user may type for it, squeezed as [`squeezed`] makes them: its name
    /// and its alias (`TPROCC`, `TPCC`).
    pub fn spellings(&self) -> [String; 2] {
        [squeezed(self.name), squeezed(self.alias)]
    }
}

/// HammerDB's TPC-C derived workload.
pub const TPROC_C: Named = Named {
    name: "TPROC-C",
    alias: "TPC-C",
    dictionary: "tpcc",
};

/// HammerDB's TPC-H derived workload.
pub const TPROC_H: Named = Named {
    name: "TPROC-H",
    alias: "TPC-H",
    dictionary: "tpch",
};

/// sysbench's OLTP tests (`oltp_read_write`, `oltp_point_select`, ...) on its `sbtest`
/// tables: hammer's own workload, which HammerDB does not have, so its name is its alias too.
pub const OLTP: Named = Named {
    name: "OLTP",
    alias: "OLTP",
    dictionary: "oltp",
};

/// Every benchmark hammer has, in the order help, completion and errors list them.
pub const ALL: [Named; 3] = [TPROC_C, TPROC_H, OLTP];

/// HammerDB's compatible names, as `bm` stores them: its choices in the settings, read off
/// [`ALL`].
pub const ALIASES: [&str; ALL.len()] = {
    let mut aliases = [""; ALL.len()];
    let mut i = 0;
    while i < ALL.len() {
        aliases[i] = ALL[i].alias;
        i += 1;
    }
    aliases
};

/// A name upper-cased without the separators users put in it or leave out (`tproc_c`,
/// `TPC C`, `tpcc`).
pub fn squeezed(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '-' | '_' | ' ' | '.'))
        .collect::<String>()
        .to_ascii_uppercase()
}

/// Every benchmark's name, space-separated, as errors list them: `TPROC-C TPROC-H OLTP`.
pub fn names() -> String {
    ALL.map(|b| b.name).join(" ")
}

/// Every benchmark's compatible name, space-separated: `TPC-C TPC-H OLTP`.
pub fn aliases() -> String {
    ALIASES.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_aliases_are_those_of_the_list() {
        assert_eq!(ALIASES.to_vec(), ALL.map(|b| b.alias).to_vec());
        assert_eq!(
            (names().as_str(), aliases().as_str()),
            ("TPROC-C TPROC-H OLTP", "TPC-C TPC-H OLTP")
        );
    }
}
