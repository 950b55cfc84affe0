//! Integration tests of the syntax front end: the examples parse, operators
//! bind as docs/LANGUAGE.md says, spans point at the right bytes, every class of
//! syntax error is reported with its message and span, recovery reports
//! independent errors once each, and no input makes the parser panic.

use std::fmt::Write as _;

use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, RngSeed};
use rankcheck_engine::Span;
use rankcheck_instr::ast::{
    BinaryOp, Expr, ExprKind, Item, ItemKind, Module, PlaceKind, PrintArg, Stmt, StmtKind,
};
use rankcheck_instr::parser::MAX_NESTING;
use rankcheck_instr::token::Keyword;
use rankcheck_instr::{parse, Diagnostic};

// ----- Helpers -----

fn parse_ok(source: &str) -> Module {
    match parse(source) {
        Ok(module) => module,
        Err(diagnostics) => panic!(
            "unexpected diagnostics for {source:?}:\n{}",
            render_all(source, &diagnostics)
        ),
    }
}

fn parse_err(source: &str) -> Vec<Diagnostic> {
    match parse(source) {
        Ok(module) => panic!("expected diagnostics for {source:?}, parsed {module:?}"),
        Err(diagnostics) => diagnostics,
    }
}

/// 1-based line and column (in characters) of a byte offset.
fn line_col(source: &str, offset: u32) -> (usize, usize) {
    let before = &source[..offset as usize];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |at| at + 1);
    (line, before[line_start..].chars().count() + 1)
}

/// `line:column: message`, one line per diagnostic.
fn render_all(source: &str, diagnostics: &[Diagnostic]) -> String {
    let mut out = String::new();
    for diagnostic in diagnostics {
        let (line, column) = line_col(source, diagnostic.span.start);
        let _ = writeln!(out, "{line}:{column}: {}", diagnostic.message);
    }
    out
}

fn errors(source: &str) -> String {
    render_all(source, &parse_err(source))
}

/// The only diagnostic for `source`, and the text under its span.
fn single_error(source: &str) -> (Diagnostic, &str) {
    let diagnostics = parse_err(source);
    assert_eq!(
        diagnostics.len(),
        1,
        "expected one diagnostic for {source:?}, got:\n{}",
        render_all(source, &diagnostics)
    );
    let diagnostic = diagnostics.into_iter().next().expect("one diagnostic");
    let text = &source[diagnostic.span.range()];
    (diagnostic, text)
}

fn text(source: &str, span: Span) -> &str {
    &source[span.range()]
}

/// An expression in fully parenthesised prefix form: `(- (- 1 2) 3)`.
fn show(expr: &Expr) -> String {
    let list = |head: &str, parts: Vec<String>| {
        let mut out = format!("({head}");
        for part in parts {
            out.push(' ');
            out.push_str(&part);
        }
        out.push(')');
        out
    };
    match &expr.kind {
        ExprKind::Int(value) => value.to_string(),
        ExprKind::Bool(value) => value.to_string(),
        ExprKind::Null => "null".to_string(),
        ExprKind::Name(name) => name.name.clone(),
        ExprKind::Field { base, field } => list(".", vec![show(base), field.name.clone()]),
        ExprKind::Index { base, index } => list("[]", vec![show(base), show(index)]),
        ExprKind::Call { callee, args } => list(&callee.name, args.iter().map(show).collect()),
        ExprKind::Unary { op, operand, .. } => list(op.as_str(), vec![show(operand)]),
        ExprKind::Binary { op, lhs, rhs, .. } => list(op.as_str(), vec![show(lhs), show(rhs)]),
        ExprKind::NewRecord(fields) => list(
            "record",
            fields
                .iter()
                .map(|field| format!("{}:{}", field.name.name, show(&field.value)))
                .collect(),
        ),
        ExprKind::NewArray { len, init } => {
            let mut parts = vec![show(len)];
            parts.extend(init.iter().map(|init| show(init)));
            list("array", parts)
        }
        ExprKind::NewMutex => "(new mutex)".to_string(),
        ExprKind::NewCond => "(new cond)".to_string(),
        ExprKind::Len(array) => list("len", vec![show(array)]),
        ExprKind::Spawn { callee, args } => list(
            "spawn",
            std::iter::once(callee.name.clone())
                .chain(args.iter().map(show))
                .collect(),
        ),
        ExprKind::SelfId => "(self)".to_string(),
    }
}

/// The value of `const X = {source};`.
fn const_value(module: &Module) -> &Expr {
    match &module.items[0].kind {
        ItemKind::Const(item) => &item.value,
        other => panic!("expected a const item, got {other:?}"),
    }
}

fn expr(source: &str) -> String {
    show(const_value(&parse_ok(&format!("const X = {source};"))))
}

/// The statements of the first item, a thread.
fn body(module: &Module) -> &[Stmt] {
    match &module.items[0].kind {
        ItemKind::Thread(thread) => &thread.body.stmts,
        ItemKind::Fn(function) => &function.body.stmts,
        other => panic!("expected a thread or fn, got {other:?}"),
    }
}

/// Every span in a diagnostic lies in the source, on character boundaries,
/// so the renderer can slice the source with it.
fn assert_spans_valid(source: &str, diagnostics: &[Diagnostic]) {
    let spans = diagnostics.iter().flat_map(|diagnostic| {
        std::iter::once(diagnostic.span).chain(diagnostic.related.iter().map(|(span, _)| *span))
    });
    for span in spans {
        assert!(span.start <= span.end, "reversed span {span}");
        assert!(
            source.get(span.range()).is_some(),
            "span {span} is outside {source:?} or splits a character"
        );
    }
}

// ----- The examples -----

