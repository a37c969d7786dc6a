//! TPC-H's substitution parameters (clause 2.4): drawn per stream as the specification's query
//! generator draws them (clause 2.4.N.3 of each query), or the specification's validation
//! values; and the per-stream query order (Appendix A).
//!
//! The word lists are those of the generator's `dists.dss`, the ones the data was made from,
//! so that every value a query asks about exists in the data.

use rand::seq::index::sample;
use rand::Rng;

/// The values of a query's substitution parameters :1, :2, ... as SQL text fragments
/// (what replaces the marker; quotes are part of the template, not of the value).
#[derive(Debug, Clone, PartialEq)]
pub struct Params(pub Vec<String>);

/// How many substitution parameters query `q` has (index `q - 1`), numbered as the
/// specification's query text numbers them.
pub const COUNTS: [usize; 22] = [
    1, 3, 2, 1, 2, 3, 2, 3, 1, 1, 2, 3, 2, 1, 1, 10, 2, 1, 6, 3, 1, 7,
];

/// The parameters query `query` (1 to 22) takes; 0 for another number.
pub fn count(query: u8) -> usize {
    match query {
        1..=22 => COUNTS[usize::from(query) - 1],
        _ => 0,
    }
}

/// R_NAME, in key order.
const REGIONS: [&str; 5] = ["AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"];

/// N_NAME with its N_REGIONKEY, in key order (TPC-H clause 4.2.3).
const NATIONS: [(&str, usize); 25] = [
    ("ALGERIA", 0),
    ("ARGENTINA", 1),
    ("BRAZIL", 1),
    ("CANADA", 1),
    ("EGYPT", 4),
    ("ETHIOPIA", 0),
    ("FRANCE", 3),
    ("GERMANY", 3),
    ("INDIA", 2),
    ("INDONESIA", 2),
    ("IRAN", 4),
    ("IRAQ", 4),
    ("JAPAN", 2),
    ("JORDAN", 4),
    ("KENYA", 0),
    ("MOROCCO", 0),
    ("MOZAMBIQUE", 0),
    ("PERU", 1),
    ("CHINA", 2),
    ("ROMANIA", 3),
    ("SAUDI ARABIA", 4),
    ("VIETNAM", 2),
    ("RUSSIA", 3),
    ("UNITED KINGDOM", 3),
    ("UNITED STATES", 1),
];

/// C_MKTSEGMENT's values.
const SEGMENTS: [&str; 5] = [
    "AUTOMOBILE",
    "BUILDING",
    "FURNITURE",
    "HOUSEHOLD",
    "MACHINERY",
];

/// P_TYPE's three syllables.
const TYPE_1: [&str; 6] = ["STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"];
const TYPE_2: [&str; 5] = ["ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"];
const TYPE_3: [&str; 5] = ["TIN", "NICKEL", "BRASS", "STEEL", "COPPER"];

/// P_CONTAINER's two syllables.
const CONTAINER_1: [&str; 5] = ["SM", "LG", "MED", "JUMBO", "WRAP"];
const CONTAINER_2: [&str; 8] = ["CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM"];

/// L_SHIPMODE's values.
const MODES: [&str; 7] = ["REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"];

