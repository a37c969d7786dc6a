//! sysbench's random numbers: the distributions `--rand-type` names (`*_oltp_rand_type`) with
//! their parameters, and the strings of its templates (`#` a digit, `@` a letter) that fill
//! `c` and `pad`. sysbench 1.0.20 (Debian's) draws with `special` by default; `zipfian` is
//! from its later versions. The definitions are sysbench's; the code is ours.

use rand::rngs::SmallRng;
use rand::Rng;

/// `c`'s template: 10 groups of 11 digits joined by dashes, 119 characters.
pub const C_TEMPLATE: &str = "###########-###########-###########-###########-###########-\
###########-###########-###########-###########-###########";
/// `pad`'s template: 5 groups, 59 characters.
pub const PAD_TEMPLATE: &str = "###########-###########-###########-###########-###########";

/// The distributions, by the names `rand_type` takes.
pub const NAMES: [&str; 5] = ["uniform", "gaussian", "special", "pareto", "zipfian"];

/// A distribution's parameters, sysbench's options and defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    /// `rand_spec_iter` (12): uniform draws summed for `gaussian` and `special`.
    pub spec_iter: u32,
    /// `rand_spec_pct` (1): the percent of the range that is "special".
    pub spec_pct: u32,
    /// `rand_spec_res` (75): the percent of draws that fall in it.
    pub spec_res: u32,
    /// `rand_pareto_h` (0.2).
    pub pareto_h: f64,
    /// `rand_zipfian_exp` (0.8).
    pub zipfian_exp: f64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            spec_iter: 12,
            spec_pct: 1,
            spec_res: 75,
            pareto_h: 0.2,
            zipfian_exp: 0.8,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Kind {
    Uniform,
    Gaussian,
    Special,
    Pareto { power: f64 },
    Zipfian { s: f64, h_x1: f64 },
}

/// A distribution ready to draw.
#[derive(Debug, Clone, PartialEq)]
pub struct Dist {
    kind: Kind,
    p: Params,
}

impl Dist {
    /// `name` (one of [`NAMES`]) with `p`; a bad name or parameter is named with what is valid.
    pub fn new(name: &str, p: Params) -> Result<Dist, String> {
        let kind = match name.trim().to_ascii_lowercase().as_str() {
            "uniform" => Kind::Uniform,
            "gaussian" | "special" if p.spec_iter == 0 => {
                return Err("rand_spec_iter is 0: give 1 or more".into())
            }
            "gaussian" => Kind::Gaussian,
            "special" if p.spec_res >= 100 || p.spec_pct > 100 => {
                return Err(format!(
                    "rand_spec_res {} and rand_spec_pct {}: give a percent below 100 and one \
                     of 100 or less",
                    p.spec_res, p.spec_pct
                ))
            }
            "special" => Kind::Special,
            "pareto" if !(p.pareto_h > 0.0 && p.pareto_h < 1.0) => {
                return Err(format!(
                    "rand_pareto_h is {}: give a number between 0 and 1",
                    p.pareto_h
                ))
            }
            "pareto" => Kind::Pareto {
                power: p.pareto_h.ln() / (1.0 - p.pareto_h).ln(),
            },
            "zipfian" if !(p.zipfian_exp >= 0.0 && p.zipfian_exp.is_finite()) => {
                return Err(format!(
                    "rand_zipfian_exp is {}: give 0 or more",
                    p.zipfian_exp
                ))
            }
            "zipfian" => {
                let e = p.zipfian_exp;
                Kind::Zipfian {
                    s: 2.0 - h_integral_inverse(h_integral(2.5, e) - h(2.0, e), e),
                    h_x1: h_integral(1.5, e) - 1.0,
                }
            }
            other => {
                return Err(format!(
                    "{other:?} is not a distribution: {}",
                    NAMES.join(", ")
                ))
            }
        };
        Ok(Dist { kind, p })
    }

    /// A number from `a` to `b` (inclusive, `a <= b`).
    pub fn between(&self, rng: &mut SmallRng, a: u32, b: u32) -> u32 {
        let v = match &self.kind {
            Kind::Uniform => return uniform(rng, a, b),
            Kind::Gaussian => {
                let t = f64::from(b - a) + 1.0;
                let sum: f64 = (0..self.p.spec_iter).map(|_| rng.random::<f64>() * t).sum();
                f64::from(a) + sum / f64::from(self.p.spec_iter)
            }
            Kind::Special => {
                let t = f64::from(b - a);
                let rnd = rng.random::<f64>();
                let range = t * 100.0 / (100.0 - f64::from(self.p.spec_res));
                if rnd * range < t {
                    let sum: f64 = (0..self.p.spec_iter).map(|_| rng.random::<f64>()).sum();
                    f64::from(a) + sum * t / f64::from(self.p.spec_iter)
                } else {
                    let pct = f64::from(self.p.spec_pct) / 100.0;
                    let d = t * pct;
                    f64::from(a) + (rnd * (d + 1.0) + t / 2.0 - t * pct / 2.0).floor()
                }
            }
            Kind::Pareto { power } => {
                let t = f64::from(b - a) + 1.0;
                f64::from(a) + (t * rng.random::<f64>().powf(*power)).floor()
            }
            Kind::Zipfian { s, h_x1 } => {
                let n = b - a + 1;
                return a + zipf(rng, n, self.p.zipfian_exp, *s, *h_x1) - 1;
            }
        };
        (v as u32).clamp(a, b)
    }
}

/// Uniform from `a` to `b`, inclusive.
pub fn uniform(rng: &mut SmallRng, a: u32, b: u32) -> u32 {
    let v = f64::from(a) + rng.random::<f64>() * (f64::from(b - a) + 1.0);
    (v as u32).min(b)
}