#[test]
fn every_example_parses_without_diagnostics() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .expect("examples directory")
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "rk"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 13, "found only {} examples", paths.len());
    for path in paths {
        let source = std::fs::read_to_string(&path).expect("readable example");
        if let Err(diagnostics) = parse(&source) {
            panic!("{}:\n{}", path.display(), render_all(&source, &diagnostics));
        }
    }
}

#[test]
fn an_example_has_the_expected_shape() {
    let source = include_str!("../../examples/fig12_allocation_vector.rk");
    let module = parse_ok(source);
    let kinds: Vec<&str> = module
        .items
        .iter()
        .map(|item| match &item.kind {
            ItemKind::Const(_) => "const",
            ItemKind::Global(_) => "global",
            ItemKind::Mutex(_) => "mutex",
            ItemKind::Cond(_) => "cond",
            ItemKind::Fn(_) => "fn",
            ItemKind::Thread(_) => "thread",
        })
        .collect();
    assert_eq!(
        kinds,
        ["const", "global", "mutex", "fn", "fn", "fn", "fn", "thread"]
    );
    let ItemKind::Global(blocks) = &module.items[1].kind else {
        panic!("expected the global");
    };
    assert_eq!(blocks.name.name, "blocks");
    assert_eq!(
        blocks.array_len.as_ref().map(show).as_deref(),
        Some("BLOCKS")
    );
    assert!(blocks.init.is_none());
    let ItemKind::Thread(worker) = &module.items[7].kind else {
        panic!("expected the thread");
    };
    let replication = worker.replication.as_ref().expect("replicated");
    assert_eq!(show(&replication.count), "2");
    assert_eq!(replication.index.name, "i");
    assert_eq!(worker.body.stmts.len(), 4);
}

// ----- Precedence and associativity -----

#[test]
fn binary_operators_are_left_associative() {
    assert_eq!(expr("1 - 2 - 3"), "(- (- 1 2) 3)");
    assert_eq!(expr("8 / 4 / 2"), "(/ (/ 8 4) 2)");
    assert_eq!(expr("a == b != c"), "(!= (== a b) c)");
    assert_eq!(expr("a < b < c"), "(< (< a b) c)");
    assert_eq!(expr("a || b || c"), "(|| (|| a b) c)");
    assert_eq!(expr("a && b && c"), "(&& (&& a b) c)");
    assert_eq!(expr("1 - (2 - 3)"), "(- 1 (- 2 3))");
}

#[test]
fn precedence_follows_the_table() {
    assert_eq!(expr("a || b && c"), "(|| a (&& b c))");
    assert_eq!(expr("a && b || c && d"), "(|| (&& a b) (&& c d))");
    assert_eq!(expr("-a * b"), "(* (- a) b)");
    assert_eq!(expr("!x == y"), "(== (! x) y)");
    assert_eq!(expr("1 + 2 * 3 % 4 / 5"), "(+ 1 (/ (% (* 2 3) 4) 5))");
    assert_eq!(expr("a - b * c + d"), "(+ (- a (* b c)) d)");
    // Comparison binds tighter than equality: two levels, as listed.
    assert_eq!(expr("a < b == c > d"), "(== (< a b) (> c d))");
    assert_eq!(expr("a == b < c"), "(== a (< b c))");
    assert_eq!(expr("a + 1 <= b && c != d"), "(&& (<= (+ a 1) b) (!= c d))");
    assert_eq!(expr("(a || b) && c"), "(&& (|| a b) c)");
}

#[test]
fn unary_and_postfix_bind_tightest() {
    assert_eq!(expr("- -a"), "(- (- a))");
    assert_eq!(expr("!!a"), "(! (! a))");
    assert_eq!(expr("-a.b[c]"), "(- ([] (. a b) c))");
    assert_eq!(expr("!f(x)"), "(! (f x))");
    assert_eq!(expr("1 -1"), "(- 1 1)");
    assert_eq!(expr("f(a, b + 1)[0].x"), "(. ([] (f a (+ b 1)) 0) x)");
    assert_eq!(expr("p.next.next"), "(. (. p next) next)");
    assert_eq!(expr("a[i][j]"), "([] ([] a i) j)");
}

#[test]
fn built_in_expressions() {
    assert_eq!(
        expr("new { val: v, next: null }"),
        "(record val:v next:null)"
    );
    assert_eq!(expr("new {}"), "(record)");
    assert_eq!(expr("new { a: 1, }"), "(record a:1)");
    assert_eq!(expr("new [n]"), "(array n)");
    // The initialiser extends as far right as an expression can.
    assert_eq!(expr("new [n] = a + b"), "(array n (+ a b))");
    assert_eq!(expr("new [2] = new [3] = 0"), "(array 2 (array 3 0))");
    assert_eq!(expr("new mutex"), "(new mutex)");
    assert_eq!(expr("new cond"), "(new cond)");
    assert_eq!(expr("len(a) - 1"), "(- (len a) 1)");
    assert_eq!(expr("spawn f(1, x)"), "(spawn f 1 x)");
    assert_eq!(expr("spawn g()"), "(spawn g)");
    assert_eq!(expr("self() == 0"), "(== (self) 0)");
    assert_eq!(expr("f(a, b,)"), "(f a b)");
    assert_eq!(
        expr("true && !false || null == x"),
        "(|| (&& true (! false)) (== null x))"
    );
}

#[test]
fn integer_literals_span_the_i64_range() {
    assert_eq!(expr("9223372036854775807"), "9223372036854775807");
    assert_eq!(expr("-9223372036854775808"), "-9223372036854775808");
    assert_eq!(
        expr("-9223372036854775808 * 2"),
        "(* -9223372036854775808 2)"
    );
    assert_eq!(expr("-5"), "(- 5)");
    assert_eq!(expr("007"), "7");
}

// ----- Statements -----