/// The colours P_NAME is made of.
const COLORS: [&str; 92] = [
    "almond",
    "antique",
    "aquamarine",
    "azure",
    "beige",
    "bisque",
    "black",
    "blanched",
    "blue",
    "blush",
    "brown",
    "burlywood",
    "burnished",
    "chartreuse",
    "chiffon",
    "chocolate",
    "coral",
    "cornflower",
    "cornsilk",
    "cream",
    "cyan",
    "dark",
    "deep",
    "dim",
    "dodger",
    "drab",
    "firebrick",
    "floral",
    "forest",
    "frosted",
    "gainsboro",
    "ghost",
    "goldenrod",
    "green",
    "grey",
    "honeydew",
    "hot",
    "indian",
    "ivory",
    "khaki",
    "lace",
    "lavender",
    "lawn",
    "lemon",
    "light",
    "lime",
    "linen",
    "magenta",
    "maroon",
    "medium",
    "metallic",
    "midnight",
    "mint",
    "misty",
    "moccasin",
    "navajo",
    "navy",
    "olive",
    "orange",
    "orchid",
    "pale",
    "papaya",
    "peach",
    "peru",
    "pink",
    "plum",
    "powder",
    "puff",
    "purple",
    "red",
    "rose",
    "rosy",
    "royal",
    "saddle",
    "salmon",
    "sandy",
    "seashell",
    "sienna",
    "sky",
    "slate",
    "smoke",
    "snow",
    "spring",
    "steel",
    "tan",
    "thistle",
    "tomato",
    "turquoise",
    "violet",
    "wheat",
    "white",
    "yellow",
];

/// Query 13's two words (the generator's `Q13a` and `Q13b`).
const Q13_WORD_1: [&str; 4] = ["special", "pending", "unusual", "express"];
const Q13_WORD_2: [&str; 4] = ["packages", "requests", "accounts", "deposits"];

