//! The name a value has in the test's source: the binding, static or
//! struct field its creation initialises, read from the source line at its
//! creation site, so that a report says `Stats.limit` where the user wrote
//! `limit: AtomicUsize::new(..)` inside `Stats { .. }`, and `hits` for
//! `let hits = Arc::new(AtomicUsize::new(0))`.
//!
//! The source is the test's own, read once per file from where the test
//! runs (cargo runs a test in its package's directory, and `file!()` is
//! relative to the package's or to its workspace's root). Where the file
//! cannot be read (a binary run elsewhere), or the creation is not an
//! initialiser (an argument, an array element, a closure's value), there
//! is no source name and the variable keeps its site name
//! (crate::var).

use std::collections::HashMap;
use std::panic::Location;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// A source file's text, or `None` when it cannot be read.
type Lines = Option<Arc<SourceFile>>;

/// A source file's text and where each of its lines starts: one
/// allocation for the file rather than one a line (most of a file's
/// lines are never asked for).
struct SourceFile {
    text: String,
    /// The byte offset of each line's start.
    starts: Vec<usize>,
}

impl SourceFile {
    fn new(text: String) -> SourceFile {
        let starts = line_starts(&text);
        SourceFile { text, starts }
    }

    /// Line `index` (from 0), without its line break.
    fn line(&self, index: usize) -> Option<&str> {
        let start = *self.starts.get(index)?;
        let end = self
            .starts
            .get(index + 1)
            .copied()
            .unwrap_or(self.text.len());
        let line = &self.text[start..end];
        let line = line.strip_suffix('\n').unwrap_or(line);
        Some(line.strip_suffix('\r').unwrap_or(line))
    }

    /// The lines before line `index`, nearest first.
    fn above(&self, index: usize) -> impl Iterator<Item = &str> + Clone {
        (0..index.min(self.starts.len()))
            .rev()
            .filter_map(|i| self.line(i))
    }
}

/// Every file read so far, by its `file!()` path.
fn files() -> &'static Mutex<HashMap<&'static str, Lines>> {
    static FILES: OnceLock<Mutex<HashMap<&'static str, Lines>>> = OnceLock::new();
    FILES.get_or_init(Mutex::default)
}

/// The names found so far, by site: every test's registry asks again for
/// the sites it meets (the exploration and its failure's report, each
/// test of a binary), and reading one off its line costs allocations.
fn names() -> &'static Mutex<HashMap<SiteKey, Option<String>>> {
    static NAMES: OnceLock<Mutex<HashMap<SiteKey, Option<String>>>> = OnceLock::new();
    NAMES.get_or_init(Mutex::default)
}

/// A site as the names are kept by: its file, line and column.
type SiteKey = (&'static str, u32, u32);

/// Where each line of `text` starts. Eight bytes at a time, as one word
/// whose bytes that are line breaks the arithmetic below marks with their
/// high bit (exactly: it carries nothing from one byte to the next). For
/// tokio's `oneshot.rs` (30 kB, 1,100 lines) that is about 40,000
/// instructions, against 206,000 with `memchr` line by line (`str::lines`)
/// and 290,000 for a loop over the bytes: a failing loom test's report
/// reads the files of its sites once.
fn line_starts(text: &str) -> Vec<usize> {
    const LOWS: u64 = u64::from_le_bytes([0x7f; 8]);
    const BREAKS: u64 = u64::from_le_bytes([b'\n'; 8]);
    let bytes = text.as_bytes();
    let mut starts = vec![0];
    let mut words = bytes.chunks_exact(8);
    for (index, word) in words.by_ref().enumerate() {
        // A byte of `zeroed` is zero where the word has a break; a byte's
        // low seven bits plus 0x7f reach its high bit unless all are zero.
        let zeroed = u64::from_le_bytes(word.try_into().expect("8 bytes")) ^ BREAKS;
        let mut marks = !(((zeroed & LOWS) + LOWS) | zeroed | LOWS);
        while marks != 0 {
            starts.push(index * 8 + marks.trailing_zeros() as usize / 8 + 1);
            marks &= marks - 1;
        }
    }
    let rest = bytes.len() - words.remainder().len();
    let breaks = words
        .remainder()
        .iter()
        .enumerate()
        .filter(|(_, &b)| b == b'\n');
    starts.extend(breaks.map(|(i, _)| rest + i + 1));
    if starts.last() == Some(&text.len()) {
        starts.pop();
    }
    starts
}

/// The name the source gives the value created at `site`, if any.
pub fn source_name(site: &'static Location<'static>) -> Option<String> {
    let key = (site.file(), site.line(), site.column());
    if let Some(known) = names().lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return known.clone();
    }
    let name = name_at(site);
    let mut names = names().lock().unwrap_or_else(|p| p.into_inner());
    names.insert(key, name.clone());
    name
}