/// `template` with each `#` a random digit and each `@` a random letter, into `out`.
pub fn fill(rng: &mut SmallRng, template: &str, out: &mut String) {
    out.clear();
    for c in template.chars() {
        out.push(match c {
            '#' => char::from(b'0' + rng.random_range(0..10u8)),
            '@' => char::from(b'a' + rng.random_range(0..26u8)),
            c => c,
        });
    }
}

/// Zipf over 1..=n with exponent `e` by rejection-inversion (Hörmann and Derflinger, 1996),
/// the method sysbench uses.
fn zipf(rng: &mut SmallRng, n: u32, e: f64, s: f64, h_x1: f64) -> u32 {
    let h_n = h_integral(f64::from(n) + 0.5, e);
    loop {
        let u = h_n + rng.random::<f64>() * (h_x1 - h_n);
        let x = h_integral_inverse(u, e);
        let k = ((x + 0.5) as u32).clamp(1, n);
        if f64::from(k) - x <= s || u >= h_integral(f64::from(k) + 0.5, e) - h(f64::from(k), e) {
            return k;
        }
    }
}

/// H(x) = (x^(1-e) - 1) / (1-e), log x for e = 1: the integral of [`h`].
fn h_integral(x: f64, e: f64) -> f64 {
    let log_x = x.ln();
    exp_minus_one_over((1.0 - e) * log_x) * log_x
}

/// h(x) = x^-e.
fn h(x: f64, e: f64) -> f64 {
    (-e * x.ln()).exp()
}

fn h_integral_inverse(x: f64, e: f64) -> f64 {
    let t = (x * (1.0 - e)).max(-1.0);
    (log_one_plus_over(t) * x).exp()
}

/// ln(1 + x) / x, 1 at 0.
fn log_one_plus_over(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.ln_1p() / x
    } else {
        1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x))
    }
}

/// (e^x - 1) / x, 1 at 0.
fn exp_minus_one_over(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.exp_m1() / x
    } else {
        1.0 + x * 0.5 * (1.0 + x / 3.0 * (1.0 + 0.25 * x))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn draws(name: &str, n: usize, a: u32, b: u32) -> Vec<u32> {
        let d = Dist::new(name, Params::default()).unwrap();
        let mut rng = SmallRng::seed_from_u64(11);
        (0..n).map(|_| d.between(&mut rng, a, b)).collect()
    }

    #[test]
    fn every_distribution_stays_in_its_range() {
        for name in NAMES {
            for (a, b) in [(1, 1), (1, 10), (5, 10_000), (0, u32::MAX - 1)] {
                for v in draws(name, 2000, a, b) {
                    assert!((a..=b).contains(&v), "{name} gave {v} outside {a}..={b}");
                }
            }
        }
    }

    #[test]
    fn each_distribution_has_its_shape() {
        let share = |v: &[u32], f: &dyn Fn(u32) -> bool| {
            v.iter().filter(|x| f(**x)).count() as f64 / v.len() as f64
        };
        let n = 100_000;
        // Uniform: a tenth in each tenth.
        let u = draws("uniform", n, 1, 10_000);
        assert!((share(&u, &|x| x <= 1000) - 0.1).abs() < 0.01);
        // Gaussian: the mean of 12 uniform draws, its deviation 10,000 / 12 = 833: within
        // 1,000 of the middle 77 %, within 2,000 98 %.
        let g = draws("gaussian", n, 1, 10_000);
        let near = share(&g, &|x| (4000..=6000).contains(&x));
        assert!((near - 0.77).abs() < 0.02, "{near}");
        assert!(share(&g, &|x| (3000..=7000).contains(&x)) > 0.97);
        // Special: 75 % of the draws in the middle 1 % of the range.
        let s = draws("special", n, 1, 10_000);
        let mid = share(&s, &|x| (4950..=5051).contains(&x));
        assert!((mid - 0.75).abs() < 0.03, "{mid}");
        // Pareto h=0.2: 80 % of the draws in the lowest 20 %.
        let p = draws("pareto", n, 1, 10_000);
        let low = share(&p, &|x| x <= 2000);
        assert!((low - 0.8).abs() < 0.02, "{low}");
        // Zipfian exponent 0.8: P(1) / P(2) = 2^0.8.
        let z = draws("zipfian", n, 1, 10_000);
        let ratio = share(&z, &|x| x == 1) / share(&z, &|x| x == 2);
        assert!((ratio - 2f64.powf(0.8)).abs() < 0.2, "{ratio}");
    }

    #[test]
    fn bad_names_and_parameters_are_named() {
        let e = Dist::new("normal", Params::default()).unwrap_err();
        assert!(
            e.contains("uniform, gaussian, special, pareto, zipfian"),
            "{e}"
        );
        let bad = Params {
            pareto_h: 1.5,
            ..Params::default()
        };
        assert!(Dist::new("pareto", bad)
            .unwrap_err()
            .contains("rand_pareto_h is 1.5"));
    }

    #[test]
    fn templates_give_sysbenchs_strings() {
        let mut rng = SmallRng::seed_from_u64(5);
        let mut s = String::new();
        fill(&mut rng, C_TEMPLATE, &mut s);
        assert_eq!(s.len(), 119);
        let groups: Vec<&str> = s.split('-').collect();
        assert_eq!(groups.len(), 10);
        assert!(groups
            .iter()
            .all(|g| g.len() == 11 && g.bytes().all(|b| b.is_ascii_digit())));
        fill(&mut rng, PAD_TEMPLATE, &mut s);
        assert_eq!(s.len(), 59);
        fill(&mut rng, "@@-#", &mut s);
        assert!(s.as_bytes()[0].is_ascii_lowercase() && s.as_bytes()[3].is_ascii_digit());
    }
}