/// The order of the 22 queries in each stream: TPC-H Appendix A's table, row `stream`
/// (row 0 is the power test's).
const ORDERS: [[u8; 22]; 41] = [
    [
        14, 2, 9, 20, 6, 17, 18, 8, 21, 13, 3, 22, 16, 4, 11, 15, 1, 10, 19, 5, 7, 12,
    ],
    [
        21, 3, 18, 5, 11, 7, 6, 20, 17, 12, 16, 15, 13, 10, 2, 8, 14, 19, 9, 22, 1, 4,
    ],
    [
        6, 17, 14, 16, 19, 10, 9, 2, 15, 8, 5, 22, 12, 7, 13, 18, 1, 4, 20, 3, 11, 21,
    ],
    [
        8, 5, 4, 6, 17, 7, 1, 18, 22, 14, 9, 10, 15, 11, 20, 2, 21, 19, 13, 16, 12, 3,
    ],
    [
        5, 21, 14, 19, 15, 17, 12, 6, 4, 9, 8, 16, 11, 2, 10, 18, 1, 13, 7, 22, 3, 20,
    ],
    [
        21, 15, 4, 6, 7, 16, 19, 18, 14, 22, 11, 13, 3, 1, 2, 5, 8, 20, 12, 17, 10, 9,
    ],
    [
        10, 3, 15, 13, 6, 8, 9, 7, 4, 11, 22, 18, 12, 1, 5, 16, 2, 14, 19, 20, 17, 21,
    ],
    [
        18, 8, 20, 21, 2, 4, 22, 17, 1, 11, 9, 19, 3, 13, 5, 7, 10, 16, 6, 14, 15, 12,
    ],
    [
        19, 1, 15, 17, 5, 8, 9, 12, 14, 7, 4, 3, 20, 16, 6, 22, 10, 13, 2, 21, 18, 11,
    ],
    [
        8, 13, 2, 20, 17, 3, 6, 21, 18, 11, 19, 10, 15, 4, 22, 1, 7, 12, 9, 14, 5, 16,
    ],
    [
        6, 15, 18, 17, 12, 1, 7, 2, 22, 13, 21, 10, 14, 9, 3, 16, 20, 19, 11, 4, 8, 5,
    ],
    [
        15, 14, 18, 17, 10, 20, 16, 11, 1, 8, 4, 22, 5, 12, 3, 9, 21, 2, 13, 6, 19, 7,
    ],
    [
        1, 7, 16, 17, 18, 22, 12, 6, 8, 9, 11, 4, 2, 5, 20, 21, 13, 10, 19, 3, 14, 15,
    ],
    [
        21, 17, 7, 3, 1, 10, 12, 22, 9, 16, 6, 11, 2, 4, 5, 14, 8, 20, 13, 18, 15, 19,
    ],
    [
        2, 9, 5, 4, 18, 1, 20, 15, 16, 17, 7, 21, 13, 14, 19, 8, 22, 11, 10, 3, 12, 6,
    ],
    [
        16, 9, 17, 8, 14, 11, 10, 12, 6, 21, 7, 3, 15, 5, 22, 20, 1, 13, 19, 2, 4, 18,
    ],
    [
        1, 3, 6, 5, 2, 16, 14, 22, 17, 20, 4, 9, 10, 11, 15, 8, 12, 19, 18, 13, 7, 21,
    ],
    [
        3, 16, 5, 11, 21, 9, 2, 15, 10, 18, 17, 7, 8, 19, 14, 13, 1, 4, 22, 20, 6, 12,
    ],
    [
        14, 4, 13, 5, 21, 11, 8, 6, 3, 17, 2, 20, 1, 19, 10, 9, 12, 18, 15, 7, 22, 16,
    ],
    [
        4, 12, 22, 14, 5, 15, 16, 2, 8, 10, 17, 9, 21, 7, 3, 6, 13, 18, 11, 20, 19, 1,
    ],
    [
        16, 15, 14, 13, 4, 22, 18, 19, 7, 1, 12, 17, 5, 10, 20, 3, 9, 21, 11, 2, 6, 8,
    ],
    [
        20, 14, 21, 12, 15, 17, 4, 19, 13, 10, 11, 1, 16, 5, 18, 7, 8, 22, 9, 6, 3, 2,
    ],
    [
        16, 14, 13, 2, 21, 10, 11, 4, 1, 22, 18, 12, 19, 5, 7, 8, 6, 3, 15, 20, 9, 17,
    ],
    [
        18, 15, 9, 14, 12, 2, 8, 11, 22, 21, 16, 1, 6, 17, 5, 10, 19, 4, 20, 13, 3, 7,
    ],
    [
        7, 3, 10, 14, 13, 21, 18, 6, 20, 4, 9, 8, 22, 15, 2, 1, 5, 12, 19, 17, 11, 16,
    ],
    [
        18, 1, 13, 7, 16, 10, 14, 2, 19, 5, 21, 11, 22, 15, 8, 17, 20, 3, 4, 12, 6, 9,
    ],
    [
        13, 2, 22, 5, 11, 21, 20, 14, 7, 10, 4, 9, 19, 18, 6, 3, 1, 8, 15, 12, 17, 16,
    ],
    [
        14, 17, 21, 8, 2, 9, 6, 4, 5, 13, 22, 7, 15, 3, 1, 18, 16, 11, 10, 12, 20, 19,
    ],
    [
        10, 22, 1, 12, 13, 18, 21, 20, 2, 14, 16, 7, 15, 3, 4, 17, 5, 19, 6, 8, 9, 11,
    ],
    [
        10, 8, 9, 18, 12, 6, 1, 5, 20, 11, 17, 22, 16, 3, 13, 2, 15, 21, 14, 19, 7, 4,
    ],
    [
        7, 17, 22, 5, 3, 10, 13, 18, 9, 1, 14, 15, 21, 19, 16, 12, 8, 6, 11, 20, 4, 2,
    ],
    [
        2, 9, 21, 3, 4, 7, 1, 11, 16, 5, 20, 19, 18, 8, 17, 13, 10, 12, 15, 6, 14, 22,
    ],
    [
        15, 12, 8, 4, 22, 13, 16, 17, 18, 3, 7, 5, 6, 1, 9, 11, 21, 10, 14, 20, 19, 2,
    ],
    [
        15, 16, 2, 11, 17, 7, 5, 14, 20, 4, 21, 3, 10, 9, 12, 8, 13, 6, 18, 19, 22, 1,
    ],
    [
        1, 13, 11, 3, 4, 21, 6, 14, 15, 22, 18, 9, 7, 5, 10, 20, 12, 16, 17, 8, 19, 2,
    ],
    [
        14, 17, 22, 20, 8, 16, 5, 10, 1, 13, 2, 21, 12, 9, 4, 18, 3, 7, 6, 19, 15, 11,
    ],
    [
        9, 17, 7, 4, 5, 13, 21, 18, 11, 3, 22, 1, 6, 16, 20, 14, 15, 10, 8, 2, 12, 19,
    ],
    [
        13, 14, 5, 22, 19, 11, 9, 6, 18, 15, 8, 10, 7, 4, 17, 16, 3, 1, 12, 2, 21, 20,
    ],
    [
        20, 5, 4, 14, 11, 1, 6, 16, 8, 22, 7, 3, 2, 12, 21, 19, 17, 13, 10, 15, 18, 9,
    ],
    [
        3, 7, 14, 15, 6, 5, 21, 20, 18, 10, 4, 16, 19, 1, 13, 9, 8, 17, 11, 12, 22, 2,
    ],
    [
        13, 15, 17, 1, 22, 11, 3, 4, 7, 20, 14, 21, 9, 8, 2, 18, 16, 6, 10, 12, 5, 19,
    ],
];

