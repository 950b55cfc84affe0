//! Rendering front-end diagnostics and bug locations: file, line, column,
//! the source line and a caret. The one place that turns spans into lines.

use std::io::IsTerminal;

use codespan_reporting::diagnostic::{Diagnostic as Report, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, termcolor};
use rankcheck_engine::Span;
use rankcheck_instr::Diagnostic;

/// A program's source with its display name, for rendering.
pub struct SourceFile {
    file: SimpleFile<String, String>,
    line_starts: Vec<usize>,
}

impl SourceFile {
    /// `source` as read from `name`.
    pub fn new(name: String, source: String) -> SourceFile {
        let line_starts = std::iter::once(0)
            .chain(source.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        SourceFile {
            file: SimpleFile::new(name, source),
            line_starts,
        }
    }

    /// The file's name as shown.
    pub fn name(&self) -> &str {
        self.file.name()
    }

    /// The source text.
    pub fn source(&self) -> &str {
        self.file.source()
    }

    /// The 1-based line of a span's start.
    pub fn line(&self, span: Span) -> usize {
        self.line_starts
            .partition_point(|&start| start <= span.start as usize)
    }

    /// The 1-based column of a span's start, in characters.
    pub fn column(&self, span: Span) -> usize {
        let line_start = self.line_starts[self.line(span) - 1];
        let end = (span.start as usize).min(self.source().len());
        self.source()
            .get(line_start..end)
            .map_or(1, |s| s.chars().count() + 1)
    }

    /// Render front-end diagnostics, one after the other.
    pub fn render_diagnostics(&self, diagnostics: &[Diagnostic]) -> String {
        self.render_as(diagnostics, Report::error)
    }

    /// Render compiler warnings with their source excerpts.
    pub fn render_warnings(&self, warnings: &[Diagnostic]) -> String {
        self.render_as(warnings, Report::warning)
    }

    fn render_as(&self, diagnostics: &[Diagnostic], severity: fn() -> Report<()>) -> String {
        let reports: Vec<Report<()>> = diagnostics
            .iter()
            .map(|d| {
                let mut primary = Label::primary((), self.clamp(d.span));
                if let Some(label) = &d.label {
                    primary = primary.with_message(label);
                }
                let mut labels = vec![primary];
                labels.extend(d.related.iter().map(|(span, text)| {
                    Label::secondary((), self.clamp(*span)).with_message(text)
                }));
                severity()
                    .with_message(&d.message)
                    .with_labels(labels)
                    .with_notes(d.notes.clone())
            })
            .collect();
        self.render(&reports)
    }

    /// Render one located message: `error[kind]: message` with a caret at
    /// `span` labelled `label`.
    pub fn render_at(&self, code: &str, message: &str, span: Span, label: &str) -> String {
        let report = Report::error()
            .with_code(code)
            .with_message(message)
            .with_labels(vec![
                Label::primary((), self.clamp(span)).with_message(label)
            ]);
        self.render(&[report])
    }

    fn clamp(&self, span: Span) -> std::ops::Range<usize> {
        let len = self.source().len();
        let start = (span.start as usize).min(len);
        start..(span.end as usize).clamp(start, len)
    }

    fn render(&self, reports: &[Report<()>]) -> String {
        let color = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
        let mut buffer = if color {
            termcolor::Buffer::ansi()
        } else {
            termcolor::Buffer::no_color()
        };
        let config = term::Config::default();
        for report in reports {
            if term::emit(&mut buffer, &config, &self.file, report).is_err() {
                // The spans come from this very source, so rendering cannot
                // fail; fall back to the bare message rather than lose it.
                return reports
                    .iter()
                    .map(|r| format!("error: {}\n", r.message))
                    .collect();
            }
        }
        String::from_utf8_lossy(buffer.as_slice()).into_owned()
    }
}