#[test]
fn every_statement_kind_parses() {
    let source = r#"
fn f(p, q) {
    let x = 1;
    x = 2;
    p.f = 3;
    q[x] = 4;
    if x { } else if p { } else if q { } else { x = 0; }
    while x < 3 { x = x + 1; }
    for i in 0..x { break; continue; }
    return;
    return x;
    assert(x);
    assert(x == 1, "x is \"one\"");
    lock(m);
    unlock(m);
    sync m { yield; }
    wait(c, m);
    signal(c);
    broadcast(c);
    await x == 1;
    atomic { x = 1; }
    yield;
    join(h);
    print("x =", x, p.f);
    print();
    g(x);
    spawn g(1);
}
"#;
    let module = parse_ok(source);
    let names: Vec<&str> = body(&module)
        .iter()
        .map(|stmt| match &stmt.kind {
            StmtKind::Let { .. } => "let",
            StmtKind::Assign { target, .. } => match target.kind {
                PlaceKind::Name(_) => "assign name",
                PlaceKind::Field { .. } => "assign field",
                PlaceKind::Index { .. } => "assign index",
            },
            StmtKind::If { .. } => "if",
            StmtKind::While { .. } => "while",
            StmtKind::For { .. } => "for",
            StmtKind::Break => "break",
            StmtKind::Continue => "continue",
            StmtKind::Return(None) => "return",
            StmtKind::Return(Some(_)) => "return value",
            StmtKind::Assert { message: None, .. } => "assert",
            StmtKind::Assert {
                message: Some(_), ..
            } => "assert message",
            StmtKind::Lock(_) => "lock",
            StmtKind::Unlock(_) => "unlock",
            StmtKind::Sync { .. } => "sync",
            StmtKind::Wait { .. } => "wait",
            StmtKind::Signal(_) => "signal",
            StmtKind::Broadcast(_) => "broadcast",
            StmtKind::Await(_) => "await",
            StmtKind::Atomic(_) => "atomic",
            StmtKind::Yield => "yield",
            StmtKind::Join(_) => "join",
            StmtKind::Print(_) => "print",
            StmtKind::Expr(_) => "expr",
        })
        .collect();
    assert_eq!(
        names,
        [
            "let",
            "assign name",
            "assign field",
            "assign index",
            "if",
            "while",
            "for",
            "return",
            "return value",
            "assert",
            "assert message",
            "lock",
            "unlock",
            "sync",
            "wait",
            "signal",
            "broadcast",
            "await",
            "atomic",
            "yield",
            "join",
            "print",
            "print",
            "expr",
            "expr",
        ]
    );
    let stmts = body(&module);
    let StmtKind::If { arms, else_block } = &stmts[4].kind else {
        panic!("expected if");
    };
    assert_eq!(arms.len(), 3);
    assert_eq!(else_block.as_ref().map(|block| block.stmts.len()), Some(1));
    let StmtKind::Assert {
        message: Some(message),
        ..
    } = &stmts[10].kind
    else {
        panic!("expected assert with message");
    };
    assert_eq!(message.value, "x is \"one\"");
    let StmtKind::Print(args) = &stmts[21].kind else {
        panic!("expected print");
    };
    assert!(matches!(&args[0], PrintArg::Str(text) if text.value == "x ="));
    assert!(matches!(&args[1], PrintArg::Expr(_)));
    let StmtKind::Wait { cond, mutex } = &stmts[14].kind else {
        panic!("expected wait");
    };
    assert_eq!((show(cond).as_str(), show(mutex).as_str()), ("c", "m"));
    let StmtKind::For {
        var, start, end, ..
    } = &stmts[6].kind
    else {
        panic!("expected for");
    };
    assert_eq!(
        (var.name.as_str(), show(start).as_str(), show(end).as_str()),
        ("i", "0", "x")
    );
}

#[test]
fn every_item_kind_parses() {
    let module = parse_ok(
        "const N = 2 * 3;\nconst M = -1;\nglobal a;\nglobal b = true;\nglobal c[N];\n\
         global d[4] = null;\nmutex m;\ncond c2;\nfn f() { }\nthread t { }\nthread u[N](k) { }\n",
    );
    let shapes: Vec<String> = module
        .items
        .iter()
        .map(|item| match &item.kind {
            ItemKind::Const(item) => format!("const {} {}", item.name.name, show(&item.value)),
            ItemKind::Global(item) => format!(
                "global {} {:?} {:?}",
                item.name.name,
                item.array_len.as_ref().map(show),
                item.init.as_ref().map(show)
            ),
            ItemKind::Mutex(name) => format!("mutex {}", name.name),
            ItemKind::Cond(name) => format!("cond {}", name.name),
            ItemKind::Fn(item) => format!("fn {} {}", item.name.name, item.params.len()),
            ItemKind::Thread(item) => format!(
                "thread {} {:?}",
                item.name.name,
                item.replication
                    .as_ref()
                    .map(|r| (show(&r.count), r.index.name.clone()))
            ),
        })
        .collect();
    assert_eq!(
        shapes,
        [
            "const N (* 2 3)",
            "const M (- 1)",
            "global a None None",
            "global b None Some(\"true\")",
            "global c Some(\"N\") None",
            "global d Some(\"4\") Some(\"null\")",
            "mutex m",
            "cond c2",
            "fn f 0",
            "thread t None",
            "thread u Some((\"N\", \"k\"))",
        ]
    );
}

#[test]
fn an_empty_file_is_an_empty_module() {
    assert!(parse_ok("").items.is_empty());
    assert!(parse_ok("// only a comment\n/* and another */")
        .items
        .is_empty());
}

// ----- Spans -----

