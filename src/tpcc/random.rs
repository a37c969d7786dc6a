//! TPC-C's random rules (clauses 2.1.6 and 4.3.2): uniform and NURand numbers, the NURand
//! constants, syllable last names, a-strings, n-strings, zip codes and permutations.
//!
//! Everything takes a [`SmallRng`] so a seeded generator reproduces its output exactly.
//! Strings are appended to a `Vec<u8>` because the loaders build rows as bytes.

use rand::rngs::SmallRng;
use rand::RngCore;

/// NURand's `A` for customer last names (clause 2.1.6).
pub const A_C_LAST: u32 = 255;
/// NURand's `A` for customer ids.
pub const A_C_ID: u32 = 1023;
/// NURand's `A` for item ids.
pub const A_OL_I_ID: u32 = 8191;

/// The ten syllables of a customer last name (clause 4.3.2.3), indexed by digit.
pub const SYLLABLES: [&str; 10] = [
    "BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING",
];

/// The a-string alphabet: digits and both cases of the 26 letters.
const ALNUM: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const LETTERS: &[u8; 52] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const DIGITS: &[u8; 10] = b"0123456789";

/// A uniform integer in `[lo, hi]` (clause 4.3.2.5), without modulo bias.
///
/// Lemire's multiply-and-reject method: one multiplication per draw, and a rejection
/// (with one division) only for the few draws that would favour low values.
/// `lo > hi` yields `lo`.
#[inline]
pub fn uniform(rng: &mut SmallRng, lo: u32, hi: u32) -> u32 {
    if hi <= lo {
        return lo;
    }
    let Some(range) = (hi - lo).checked_add(1) else {
        return rng.next_u32();
    };
    let mut m = u64::from(rng.next_u32()) * u64::from(range);
    if (m as u32) < range {
        let threshold = range.wrapping_neg() % range;
        while (m as u32) < threshold {
            m = u64::from(rng.next_u32()) * u64::from(range);
        }
    }
    lo + (m >> 32) as u32
}

/// `NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x` (clause 2.1.6).
#[inline]
pub fn nurand(rng: &mut SmallRng, a: u32, x: u32, y: u32, c: u32) -> u32 {
    let r = uniform(rng, 0, a) | uniform(rng, x, y);
    (r + c) % (y - x + 1) + x
}

/// Appends the last name for `n` in `0..=999`: the syllables of its three digits
/// (clause 4.3.2.3), e.g. 371 gives `PRICALLYOUGHT`. Larger `n` use their last three digits.
#[inline]
pub fn push_last_name(n: u32, out: &mut Vec<u8>) {
    let n = (n % 1000) as usize;
    for digit in [n / 100, n / 10 % 10, n % 10] {
        out.extend_from_slice(SYLLABLES[digit].as_bytes());
    }
}

/// The last name for `n` in `0..=999` as a `String`, for transaction inputs.
pub fn last_name(n: u32) -> String {
    let mut name = Vec::with_capacity(15);
    push_last_name(n, &mut name);
    // The syllables are ASCII, so this never fails.
    String::from_utf8(name).unwrap_or_default()
}

/// Appends `len` characters drawn uniformly from `alphabet`, which has at most `1 << BITS`
/// entries. Each 64-bit draw yields `64 / BITS` indexes; an index past the alphabet is
/// skipped, so every character stays exactly equally likely.
#[inline]
fn push_chars<const BITS: u32>(rng: &mut SmallRng, alphabet: &[u8], len: usize, out: &mut Vec<u8>) {
    let mask = (1u64 << BITS) - 1;
    out.reserve(len);
    let mut left = len;
    while left > 0 {
        let mut word = rng.next_u64();
        for _ in 0..64 / BITS {
            if let Some(&c) = alphabet.get((word & mask) as usize) {
                out.push(c);
                left -= 1;
                if left == 0 {
                    break;
                }
            }
            word >>= BITS;
        }
    }
}

/// Appends exactly `len` random alphanumeric characters.
#[inline]
pub fn push_alnum(rng: &mut SmallRng, len: usize, out: &mut Vec<u8>) {
    push_chars::<6>(rng, ALNUM, len, out);
}

/// Appends a random a-string of length uniform in `[min, max]` (clause 4.3.2.2):
/// characters from `0-9A-Za-z`.
#[inline]
pub fn push_a_string(rng: &mut SmallRng, min: u32, max: u32, out: &mut Vec<u8>) {
    let len = uniform(rng, min, max) as usize;
    push_alnum(rng, len, out);
}

/// Appends exactly `len` random letters (`A-Za-z`): the "a-string of 2 letters" of a state.
#[inline]
pub fn push_letters(rng: &mut SmallRng, len: usize, out: &mut Vec<u8>) {
    push_chars::<6>(rng, LETTERS, len, out);
}

/// Appends a random n-string of exactly `len` digits (clause 4.3.2.2).
#[inline]
pub fn push_n_string(rng: &mut SmallRng, len: usize, out: &mut Vec<u8>) {
    push_chars::<4>(rng, DIGITS, len, out);
}

