//! The Python translator: what each construct becomes, what it does when it runs, and every
//! refusal with its line and way out.

use super::*;
use crate::output::Output;
use crate::script::ScriptEngine;
use crate::session::Session;
use std::sync::{Arc, Mutex};

fn rhai(py: &str) -> String {
    match convert(py) {
        Ok(c) => c.rhai,
        Err(r) => panic!("refused: {r:?}"),
    }
}

fn refused(py: &str) -> Refusal {
    let mut r = convert(py).expect_err("refused");
    assert_eq!(r.len(), 1, "{r:?}");
    r.remove(0)
}

fn run(py: &str) -> (Vec<String>, Result<(), String>) {
    let c = convert(py).unwrap_or_else(|r| panic!("refused: {r:?}"));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let out = Output::capture();
    let session = Session::new(rt.handle().clone(), out.clone(), None);
    let mut engine = ScriptEngine::new(Arc::new(Mutex::new(session)));
    let r = engine.eval(&c.rhai);
    engine.finish_line();
    let r = r.map(|_| ()).map_err(|e| {
        let line = e.position.map_or(0, |(l, _)| c.source_line(l));
        format!("{line}: {}", e.message)
    });
    (out.take_captured(), r)
}

fn printed(py: &str) -> Vec<String> {
    let (lines, r) = run(py);
    if let Err(e) = r {
        panic!("{e}\n{}\n{lines:?}", rhai(py));
    }
    lines
}

#[test]
fn commands_are_the_same_functions() {
    assert_eq!(
        rhai("dbset('db','maria')\ndiset('tpcc','maria_count_ware',4)\njobid = vurun()\nprint(jobid)\njobid = tclpy.eval('vurun')\n"),
        "dbset(\"db\", \"maria\");\ndiset(\"tpcc\", \"maria_count_ware\", 4);\nlet jobid = job_reply(\"Benchmark Run\", vurun());\nprint(jobid);\njobid = job_reply(\"Benchmark Run\", vurun());\n"
    );
    assert_eq!(
        rhai("vu = tclpy.eval('numberOfCPUs')"),
        "let vu = numberOfCPUs();\n"
    );
    assert_eq!(rhai("tclpy.eval('puts \"hi\"')"), "puts(\"hi\");\n");
}

#[test]
fn imports_environment_and_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display();
    std::env::set_var("HAMMER_PY_TEST_TMP", dir.path());
    let lines = printed(&format!(
        "import os\nimport sys, time\ntmpdir = os.getenv('HAMMER_PY_TEST_TMP')\n\
         out = os.path.join(tmpdir, 'sub', 'f.txt')\nos.makedirs(os.path.join(tmpdir, 'sub'), exist_ok=True)\n\
         with open(out, 'w', encoding='utf-8') as f:\n    f.write('one\\n')\n    f.write(str(2) + '\\n')\n\
         fd = open(out, 'a')\nfd.write('three')\nfd.close()\nwith open(out) as f:\n    print(f.read())\n\
         print(os.path.exists(out), os.path.basename(out))\n\
         print(os.environ.get('HAMMER_PY_TEST_UNSET', 'dflt'))\nos.environ['HAMMER_PY_TEST_SET'] = 'x'\n\
         print(os.environ['HAMMER_PY_TEST_SET'])\nprint('HAMMER_PY_TEST_UNSET' in os.environ)\n\
         time.sleep(0.01)\nprint('{d}' == tmpdir)\n"
    ));
    assert_eq!(
        lines,
        [
            "one",
            "2",
            "three",
            "true f.txt",
            "dflt",
            "x",
            "false",
            "true"
        ]
    );
}

#[test]
fn control_flow_with_indentation() {
    assert_eq!(
        printed(
            "total = 0\nfor z in [1, 2, 3]:\n    if z == 2:\n        continue\n    total += z\nprint(total)\n\
             n = 3\nwhile n > 0:\n    n -= 1\nprint(n)\n\
             for i in range(3):\n    print(f'vu {i}')\n\
             uaw = os_env = ''\n"
                .replace("uaw = os_env = ''\n", "")
                .as_str()
        ),
        ["4", "0", "vu 0", "vu 1", "vu 2"]
    );
    assert_eq!(
        printed("x = 5\nif x > 10:\n    print('big')\nelif x > 3:\n    print('mid')\nelse:\n    print('small')\nif x: print('set')\n"),
        ["mid", "set"]
    );
}

#[test]
fn values_truth_and_strings() {
    assert_eq!(
        printed(
            "import os\nuaw_env = os.getenv('HAMMER_PY_TEST_UNSET', ' On ').strip().lower()\n\
             if uaw_env in {'1', 'true', 'yes', 'on'}:\n    print('yes')\n\
             p = int('12')\nprint(p + 1, p / 8, p // 5)\nname = os.getenv('HAMMER_PY_TEST_UNSET') or 'none'\nprint(name)\n\
             if not os.getenv('HAMMER_PY_TEST_UNSET'):\n    print('unset')\nprint('a', 'b', sep='-')\n\
             print('x', end='')\nprint('y')\nprint(len('abc'), 'ok' if p > 3 else 'no')\n"
        ),
        ["yes", "13 1.5 2", "none", "unset", "a-b", "xy", "3 ok"]
    );
}