#[test]
fn expression_spans_cover_their_source() {
    let source = "const X = (a + b) * c.f[i];";
    let module = parse_ok(source);
    let value = const_value(&module);
    assert_eq!(text(source, value.span), "(a + b) * c.f[i]");
    let ExprKind::Binary {
        op,
        op_span,
        lhs,
        rhs,
    } = &value.kind
    else {
        panic!("expected a binary expression");
    };
    assert_eq!(*op, BinaryOp::Mul);
    assert_eq!(text(source, *op_span), "*");
    // Parentheses belong to the span of what they enclose.
    assert_eq!(text(source, lhs.span), "(a + b)");
    assert_eq!(text(source, rhs.span), "c.f[i]");
    let ExprKind::Index { base, index } = &rhs.kind else {
        panic!("expected an index expression");
    };
    assert_eq!(text(source, base.span), "c.f");
    assert_eq!(text(source, index.span), "i");
    let ExprKind::Field { field, .. } = &base.kind else {
        panic!("expected a field expression");
    };
    assert_eq!(text(source, field.span), "f");
    let ExprKind::Binary { lhs: a, .. } = &lhs.kind else {
        panic!("expected a binary expression");
    };
    let ExprKind::Name(name) = &a.kind else {
        panic!("expected a name");
    };
    assert_eq!((name.name.as_str(), text(source, name.span)), ("a", "a"));
}

#[test]
fn statement_and_item_spans_cover_their_source() {
    let source = "thread t {\n    let x = -1;\n    if x { x = 2; } else { f(x); }\n    \
                  p.f = new { a: 1 };\n    assert(x, \"m\");\n}\nmutex m;\n";
    let module = parse_ok(source);
    let items: Vec<&str> = module
        .items
        .iter()
        .map(|item: &Item| text(source, item.span))
        .collect();
    assert_eq!(items[1], "mutex m;");
    assert!(items[0].starts_with("thread t {") && items[0].ends_with('}'));
    let stmts = body(&module);
    let texts: Vec<&str> = stmts.iter().map(|stmt| text(source, stmt.span)).collect();
    assert_eq!(
        texts,
        [
            "let x = -1;",
            "if x { x = 2; } else { f(x); }",
            "p.f = new { a: 1 };",
            "assert(x, \"m\");",
        ]
    );
    let StmtKind::If { arms, else_block } = &stmts[1].kind else {
        panic!("expected if");
    };
    assert_eq!(text(source, arms[0].span), "if x { x = 2; }");
    assert_eq!(text(source, arms[0].body.span), "{ x = 2; }");
    assert_eq!(
        else_block.as_ref().map(|block| text(source, block.span)),
        Some("{ f(x); }")
    );
    let StmtKind::Assign { target, value } = &stmts[2].kind else {
        panic!("expected assignment");
    };
    assert_eq!(text(source, target.span), "p.f");
    assert_eq!(text(source, value.span), "new { a: 1 }");
    let StmtKind::Assert {
        message: Some(message),
        ..
    } = &stmts[3].kind
    else {
        panic!("expected assert");
    };
    assert_eq!(text(source, message.span), "\"m\"");
    assert_eq!(module.span.range(), 0..source.len());
}

// ----- Recovery: several errors, each once -----