/// [`source_name`], read off the site's line.
fn name_at(site: &'static Location<'static>) -> Option<String> {
    let file = lines_of(site.file())?;
    let line = site.line().checked_sub(1)? as usize;
    let text = file.line(line)?;
    // `column` counts characters from 1.
    let before: String = text
        .chars()
        .take(site.column().saturating_sub(1) as usize)
        .collect();
    name_before(&before, file.above(line))
}

/// The lines of `file`, read once.
fn lines_of(file: &'static str) -> Lines {
    let mut files = files().lock().unwrap_or_else(|p| p.into_inner());
    files
        .entry(file)
        .or_insert_with(|| {
            let text = std::fs::read_to_string(locate(file)?).ok()?;
            Some(Arc::new(SourceFile::new(text)))
        })
        .clone()
}

/// Where `file` (a `file!()` path) is from the working directory: itself,
/// or under one of the directories above it (a workspace member's test
/// runs in the member's directory, with paths from the workspace's root).
fn locate(file: &str) -> Option<PathBuf> {
    let path = Path::new(file);
    if path.is_absolute() {
        return path.is_file().then(|| path.to_path_buf());
    }
    let here = std::env::current_dir().ok()?;
    here.ancestors()
        .take(4)
        .map(|dir| dir.join(path))
        .find(|candidate| candidate.is_file())
}

/// The name that the text `before` a creation (on its line, with the
/// lines `above` it, nearest first) initialises: `let NAME =`,
/// `static NAME: T =`, `self.NAME =`, or a field `NAME:` of a struct
/// literal (`Type.NAME`), through any wrapping constructors (`Arc::new(`,
/// `Box::new(`).
fn name_before<'a>(before: &str, above: impl Iterator<Item = &'a str> + Clone) -> Option<String> {
    let mut rest = before.trim_end();
    // Wrappers: `Arc::new(`, `Some(`, `&`.
    for _ in 0..4 {
        if let Some(open) = rest.strip_suffix('(') {
            let callee = open.trim_end_matches(is_path_char);
            if callee.len() == open.len() {
                // A bare `(`: a tuple's element, not the whole value.
                return None;
            }
            rest = callee.trim_end();
        } else if let Some(reference) = rest.strip_suffix('&') {
            rest = reference.trim_end();
        } else {
            break;
        }
    }
    if let Some(field) = rest.strip_suffix(':').filter(|r| !r.ends_with(':')) {
        let name = trailing_identifier(field.trim_end())?;
        return Some(match struct_name(field, above) {
            Some(owner) => format!("{owner}.{name}"),
            None => name.to_owned(),
        });
    }
    let assigned = rest.strip_suffix('=')?;
    if assigned.ends_with(['=', '!', '<', '>', '+', '-', '*', '/', '|', '&', '^', '%']) {
        return None;
    }
    // `let hits: Arc<AtomicUsize>` or `static COUNT: AtomicUsize`: the
    // name is before the type.
    let target = match assigned.find(':') {
        Some(colon) if !assigned[colon..].starts_with("::") => &assigned[..colon],
        _ => assigned,
    };
    let target = target.trim_end();
    let name = trailing_path(target)?;
    let name = name.strip_prefix("self.").unwrap_or(name);
    Some(name.to_owned())
}

/// Characters of a path expression or a type: `Arc::<T>::new`.
fn is_path_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | ':' | '<' | '>')
}

/// The identifier `text` ends with, if any (not a keyword-only tail).
fn trailing_identifier(text: &str) -> Option<&str> {
    let start = text
        .char_indices()
        .rev()
        .take_while(|&(_, c)| c.is_alphanumeric() || c == '_')
        .last()?
        .0;
    let name = &text[start..];
    let is_name = name.starts_with(|c: char| c.is_alphabetic() || c == '_');
    (is_name && !matches!(name, "mut" | "let" | "static" | "const" | "ref")).then_some(name)
}

/// The place path `text` ends with: `hits`, `self.limit`, `state.count`.
fn trailing_path(text: &str) -> Option<&str> {
    let start = text
        .char_indices()
        .rev()
        .take_while(|&(_, c)| c.is_alphanumeric() || c == '_' || c == '.')
        .last()?
        .0;
    let path = text[start..].trim_start_matches('.');
    let first = path.split('.').next()?;
    trailing_identifier(first)?;
    Some(path)
}

/// The struct a field initialiser at the end of `line_before` belongs
/// to: the type before the innermost unclosed `{`, searched back through
/// the line and the `above` lines (nearest first); `Self` is the type of
/// the enclosing `impl`.
fn struct_name<'a>(
    line_before: &str,
    above: impl Iterator<Item = &'a str> + Clone,
) -> Option<String> {
    let mut depth = 0usize;
    // The file's lines live longer than the line's text: shortened to it.
    let texts = std::iter::once(line_before).chain(above.clone().map(|line| -> &str { line }));
    for (searched, text) in texts.enumerate().take(64) {
        for (i, c) in text.char_indices().rev() {
            match c {
                '}' => depth += 1,
                '{' if depth > 0 => depth -= 1,
                '{' => {
                    let owner = trailing_identifier(text[..i].trim_end())?;
                    if owner != "Self" {
                        return Some(owner.to_owned());
                    }
                    let skipped = searched.saturating_sub(1);
                    return impl_type(above.skip(skipped));
                }
                _ => {}
            }
        }
    }
    None
}

