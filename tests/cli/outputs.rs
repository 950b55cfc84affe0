//! The files commands write where the user says (`plot -o`, `check
//! --plot`, `report --html`) and replay files: a name whose extension
//! promises another format is refused before any work, with the extensions
//! that are written, and every file written is announced the same way,
//! `wrote FILE` on stderr, whatever the output format.

use std::path::Path;

use crate::nightly::text;
use crate::support::{json, rankcheck, root, temp_dir};

fn example(name: &str) -> String {
    text(&root().join("examples").join(name)).to_string()
}

/// Every command that takes an output name refuses one of another format
/// (SVG under `.png`, HTML under `.svg`): exit 2, the flag, the name and
/// the extension to use in the message, and no file written. The name is
/// checked first: the history directory of `plot history` and `report`
/// does not even exist.
#[test]
fn a_name_of_another_format_is_refused_before_any_work() {
    let dir = temp_dir("outputs-refused");
    let png = dir.join("figure.png");
    let svg = dir.join("page.svg");
    let missing = dir.join("no-campaign");
    let (corner, ok) = (
        example("corner_variable.rk"),
        example("locked_counter_ok.rk"),
    );
    let cases: [(Vec<&str>, &Path, &str, &str); 5] = [
        (
            vec!["plot", "bound", "-o", text(&png), &corner],
            &png,
            "-o",
            ".svg",
        ),
        (
            vec!["plot", "hits", "-o", text(&png), &corner],
            &png,
            "-o",
            ".svg",
        ),
        (
            vec!["plot", "history", text(&missing), "-o", text(&png)],
            &png,
            "-o",
            ".svg",
        ),
        (vec!["--plot", text(&png), &ok], &png, "--plot", ".svg"),
        (
            vec!["report", text(&missing), "--html", text(&svg)],
            &svg,
            "--html",
            ".html",
        ),
    ];
    for (args, output, flag, extension) in cases {
        let out = rankcheck(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        let named = format!("{flag} {}", text(output));
        assert!(stderr.contains(&named), "{args:?}: {stderr}");
        assert!(stderr.contains(extension), "{args:?}: {stderr}");
        assert!(!stderr.contains("wrote"), "{args:?}: {stderr}");
        assert!(!output.exists(), "{args:?} wrote {}", text(output));
    }
}

/// The files of `plot bound`, `plot hits`, `check --plot` and a failing
/// check's replay file are each announced on stderr as `wrote FILE`, and
/// nothing about them reaches stdout, where the report (JSON here) is.
#[test]
fn every_file_written_is_announced_on_stderr() {
    let dir = temp_dir("outputs-announced");
    let (bound, hits, check) = (
        dir.join("bound.svg"),
        dir.join("hits.svg"),
        dir.join("check.svg"),
    );
    let replays = dir.join("replays");
    let (corner, ok, lost) = (
        example("corner_variable.rk"),
        example("locked_counter_ok.rk"),
        example("lost_push.rk"),
    );
    let runs: [(Vec<&str>, &[i32]); 4] = [
        (
            vec![
                "plot",
                "bound",
                "--format",
                "json",
                "-o",
                text(&bound),
                &corner,
            ],
            &[0],
        ),
        (
            vec![
                "plot",
                "hits",
                "--trials",
                "2",
                "--runs",
                "200",
                "--seed",
                "1",
                "--format",
                "json",
                "-o",
                text(&hits),
                &corner,
            ],
            // Exit 2 when no search found the bug; the figure is written.
            &[0, 2],
        ),
        (
            vec![
                "--seed",
                "1",
                "--runs",
                "500",
                "--format",
                "json",
                "--plot",
                text(&check),
                &ok,
            ],
            &[0],
        ),
        (
            vec![
                "--seed",
                "1",
                "--format",
                "json",
                "--replay-dir",
                text(&replays),
                &lost,
            ],
            &[1],
        ),
    ];
    for (args, codes) in runs {
        let out = rankcheck(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.code().is_some_and(|c| codes.contains(&c)),
            "{args:?}: {stderr}"
        );
        let report = json(&out);
        let written: Vec<&str> = stderr
            .lines()
            .filter_map(|l| l.strip_prefix("wrote "))
            .collect();
        assert_eq!(written.len(), 1, "{args:?}: {stderr}");
        assert!(Path::new(written[0]).is_file(), "{args:?}: {stderr}");
        match report["first_failure"]["replay"].as_str() {
            Some(replay) => assert_eq!(written[0], replay),
            None => assert!(args.contains(&written[0]), "{args:?}: {stderr}"),
        }
        assert!(!String::from_utf8_lossy(&out.stdout).contains("wrote"));
    }
}
