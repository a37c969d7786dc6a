//! Unit tests of the PostgreSQL connection: the authentication policy and the login guard.

use super::*;

#[test]
fn the_default_policy_refuses_only_cleartext_in_the_open() {
    let p = AuthPolicy {
        allowed: String::new(),
        prefix: "pg",
    };
    assert!(p.allows(AuthMethod::ScramSha256, false).is_ok());
    assert!(p.allows(AuthMethod::Md5, false).is_ok());
    assert!(p.allows(AuthMethod::None, false).is_ok());
    assert!(p.allows(AuthMethod::Password, true).is_ok());
    let e = p.allows(AuthMethod::Password, false).unwrap_err();
    assert!(e.contains("pg_require_auth password"), "{e}");
}

#[test]
fn listed_and_negated_methods() {
    let only = AuthPolicy {
        allowed: "scram-sha-256".into(),
        prefix: "pg",
    };
    assert!(only.allows(AuthMethod::ScramSha256, false).is_ok());
    let e = only.allows(AuthMethod::Md5, true).unwrap_err();
    assert!(e.contains("md5") && e.contains("scram-sha-256"), "{e}");
    assert!(only.allows(AuthMethod::None, true).is_err());
    let not_clear = AuthPolicy {
        allowed: "!password".into(),
        prefix: "pg",
    };
    assert!(not_clear.allows(AuthMethod::Password, true).is_err());
    assert!(not_clear.allows(AuthMethod::Md5, false).is_ok());
    let clear = AuthPolicy {
        allowed: "password".into(),
        prefix: "pg",
    };
    assert!(clear.allows(AuthMethod::Password, false).is_ok());
}

fn message(tag: u8, body: &[u8]) -> Vec<u8> {
    let mut m = vec![tag];
    m.extend_from_slice(&((body.len() + 4) as i32).to_be_bytes());
    m.extend_from_slice(body);
    m
}

fn guard(policy: &str, private: bool) -> AuthGuard {
    AuthGuard {
        policy: AuthPolicy {
            allowed: policy.into(),
            prefix: "pg",
        },
        private,
        head: Vec::new(),
        skip: 0,
        login: Step::Asked,
    }
}

fn scram_exchange() -> Vec<Vec<u8>> {
    let mut sasl = 10i32.to_be_bytes().to_vec();
    sasl.extend_from_slice(b"SCRAM-SHA-256\0\0");
    vec![
        message(b'R', &sasl),
        message(b'R', &[0, 0, 0, 11, b'x', b'y']),
        message(b'R', &[0, 0, 0, 12, b'z']),
        message(b'R', &[0, 0, 0, 0]),
    ]
}

#[test]
fn the_guard_reads_requests_split_anywhere() {
    let mut bytes = scram_exchange().concat();
    bytes.extend(message(b'S', b"server_version\x0015.1\x00"));
    bytes.extend(message(b'Z', b"I"));
    for cut in 0..bytes.len() {
        let mut g = guard("scram-sha-256", false);
        g.scan(&bytes[..cut]).unwrap();
        g.scan(&bytes[cut..]).unwrap();
        assert_eq!(g.login, Step::Accepted, "cut {cut}");
    }
}

#[test]
fn scram_must_run_to_its_end() {
    let steps = scram_exchange();
    // AuthenticationOk without SASLFinal.
    let mut g = guard("", false);
    let skipped = [steps[0].clone(), steps[1].clone(), steps[3].clone()].concat();
    let e = g.scan(&skipped).unwrap_err();
    assert_eq!(e.kind, Failure::Auth);
    assert!(e.why.contains("without completing SCRAM"), "{e}");
    // A cleartext request once SCRAM has begun.
    let mut g = guard("", true);
    let clear = [steps[0].clone(), message(b'R', &3i32.to_be_bytes())].concat();
    assert!(g.scan(&clear).unwrap_err().why.contains("out of turn"));
}

#[test]
fn the_guard_refuses_cleartext_before_the_password_goes() {
    let bytes = message(b'R', &3i32.to_be_bytes());
    let mut g = guard("", false);
    assert!(g.scan(&bytes).unwrap_err().why.contains("clear text"));
    let mut g = guard("", true);
    g.scan(&bytes).unwrap();
    assert_eq!(g.login, Step::Password);
    let mut g = guard("md5", false);
    assert!(g.scan(&bytes).is_err());
    let mut g = guard("", false);
    assert!(g.scan(&message(b'R', &[0, 0, 0])).is_err());
}

#[test]
fn trust_is_a_method_too() {
    let mut g = guard("scram-sha-256", false);
    let e = g.scan(&message(b'R', &0i32.to_be_bytes())).unwrap_err();
    assert!(e.why.contains("no authentication"), "{e}");
    let mut g = guard("", false);
    g.scan(&message(b'R', &0i32.to_be_bytes())).unwrap();
    assert_eq!(g.login, Step::Accepted);
}

#[test]
fn a_huge_message_is_refused_from_its_header() {
    let mut g = guard("", false);
    g.scan(&message(b'R', &0i32.to_be_bytes())).unwrap();
    let e = g.scan(&[b'D', 0x7f, 0xff, 0xff, 0xff]).unwrap_err();
    assert_eq!(e.kind, Failure::Lost);
    assert!(e.why.contains("2147483647"), "{e}");
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn the_guard_never_panics_on_any_bytes(
            bytes in proptest::collection::vec(any::<u8>(), 0..2048),
            cut in 0usize..2048,
        ) {
            let mut g = guard("", false);
            let cut = cut.min(bytes.len());
            if g.scan(&bytes[..cut]).is_ok() {
                let _ = g.scan(&bytes[cut..]);
            }
            // The guard never holds more than one header.
            prop_assert!(g.head.len() <= 9);
        }

        #[test]
        fn a_mutated_login_never_passes_unchecked(
            flips in proptest::collection::vec((0usize..48, any::<u8>()), 1..4),
        ) {
            // A cleartext request over an open channel, then anything.
            let mut bytes = message(b'R', &3i32.to_be_bytes());
            let mut rest = message(b'R', &0i32.to_be_bytes());
            rest.extend(message(b'Z', b"I"));
            for (at, v) in flips {
                let at = at % rest.len();
                rest[at] = v;
            }
            bytes.extend(rest);
            let mut g = guard("", false);
            prop_assert!(g.scan(&bytes).is_err());
        }
    }
}
