//! The documentation holds together: the README is a front page with the
//! two commands that work on a fresh machine, the user guide's table of
//! contents names chapters that exist, and every relative link in the
//! README and under `docs/` leads to a file (and heading) that is there.

use std::path::Path;

use crate::markdown::{anchors, is_external, links, markdown_files, GUIDE};
use crate::support::root;

/// The README is a front page, not the manual: the manual is the guide.
const README_MAX_LINES: usize = 400;

/// The README's two commands, as a user pastes them (indented code), and
/// the script CI runs the second through.
const RUN_AN_EXAMPLE: &str = "    cargo run --release -- examples/fig02_c1v1.rk\n";
const RUN_THE_TESTS: &str = "    ./test.sh\n";
const CI_SCRIPT: &str = ".ci/run";

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn the_readme_is_a_front_page_with_the_two_commands() {
    let readme = read(&root().join("README.md"));
    let lines = readme.lines().count();
    assert!(
        lines < README_MAX_LINES,
        "README.md has {lines} lines; move detail into {GUIDE}"
    );
    assert!(readme.contains(RUN_AN_EXAMPLE), "{RUN_AN_EXAMPLE:?}");
    assert!(readme.contains(RUN_THE_TESTS), "{RUN_THE_TESTS:?}");
    assert!(readme.contains(CI_SCRIPT), "the README names {CI_SCRIPT}");
    assert!(root().join("examples/fig02_c1v1.rk").is_file());
    // CI runs exactly the README's test command.
    let ci = read(&root().join(CI_SCRIPT));
    assert!(
        ci.lines().any(|l| l.trim() == "exec ./test.sh"),
        "{CI_SCRIPT} does not end in `exec ./test.sh`:\n{ci}"
    );
}

/// The chapter files `SUMMARY.md` lists, in its order.
fn summary_chapters() -> Vec<String> {
    let summary = read(&root().join(GUIDE).join("SUMMARY.md"));
    let chapters = links(&summary);
    assert!(!chapters.is_empty(), "SUMMARY.md lists no chapter");
    chapters
}

#[test]
fn every_chapter_in_the_summary_exists_and_every_chapter_is_in_it() {
    let listed = summary_chapters();
    for chapter in &listed {
        assert!(
            root().join(GUIDE).join(chapter).is_file(),
            "SUMMARY.md lists {chapter}, which is not in {GUIDE}"
        );
    }
    for file in markdown_files(&root().join(GUIDE)) {
        let name = file.strip_prefix(root().join(GUIDE)).unwrap();
        let name = name.to_str().unwrap();
        assert!(
            name == "SUMMARY.md" || listed.iter().any(|c| c == name),
            "{GUIDE}/{name} is in no chapter of SUMMARY.md: mdBook would leave it out"
        );
    }
}

/// The README's table of contents is the guide's: a chapter added to
/// `SUMMARY.md` is one a reader of the front page can find.
#[test]
fn the_readme_links_every_chapter_of_the_guide() {
    let linked = links(&read(&root().join("README.md")));
    for chapter in summary_chapters() {
        let target = format!("{GUIDE}/{chapter}");
        assert!(linked.contains(&target), "README.md does not link {target}");
    }
}

#[test]
fn every_relative_link_in_the_documentation_resolves() {
    let mut files = vec![root().join("README.md")];
    files.extend(markdown_files(&root().join("docs")));
    let mut broken = Vec::new();
    for file in &files {
        for target in links(&read(file)) {
            if is_external(&target) {
                continue;
            }
            if let Err(why) = resolve(file, &target) {
                let shown = file.strip_prefix(root()).unwrap_or(file).display();
                broken.push(format!("{shown}: ({target}): {why}"));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// Checks that a link from `file` leads somewhere: the file it names,
/// relative to `file`'s directory, and the heading its `#anchor` names.
fn resolve(file: &Path, target: &str) -> Result<(), String> {
    let (path, anchor) = match target.split_once('#') {
        Some((path, anchor)) => (path, Some(anchor)),
        None => (target, None),
    };
    let linked = if path.is_empty() {
        file.to_path_buf()
    } else {
        file.parent().unwrap().join(path)
    };
    if !linked.exists() {
        return Err("no such file".into());
    }
    match anchor {
        Some(anchor) if !anchors(&read(&linked)).contains(anchor) => {
            Err(format!("no heading with anchor #{anchor}"))
        }
        _ => Ok(()),
    }
}

/// The ```rust blocks of a markdown text, as they stand (hidden `# `
/// lines included).
fn rust_blocks(text: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        let fence = line.trim_start().starts_with("```");
        match (&mut current, fence) {
            (None, true) if line.trim_start().starts_with("```rust") => {
                current = Some(String::new());
            }
            (Some(block), true) => {
                blocks.push(std::mem::take(block));
                current = None;
            }
            (Some(block), false) => {
                block.push_str(line);
                block.push('\n');
            }
            _ => {}
        }
    }
    blocks
}

/// The guide's Rust samples compile (docs/guide/samples: each chapter with
/// one is a doctest module there), and the README's are the guide's.
#[test]
fn every_rust_sample_of_the_guide_and_the_readme_is_compiled() {
    let samples = read(&root().join("docs/guide/samples/src/lib.rs"));
    let mut guide_blocks = Vec::new();
    for chapter in summary_chapters() {
        let text = read(&root().join(GUIDE).join(&chapter));
        let blocks = rust_blocks(&text);
        if blocks.is_empty() {
            continue;
        }
        let include = format!("include_str!(\"../../src/{chapter}\")");
        assert!(
            samples.contains(&include),
            "{GUIDE}/{chapter} has Rust samples: add `#[doc = {include}]` to docs/guide/samples/src/lib.rs"
        );
        guide_blocks.extend(blocks);
    }
    let visible = |block: &str| -> String {
        block
            .lines()
            .filter(|l| !l.trim_start().starts_with("# ") && l.trim() != "#")
            .map(|l| format!("{l}\n"))
            .collect()
    };
    let guide_visible: Vec<String> = guide_blocks.iter().map(|b| visible(b)).collect();
    for block in rust_blocks(&read(&root().join("README.md"))) {
        assert!(
            guide_visible.contains(&block),
            "a README sample is in no guide chapter (where it would be compiled):\n{block}"
        );
    }
}