/// Appends a zip code: a random n-string of 4 digits and then `11111` (clause 4.3.2.7).
#[inline]
pub fn push_zip(rng: &mut SmallRng, out: &mut Vec<u8>) {
    push_n_string(rng, 4, out);
    out.extend_from_slice(b"11111");
}

/// A uniformly random permutation of `1..=n` (Fisher-Yates), e.g. the order in which the
/// 3,000 customers of a district placed the initial orders (clause 4.3.3.1, `O_C_ID`).
pub fn permutation(rng: &mut SmallRng, n: u32) -> Vec<u32> {
    let mut values: Vec<u32> = (1..=n).collect();
    for i in (1..values.len()).rev() {
        let j = uniform(rng, 0, i as u32) as usize;
        values.swap(i, j);
    }
    values
}

/// Whether a load and a run constant for `C_LAST` are far enough apart (clause 2.1.6.1):
/// `|C_run - C_load|` in `[65, 119]`, but neither 96 nor 112.
pub fn valid_c_last_delta(load: u32, run: u32) -> bool {
    let delta = load.abs_diff(run);
    (65..=119).contains(&delta) && delta != 96 && delta != 112
}

/// The NURand constants `C` (clause 2.1.6): one per field, the same for every terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Constants {
    /// `C` for customer last names, in `0..=255`.
    pub c_last: u32,
    /// `C` for customer ids, in `0..=1023`.
    pub c_id: u32,
    /// `C` for item ids, in `0..=8191`.
    pub ol_i_id: u32,
}

impl Constants {
    /// Constants for populating the database, each uniform in `0..=A`. Only `c_last` shapes
    /// the loaded data; every worker of one build must share it, and the run needs it.
    pub fn for_load(rng: &mut SmallRng) -> Self {
        Self {
            c_last: uniform(rng, 0, A_C_LAST),
            c_id: uniform(rng, 0, A_C_ID),
            ol_i_id: uniform(rng, 0, A_OL_I_ID),
        }
    }

    /// Constants for a measured run on data loaded with `load`: `c_last` is uniform among the
    /// values that satisfy the delta rule of clause 2.1.6.1 (see [`valid_c_last_delta`]);
    /// `c_id` and `ol_i_id` have no such rule and are drawn afresh in `0..=A`.
    /// A `load.c_last` above 255 is treated as 255.
    pub fn for_run(load: &Constants, rng: &mut SmallRng) -> Self {
        let c_load = load.c_last.min(A_C_LAST);
        let candidates: Vec<u32> = (0..=A_C_LAST)
            .filter(|&run| valid_c_last_delta(c_load, run))
            .collect();
        // Never empty: c_load >= 65 allows c_load - 65, and c_load < 65 allows c_load + 65.
        let pick = uniform(rng, 0, candidates.len().saturating_sub(1) as u32) as usize;
        Self {
            c_last: candidates.get(pick).copied().unwrap_or(0),
            c_id: uniform(rng, 0, A_C_ID),
            ol_i_id: uniform(rng, 0, A_OL_I_ID),
        }
    }

    /// A last-name number: `NURand(255, 0, 999)` with this `C` (clauses 2.5.1.2, 4.3.3.1);
    /// pass it to [`push_last_name`] or [`last_name`].
    #[inline]
    pub fn last_name_number(&self, rng: &mut SmallRng) -> u32 {
        nurand(rng, A_C_LAST, 0, 999, self.c_last)
    }

    /// A customer id: `NURand(1023, 1, 3000)` with this `C` (clause 2.4.1.2).
    #[inline]
    pub fn customer_id(&self, rng: &mut SmallRng) -> u32 {
        nurand(rng, A_C_ID, 1, super::CUSTOMERS_PER_D, self.c_id)
    }

