//! sysbench's random numbers, as its `sb_rand.c` defines them (facts, not its code): a
//! xoroshiro128+ generator per thread, a uniform double of its top 53 bits, and the
//! distributions `--rand-type` picks for "the default" draws (`sysbench.rand.default`: the
//! rows' `k`, the run's ids): `uniform`, `gaussian`, `special` (1.0.20's default), `pareto`
//! and `zipfian` (its later versions'), with their parameters; and its template strings
//! (`#` a digit, `@` a lower-case letter), which make the `c` and `pad` values.

use std::fmt;

/// A distribution's name, as `*_oltp_rand_type` holds it (sysbench's `--rand-type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RandType {
    Uniform,
    Gaussian,
    Special,
    Pareto,
    Zipfian,
}

impl RandType {
    pub const ALL: [RandType; 5] = [
        RandType::Uniform,
        RandType::Gaussian,
        RandType::Special,
        RandType::Pareto,
        RandType::Zipfian,
    ];

    pub fn name(self) -> &'static str {
        match self {
            RandType::Uniform => "uniform",
            RandType::Gaussian => "gaussian",
            RandType::Special => "special",
            RandType::Pareto => "pareto",
            RandType::Zipfian => "zipfian",
        }
    }

    /// The distribution called `name` (as the dictionary stores it).
    pub fn named(name: &str) -> Option<RandType> {
        RandType::ALL
            .into_iter()
            .find(|t| t.name().eq_ignore_ascii_case(name))
    }
}

impl fmt::Display for RandType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// sysbench's `--rand-*` options, as the `*_oltp_rand_*` keys hold them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RandSpec {
    /// `--rand-type`.
    pub kind: RandType,
    /// `--rand-spec-iter`: uniform draws summed for the gaussian and special shapes.
    pub spec_iter: u32,
    /// `--rand-spec-pct`: the special values' share of the range, in percent.
    pub spec_pct: u32,
    /// `--rand-spec-res`: the share of draws that fall on the special values, in percent
    /// (below 100).
    pub spec_res: u32,
    /// `--rand-seed`: 0 seeds from the clock, anything else makes the draws repeatable.
    pub seed: u32,
    /// `--rand-pareto-h`, strictly between 0 and 1.
    pub pareto_h: f64,
    /// `--rand-zipfian-exp`, at least 0.
    pub zipfian_exp: f64,
}

impl Default for RandSpec {
    /// sysbench 1.0.20's defaults (and its later versions' Zipfian exponent).
    fn default() -> Self {
        RandSpec {
            kind: RandType::Special,
            spec_iter: 12,
            spec_pct: 1,
            spec_res: 75,
            seed: 0,
            pareto_h: 0.2,
            zipfian_exp: 0.8,
        }
    }
}

/// A distribution ready to draw from: the spec with its constants worked out once, as
/// sysbench does at start.
#[derive(Debug, Clone, Copy)]
pub struct Distribution {
    kind: RandType,
    iter: u32,
    iter_mult: f64,
    pct_mult: f64,
    pct_2_mult: f64,
    res_mult: f64,
    pareto_power: f64,
    zipf: Zipf,
}

impl Distribution {
    pub fn new(spec: &RandSpec) -> Self {
        let iter = spec.spec_iter.max(1);
        let h = spec.pareto_h;
        Distribution {
            kind: spec.kind,
            iter,
            iter_mult: 1.0 / f64::from(iter),
            pct_mult: f64::from(spec.spec_pct) / 100.0,
            pct_2_mult: f64::from(spec.spec_pct) / 200.0,
            res_mult: 100.0 / (100.0 - f64::from(spec.spec_res.min(99))),
            pareto_power: h.ln() / (1.0 - h).ln(),
            zipf: Zipf::new(spec.zipfian_exp.max(0.0)),
        }
    }

    /// A draw in `a..=b` (`a <= b`), as `sysbench.rand.default(a, b)` makes it.
    pub fn draw(&self, rng: &mut Rng, a: u32, b: u32) -> u32 {
        match self.kind {
            RandType::Uniform => rng.uniform(a, b),
            RandType::Gaussian => self.gaussian(rng, a, b),
            RandType::Special => self.special(rng, a, b),
            RandType::Pareto => self.pareto(rng, a, b),
            RandType::Zipfian => self.zipf.draw(rng, a, b),
        }
    }

    /// The mean of `spec_iter` uniform draws over the range.
    fn gaussian(&self, rng: &mut Rng, a: u32, b: u32) -> u32 {
        let t = f64::from(b - a) + 1.0;
        let sum: f64 = (0..self.iter).map(|_| rng.uniform_double() * t).sum();
        a + ((sum * self.iter_mult) as u32).min(b - a)
    }

