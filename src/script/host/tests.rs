//! Tcl's and Python's loose values, as the functions give them.

use super::*;

fn s(v: &str) -> Dynamic {
    Dynamic::from(v.to_string())
}

#[test]
fn values_print_as_tcl_writes_them() {
    assert_eq!(text(&Dynamic::UNIT), "");
    assert_eq!(text(&Dynamic::from(4_i64)), "4");
    assert_eq!(text(&Dynamic::from(1.5_f64)), "1.5");
    let list: Array = vec![s("a"), s("b c"), s(""), Dynamic::from(1_i64)];
    assert_eq!(text(&Dynamic::from(list)), "a {b c} {} 1");
}

#[test]
fn numbers_truths_and_lists_from_strings() {
    assert_eq!(as_number(&s(" 42 ")).unwrap().as_int().unwrap(), 42);
    assert_eq!(as_number(&s("0x1f")).unwrap().as_int().unwrap(), 31);
    assert_eq!(as_number(&s("2.5")).unwrap().as_float().unwrap(), 2.5);
    assert_eq!(
        as_number(&Dynamic::from(true)).unwrap().as_int().unwrap(),
        1
    );
    assert!(as_number(&s("abc"))
        .unwrap_err()
        .to_string()
        .contains("expected a number but got \"abc\""));
    assert!(as_number(&Dynamic::UNIT)
        .unwrap_err()
        .to_string()
        .contains("never set"));
    assert!(as_bool(&s("Yes")).unwrap());
    assert!(!as_bool(&s("off")).unwrap());
    assert!(as_bool(&s("2")).unwrap());
    assert!(as_bool(&s("maybe"))
        .unwrap_err()
        .to_string()
        .contains("boolean"));
    let l = as_list(&s("1 {a b} \"c\"")).unwrap();
    assert_eq!(l.iter().map(text).collect::<Vec<_>>(), ["1", "a b", "c"]);
    assert!(as_list(&Dynamic::UNIT).unwrap().is_empty());
    assert_eq!(as_list(&Dynamic::from(3_i64)).unwrap().len(), 1);
    assert!(as_list(&s("{open")).is_err());
}

#[test]
fn comparisons_as_tcl_makes_them() {
    assert_eq!(compare(&s("10"), &s("9")), 1);
    assert_eq!(compare(&s("abc"), &s("abd")), -1);
    assert!(equal(&s("1.0"), &Dynamic::from(1_i64)));
    assert!(!equal(&s("a"), &s("b")));
}

#[test]
fn python_truth() {
    assert!(!truthy(&s("")));
    assert!(truthy(&s("false")));
    assert!(!truthy(&Dynamic::UNIT));
    assert!(!truthy(&Dynamic::from(0_i64)));
    assert!(!truthy(&Dynamic::from(Array::new())));
}

#[test]
fn glob_patterns() {
    assert!(glob_match("pg_*", "pg_host"));
    assert!(glob_match("?a[bc]d", "xacd"));
    assert!(glob_match("[a-c]*", "beta"));
    assert!(!glob_match("pg_*", "maria_host"));
    assert!(glob_match("a\\*", "a*"));
}

#[test]
fn string_classes() {
    assert!(string_is("integer", &s("-42"), true).unwrap());
    assert!(!string_is("integer", &s("4.2"), true).unwrap());
    assert!(string_is("integer", &s(""), false).unwrap());
    assert!(!string_is("integer", &s(""), true).unwrap());
    assert!(string_is("double", &s("4.2"), true).unwrap());
    assert!(string_is("boolean", &s("on"), true).unwrap());
}

#[test]
fn hammerdb_s_warehouse_suggestion() {
    assert_eq!(number_of_whs(1), 10);
    assert_eq!(number_of_whs(2), 20);
    assert_eq!(number_of_whs(12), 100);
    assert_eq!(number_of_whs(13), 104);
    assert_eq!(number_of_whs(1000), 4000);
}

#[test]
fn a_job_s_value_as_hammerdb_returns_it() {
    assert_eq!(
        job_reply("Benchmark Run", &s("67FD24A6FDB403E253438394")),
        "Benchmark Run jobid=67FD24A6FDB403E253438394"
    );
    assert_eq!(
        job_reply("Schema Build", &Dynamic::UNIT),
        "Schema Build (No jobid)"
    );
}
