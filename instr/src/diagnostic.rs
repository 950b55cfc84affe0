//! The front end's error type: one problem in a program's source, with the
//! spans it points at. Rendering (file, line, column, caret) is the binary's.

use std::fmt;

use rankcheck_engine::Span;

/// One error found in a program's source: a syntax error, or later a name or
/// lowering error.
///
/// A diagnostic holds byte spans only; the binary renders it with the file
/// name, line, column, source line and a caret under [`Diagnostic::span`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// What went wrong, in lower case, saying what was expected:
    /// `expected ';' after statement, found 'x'`.
    pub message: String,
    /// Where the caret goes. May be empty (`start == end`): then it points
    /// between two bytes, e.g. where a missing `;` belongs.
    pub span: Span,
    /// Short text shown under the caret, if any.
    pub label: Option<String>,
    /// Other places worth showing, each with its own short text, e.g. a first
    /// definition with `first defined here`.
    pub related: Vec<(Span, String)>,
    /// Sentences shown after the source excerpt, e.g. a hint.
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// An error at `span` with the given message and nothing else.
    pub fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            message: message.into(),
            span,
            label: None,
            related: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// A warning at `span`: the same parts as an error; whoever holds it
    /// knows it as a warning (the compiler returns warnings apart).
    pub fn warning(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic::error(span, message)
    }

    /// Sets the text shown under the caret.
    #[must_use]
    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = Some(label.into());
        self
    }

    /// Adds another place to show, with its own short text.
    #[must_use]
    pub fn with_related(mut self, span: Span, text: impl Into<String>) -> Diagnostic {
        self.related.push((span, text.into()));
        self
    }

    /// Adds a note shown after the source excerpt.
    #[must_use]
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }
}

impl fmt::Display for Diagnostic {
    /// Writes the message only: locations need the source text to render.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Diagnostic {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builders_fill_every_field_and_display_is_the_message() {
        let diagnostic = Diagnostic::error(Span::new(3, 4), "expected ';' after statement")
            .with_label("expected ';'")
            .with_related(Span::new(0, 1), "statement starts here")
            .with_note("a note");
        assert_eq!(diagnostic.to_string(), "expected ';' after statement");
        assert_eq!(diagnostic.span, Span::new(3, 4));
        assert_eq!(diagnostic.label.as_deref(), Some("expected ';'"));
        assert_eq!(
            diagnostic.related,
            vec![(Span::new(0, 1), "statement starts here".to_string())]
        );
        assert_eq!(diagnostic.notes, vec!["a note".to_string()]);
    }
}
