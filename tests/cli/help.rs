//! What `--help` says agrees with itself: one default search.

use crate::support::rankcheck;

fn help(args: &[&str]) -> String {
    let out = rankcheck(args);
    assert!(out.status.success(), "{args:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn every_help_names_the_portfolio_as_the_default_search() {
    let top = help(&["--help"]);
    let check = help(&["check", "--help"]);
    assert!(top.contains("by default the portfolio"), "{top}");
    assert!(check.contains("Without it: the portfolio"), "{check}");
    assert!(check.contains("portfolio: The default"), "{check}");
    for text in [&top, &check] {
        assert!(
            !text.contains("variable bounding by default"),
            "a second default: {text}"
        );
    }
}
