//! The variables a program has (docs/LANGUAGE.md, Variables and tracking):
//! what variable bounding chooses among, and the names reports give them.

use rankcheck_engine::ir::VarKind;
use rankcheck_instr::compile;

/// Each variable's name and kind, in declaration order.
fn variables(source: &str) -> Vec<(String, VarKind)> {
    let program = compile(source, &[]).unwrap_or_else(|e| panic!("{e:?}\n{source}"));
    program
        .vars
        .iter()
        .map(|var| (var.name.clone(), var.kind))
        .collect()
}

/// Every `global` (an array is one), `mutex` and `cond` declaration and
/// every `new` is a variable; a `const` is not, nor is a local. An
/// allocation site is named by its function and line.
#[test]
fn declarations_and_allocation_sites_are_the_variables() {
    let source = "const N = 2;\nglobal g = 0;\nglobal a[N];\nmutex m;\ncond c;\n\
                  fn make() { return new { v: 0 }; }\n\
                  fn main() { let local = make();\n let k = new mutex; let x = make(); }\n";
    let names: Vec<String> = variables(source).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["g", "a", "m", "c", "make:new@6", "main:new@8"]);
}

/// Several `new`s on one line of a function are told apart by their column
/// (in characters, from 1), so that a name picks out one variable.
#[test]
fn allocation_sites_on_one_line_are_named_by_column() {
    let source = "fn main() {\n  let a = new { x: 0 }; let b = new [2];\n  let c = new mutex;\n}\n\
                  fn other() { let d = new cond; }\n";
    let names: Vec<String> = variables(source).into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        [
            "main:new@2:11",
            "main:new@2:33",
            "main:new@3",
            "other:new@5"
        ]
    );
}
