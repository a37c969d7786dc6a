//! What every engine family's connection shares: the bounded socket and its kill switch, the TLS
//! verifier, and the lean TLS record layer the hand-written wire clients run over.

pub(crate) mod leantls;
pub(crate) mod sock;
pub(crate) mod tls;