    /// `spec_res` percent of the draws uniform over the `spec_pct` percent of the range
    /// around its middle; the rest as [`Self::gaussian`] over `a..b`.
    fn special(&self, rng: &mut Rng, a: u32, b: u32) -> u32 {
        let t = f64::from(b - a);
        let rnd = rng.uniform_double();
        if rnd * t * self.res_mult < t {
            let sum: f64 = (0..self.iter).map(|_| rng.uniform_double()).sum();
            return a + ((sum * t * self.iter_mult) as u32).min(b - a);
        }
        let d = t * self.pct_mult;
        let res = rnd * (d + 1.0) + t / 2.0 - t * self.pct_2_mult;
        a + (res as u32).min(b - a)
    }

    fn pareto(&self, rng: &mut Rng, a: u32, b: u32) -> u32 {
        let t = f64::from(b - a) + 1.0;
        let v = (t * rng.uniform_double().powf(self.pareto_power)) as u32;
        // u^power < 1 keeps v below t but for rounding at the very top.
        a + v.min(b - a)
    }
}

/// The bounded Zipf distribution over `1..=n`, P(k) proportional to k^-e, drawn by
/// rejection-inversion (W. Hörmann and G. Derflinger, "Rejection-inversion to generate
/// variates from monotone discrete distributions", ACM TOMACS 6.3, 1996), the method
/// sysbench's later versions use, in the form that holds for every exponent e >= 0.
#[derive(Debug, Clone, Copy)]
struct Zipf {
    e: f64,
    /// H(1.5) - 1: the hat's integral left of the first value.
    h_x1: f64,
    /// The squeeze: a candidate this close to its integer is taken at once.
    s: f64,
}

impl Zipf {
    fn new(e: f64) -> Self {
        let h_x1 = big_h(1.5, e) - 1.0;
        let s = 2.0 - big_h_inv(big_h(2.5, e) - h(2.0, e), e);
        Zipf { e, h_x1, s }
    }

    fn draw(&self, rng: &mut Rng, a: u32, b: u32) -> u32 {
        let n = f64::from(b - a) + 1.0;
        let h_n = big_h(n + 0.5, self.e);
        loop {
            let u = h_n + rng.uniform_double() * (self.h_x1 - h_n);
            let x = big_h_inv(u, self.e);
            let k = (x + 0.5).floor().clamp(1.0, n);
            if k - x <= self.s || u >= big_h(k + 0.5, self.e) - h(k, self.e) {
                return a + (k as u32 - 1);
            }
        }
    }
}

/// The hat function, x^-e.
fn h(x: f64, e: f64) -> f64 {
    (-e * x.ln()).exp()
}

/// Its integral, (x^(1-e) - 1) / (1 - e), which is ln x at e = 1.
fn big_h(x: f64, e: f64) -> f64 {
    let ln_x = x.ln();
    expm1_over((1.0 - e) * ln_x) * ln_x
}

/// The inverse of [`big_h`].
fn big_h_inv(y: f64, e: f64) -> f64 {
    // Rounding may take t just below -1, where the logarithm has no value.
    let t = (y * (1.0 - e)).max(-1.0);
    (ln1p_over(t) * y).exp()
}

/// (e^x - 1) / x, 1 at 0, without the cancellation near it.
fn expm1_over(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.exp_m1() / x
    } else {
        1.0 + x * 0.5 * (1.0 + x / 3.0 * (1.0 + 0.25 * x))
    }
}

/// ln(1 + x) / x, 1 at 0, without the cancellation near it.
fn ln1p_over(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.ln_1p() / x
    } else {
        1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x))
    }
}

/// sysbench's generator: xoroshiro128+, one per thread.
#[derive(Debug, Clone)]
pub struct Rng {
    s: [u64; 2],
}