#[test]
fn independent_errors_are_each_reported_once_with_their_line() {
    let source = "\
global a = ;
thread t {
    let x = 1
    y = x;
    while x < { y = 2; }
    z = 3;
}
fn f(a b) { return a; }
thread u { assert(x y); lock(m) }
mutex m
cond c;
";
    insta::assert_snapshot!(errors(source), @r"
    1:12: expected expression, found ';'
    3:14: expected ';' after statement, found 'y'
    5:15: expected expression, found '{'
    8:8: expected ',' or ')' after parameter, found 'b'
    9:21: expected ',' or ')' after argument, found 'y'
    9:33: expected ';' after statement, found '}'
    10:8: expected ';' after mutex declaration, found 'cond'
    ");
}

#[test]
fn a_missing_brace_before_the_next_item_is_one_error() {
    let source = "\
thread t {
    if x {
        y = 1;
}
fn f() {
    let = 2;
}
";
    let diagnostics = parse_err(source);
    insta::assert_snapshot!(render_all(source, &diagnostics), @r"
    4:2: expected '}' to close the block, found 'fn'
    6:9: expected variable name after 'let', found '='
    ");
    // The `}` on line 4 closes the `if`, so the thread's block is unclosed.
    let related: Vec<(std::ops::Range<usize>, &str)> = diagnostics[0]
        .related
        .iter()
        .map(|(span, label)| (span.range(), label.as_str()))
        .collect();
    assert_eq!(related, [(9..10, "unclosed '{'")]);
}

#[test]
fn a_missing_brace_at_the_end_of_file_is_one_error() {
    let source = "thread t {\n    while x {\n        y = 1;\n";
    let (diagnostic, under) = single_error(source);
    assert_eq!(
        diagnostic.message,
        "expected '}' to close the block, found end of file"
    );
    // The caret goes right after the last token.
    assert_eq!(diagnostic.span.range(), 39..39);
    assert_eq!(under, "");
    assert_eq!(diagnostic.related.len(), 2);
}

#[test]
fn each_declaration_inside_a_block_is_one_error() {
    let source = "thread t {\n    mutex m;\n    fn g() { x = 1; }\n    x = 2;\n}\nthread u { }\n";
    insta::assert_snapshot!(errors(source), @r"
    2:5: expected statement, found 'mutex'
    3:5: expected statement, found 'fn'
    ");
    let diagnostics = parse_err(source);
    assert!(diagnostics[0].notes[0].contains("only at the top level"));
}

#[test]
fn junk_between_items_is_one_error() {
    let source = "global a;\nx = 1; y = 2;\n}\nglobal b;\n";
    let (diagnostic, under) = single_error(source);
    assert_eq!(
        diagnostic.message,
        "expected item (const, global, mutex, cond, fn or thread), found 'x'"
    );
    assert_eq!(under, "x");
}

#[test]
fn a_bad_list_recovers_at_its_closer() {
    // The record, the call and the index each recover at their own closer,
    // so the statement and the rest of the thread parse.
    let source = "thread t {\n    let p = new { a: 1 b: 2 };\n    f(1 2);\n    q = a[1 2];\n}\n";
    insta::assert_snapshot!(errors(source), @r"
    2:24: expected ',' or '}' after field, found 'b'
    3:9: expected ',' or ')' after argument, found '2'
    4:13: expected ']', found '2'
    ");
}

#[test]
fn an_unknown_character_is_reported_once() {
    let source = "thread t {\n    x = 1 # 2;\n    y = @;\n    z = 3;\n}\n";
    insta::assert_snapshot!(errors(source), @r"
    2:11: unexpected character '#'
    3:9: unexpected character '@'
    ");
}

#[test]
fn an_unterminated_string_does_not_cascade() {
    let source = "thread t {\n    assert(x, \"oops);\n    y = 1;\n}\n";
    let (diagnostic, under) = single_error(source);
    assert_eq!(diagnostic.message, "unterminated string literal");
    assert_eq!(under, "\"oops");
}

#[test]
fn an_unterminated_string_without_a_parenthesis_does_not_cascade() {
    let source = "thread t {\n    print(\"oops\n    y = 1;\n}\n";
    let (diagnostic, under) = single_error(source);
    assert_eq!(diagnostic.message, "unterminated string literal");
    assert_eq!(under, "\"oops");
}

#[test]
fn a_byte_order_mark_is_skipped() {
    let source = "\u{feff}thread t { x = ; }";
    let (diagnostic, under) = single_error(source);
    assert_eq!(diagnostic.message, "expected expression, found ';'");
    // Spans still count the mark's three bytes.
    assert_eq!(diagnostic.span.range(), 18..19);
    assert_eq!(under, ";");
}

// ----- Each diagnostic class: message and span -----

#[test]
fn missing_semicolon_points_after_the_statement() {
    let source = "thread t {\n    x = 1\n    y = 2;\n}";
    let (diagnostic, under) = single_error(source);
    assert_eq!(
        diagnostic.message,
        "expected ';' after statement, found 'y'"
    );
    assert!(diagnostic
        .message
        .starts_with("expected ';' after statement"));
    assert_eq!(diagnostic.span.range(), 20..20);
    assert_eq!(under, "");
    assert_eq!(line_col(source, diagnostic.span.start), (2, 10));
    // On the same line, the caret is on the unexpected token.
    let source = "thread t { x = 1 y = 2; }";
    let (diagnostic, under) = single_error(source);
    assert_eq!(
        diagnostic.message,
        "expected ';' after statement, found 'y'"
    );
    assert_eq!(under, "y");
}

#[test]
fn missing_expression() {
    let (diagnostic, under) = single_error("thread t { x = 1 + ; }");
    assert_eq!(diagnostic.message, "expected expression, found ';'");
    assert_eq!(under, ";");
    let (diagnostic, under) = single_error("thread t { f(x, }");
    assert_eq!(diagnostic.message, "expected expression, found '}'");
    assert_eq!(under, "}");
    let (diagnostic, _) = single_error("thread t { x = lock(m); }");
    assert_eq!(diagnostic.message, "expected expression, found 'lock'");
    assert_eq!(
        diagnostic.notes,
        ["'lock' begins a statement, which has no value"]
    );
}

#[test]
fn missing_item() {
    let (diagnostic, under) = single_error("let x = 1;");
    assert_eq!(
        diagnostic.message,
        "expected item (const, global, mutex, cond, fn or thread), found 'let'"
    );
    assert_eq!(under, "let");
    let (diagnostic, under) = single_error("thread t { } }");
    assert!(diagnostic.message.ends_with("found '}'"));
    assert_eq!(under, "}");
}

#[test]
fn missing_statement() {
    let (diagnostic, under) = single_error("thread t { ) }");
    assert_eq!(diagnostic.message, "expected statement, found ')'");
    assert_eq!(under, ")");
    let (diagnostic, _) = single_error("thread t { else { } }");
    assert_eq!(diagnostic.message, "expected statement, found 'else'");
    assert_eq!(
        diagnostic.notes,
        ["an 'else' must follow the '}' of an 'if' block"]
    );
    // A bare block is not a statement in this language.
    let (diagnostic, under) = single_error("thread t { { x = 1; } y = 2; }");
    assert_eq!(diagnostic.message, "expected statement, found '{'");
    assert_eq!(under, "{");
}

#[test]
fn keywords_are_not_names() {
    let (diagnostic, under) = single_error("thread t { let lock = 1; }");
    assert_eq!(
        diagnostic.message,
        "expected variable name after 'let', found 'lock'"
    );
    assert_eq!(under, "lock");
    assert_eq!(
        diagnostic.notes,
        ["'lock' is a keyword and cannot be used as a name"]
    );
    let (diagnostic, _) = single_error("fn self() { }");
    assert_eq!(
        diagnostic.message,
        "expected function name after 'fn', found 'self'"
    );
    let (diagnostic, _) = single_error("thread t { x = p.; }");
    assert_eq!(
        diagnostic.message,
        "expected field name after '.', found ';'"
    );
}

/// C's compound assignments, `++` and `--`, and fractions are not in the
/// language: the error says so.
#[test]
fn c_operators_and_fractions_are_explained() {
    for (statement, op) in [
        ("x++;", "+"),
        ("x--;", "-"),
        ("x += 1;", "+"),
        ("x *= 2;", "*"),
    ] {
        let source = format!("thread t {{ {statement} }}");
        let (diagnostic, _) = single_error(&source);
        assert_eq!(
            diagnostic.notes,
            [format!(
                "there is no '{op}=', '++' or '--': assign the result, 'x = x {op} y'"
            )],
            "{source}"
        );
    }
    // A space between the operators, or `==` before `=`, is another mistake.
    let (diagnostic, _) = single_error("thread t { x = 1 + + 2; }");
    assert!(diagnostic.notes.is_empty(), "{diagnostic:?}");
    let (diagnostic, _) = single_error("thread t { y = x === 1; }");
    assert!(diagnostic.notes.is_empty(), "{diagnostic:?}");
    let (diagnostic, under) = single_error("thread t { x = 1.5; }");
    assert_eq!(
        diagnostic.message,
        "expected field name after '.', found '5'"
    );
    assert_eq!(under, "5");
    assert_eq!(
        diagnostic.notes,
        ["there are no fractions: every number is a 64-bit integer"]
    );
}

/// A `;` alone is an empty statement, as in C and Rust: `;;` and `};`
/// after a block parse, to nothing; at the top level it is no item.
#[test]
fn a_lone_semicolon_is_an_empty_statement() {
    let module = parse_ok("thread t { ; x = 1;; sync m { }; atomic { ; } ; }");
    let stmts = body(&module);
    assert_eq!(stmts.len(), 3, "{stmts:?}");
    assert!(matches!(stmts[0].kind, StmtKind::Assign { .. }));
    assert!(matches!(stmts[1].kind, StmtKind::Sync { .. }));
    let StmtKind::Atomic(block) = &stmts[2].kind else {
        panic!("an atomic block: {stmts:?}");
    };
    assert!(block.stmts.is_empty());
    let (diagnostic, _) = single_error("thread t { };");
    assert_eq!(
        diagnostic.message,
        "expected item (const, global, mutex, cond, fn or thread), found ';'"
    );
}

/// A field name stands only after `.` or before `:` in a record literal,
/// where a keyword cannot mean anything else: every keyword may name a
/// field (`p.lock`, `new { len: 0 }`).
#[test]
fn any_keyword_can_name_a_field() {
    for keyword in Keyword::ALL {
        let source =
            format!("thread t {{ let r = new {{ {keyword}: 1 }}; r.{keyword} = r.{keyword}; }}");
        let module = parse_ok(&source);
        let stmts = body(&module);
        let StmtKind::Let { value, .. } = &stmts[0].kind else {
            panic!("a let: {source}");
        };
        let ExprKind::NewRecord(fields) = &value.kind else {
            panic!("a record: {source}");
        };
        assert_eq!(fields[0].name.name, keyword.as_str());
        let StmtKind::Assign { target, value } = &stmts[1].kind else {
            panic!("an assignment: {source}");
        };
        let PlaceKind::Field { field, .. } = &target.kind else {
            panic!("a field store: {source}");
        };
        assert_eq!(field.name, keyword.as_str());
        let ExprKind::Field { field, .. } = &value.kind else {
            panic!("a field read: {source}");
        };
        assert_eq!(field.name, keyword.as_str());
    }
}

#[test]
fn no_keyword_can_be_a_name() {
    for keyword in Keyword::ALL {
        let source = format!("thread t {{ let {keyword} = 1; }}");
        let (diagnostic, under) = single_error(&source);
        assert_eq!(
            diagnostic.message,
            format!("expected variable name after 'let', found '{keyword}'")
        );
        assert_eq!(under, keyword.as_str());
        assert_eq!(
            diagnostic.notes,
            [format!(
                "'{keyword}' is a keyword and cannot be used as a name"
            )]
        );
    }
}

#[test]
fn missing_block_and_missing_header_parts() {
    let (diagnostic, under) = single_error("thread t { if x = 1 { } }");
    assert_eq!(
        diagnostic.message,
        "expected '{' after the if condition, found '='"
    );
    assert_eq!(under, "=");
    assert_eq!(diagnostic.notes, ["to compare two values, use '=='"]);
    let (diagnostic, _) = single_error("thread t { for i 0..3 { } }");
    assert_eq!(
        diagnostic.message,
        "expected 'in' after the loop variable, found '0'"
    );
    let (diagnostic, _) = single_error("thread t[2] { }");
    assert_eq!(
        diagnostic.message,
        "expected '(' after the number of copies, found '{'"
    );
    let (diagnostic, _) = single_error("const N;");
    assert_eq!(
        diagnostic.message,
        "expected '=' after the constant name, found ';'"
    );
    let (diagnostic, _) = single_error("thread t { x = new 5; }");
    assert_eq!(
        diagnostic.message,
        "expected '{', '[', 'mutex' or 'cond' after 'new', found '5'"
    );
    let (diagnostic, _) = single_error("thread t { if x { } else y = 1; }");
    assert_eq!(
        diagnostic.message,
        "expected '{' or 'if' after 'else', found 'y'"
    );
    let (diagnostic, _) = single_error("thread t { sync m x = 1; }");
    assert_eq!(
        diagnostic.message,
        "expected '{' after the mutex, found 'x'"
    );
}

#[test]
fn unclosed_parenthesis_names_the_opener() {
    let source = "thread t { x = (a + b; }";
    let (diagnostic, under) = single_error(source);
    assert_eq!(diagnostic.message, "expected ')', found ';'");
    assert_eq!(under, ";");
    assert_eq!(diagnostic.related.len(), 1);
    assert_eq!(text(source, diagnostic.related[0].0), "(");
    assert_eq!(diagnostic.related[0].1, "unclosed '('");
}

#[test]
fn integer_literal_too_large() {
    // 2^63 is rejected by the parser: it fits only when negated.
    let source = "const X = 9223372036854775808;";
    let (diagnostic, under) = single_error(source);
    assert_eq!(diagnostic.message, "integer literal is too large");
    assert_eq!(under, "9223372036854775808");
    // A larger literal is rejected by the lexer.
    let source = "const X = 1 + 99999999999999999999;";
    let (diagnostic, under) = single_error(source);
    assert_eq!(diagnostic.message, "integer literal is too large");
    assert_eq!(under, "99999999999999999999");
    let (diagnostic, _) = single_error("const X = -(9223372036854775808);");
    assert_eq!(diagnostic.message, "integer literal is too large");
}

#[test]
fn lexical_errors() {
    let (diagnostic, under) = single_error("thread t { /* never closed }");
    assert_eq!(diagnostic.message, "unterminated block comment");
    assert_eq!(under, "/*");
    let (diagnostic, under) = single_error("thread t { print(\"a\\qb\"); }");
    assert_eq!(diagnostic.message, "unknown escape sequence '\\q'");
    assert_eq!(under, "\\q");
    let (diagnostic, under) = single_error("thread t { x = a & b; }");
    assert_eq!(diagnostic.message, "unexpected character '&'");
    assert_eq!(under, "&");
    assert_eq!(diagnostic.notes, ["logical and is written '&&'"]);
    let (diagnostic, under) = single_error("const X = 12ab;");
    assert_eq!(diagnostic.message, "invalid suffix 'ab' on integer literal");
    assert_eq!(under, "12ab");
}

#[test]
fn string_literals_only_as_messages() {
    let (diagnostic, under) = single_error("thread t { let s = \"text\"; }");
    assert_eq!(
        diagnostic.message,
        "expected expression, found string literal"
    );
    assert_eq!(under, "\"text\"");
    let (diagnostic, under) = single_error("thread t { f(\"a\"); }");
    assert_eq!(
        diagnostic.message,
        "expected expression, found string literal"
    );
    assert_eq!(under, "\"a\"");
    let (diagnostic, under) = single_error("thread t { assert(\"a\"); }");
    assert_eq!(
        diagnostic.message,
        "expected expression, found string literal"
    );
    assert_eq!(under, "\"a\"");
    let (diagnostic, under) = single_error("thread t { assert(x, y); }");
    assert_eq!(
        diagnostic.message,
        "expected a string literal as the assertion message"
    );
    assert_eq!(under, "y");
    // In print, a string may stand anywhere among the arguments.
    parse_ok("thread t { print(\"a\", 1, \"b\"); }");
}

#[test]
fn duplicate_record_fields_and_parameters() {
    let source = "thread t { p = new { a: 1, b: 2, a: 3 }; }";
    let (diagnostic, under) = single_error(source);
    assert_eq!(diagnostic.message, "duplicate field `a` in record literal");
    assert_eq!(diagnostic.span.range(), 33..34);
    assert_eq!(under, "a");
    assert_eq!(diagnostic.related[0].0.range(), 21..22);
    assert_eq!(diagnostic.related[0].1, "first given here");
    let source = "fn f(x, y, x) { }";
    let (diagnostic, _) = single_error(source);
    assert_eq!(diagnostic.message, "duplicate parameter `x`");
    assert_eq!(diagnostic.span.range(), 11..12);
    assert_eq!(diagnostic.related[0].0.range(), 5..6);
}

#[test]
fn wrong_number_of_built_in_arguments() {
    let (diagnostic, under) = single_error("thread t { lock(a, b); }");
    assert_eq!(diagnostic.message, "expected 1 argument to 'lock', found 2");
    assert_eq!(under, "(a, b)");
    assert_eq!(diagnostic.label.as_deref(), Some("'lock' takes a mutex"));
    let (diagnostic, _) = single_error("thread t { wait(c); }");
    assert_eq!(
        diagnostic.message,
        "expected 2 arguments to 'wait', found 1"
    );
    let (diagnostic, _) = single_error("thread t { x = self(1); }");
    assert_eq!(
        diagnostic.message,
        "expected no arguments to 'self', found 1"
    );
    let (diagnostic, _) = single_error("thread t { x = len(); }");
    assert_eq!(diagnostic.message, "expected 1 argument to 'len', found 0");
    let (diagnostic, under) = single_error("thread t { assert(); }");
    assert_eq!(
        diagnostic.message,
        "expected 1 or 2 arguments to 'assert', found 0"
    );
    assert_eq!(under, "()");
    let (diagnostic, _) = single_error("thread t { join h; }");
    assert_eq!(diagnostic.message, "expected '(' after 'join', found 'h'");
}

#[test]
fn only_names_can_be_called_or_assigned() {
    let (diagnostic, under) = single_error("thread t { x = p.f(1); }");
    assert_eq!(diagnostic.message, "expected a function name before '('");
    assert_eq!(under, "p.f");
    let (diagnostic, under) = single_error("thread t { (f)(1); }");
    assert_eq!(diagnostic.message, "expected a function name before '('");
    assert_eq!(under, "(f)");
    let (diagnostic, under) = single_error("thread t { f(x) = 1; }");
    assert_eq!(
        diagnostic.message,
        "expected a variable, field or array element on the left of '='"
    );
    assert_eq!(under, "f(x)");
    // A parenthesised name is still a name.
    parse_ok("thread t { (x) = 1; }");
}

// ----- Nesting limits: diagnostics, not stack overflows -----

#[test]
fn deep_nesting_is_one_diagnostic() {
    let deep = 100_000;
    let cases = [
        format!("const X = {}1{};", "(".repeat(deep), ")".repeat(deep)),
        format!("const X = {}1;", "-".repeat(deep)),
        format!("const X = {}x;", "! ".repeat(deep)),
        format!("const X = a{};", ".f".repeat(deep)),
        format!("const X = a{};", "[0]".repeat(deep)),
        format!("const X = 1{};", " + 1".repeat(deep)),
        format!("const X = {}0;", "new [1] = ".repeat(deep)),
        format!("const X = {}x{};", "f(".repeat(deep), ")".repeat(deep)),
        format!(
            "thread t {{ {} x = 1; {} }}",
            "if x { ".repeat(deep),
            "} ".repeat(deep)
        ),
        format!(
            "thread t {{ {} x = 1; {} }}",
            "while x { ".repeat(deep),
            "} ".repeat(deep)
        ),
    ];
    for source in &cases {
        let diagnostics = parse_err(source);
        let prefix: String = source.chars().take(30).collect();
        assert_eq!(
            diagnostics.len(),
            1,
            "{prefix}...:\n{}",
            render_all(source, &diagnostics)
        );
        assert_eq!(
            diagnostics[0].message, "expression or block nested too deeply",
            "{prefix}..."
        );
    }
    // Nesting errors come after an ordinary error, and a later item is
    // still parsed.
    let source = format!(
        "global a = ;\nconst X = {}1{};\nthread t {{ x = ; }}\n",
        "(".repeat(deep),
        ")".repeat(deep)
    );
    let rendered = errors(&source);
    assert_eq!(rendered.lines().count(), 3, "{rendered}");
}

#[test]
fn nesting_up_to_the_limit_parses() {
    // The constant's value is one level, each parenthesis one more.
    let parens =
        |levels: usize| format!("const X = {}1{};", "(".repeat(levels), ")".repeat(levels));
    let limit = MAX_NESTING as usize;
    parse_ok(&parens(limit - 1));
    let source = parens(limit);
    let (diagnostic, _) = single_error(&source);
    assert_eq!(diagnostic.message, "expression or block nested too deeply");
    // The innermost operand, `1`, is one level too deep.
    assert_eq!(diagnostic.span.range(), 10 + limit..11 + limit);
    let levels = limit / 2;
    parse_ok(&format!(
        "thread t {{ {} x = 1; {} }}",
        "if x { ".repeat(levels),
        "} ".repeat(levels)
    ));
    parse_ok(&format!("const X = 1{};", " + 1".repeat(levels)));
}

#[test]
fn long_flat_sequences_do_not_nest() {
    // An `else if` chain is one statement with many arms, and statements
    // and items are lists: none of them count towards the nesting limit.
    let many = 20_000;
    let chain = format!(
        "thread t {{ if x {{ }}{} else {{ }} }}",
        " else if x { }".repeat(many)
    );
    let module = parse_ok(&chain);
    let StmtKind::If { arms, .. } = &body(&module)[0].kind else {
        panic!("expected if");
    };
    assert_eq!(arms.len(), many + 1);
    parse_ok(&format!("thread t {{ {} }}", "x = 1; ".repeat(many)));
    assert_eq!(parse_ok(&"mutex m; ".repeat(many)).items.len(), many);
}

// ----- Robustness -----

/// Inputs are small and the seed is fixed, so a run is reproducible; a
/// failure prints the input that caused it.
fn fuzz_config() -> ProptestConfig {
    ProptestConfig {
        cases: 512,
        rng_seed: RngSeed::Fixed(0x5eed_4a11),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Every token the lexer knows, some near-misses, and some junk.
const VOCABULARY: &[&str] = &[
    "const",
    "global",
    "mutex",
    "cond",
    "fn",
    "thread",
    "let",
    "if",
    "else",
    "while",
    "for",
    "in",
    "break",
    "continue",
    "return",
    "assert",
    "lock",
    "unlock",
    "sync",
    "wait",
    "signal",
    "broadcast",
    "await",
    "atomic",
    "yield",
    "join",
    "print",
    "spawn",
    "new",
    "true",
    "false",
    "null",
    "len",
    "self",
    "x",
    "main",
    "f",
    "0",
    "1",
    "42",
    "9223372036854775808",
    "99999999999999999999",
    "\"s\"",
    "\"unterminated",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ",",
    ";",
    ":",
    ".",
    "..",
    "=",
    "==",
    "!",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    "+",
    "-",
    "*",
    "/",
    "%",
    "&&",
    "||",
    "&",
    "|",
    "#",
    "é",
    "/*",
    "*/",
    "//",
    "\n",
    "\\",
];

fn token_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(
        (
            prop::sample::select(VOCABULARY),
            prop::sample::select(&[" ", "", "\n"][..]),
        ),
        0..80,
    )
    .prop_map(|parts| {
        parts
            .into_iter()
            .map(|(token, gap)| format!("{token}{gap}"))
            .collect()
    })
}

/// An example with one random edit: a byte range deleted, a token inserted.
fn mutated_example() -> impl Strategy<Value = String> {
    let sources: Vec<&'static str> = vec![
        include_str!("../../examples/fig12_allocation_vector.rk"),
        include_str!("../../examples/lost_push.rk"),
        include_str!("../../examples/lost_wakeup.rk"),
        include_str!("../../examples/locked_counter_ok.rk"),
    ];
    (
        prop::sample::select(sources),
        any::<prop::sample::Index>(),
        0usize..12,
        prop::sample::select(VOCABULARY),
    )
        .prop_map(|(source, at, deleted, inserted)| {
            let start = at.index(source.len() + 1);
            let end = (start + deleted).min(source.len());
            let mut edited = String::from_utf8_lossy(&source.as_bytes()[..start]).into_owned();
            edited.push_str(inserted);
            edited.push_str(&String::from_utf8_lossy(&source.as_bytes()[end..]));
            edited
        })
}

fn check_never_panics(source: &str) {
    match parse(source) {
        Ok(module) => assert_eq!(module.span.range(), 0..source.len()),
        Err(diagnostics) => {
            assert!(!diagnostics.is_empty());
            assert_spans_valid(source, &diagnostics);
            assert!(diagnostics
                .iter()
                .all(|diagnostic| !diagnostic.message.is_empty()));
        }
    }
}

proptest! {
    #![proptest_config(fuzz_config())]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        check_never_panics(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn token_soup_never_panics(source in token_soup()) {
        check_never_panics(&source);
    }

    #[test]
    fn edited_examples_never_panic(source in mutated_example()) {
        check_never_panics(&source);
    }
}
