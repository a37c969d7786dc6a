//! Custom scripts without a server: what Rhai lets a connection method be called, and
//! loading.

use rhai::{Array, Engine, Scope};

use super::*;

#[derive(Clone)]
struct Thing;

/// Rhai reads `x.call(..)` and `call(x, ..)` as calls of a function pointer before it looks
/// at registered functions: a `call` method on a custom type is never reached, which is why
/// the connection's procedure call is named `callproc`. Should Rhai ever allow it, this test
/// fails and `call` can become an alias.
#[test]
fn call_is_taken_by_rhai() {
    let mut e = Engine::new();
    e.register_type_with_name::<Thing>("Thing")
        .register_fn("call", |_: &mut Thing, _: &str, _: Array| 1_i64)
        .register_fn("call", |_: Thing, _: &str, _: Array| 1_i64)
        .register_fn("callproc", |_: &mut Thing, _: &str, _: Array| 2_i64);
    let mut scope = Scope::new();
    scope.push("T", Thing);
    for script in [r#"T.call("p", [1])"#, r#"call(T, "p", [1])"#] {
        let e = e
            .eval_with_scope::<i64>(&mut scope, script)
            .expect_err(script)
            .to_string();
        assert!(e.contains("expecting Fn"), "{script}: {e}");
    }
    assert_eq!(
        e.eval_with_scope::<i64>(&mut scope, r#"T.callproc("p", [1])"#)
            .unwrap(),
        2
    );
}

#[test]
fn scripts_load_or_say_where_they_are_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.rhai");
    std::fs::write(&good, "let r = DB.callproc(\"p\", [VUSER]);\n").unwrap();
    let s = CustomScript::load(&good).unwrap();
    assert_eq!(s.path, good);
    let bad = dir.path().join("bad.rhai");
    std::fs::write(&bad, "let x = 1;\nlet y = (2 + ;\n").unwrap();
    let e = CustomScript::load(&bad).err().unwrap().to_string();
    assert!(e.starts_with(&format!("{}:2:", bad.display())), "{e}");
}

/// A scope that a script's `let`s filled again keeps only the latest of each name, its
/// constants constant.
#[test]
fn scopes_keep_the_latest_of_each_name() {
    let mut scope = Scope::new();
    scope.push_constant("VUSER", 3_i64);
    scope.push("ITERATION", 1_i64);
    let e = Engine::new();
    for it in 1..=50_i64 {
        scope.set_value("ITERATION", it);
        e.run_with_scope(
            &mut scope,
            "let seen = if ITERATION == 1 { 1 } else { seen + 1 }; let big = [1, 2, 3];",
        )
        .unwrap();
        workload::keep_latest(&mut scope);
    }
    assert_eq!(scope.len(), 4);
    assert_eq!(scope.get_value::<i64>("seen"), Some(50));
    assert_eq!(scope.is_constant("VUSER"), Some(true));
    assert_eq!(scope.is_constant("seen"), Some(false));
    assert!(e.run_with_scope(&mut scope, "VUSER = 4;").is_err());
}