impl Rng {
    /// A generator whose state comes from `seed` (through splitmix64, so that nearby seeds
    /// give unrelated streams).
    pub fn seeded(seed: u64) -> Self {
        let mut x = seed;
        let mut next = || {
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        let s = [next(), next()];
        // xoroshiro's one forbidden state.
        let s = if s == [0, 0] { [1, 0] } else { s };
        Rng { s }
    }

    /// A generator of its own stream: `--rand-seed` 0 takes the clock (sysbench) or, here,
    /// the system's randomness.
    pub fn from_entropy() -> Self {
        Rng::seeded(::rand::random())
    }

    pub fn next_u64(&mut self) -> u64 {
        let [s0, mut s1] = self.s;
        let result = s0.wrapping_add(s1);
        s1 ^= s0;
        self.s = [s0.rotate_left(24) ^ s1 ^ (s1 << 16), s1.rotate_left(37)];
        result
    }

    /// A double in `[0, 1)` of the top 53 bits.
    pub fn uniform_double(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A uniform draw in `a..=b` (`a <= b`): `sysbench.rand.uniform(a, b)`.
    pub fn uniform(&mut self, a: u32, b: u32) -> u32 {
        let t = f64::from(b - a) + 1.0;
        a + ((self.uniform_double() * t) as u32).min(b - a)
    }

    /// `template` with each `#` a random digit and each `@` a random lower-case letter,
    /// appended to `out`: `sysbench.rand.string`.
    pub fn fill_template(&mut self, template: &[u8], out: &mut Vec<u8>) {
        out.extend(template.iter().map(|&c| match c {
            b'#' => b'0' + self.uniform(0, 9) as u8,
            b'@' => b'a' + self.uniform(0, 25) as u8,
            c => c,
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(kind: RandType) -> RandSpec {
        RandSpec {
            kind,
            ..RandSpec::default()
        }
    }

    /// `draws` draws of `kind` over `1..=n`, as a histogram (index 0 is value 1).
    fn histogram(kind: RandType, n: u32, draws: u32) -> Vec<u32> {
        let d = Distribution::new(&spec(kind));
        let mut rng = Rng::seeded(7);
        let mut counts = vec![0; n as usize];
        for _ in 0..draws {
            let v = d.draw(&mut rng, 1, n);
            assert!((1..=n).contains(&v), "{kind}: {v} outside 1..={n}");
            counts[v as usize - 1] += 1;
        }
        counts
    }

    #[test]
    fn every_distribution_stays_in_its_range_even_a_single_value() {
        for kind in RandType::ALL {
            let d = Distribution::new(&spec(kind));
            let mut rng = Rng::seeded(1);
            for _ in 0..1000 {
                assert_eq!(d.draw(&mut rng, 5, 5), 5, "{kind}");
                let v = d.draw(&mut rng, 0, u32::MAX - 1);
                assert!(v < u32::MAX, "{kind}");
            }
            histogram(kind, 10, 20_000);
        }
    }

    #[test]
    fn uniform_covers_the_range_evenly() {
        let counts = histogram(RandType::Uniform, 10, 100_000);
        for c in counts {
            assert!((9_000..11_000).contains(&c), "{c}");
        }
    }

    #[test]
    fn special_puts_three_quarters_of_the_draws_on_the_middle_percent() {
        // 1,000 values: the special ones are the middle 1% (about 495..=505).
        let counts = histogram(RandType::Special, 1000, 100_000);
        let middle: u32 = counts[494..506].iter().sum();
        let share = f64::from(middle) / 100_000.0;
        assert!((0.74..0.80).contains(&share), "{share}");
        // The rest is gaussian-like: nothing at the very ends.
        assert_eq!(counts[0] + counts[999], 0);
    }

    #[test]
    fn gaussian_is_centred() {
        let counts = histogram(RandType::Gaussian, 100, 100_000);
        let centre: u32 = counts[40..60].iter().sum();
        let edges: u32 = counts[..10].iter().chain(&counts[90..]).sum();
        assert!(centre > 50_000 && edges < 1_000, "{centre} {edges}");
    }

    #[test]
    fn pareto_favours_the_low_values() {
        // h = 0.2: 80% of the draws fall on the lowest 20% of the values.
        let counts = histogram(RandType::Pareto, 100, 100_000);
        let low: u32 = counts[..20].iter().sum();
        let share = f64::from(low) / 100_000.0;
        assert!((0.77..0.83).contains(&share), "{share}");
    }

    #[test]
    fn zipfian_follows_its_exponent() {
        // P(1) / P(2) = 2^0.8 for the default exponent.
        let counts = histogram(RandType::Zipfian, 1000, 200_000);
        let ratio = f64::from(counts[0]) / f64::from(counts[1]);
        assert!((ratio - 2f64.powf(0.8)).abs() < 0.1, "{ratio}");
        assert!(counts[0] > counts[9] && counts[9] > counts[99]);
        // Exponent 0 is uniform, 1 the harmonic case.
        for e in [0.0, 1.0] {
            let d = Distribution::new(&RandSpec {
                kind: RandType::Zipfian,
                zipfian_exp: e,
                ..RandSpec::default()
            });
            let mut rng = Rng::seeded(3);
            let mut counts = [0u32; 4];
            for _ in 0..40_000 {
                counts[d.draw(&mut rng, 1, 4) as usize - 1] += 1;
            }
            let ratio = f64::from(counts[0]) / f64::from(counts[3]);
            let want = 4f64.powf(e);
            assert!((ratio - want).abs() < 0.15 * want, "e={e}: {ratio}");
        }
    }

    #[test]
    fn templates_become_digits_and_letters() {
        let mut rng = Rng::seeded(9);
        let mut out = Vec::new();
        rng.fill_template(b"###-@@", &mut out);
        let s = String::from_utf8(out).unwrap();
        assert_eq!(s.len(), 6);
        assert!(s[..3].bytes().all(|b| b.is_ascii_digit()), "{s}");
        assert_eq!(&s[3..4], "-");
        assert!(s[4..].bytes().all(|b| b.is_ascii_lowercase()), "{s}");
        // Every digit comes up.
        let mut many = Vec::new();
        for _ in 0..100 {
            rng.fill_template(b"#", &mut many);
        }
        for d in b'0'..=b'9' {
            assert!(many.contains(&d), "{}", d as char);
        }
    }

    #[test]
    fn a_seed_repeats_its_stream() {
        let (mut a, mut b) = (Rng::seeded(42), Rng::seeded(42));
        let xs: Vec<u64> = (0..5).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..5).map(|_| b.next_u64()).collect();
        assert_eq!(xs, ys);
        assert_ne!(Rng::seeded(43).next_u64(), xs[0]);
    }
}
