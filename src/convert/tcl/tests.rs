//! The Tcl translator: what each construct becomes, what the Rhai does when it runs (in an
//! engine with a session and no database), and every refusal with its line and way out.

use super::*;
use crate::output::Output;
use crate::script::ScriptEngine;
use crate::session::Session;
use std::sync::{Arc, Mutex};

fn rhai(tcl: &str) -> String {
    match convert(tcl) {
        Ok(c) => c.rhai,
        Err(r) => panic!("refused: {r:?}"),
    }
}

/// The one refusal of `tcl`.
fn refused(tcl: &str) -> Refusal {
    let mut r = convert(tcl).expect_err("refused");
    assert_eq!(r.len(), 1, "{r:?}");
    r.remove(0)
}

/// Runs the translation; the lines it printed, and its error as `LINE: message` (the Tcl line).
fn run(tcl: &str) -> (Vec<String>, Result<(), String>) {
    let c = convert(tcl).unwrap_or_else(|r| panic!("refused: {r:?}"));
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

fn printed(tcl: &str) -> Vec<String> {
    let (lines, r) = run(tcl);
    if let Err(e) = r {
        panic!("{e}\n{}\n{lines:?}", rhai(tcl));
    }
    lines
}

#[test]
fn bare_commands_become_calls() {
    assert_eq!(
        rhai("dbset db maria\ndiset tpcc maria_count_ware 4\nvuset vu vcpu\ngiset commandline keepalive_margin 1200\nprint dict\njobs\nbuildschema\n"),
        "dbset(\"db\", \"maria\");\ndiset(\"tpcc\", \"maria_count_ware\", 4);\nvuset(\"vu\", \"vcpu\");\n\
         giset(\"commandline\", \"keepalive_margin\", 1200);\nprint(\"dict\");\njobs();\nbuildschema();\n"
    );
    assert_eq!(
        rhai("diset tpcc pg_pass {my pa$$ [x]}\ndiset connection pg_host \"h1 h2\""),
        "diset(\"tpcc\", \"pg_pass\", \"my pa$$ [x]\");\ndiset(\"connection\", \"pg_host\", \"h1 h2\");\n"
    );
}

#[test]
fn a_job_s_value_is_hammerdb_s_and_a_statement_is_the_bare_call() {
    assert_eq!(
        rhai("set b [buildschema]\ncheckschema\nset d [ deleteschema ]"),
        "let b = job_reply(\"Schema Build\", buildschema());\ncheckschema();\n\
         let d = job_reply(\"Schema Delete\", deleteschema());\n"
    );
}

#[test]
fn set_declares_once_then_assigns() {
    assert_eq!(
        rhai("set jobid [ vurun ]\nputs $jobid\nset jobid [vurun]"),
        "let jobid = job_reply(\"Benchmark Run\", vurun());\nputs(jobid);\njobid = job_reply(\"Benchmark Run\", vurun());\n"
    );
    assert_eq!(
        rhai("set v [ numberOfCPUs ]\nset x \"a b\""),
        "let v = numberOfCPUs();\nlet x = \"a b\";\n"
    );
}

#[test]
fn a_variable_first_set_in_a_block_is_declared_before_it() {
    let r = rhai("if {1} {\n  set jobid [vurun]\n}\nputs $jobid");
    assert_eq!(
        r,
        "let jobid;\nif true {\n    jobid = job_reply(\"Benchmark Run\", vurun());\n}\nputs(jobid);\n"
    );
    assert_eq!(printed("if {1} { set x 4 }\nputs $x"), ["4"]);
}

#[test]
fn variables_strings_and_the_environment() {
    assert_eq!(
        rhai("set d $::env(TMP)\nset f \"${d}/pg_tprocc.$n\\t\"\nset ::env(X) 1\nputs [info exists ::env(Y)]"),
        "let d = need_env(\"TMP\");\nlet f = `${d}/pg_tprocc.${text(n)}${\"\\t\"}`;\nset_env(\"X\", 1);\nputs(env(\"Y\") != ());\n"
    );
    std::env::set_var("HAMMER_TCL_TEST_ENV", "/tmp/x");
    assert_eq!(
        printed(
            "set d $::env(HAMMER_TCL_TEST_ENV)\nputs \"dir=$d/f\"\nset ::env(HAMMER_TCL_TEST_SET) hi\n\
             puts $::env(HAMMER_TCL_TEST_SET)\nputs [info exists ::env(HAMMER_TCL_TEST_UNSET)]\n\
             if {![info exists ::env(HAMMER_TCL_TEST_UNSET)]} { puts none }"
        ),
        ["dir=/tmp/x/f", "hi", "false", "none"]
    );
    let (_, r) = run("puts a\nputs $::env(HAMMER_TCL_TEST_UNSET)");
    assert_eq!(
        r.unwrap_err(),
        "2: environment variable HAMMER_TCL_TEST_UNSET is not set"
    );
}

#[test]
fn expr_becomes_rhai_arithmetic_and_logic() {
    assert_eq!(
        rhai("set end [ expr { [ numberOfCPUs ] + 8 } ]"),
        "let end = numberOfCPUs() + 8;\n"
    );
    assert_eq!(
        rhai("set w [numberOfWHs]\nif { $w >= 200 && !($w < 10) || $w == 4 } { puts big }"),
        "let w = numberOfWHs();\nif w >= 200 && w >= 10 || w == 4 {\n    puts(\"big\");\n}\n"
    );
    assert_eq!(
        printed(
            "set a 7\nset b \"2\"\nputs [expr {$a / $b}]\nputs [expr {$a % 3 + $b * 2}]\n\
             puts [expr {double($a) / 2}]\nputs [expr {int(7.9)}]\nputs [expr {round(2.5)}]\n\
             puts [expr {$a > $b ? \"yes\" : \"no\"}]\nputs [expr {\"abc\" eq \"abc\"}]\n\
             puts [expr {$b ne \"2\"}]\nputs [expr {2 ** 10}]\nputs [expr {max(3, $a)}]\n\
             puts [expr {$b in {1 2 3}}]\nputs [expr {-$a}]\nputs [expr $a + 1]"
        ),
        ["3", "5", "3.5", "7", "3", "yes", "true", "false", "1024", "7", "true", "-7", "8"]
    );
}

#[test]
fn numbers_in_strings_compare_as_numbers() {
    assert_eq!(
        printed("set p \"10\"\nif {$p > 9} { puts more }\nif {$p == 10.0} { puts same }\nset q 9\nif {$p eq $q} { puts no } else { puts differ }"),
        ["more", "same", "differ"]
    );
    let (_, r) = run("set p abc\n\nif {$p > 1} { puts x }");
    assert_eq!(r.unwrap_err(), "3: expected a number but got \"abc\"");
}

#[test]
fn puts_to_the_console_stderr_and_files() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("out.txt");
    let f = f.display();
    assert_eq!(
        printed(&format!(
            "puts -nonewline \"a\"\nputs -nonewline stdout b\nputs c\nputs stdout d\nset of [open {f} w]\n\
             puts $of line1\nputs -nonewline $of line2\nclose $of\nset fd [open {f}]\n\
             while {{[gets $fd line] >= 0}} {{ puts \"read: $line\" }}\nclose $fd\n\
             set fd [open {f} a]\nputs $fd more\nclose $fd\nset fd [open {f} r]\nputs [read $fd]\nclose $fd\n\
             puts -nonewline end"
        )),
        ["abc", "d", "read: line1", "read: line2", "line1", "line2more", "", "end"]
    );
    assert_eq!(rhai("puts stderr oops"), "eputs(\"oops\");\n");
    let (_, r) = run("set fd [open /nonexistent/x r]");
    assert!(r.unwrap_err().contains("couldn't open \"/nonexistent/x\""));
}