/// The order of the 22 queries in TPC-H stream `stream` (Appendix A's table; stream 0 is the
/// power test; streams beyond the table wrap: stream % 41).
pub fn order(stream: u32) -> [u8; 22] {
    ORDERS[(stream % ORDERS.len() as u32) as usize]
}

/// Drawn as TPC-H's query generator draws them (clause 2.4.N.3 "Substitution Parameters" of
/// each query), for scale factor sf. Another query number than 1 to 22 has no parameters.
pub fn random(query: u8, sf: f64, rng: &mut impl Rng) -> Params {
    let v: Vec<String> = match query {
        // DELTA within [60, 120].
        1 => vec![rng.random_range(60..=120).to_string()],
        // SIZE within [1, 50]; TYPE a last syllable; REGION.
        2 => vec![
            rng.random_range(1..=50).to_string(),
            pick(rng, &TYPE_3).to_string(),
            pick(rng, &REGIONS).to_string(),
        ],
        // SEGMENT; DATE a day within [1995-03-01, 1995-03-31].
        3 => vec![
            pick(rng, &SEGMENTS).to_string(),
            date(1995, 3, rng.random_range(1..=31)),
        ],
        // DATE the first day of a month from January 1993 to October 1997.
        4 | 15 => vec![month_from(1993, 1, rng.random_range(0..58))],
        // REGION; DATE the first of January of a year within [1993, 1997].
        5 => vec![pick(rng, &REGIONS).to_string(), new_year(rng)],
        // DATE as 5's; DISCOUNT within [0.02, 0.09]; QUANTITY within [24, 25].
        6 => vec![
            new_year(rng),
            format!("0.0{}", rng.random_range(2..=9)),
            rng.random_range(24..=25).to_string(),
        ],
        // Two different nations.
        7 => {
            let [a, b] = two(rng, NATIONS.len());
            vec![NATIONS[a].0.to_string(), NATIONS[b].0.to_string()]
        }
        // NATION; REGION the nation's; TYPE a whole part type.
        8 => {
            let (nation, region) = NATIONS[rng.random_range(0..NATIONS.len())];
            vec![
                nation.to_string(),
                REGIONS[region].to_string(),
                format!(
                    "{} {} {}",
                    pick(rng, &TYPE_1),
                    pick(rng, &TYPE_2),
                    pick(rng, &TYPE_3)
                ),
            ]
        }
        // COLOR.
        9 => vec![pick(rng, &COLORS).to_string()],
        // DATE the first day of a month from February 1993 to January 1995.
        10 => vec![month_from(1993, 2, rng.random_range(0..24))],
        // NATION; FRACTION 0.0001 / SF.
        11 => vec![pick(rng, &NATIONS).0.to_string(), fraction(sf)],
        // Two different ship modes; DATE as 5's.
        12 => {
            let [a, b] = two(rng, MODES.len());
            vec![MODES[a].to_string(), MODES[b].to_string(), new_year(rng)]
        }
        // WORD1, WORD2.
        13 => vec![
            pick(rng, &Q13_WORD_1).to_string(),
            pick(rng, &Q13_WORD_2).to_string(),
        ],
        // DATE the first day of a month of a year within [1993, 1997].
        14 => vec![month_from(1993, 1, rng.random_range(0..60))],
        // BRAND; TYPE a part type's first two syllables; eight different sizes within [1, 50].
        16 => {
            let mut v = vec![
                brand(rng),
                format!("{} {}", pick(rng, &TYPE_1), pick(rng, &TYPE_2)),
            ];
            v.extend(sample(rng, 50, 8).into_iter().map(|i| (i + 1).to_string()));
            v
        }
        // BRAND; CONTAINER.
        17 => vec![
            brand(rng),
            format!("{} {}", pick(rng, &CONTAINER_1), pick(rng, &CONTAINER_2)),
        ],
        // QUANTITY within [312, 315].
        18 => vec![rng.random_range(312..=315).to_string()],
        // BRAND1 to BRAND3 (:1 to :3); QUANTITY1 within [1, 10], QUANTITY2 within [10, 20],
        // QUANTITY3 within [20, 30] (:4 to :6).
        19 => vec![
            brand(rng),
            brand(rng),
            brand(rng),
            rng.random_range(1..=10).to_string(),
            rng.random_range(10..=20).to_string(),
            rng.random_range(20..=30).to_string(),
        ],
        // COLOR; DATE as 5's; NATION.
        20 => vec![
            pick(rng, &COLORS).to_string(),
            new_year(rng),
            pick(rng, &NATIONS).0.to_string(),
        ],
        // NATION.
        21 => vec![pick(rng, &NATIONS).0.to_string()],
        // Seven different country codes: a nation's key plus 10.
        22 => sample(rng, NATIONS.len(), 7)
            .into_iter()
            .map(|i| (i + 10).to_string())
            .collect(),
        _ => Vec::new(),
    };
    Params(v)
}

