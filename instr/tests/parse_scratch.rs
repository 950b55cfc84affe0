//! scratch
use rankcheck_instr::parse;
fn show(src: &str) {
    println!("=== {src:?}");
    match parse(src) {
        Ok(_) => println!("  ok"),
        Err(ds) => {
            for d in ds {
                let before = &src[..d.span.start as usize];
                let line = before.matches('\n').count() + 1;
                let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
                println!(
                    "  {line}:{col} [{}] {} {:?} {:?} {:?}",
                    &src[d.span.range()],
                    d.message,
                    d.label,
                    d.related,
                    d.notes
                );
            }
        }
    }
}
#[test]
fn scratch() {
    for src in [
        "thread t { x = 1 }",
        "thread t { let x = ; y = 2; }",
        "thread t { if (x { a = 1; }\n b = 2; }",
        "thread t { let p = new { a: 1; b: 2 };\n x = 3; }",
        "thread t { f(a;\n x = 3; }",
        "fn f( { }\nthread t { }",
        "fn f(a, b { x = 1; }\nthread t { }",
        "thread t { x = y +\n}\nthread u { }",
        "global a = 1\nglobal b = 2;",
        "global a[3 = 1;\nglobal b;",
        "thread t { while x { x = 1; }\n",
        "thread t { print(\"abc\n}",
        "thread t { x = a.; }",
        "thread t { x = a[; }",
        "thread t { x = spawn 3; }",
        "thread t { x = new; }",
        "thread t { for i in 0..3 x = 1; }",
        "thread t { return return; }",
        "thread t { let let = 1; }",
        "const X = 1;;",
        "thread t { };",
        "thread t { x = 1;; }",
        "thread t { x == 1; }",
        "fn f() { return -9223372036854775808; }",
        "thread t { x = 5 y; z = 3; }",
        "thread t { if x { } else y = 1; }",
        "thread t { lock m; }",
        "thread t { a = b = c; }",
        "thread t[3] (i) { }",
        "thread t[](i) { }",
        "thread t { x = (1, 2); }",
        "thread t { x = new [3] = ; }",
        "\u{feff}thread t { }",
        "thread t { x = 1; }\n}\n}\nthread u { y = ; }",
        "thread t { sync m { x = 1; }",
        "mutex m\nthread t { }",
        "thread t { assert(x == 1 \"msg\"); }",
        "thread t { x = -; }",
        "thread t { x = 1 +* 2; }",
        "fn f(1) { }",
        "fn (x) { }",
        "thread { }",
        "thread t { await; }",
        "thread t { x = len a; }",
        "thread t { x = self; }",
        "thread t {\n  x = 1\n  y = 2\n  z = 3\n}",
    ] {
        show(src);
    }
}