#[test]
fn files_and_directories() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("a/b");
    let d = d.display();
    assert_eq!(
        printed(&format!(
            "file mkdir {d}\nputs [file exists {d}]\nputs [file isdirectory {d}]\nputs [file tail [file join {d} c.txt]]\n\
             file delete {d}\nputs [file exists {d}]"
        )),
        ["true", "true", "c.txt", "false"]
    );
}

#[test]
fn control_flow() {
    assert_eq!(
        printed(
            "for {set i 0} {$i < 6} {incr i} {\n  if {$i == 1} { continue }\n  if {$i > 3} break\n  puts $i\n}\n\
             set l {1}\nfor {set z 4} {$z <= 12} {incr z 4} { lappend l $z }\nputs $l\n\
             foreach v $l { puts \"vu $v\" }\nforeach w {a {b c}} { puts $w }\n\
             set n 3\nwhile {$n > 0} { incr n -1 }\nputs $n\n\
             if {$n == 1} { puts one } elseif {$n == 0} { puts zero } else { puts other }"
        ),
        ["0", "2", "3", "1 4 8 12", "vu 1", "vu 4", "vu 8", "vu 12", "a", "b c", "0", "zero"]
    );
}

#[test]
fn a_for_loop_s_continue_runs_its_next_step() {
    let r = rhai("for {set i 0} {$i < 3} {incr i} { if {$i == 1} { continue }; puts $i }");
    assert!(
        r.contains("    if i == 1 {\n        i += 1;\n        continue;\n    }"),
        "{r}"
    );
}