    /// An item id: `NURand(8191, 1, 100000)` with this `C` (clause 2.4.1.5).
    #[inline]
    pub fn item_id(&self, rng: &mut SmallRng) -> u32 {
        nurand(rng, A_OL_I_ID, 1, super::ITEMS, self.ol_i_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn rng(seed: u64) -> SmallRng {
        SmallRng::seed_from_u64(seed)
    }

    #[test]
    fn uniform_stays_in_range_and_reaches_both_ends() {
        let mut r = rng(1);
        let mut seen = [false; 11];
        for _ in 0..10_000 {
            let v = uniform(&mut r, 5, 15);
            assert!((5..=15).contains(&v));
            seen[(v - 5) as usize] = true;
        }
        assert!(seen.iter().all(|&s| s));
        assert_eq!(uniform(&mut r, 7, 7), 7);
        assert_eq!(uniform(&mut r, 9, 3), 9);
        let _ = uniform(&mut r, 0, u32::MAX);
    }

    #[test]
    fn nurand_stays_in_range() {
        let mut r = rng(2);
        for _ in 0..100_000 {
            assert!(nurand(&mut r, 255, 0, 999, 255) <= 999);
            assert!((1..=3000).contains(&nurand(&mut r, 1023, 1, 3000, 1023)));
            assert!((1..=100_000).contains(&nurand(&mut r, 8191, 1, 100_000, 8191)));
        }
    }

    #[test]
    fn nurand_is_not_uniform() {
        // The OR with random(0, 255) makes some last names far more common than others.
        let mut r = rng(3);
        let mut counts = vec![0u32; 1000];
        for _ in 0..1_000_000 {
            counts[nurand(&mut r, 255, 0, 999, 0) as usize] += 1;
        }
        let max = *counts.iter().max().unwrap_or(&0);
        let min = *counts.iter().min().unwrap_or(&0);
        assert!(max > 3 * min.max(1), "max {max} min {min}");
    }

    #[test]
    fn last_names_are_syllables() {
        assert_eq!(last_name(371), "PRICALLYOUGHT");
        assert_eq!(last_name(0), "BARBARBAR");
        assert_eq!(last_name(999), "EINGEINGEING");
        assert_eq!(last_name(88), "BARATIONATION");
        let longest = (0..1000).map(|n| last_name(n).len()).max();
        assert_eq!(longest, Some(15), "c_last is varchar(16)");
    }

    #[test]
    fn a_strings_have_their_length_and_alphabet() {
        let mut r = rng(4);
        let mut lengths = [false; 11];
        for _ in 0..5_000 {
            let mut s = Vec::new();
            push_a_string(&mut r, 14, 24, &mut s);
            assert!((14..=24).contains(&s.len()));
            assert!(s.iter().all(u8::is_ascii_alphanumeric));
            lengths[s.len() - 14] = true;
        }
        assert!(lengths.iter().all(|&l| l));
    }

    #[test]
    fn a_string_characters_are_uniform() {
        let mut r = rng(5);
        let mut s = Vec::new();
        push_alnum(&mut r, 620_000, &mut s);
        let mut counts = [0u32; 256];
        for &c in &s {
            counts[c as usize] += 1;
        }
        for &c in ALNUM {
            // Expected 10,000 each; 5 standard deviations is about 500.
            let n = counts[c as usize];
            assert!(
                (9_500..=10_500).contains(&n),
                "{} appears {n} times",
                c as char
            );
        }
    }

    #[test]
    fn n_strings_letters_and_zips() {
        let mut r = rng(6);
        for _ in 0..1_000 {
            let mut phone = Vec::new();
            push_n_string(&mut r, 16, &mut phone);
            assert_eq!(phone.len(), 16);
            assert!(phone.iter().all(u8::is_ascii_digit));

            let mut state = Vec::new();
            push_letters(&mut r, 2, &mut state);
            assert_eq!(state.len(), 2);
            assert!(state.iter().all(u8::is_ascii_alphabetic));

            let mut zip = Vec::new();
            push_zip(&mut r, &mut zip);
            assert_eq!(zip.len(), 9);
            assert!(zip[..4].iter().all(u8::is_ascii_digit));
            assert_eq!(&zip[4..], b"11111");
        }
    }

    #[test]
    fn permutation_is_a_permutation() {
        let mut r = rng(7);
        let p = permutation(&mut r, 3000);
        let mut sorted = p.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (1..=3000).collect::<Vec<_>>());
        assert_ne!(p, sorted, "a shuffle of 3,000 is not the identity");
        assert_ne!(p, permutation(&mut r, 3000));
        assert!(permutation(&mut r, 0).is_empty());
        assert_eq!(permutation(&mut r, 1), vec![1]);
    }

    #[test]
    fn load_constants_are_in_range() {
        for seed in 0..1_000 {
            let c = Constants::for_load(&mut rng(seed));
            assert!(c.c_last <= 255 && c.c_id <= 1023 && c.ol_i_id <= 8191);
        }
    }

    #[test]
    fn run_constants_satisfy_the_delta_rule() {
        let mut deltas = std::collections::BTreeSet::new();
        for seed in 0..2_000 {
            let mut r = rng(seed);
            let load = Constants::for_load(&mut r);
            let run = Constants::for_run(&load, &mut r);
            let delta = load.c_last.abs_diff(run.c_last);
            assert!(
                (65..=119).contains(&delta) && delta != 96 && delta != 112,
                "seed {seed}: load {} run {} delta {delta}",
                load.c_last,
                run.c_last
            );
            assert!(run.c_last <= 255 && run.c_id <= 1023 && run.ol_i_id <= 8191);
            deltas.insert(delta);
        }
        // Every one of the 53 allowed deltas turns up.
        assert_eq!(deltas.len(), 53);
        // Every possible load value has a valid run value, even at the extremes.
        for c_last in 0..=255 {
            let load = Constants {
                c_last,
                c_id: 0,
                ol_i_id: 0,
            };
            let run = Constants::for_run(&load, &mut rng(u64::from(c_last)));
            assert!(valid_c_last_delta(c_last, run.c_last));
        }
    }

    #[test]
    fn run_time_ids_are_in_range() {
        let mut r = rng(8);
        let c = Constants::for_load(&mut r);
        for _ in 0..10_000 {
            assert!((1..=3000).contains(&c.customer_id(&mut r)));
            assert!((1..=100_000).contains(&c.item_id(&mut r)));
            assert!(c.last_name_number(&mut r) <= 999);
        }
    }
}