/// The type of the innermost `impl` among `above` (nearest first):
/// `impl Stats {`, `impl<T> Queue<T> {`, `impl Trait for Stats {`.
fn impl_type<'a>(above: impl Iterator<Item = &'a str>) -> Option<String> {
    let line = above
        .map(|l| l.trim_start())
        .find(|l| l.starts_with("impl"))?;
    let header = line.trim_end().trim_end_matches('{').trim_end();
    let header = skip_generics(header.strip_prefix("impl")?.trim_start());
    let ty = match header.rsplit_once(" for ") {
        Some((_, ty)) => ty,
        None => header,
    };
    let ty = ty.trim().split(['<', ' ']).next()?;
    let ty = ty.rsplit("::").next()?;
    trailing_identifier(ty).map(str::to_owned)
}

/// `text` after the generic parameters it starts with (`<T: Ord>`), if any.
fn skip_generics(text: &str) -> &str {
    if !text.starts_with('<') {
        return text;
    }
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => {
                depth -= 1;
                if depth == 0 {
                    return text[i + 1..].trim_start();
                }
            }
            _ => {}
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(before: &str, above: &[&str]) -> Option<String> {
        name_before(before, above.iter().rev().copied())
    }

    #[test]
    fn a_source_file_gives_its_lines_without_their_breaks() {
        let file = SourceFile::new("first\r\n\nthird\nlast".to_owned());
        let lines: Vec<&str> = (0..5).map_while(|i| file.line(i)).collect();
        assert_eq!(lines, ["first", "", "third", "last"]);
        let above: Vec<&str> = file.above(3).collect();
        assert_eq!(above, ["third", "", "first"]);
        let ended = SourceFile::new("one\ntwo\n".to_owned());
        assert_eq!((ended.line(1), ended.line(2)), (Some("two"), None));
        // Breaks next to each other and to bytes one off a break, across
        // words of eight bytes, with characters of several bytes.
        let text = "a\n\n\x0b\t\n\u{e9}\u{ca}\u{e9}\u{e9}\n\n0123456789\n\x0b";
        let expected: Vec<&str> = text.split('\n').collect();
        let file = SourceFile::new(text.to_owned());
        let lines: Vec<&str> = (0..20).map_while(|i| file.line(i)).collect();
        assert_eq!(lines, expected);
    }

    #[test]
    fn bindings_statics_and_assignments_name_their_value() {
        assert_eq!(name("    let hits = ", &[]).as_deref(), Some("hits"));
        assert_eq!(
            name("    let mut hits = Arc::new(", &[]).as_deref(),
            Some("hits")
        );
        assert_eq!(
            name("let hits: Arc<AtomicUsize> = Arc::new(", &[]).as_deref(),
            Some("hits")
        );
        assert_eq!(
            name("static COUNT: AtomicUsize = ", &[]).as_deref(),
            Some("COUNT")
        );
        assert_eq!(name("        self.limit = ", &[]).as_deref(), Some("limit"));
        assert_eq!(
            name("        state.count = ", &[]).as_deref(),
            Some("state.count")
        );
    }

    #[test]
    fn other_places_have_no_source_name() {
        assert_eq!(name("    if a == ", &[]), None);
        assert_eq!(name("    total += ", &[]), None);
        assert_eq!(name("    queue.push(", &[]), None);
        assert_eq!(name("    let pair = (", &[]), None);
        assert_eq!(name("    [", &[]), None);
        assert_eq!(name("    move || ", &[]), None);
        assert_eq!(name("", &[]), None);
    }

    #[test]
    fn a_field_initialiser_is_named_by_its_struct_and_field() {
        let above = [
            "impl Stats {",
            "    pub fn new(limit: usize) -> Stats {",
            "        Stats {",
            "            served: AtomicUsize::new(0),",
        ];
        assert_eq!(
            name("            limit: ", &above).as_deref(),
            Some("Stats.limit")
        );
        let in_self = [
            "impl<T> Queue<T> {",
            "    fn new() -> Self {",
            "        Self {",
        ];
        assert_eq!(
            name("            head: Arc::new(", &in_self).as_deref(),
            Some("Queue.head")
        );
        assert_eq!(
            name("let s = S { a: ", &[]).as_deref(),
            Some("S.a"),
            "on one line"
        );
        let generic = [
            "impl<T: Ord> Display for Heap<T> {",
            "    fn f() {",
            "        Wrapper {",
        ];
        assert_eq!(
            name("            inner: ", &generic).as_deref(),
            Some("Wrapper.inner")
        );
    }
}