/// The specification's validation values (clause 2.4.N.3's "Query Validation" values; Q11's
/// FRACTION is 0.0001/SF). Another query number than 1 to 22 has no parameters.
pub fn validation(query: u8, sf: f64) -> Params {
    let v: &[&str] = match query {
        1 => &["90"],
        2 => &["15", "BRASS", "EUROPE"],
        3 => &["BUILDING", "1995-03-15"],
        4 => &["1993-07-01"],
        5 => &["ASIA", "1994-01-01"],
        6 => &["1994-01-01", "0.06", "24"],
        7 => &["FRANCE", "GERMANY"],
        8 => &["BRAZIL", "AMERICA", "ECONOMY ANODIZED STEEL"],
        9 => &["green"],
        10 => &["1993-10-01"],
        11 => return Params(vec!["GERMANY".to_string(), fraction(sf)]),
        12 => &["MAIL", "SHIP", "1994-01-01"],
        13 => &["special", "requests"],
        14 => &["1995-09-01"],
        15 => &["1996-01-01"],
        16 => &[
            "Brand#45",
            "MEDIUM POLISHED",
            "49",
            "14",
            "23",
            "45",
            "19",
            "3",
            "36",
            "9",
        ],
        17 => &["Brand#23", "MED BOX"],
        18 => &["300"],
        19 => &["Brand#12", "Brand#23", "Brand#34", "1", "10", "20"],
        20 => &["forest", "1994-01-01", "CANADA"],
        21 => &["SAUDI ARABIA"],
        22 => &["13", "31", "23", "29", "30", "18", "17"],
        _ => &[],
    };
    Params(v.iter().map(|s| s.to_string()).collect())
}

/// Query 11's FRACTION, 0.0001 / SF, with the generator's ten decimals.
fn fraction(sf: f64) -> String {
    format!("{:.10}", 0.0001 / sf)
}

fn pick<'a, T>(rng: &mut impl Rng, list: &'a [T]) -> &'a T {
    &list[rng.random_range(0..list.len())]
}

