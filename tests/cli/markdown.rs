//! Reading the documentation as the tests need it: a chapter of the user
//! guide and its sections, and the links and headings of a markdown file.
//! Just enough markdown for the repository's own documents, so that the
//! tests need no markdown library and no mdBook.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::support::root;

/// Where the user guide's chapters live (an mdBook's `src`).
pub const GUIDE: &str = "docs/guide/src";

/// A chapter of the user guide, by its path under [`GUIDE`], which must
/// begin with the `# title` heading the tests look for.
pub fn chapter(path: &str, title: &str) -> String {
    let file = root().join(GUIDE).join(path);
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let heading = format!("# {title}\n");
    assert!(
        text.starts_with(&heading),
        "{GUIDE}/{path} does not begin with `{}`",
        heading.trim_end()
    );
    text
}

/// The body of a chapter's `## {name}` section, up to the next `## `.
pub fn section<'a>(chapter: &'a str, name: &str) -> Option<&'a str> {
    let heading = format!("\n## {name}\n");
    let body = chapter.split(&heading).nth(1)?;
    Some(body.split("\n## ").next().unwrap_or_default())
}

/// The text outside fenced code blocks and inline code spans, where links
/// and headings are what they seem.
pub fn prose(text: &str) -> String {
    let mut outside_fences = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            outside_fences.push_str(line);
            outside_fences.push('\n');
        }
    }
    without_code_spans(&outside_fences)
}

/// Removes inline code spans: a run of backticks opens one, and the next
/// run of the same length closes it, across lines as in a paragraph.
fn without_code_spans(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find('`') {
        out.push_str(&rest[..start]);
        let run = rest[start..].len() - rest[start..].trim_start_matches('`').len();
        let after = &rest[start + run..];
        match closing_run(after, run) {
            Some(end) => rest = &after[end + run..],
            None => {
                // No closing run: the backticks are literal text.
                out.push_str(&rest[start..start + run]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Where the next run of exactly `len` backticks begins in `text`.
fn closing_run(text: &str, len: usize) -> Option<usize> {
    let mut from = 0;
    while let Some(at) = text[from..].find('`') {
        let at = from + at;
        let run = text[at..].len() - text[at..].trim_start_matches('`').len();
        if run == len {
            return Some(at);
        }
        from = at + run;
    }
    None
}

/// The targets of a markdown file's inline links and images
/// (`[text](target)`, `![alt](target)`), code left out.
pub fn links(text: &str) -> Vec<String> {
    let prose = prose(text);
    let mut targets = Vec::new();
    let mut rest = prose.as_str();
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let Some(end) = after.find(')') else { break };
        targets.push(after[..end].trim().to_string());
        rest = &after[end..];
    }
    targets
}

/// Whether a link leaves the repository (a URL or a mail address).
pub fn is_external(target: &str) -> bool {
    target.contains("://") || target.starts_with("mailto:")
}

/// The anchors of a markdown file's headings, as GitHub and mdBook make
/// them: lower case, punctuation but `-` and `_` dropped, spaces as `-`,
/// and `-1`, `-2`, ... after a repeated one.
pub fn anchors(text: &str) -> BTreeSet<String> {
    let mut anchors = BTreeSet::new();
    for line in prose_lines_with_code(text) {
        let Some(title) = heading(&line) else {
            continue;
        };
        let slug = slug(title);
        let mut anchor = slug.clone();
        let mut repeat = 0;
        while anchors.contains(&anchor) {
            repeat += 1;
            anchor = format!("{slug}-{repeat}");
        }
        anchors.insert(anchor);
    }
    anchors
}

/// The lines outside fenced code blocks, code spans kept: a heading's
/// anchor is made from the words inside its backticks too.
fn prose_lines_with_code(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            lines.push(line.to_string());
        }
    }
    lines
}

/// The title of an ATX heading line (`# Title` to `###### Title`).
fn heading(line: &str) -> Option<&str> {
    let level = line.len() - line.trim_start_matches('#').len();
    let title = line[level..].strip_prefix(' ')?;
    (1..=6).contains(&level).then(|| title.trim())
}

fn slug(title: &str) -> String {
    title
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The markdown files under a directory, at any depth, sorted. The book
/// mdBook builds (`docs/guide/book`) is output, not documentation.
pub fn markdown_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("readable entry").path();
        if path.is_dir() && !path.ends_with("guide/book") {
            files.extend(markdown_files(&path));
        } else if path.extension().is_some_and(|e| e == "md") {
            files.push(path);
        }
    }
    files.sort();
    files
}