#[test]
fn string_commands_and_info_exists() {
    assert_eq!(
        printed(
            "set u [string tolower [string trim \"  On \"]]\nputs $u\nputs [string toupper x]\n\
             puts [string is integer -strict 42]\nputs [string is integer -strict 4x]\nputs [string is integer {}]\n\
             puts [string length abc]\nputs [string equal a a]\nputs [string match {pg_*} pg_host]\n\
             puts [string first b abc]\nputs [string trimright x.. .]\n\
             if {$u in {\"1\" \"true\" \"yes\" \"on\"}} { puts yes }\n\
             puts [info exists nothere]\nif {![info exists later]} { puts unset }\nset later 1\nputs [info exists later]"
        ),
        ["on", "X", "true", "false", "true", "3", "true", "true", "1", "x", "yes", "false", "unset", "true"]
    );
}

#[test]
fn catch_gives_a_flag_and_the_message() {
    assert_eq!(
        printed(
            "if {[catch {vudestroy} msg]} { puts \"caught: $msg\" }\nset r [catch {expr {1 + 1}} v]\nputs \"$r $v\"\n\
             catch {vudestroy}\nputs after"
        ),
        ["caught: No Virtual Users found to destroy", "0 2", "after"]
    );
    let r = rhai("if {[catch {vudestroy} msg]} { puts $msg } elseif {[catch {vurun}]} { puts x }");
    assert!(
        r.starts_with("let msg;\nlet caught = 0;\ntry {\n    msg = vudestroy();\n}"),
        "{r}"
    );
    assert!(r.contains("} else {\n    let caught1 = 0;"), "{r}");
}

#[test]
fn error_exit_and_return() {
    let (lines, r) = run("puts a\nerror \"bad thing\"\nputs b");
    assert_eq!(lines, ["a"]);
    assert_eq!(r.unwrap_err(), "2: bad thing");
    assert_eq!(rhai("exit 3"), "exit(3);\n");
    assert_eq!(rhai("exit"), "exit();\n");
    assert_eq!(rhai("return"), "exit(); // return: the end of the script\n");
}

#[test]
fn waits_and_hammerdb_s_keepalive_idioms() {
    assert_eq!(
        rhai("after 1500"),
        "runtimer(1.5); // after: a wait in milliseconds\n"
    );
    assert_eq!(
        rhai("runtimer 300"),
        "if !vucomplete() { runtimer(300); } // HammerDB's runtimer: waits unless the virtual users have finished\n"
    );
    assert_eq!(
        rhai("while {![vucomplete]} { after 5000 }"),
        "while !vucomplete() {\n    runtimer(5); // after: a wait in milliseconds\n}\n"
    );
    // HammerDB 3's own runtimer procedure: hammer's command does the same.
    let r = rhai(
        "proc runtimer { seconds } {\nset x 0\nwhile {!$timerstop} {\n incr x\n after 1000\n update\n \
         if { [ vucomplete ] || $x eq $seconds } { set timerstop 1 }\n}\n}\nvurun\nruntimer 10",
    );
    assert!(
        r.starts_with("// proc runtimer: hammer's vurun returns"),
        "{r}"
    );
    assert!(
        r.contains("vurun();\nif !vucomplete() { runtimer(10); }"),
        "{r}"
    );
    assert_eq!(printed("after 10\nupdate\nputs done"), ["done"]);
}

#[test]
fn comments_and_continuations_keep_their_lines() {
    let c = convert("#!/bin/tclsh\n# one\ndiset tpcc \\\n    pg_count_ware 4 ;# four\n\nputs x")
        .unwrap();
    assert_eq!(
        c.rhai,
        "// !/bin/tclsh\n// one\ndiset(\"tpcc\", \"pg_count_ware\", 4);\n// four\n\nputs(\"x\");\n"
    );
    assert_eq!(c.source_line(3), 3);
    assert_eq!(c.source_line(4), 4);
    assert_eq!(c.source_line(6), 6);
}

#[test]
fn a_run_time_error_names_the_tcl_line() {
    let (_, r) = run("set a 1\n\nif {$a} {\n  set b [expr {$a / 0}]\n}\n");
    assert!(r.unwrap_err().starts_with("4: "));
    let (_, r) = run("puts a\ndiset tpcc no_such_key 1\n");
    let e = r.unwrap_err();
    assert!(e.starts_with("2: "), "{e}");
}

#[test]
fn types_settle_over_passes() {
    // x is a number until a string is put in it: then every use takes Tcl's loose values.
    let r = rhai("set x 1\nincr x\nset x \"$x apples\"\nputs $x");
    assert!(r.contains("x = as_number(x) + 1;"), "{r}");
    assert_eq!(
        printed("set x 1\nincr x\nset x \"$x apples\"\nputs $x"),
        ["2 apples"]
    );
    let r = rhai("set n 1\nincr n 2\nputs [expr {$n * 2}]");
    assert!(r.contains("n += 2;") && r.contains("puts(n * 2);"), "{r}");
}