/// Two different indexes below `n`.
fn two(rng: &mut impl Rng, n: usize) -> [usize; 2] {
    let v = sample(rng, n, 2).into_vec();
    [v[0], v[1]]
}

/// `Brand#MN` with M and N within [1, 5].
fn brand(rng: &mut impl Rng) -> String {
    format!(
        "Brand#{}{}",
        rng.random_range(1..=5),
        rng.random_range(1..=5)
    )
}

/// The first of January of a year within [1993, 1997].
fn new_year(rng: &mut impl Rng) -> String {
    date(rng.random_range(1993..=1997), 1, 1)
}

/// The first day of the month `months` after `year`-`month`.
fn month_from(year: u32, month: u32, months: u32) -> String {
    let m = month - 1 + months;
    date(year + m / 12, m % 12 + 1, 1)
}

fn date(year: u32, month: u32, day: u32) -> String {
    format!("{year}-{month:02}-{day:02}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::SmallRng;
    use rand::SeedableRng;

    const DRAWS: usize = 2_000;

    fn draws(query: u8) -> Vec<Params> {
        let mut rng = SmallRng::seed_from_u64(u64::from(query));
        (0..DRAWS).map(|_| random(query, 1.0, &mut rng)).collect()
    }

    fn int(s: &str) -> i64 {
        s.parse()
            .unwrap_or_else(|_| panic!("{s} is not a whole number"))
    }

    /// (year, month, day) of a `YYYY-MM-DD` value.
    fn ymd(s: &str) -> (u32, u32, u32) {
        let p: Vec<u32> = s
            .split('-')
            .map(|x| x.parse().unwrap_or_else(|_| panic!("{s} is not a date")))
            .collect();
        assert_eq!(p.len(), 3, "{s}");
        assert_eq!(s.len(), 10, "{s}");
        (p[0], p[1], p[2])
    }

    fn first_of_month(s: &str) -> (u32, u32) {
        let (y, m, d) = ymd(s);
        assert_eq!(d, 1, "{s} is not the first of a month");
        assert!((1..=12).contains(&m), "{s}");
        (y, m)
    }

    fn new_year_in_range(s: &str) {
        let (y, m) = first_of_month(s);
        assert_eq!(m, 1, "{s}");
        assert!((1993..=1997).contains(&y), "{s}");
    }

    #[test]
    fn every_query_gets_its_number_of_values_random_and_validation() {
        let mut rng = SmallRng::seed_from_u64(7);
        for q in 1..=22u8 {
            assert_eq!(random(q, 1.0, &mut rng).0.len(), count(q), "query {q}");
            assert_eq!(validation(q, 1.0).0.len(), count(q), "query {q}");
        }
        assert!(random(0, 1.0, &mut rng).0.is_empty());
        assert!(validation(23, 1.0).0.is_empty());
        assert_eq!(count(23), 0);
    }

    #[test]
    fn query_1_delta_is_within_60_and_120_and_reaches_both() {
        let d: Vec<i64> = draws(1).iter().map(|p| int(&p.0[0])).collect();
        assert!(d.iter().all(|d| (60..=120).contains(d)));
        assert!(d.contains(&60) && d.contains(&120));
    }

    #[test]
    fn query_2_size_type_and_region() {
        for p in draws(2) {
            assert!((1..=50).contains(&int(&p.0[0])), "{p:?}");
            assert!(TYPE_3.contains(&p.0[1].as_str()), "{p:?}");
            assert!(REGIONS.contains(&p.0[2].as_str()), "{p:?}");
        }
    }

    #[test]
    fn query_3_date_is_a_day_of_march_1995() {
        let mut days = std::collections::BTreeSet::new();
        for p in draws(3) {
            assert!(SEGMENTS.contains(&p.0[0].as_str()), "{p:?}");
            let (y, m, d) = ymd(&p.0[1]);
            assert_eq!((y, m), (1995, 3), "{p:?}");
            days.insert(d);
        }
        assert_eq!(
            days.into_iter().collect::<Vec<_>>(),
            (1..=31).collect::<Vec<_>>()
        );
    }

    #[test]
    fn queries_4_and_15_months_run_from_january_1993_to_october_1997() {
        for q in [4, 15] {
            let months: std::collections::BTreeSet<(u32, u32)> =
                draws(q).iter().map(|p| first_of_month(&p.0[0])).collect();
            assert_eq!(months.len(), 58, "query {q}");
            assert_eq!(months.first(), Some(&(1993, 1)), "query {q}");
            assert_eq!(months.last(), Some(&(1997, 10)), "query {q}");
        }
    }

    #[test]
    fn queries_5_6_12_20_dates_are_new_years_1993_to_1997() {
        for (q, i) in [(5, 1), (6, 0), (12, 2), (20, 1)] {
            let years: std::collections::BTreeSet<String> =
                draws(q).iter().map(|p| p.0[i].clone()).collect();
            years.iter().for_each(|y| new_year_in_range(y));
            assert_eq!(years.len(), 5, "query {q}: {years:?}");
        }
    }

    #[test]
    fn query_6_discount_and_quantity() {
        let mut discounts = std::collections::BTreeSet::new();
        for p in draws(6) {
            let d: f64 = p.0[1].parse().unwrap_or(-1.0);
            assert!((0.02..=0.09).contains(&d), "{p:?}");
            discounts.insert(p.0[1].clone());
            assert!((24..=25).contains(&int(&p.0[2])), "{p:?}");
        }
        assert_eq!(discounts.len(), 8, "{discounts:?}");
    }

    #[test]
    fn query_7_and_12_pick_two_different_values() {
        for p in draws(7) {
            assert_ne!(p.0[0], p.0[1]);
            assert!(NATIONS.iter().any(|n| n.0 == p.0[0]) && NATIONS.iter().any(|n| n.0 == p.0[1]));
        }
        for p in draws(12) {
            assert_ne!(p.0[0], p.0[1]);
            assert!(MODES.contains(&p.0[0].as_str()) && MODES.contains(&p.0[1].as_str()));
        }
    }

    #[test]
    fn query_8_region_is_the_nations_and_type_has_three_syllables() {
        for p in draws(8) {
            let (_, r) = NATIONS
                .iter()
                .find(|n| n.0 == p.0[0])
                .unwrap_or_else(|| panic!("{p:?}"));
            assert_eq!(REGIONS[*r], p.0[1]);
            let t: Vec<&str> = p.0[2].split(' ').collect();
            assert!(
                t.len() == 3
                    && TYPE_1.contains(&t[0])
                    && TYPE_2.contains(&t[1])
                    && TYPE_3.contains(&t[2]),
                "{p:?}"
            );
        }
    }

    #[test]
    fn query_10_months_run_from_february_1993_to_january_1995() {
        let months: std::collections::BTreeSet<(u32, u32)> =
            draws(10).iter().map(|p| first_of_month(&p.0[0])).collect();
        assert_eq!(months.len(), 24);
        assert_eq!(months.first(), Some(&(1993, 2)));
        assert_eq!(months.last(), Some(&(1995, 1)));
    }

    #[test]
    fn query_11_fraction_is_0_0001_over_the_scale_factor() {
        assert_eq!(validation(11, 1.0).0, ["GERMANY", "0.0001000000"]);
        assert_eq!(validation(11, 0.01).0[1], "0.0100000000");
        assert_eq!(validation(11, 100.0).0[1], "0.0000010000");
        let mut rng = SmallRng::seed_from_u64(11);
        assert_eq!(random(11, 10.0, &mut rng).0[1], "0.0000100000");
    }

    #[test]
    fn query_14_months_cover_five_years() {
        let months: std::collections::BTreeSet<(u32, u32)> =
            draws(14).iter().map(|p| first_of_month(&p.0[0])).collect();
        assert_eq!(months.len(), 60);
        assert_eq!(months.first(), Some(&(1993, 1)));
        assert_eq!(months.last(), Some(&(1997, 12)));
    }

    fn is_brand(s: &str) -> bool {
        let b = s.as_bytes();
        s.len() == 8
            && s.starts_with("Brand#")
            && (b'1'..=b'5').contains(&b[6])
            && (b'1'..=b'5').contains(&b[7])
    }

    #[test]
    fn query_16_brand_type_and_eight_different_sizes() {
        for p in draws(16) {
            assert!(is_brand(&p.0[0]), "{p:?}");
            let t: Vec<&str> = p.0[1].split(' ').collect();
            assert!(t.len() == 2 && TYPE_1.contains(&t[0]) && TYPE_2.contains(&t[1]));
            let sizes: std::collections::BTreeSet<i64> = p.0[2..].iter().map(|s| int(s)).collect();
            assert_eq!(sizes.len(), 8, "{p:?}");
            assert!(sizes.iter().all(|s| (1..=50).contains(s)), "{p:?}");
        }
    }

    #[test]
    fn query_17_18_19_ranges() {
        for p in draws(17) {
            assert!(is_brand(&p.0[0]), "{p:?}");
            let c: Vec<&str> = p.0[1].split(' ').collect();
            assert!(c.len() == 2 && CONTAINER_1.contains(&c[0]) && CONTAINER_2.contains(&c[1]));
        }
        let q: std::collections::BTreeSet<i64> = draws(18).iter().map(|p| int(&p.0[0])).collect();
        assert_eq!(q.into_iter().collect::<Vec<_>>(), [312, 313, 314, 315]);
        for p in draws(19) {
            assert!(p.0[..3].iter().all(|b| is_brand(b)), "{p:?}");
            assert!((1..=10).contains(&int(&p.0[3])), "{p:?}");
            assert!((10..=20).contains(&int(&p.0[4])), "{p:?}");
            assert!((20..=30).contains(&int(&p.0[5])), "{p:?}");
        }
    }

    #[test]
    fn queries_9_13_20_21_words_come_from_the_generators_lists() {
        for p in draws(9) {
            assert!(COLORS.contains(&p.0[0].as_str()));
        }
        for p in draws(13) {
            assert!(Q13_WORD_1.contains(&p.0[0].as_str()));
            assert!(Q13_WORD_2.contains(&p.0[1].as_str()));
        }
        for p in draws(20) {
            assert!(COLORS.contains(&p.0[0].as_str()));
            assert!(NATIONS.iter().any(|n| n.0 == p.0[2]));
        }
        for p in draws(21) {
            assert!(NATIONS.iter().any(|n| n.0 == p.0[0]));
        }
    }

    #[test]
    fn query_22_seven_different_country_codes_10_to_34() {
        for p in draws(22) {
            let codes: std::collections::BTreeSet<i64> = p.0.iter().map(|s| int(s)).collect();
            assert_eq!(codes.len(), 7, "{p:?}");
            assert!(codes.iter().all(|c| (10..=34).contains(c)), "{p:?}");
            assert!(p.0.iter().all(|c| c.len() == 2));
        }
    }

    #[test]
    fn the_power_test_order_is_appendix_a_row_0() {
        assert_eq!(
            order(0),
            [14, 2, 9, 20, 6, 17, 18, 8, 21, 13, 3, 22, 16, 4, 11, 15, 1, 10, 19, 5, 7, 12]
        );
        assert_eq!(order(41), order(0));
        assert_eq!(order(1)[0], 21);
        assert_eq!(order(40)[21], 19);
    }

    #[test]
    fn every_order_is_a_permutation_of_the_22_queries() {
        for s in 0..41 {
            let mut o = order(s);
            o.sort_unstable();
            assert_eq!(o.to_vec(), (1..=22).collect::<Vec<u8>>(), "stream {s}");
        }
    }

    #[test]
    fn the_streams_orders_differ() {
        let orders: std::collections::BTreeSet<[u8; 22]> = (0..41).map(order).collect();
        assert_eq!(orders.len(), 41);
    }
}