#[test]
fn try_except_and_exit() {
    assert_eq!(
        printed("try:\n    vudestroy()\nexcept Exception as e:\n    print(f'caught: {e}')\nprint('after')\n"),
        ["caught: No Virtual Users found to destroy", "after"]
    );
    assert_eq!(
        rhai("import sys\nsys.exit(2)"),
        "// import sys: hammer provides what scripts use of it\nexit(2);\n"
    );
    let (lines, r) = run("print('a')\n\nraise Exception('bad')\nprint('b')\n");
    assert_eq!(lines, ["a"]);
    assert_eq!(r.unwrap_err(), "3: bad");
}

#[test]
fn comments_and_lines() {
    let c =
        convert("#!/usr/bin/env python3\n# a note\nx = 1\n\nif x:\n    # inside\n    print(x)\n")
            .unwrap();
    assert_eq!(c.rhai, "// !/usr/bin/env python3\n// a note\nlet x = 1;\n\nif truthy(x) {\n    // inside\n    print(x);\n}\n");
    assert_eq!(c.source_line(7), 7);
    let (_, r) = run("x = 1\ny = 0\n\nz = x + undefined_name\n");
    assert!(r.unwrap_err().starts_with("4: "));
}

#[test]
fn every_untranslatable_construct_names_its_line_and_the_way_out() {
    let cases: &[(&str, usize, &str, &str)] = &[
        (
            "x = 1\ndef show(msg):\n    print(msg, x)\nshow('x')\n",
            3,
            "def show reading the script's variable x",
            "pass x to show as a parameter",
        ),
        (
            "def f(a, b=2):\n    return a\n",
            1,
            "def f with a default value",
            "Rhai has no default arguments",
        ),
        (
            "def f(*args):\n    return 1\n",
            1,
            "def f with *args",
            "named parameters",
        ),
        (
            "if True:\n    def f():\n        return 1\n",
            2,
            "def f inside a block",
            "top level",
        ),
        (
            "def vurun():\n    return 1\n",
            1,
            "def vurun, which would hide hammer's command",
            "another name",
        ),
        (
            "async def f():\n    return 1\n",
            1,
            "async def",
            "plain function",
        ),
        (
            "x = list('abc')\n",
            1,
            "list() of anything but range() or a list",
            "for loop",
        ),
        ("class A:\n    pass\n", 1, "class", "maps"),
        (
            "import subprocess\n",
            1,
            "import subprocess",
            "os, sys and time",
        ),
        (
            "from os import getenv\n",
            1,
            "from os import getenv",
            "import the module",
        ),
        (
            "exec(open('./scripts/python/generic/generic_tprocc_result.py').read())\n",
            1,
            "exec()",
            "jobs(JOBID, \"result\")",
        ),
        ("l = sorted(x)\n", 1, "the call sorted()", "for loops"),
        ("x = [i for i in y]\n", 1, "a comprehension", "for loop"),
        ("a, b = 1, 2\n", 1, "a tuple", "each variable"),
        ("f = lambda x: x\n", 1, "lambda", "write the expression out"),
        ("s = 'a %s' % x\n", 1, "% formatting", "f-string"),
        ("x = y[1:2]\n", 1, "a slice", "one by one"),
        ("s = x.format(1)\n", 1, "the method .format()", "strip"),
        (
            "try:\n    x()\nfinally:\n    y()\n",
            1,
            "try without except",
            "after the try",
        ),
        (
            "tclpy.eval(cmd)\n",
            1,
            "tclpy.eval of Tcl made at run time",
            "as a function",
        ),
        (
            "dbsett('db', 'pg')\n",
            1,
            "the call dbsett()",
            "did you mean dbset?",
        ),
        (
            "print(f'{x:.2f}')\n",
            1,
            "the f-string format {x:.2f}",
            "alone",
        ),
    ];
    for (py, line, what, instead) in cases {
        let r = refused(py);
        assert_eq!(r.line, *line, "{py}: {r}");
        assert!(r.message.starts_with(what), "{py}: {r}");
        assert!(r.message.contains(instead), "{py}: {r}");
    }
    let all = convert("import subprocess\nx = 1\nclass A:\n    pass\nprint(x)\n").unwrap_err();
    assert_eq!(all.iter().map(|r| r.line).collect::<Vec<_>>(), [1, 3]);
}

#[test]
fn a_def_becomes_a_rhai_function_that_runs() {
    let py = "import sys\n\ndef fatal(msg: str) -> None:\n    print(msg)\n    sys.exit(3)\n\n\
              def double(n):\n    m = n * 2\n    if m > 10:\n        total = m\n        return total\n    return m\n\n\
              vus = [1] + list(range(4, 13, 4))\nfor v in vus:\n    print(double(v))\n\
              if double(1) == 2:\n    fatal('too small')\nprint('after')\n";
    let r = rhai(py);
    assert!(r.contains("fn fatal(msg) {"), "{r}");
    assert!(r.contains("fn double(n) {"), "{r}");
    assert!(r.contains("return total;"), "{r}");
    // sys.exit in the function ends the script: nothing after it prints.
    let (out, _) = run(py);
    assert_eq!(out.join("\n").trim(), "2\n8\n16\n24\ntoo small", "{out:?}");
}

#[test]
fn a_comment_line_before_a_dedent_goes_with_the_code_after_it() {
    let r = rhai("if x:\n    a = 1\n# about b\nb = 2\n");
    let body_end = r.find('}').expect("closing brace");
    let comment = r.find("// about b").expect("comment kept");
    assert!(comment > body_end, "{r}");
}