#[test]
fn every_untranslatable_construct_names_its_line_and_the_way_out() {
    let cases: &[(&str, usize, &str, &str)] = &[
        (
            "puts a\nproc foo {} { puts x }",
            2,
            "proc foo (a Tcl procedure) is not translated",
            "fn",
        ),
        (
            "proc getjobid {f} { return 1 }",
            1,
            "proc getjobid",
            "jobs JOBID result",
        ),
        (
            "\nrename puts __puts",
            2,
            "Tcl's rename command is not translated",
            "write the commands out",
        ),
        ("eval $x", 1, "Tcl's eval command", "write the commands out"),
        (
            "set y [subst $x]",
            1,
            "Tcl's subst command",
            "write the commands out",
        ),
        (
            "uplevel 1 {set x 1}",
            1,
            "Tcl's uplevel command",
            "write the commands out",
        ),
        (
            "namespace eval a {}",
            1,
            "Tcl's namespace command",
            "write the commands out",
        ),
        ("array set a {x 1}", 1, "Tcl's array command", "map"),
        ("set a(1) 2", 1, "the array element a(1)", "map"),
        ("puts $a(1)", 1, "the array variable a(...)", "map"),
        (
            "source ./scripts/tcl/generic/generic_tprocc_result.tcl",
            1,
            "source ./scripts/tcl/generic/generic_tprocc_result.tcl",
            "jobs JOBID timing",
        ),
        (
            "source other.tcl",
            1,
            "source other.tcl",
            "hammer convert FILE.tcl",
        ),
        (
            "package require sqlite3",
            1,
            "package require sqlite3",
            "jobs JOBID result",
        ),
        (
            "sqlite3 db x.db",
            1,
            "Tcl's sqlite3 command",
            "jobs JOBID result",
        ),
        ("exec ls", 1, "Tcl's exec command", "shell script"),
        ("switch $x { a {} }", 1, "Tcl's switch command", "if/elseif"),
        ("after 1000 {puts x}", 1, "after with a script", "after MS"),
        ("info commands", 1, "info commands", "info exists"),
        (
            "foreach {a b} $l {}",
            1,
            "foreach with several variables",
            "one variable",
        ),
        ("string map {a b} x", 1, "string map", "string is, tolower"),
        ("clock format 1", 1, "clock format", "clock seconds"),
        (
            "set $name 1",
            1,
            "set with a variable name made at run time",
            "as written",
        ),
        (
            "$cmd arg",
            1,
            "a command named by a substitution",
            "as written",
        ),
        ("if {1} \"puts $x\"", 1, "a body not in braces", "braces"),
        (
            "puts [expr {rand()}]",
            1,
            "the math function rand()",
            "int, wide",
        ),
    ];
    for (tcl, line, what, instead) in cases {
        let r = refused(tcl);
        assert_eq!(r.line, *line, "{tcl}: {r}");
        assert!(r.message.starts_with(what), "{tcl}: {r}");
        assert!(r.message.contains(instead), "{tcl}: {r}");
    }
}

#[test]
fn mistakes_are_named_at_their_line() {
    let r = refused("dbset db pg\n\ndbsett db pg");
    assert_eq!(r.line, 3);
    assert!(
        r.message
            .starts_with("invalid command name \"dbsett\"; did you mean dbset?"),
        "{r}"
    );
    let r = refused("puts a\nincr");
    assert_eq!(
        (r.line, r.message.as_str()),
        (2, "wrong # args: should be \"incr varName ?increment?\"")
    );
    assert!(refused("break").message.contains("outside a loop"));
    let r = refused("if {$x >} { puts a }");
    assert!(r.message.contains("missing operand"), "{r}");
    let r = refused("puts a\nif {1} {\n  puts b\n");
    assert_eq!(r.line, 2);
    // Every refusal is reported, in line order.
    let all = convert("proc a {} {}\nputs ok\nrename b c\neval x").unwrap_err();
    assert_eq!(all.iter().map(|r| r.line).collect::<Vec<_>>(), [1, 3, 4]);
}

#[test]
fn tclpy_eval_of_one_command() {
    let (pre, v) = inline("vurun", 3).unwrap();
    assert!(pre.is_empty());
    assert_eq!(v, "job_reply(\"Benchmark Run\", vurun())");
    let (pre, v) = inline("puts \"x\"", 3).unwrap();
    assert_eq!(pre.len(), 1);
    assert_eq!(pre[0].text, "puts(\"x\");");
    assert_eq!(v, "\"\"");
    assert!(inline("vurun; vudestroy", 2)
        .unwrap_err()
        .message
        .contains("several"));
}
