//! The lexer: `.rk` source text to tokens, reporting bad characters, bad
//! literals and unterminated comments without stopping.

use rankcheck_engine::Span;

use crate::diagnostic::Diagnostic;
use crate::token::{Keyword, Token, TokenKind};

/// `2^63`: the largest integer literal the lexer accepts, since `-2^63` is an
/// `i64` even though `2^63` is not.
pub(crate) const NEGATABLE_LIMIT: u64 = 1 << 63;

/// Splits `source` into tokens, the last of which is always
/// [`TokenKind::Eof`], and collects every lexical error on the way.
///
/// Lexing never stops early: a bad character becomes one
/// [`TokenKind::Unknown`] token, a bad integer literal becomes `Int(0)`, an
/// unterminated string still becomes a string token, so the parser stays in
/// step with the source. Block comments do not nest (as in C), and a string
/// literal cannot span lines.
pub fn lex(source: &str) -> (Vec<Token>, Vec<Diagnostic>) {
    let mut lexer = Lexer {
        source,
        bytes: source.as_bytes(),
        pos: 0,
        tokens: Vec::new(),
        diagnostics: Vec::new(),
    };
    if u32::try_from(source.len()).is_err() {
        lexer.diagnostics.push(Diagnostic::error(
            Span::new(0, 0),
            "expected a source file smaller than 4 GiB",
        ));
        lexer.tokens.push(Token {
            kind: TokenKind::Eof,
            span: Span::new(0, 0),
        });
        return (lexer.tokens, lexer.diagnostics);
    }
    lexer.run();
    (lexer.tokens, lexer.diagnostics)
}

/// The diagnostic for an integer literal that no `i64` can hold.
pub(crate) fn int_too_large(span: Span) -> Diagnostic {
    Diagnostic::error(span, "integer literal is too large")
        .with_label("does not fit in a 64-bit signed integer")
        .with_note("integers range from -9223372036854775808 to 9223372036854775807")
}

/// The lexer's state while it walks the source once, left to right.
struct Lexer<'a> {
    source: &'a str,
    bytes: &'a [u8],
    /// Byte offset of the next unread byte; always on a char boundary.
    pos: usize,
    tokens: Vec<Token>,
    diagnostics: Vec<Diagnostic>,
}

/// A byte offset as a span coordinate. [`lex`] has checked that the source
/// fits in `u32`, so the fallback is never taken.
fn offset(position: usize) -> u32 {
    u32::try_from(position).unwrap_or(u32::MAX)
}

fn is_ident_start(byte: u8) -> bool {
    byte.is_ascii_alphabetic() || byte == b'_'
}

fn is_ident_continue(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}

impl Lexer<'_> {
    fn run(&mut self) {
        // A byte order mark, which some editors write, is not part of the
        // program; spans still count it.
        if self.source.starts_with('\u{feff}') {
            self.pos = '\u{feff}'.len_utf8();
        }
        while let Some(byte) = self.peek(0) {
            let start = self.pos;
            match byte {
                b' ' | b'\t' | b'\n' | b'\r' => self.pos += 1,
                b'/' if self.peek(1) == Some(b'/') => self.line_comment(),
                b'/' if self.peek(1) == Some(b'*') => self.block_comment(),
                b'0'..=b'9' => self.integer(),
                b'"' => self.string(),
                _ if is_ident_start(byte) => self.word(),
                _ => match self.punctuation(byte) {
                    Some((kind, len)) => {
                        self.pos += len;
                        self.push(kind, start);
                    }
                    None => self.unknown(),
                },
            }
        }
        let end = offset(self.source.len());
        self.tokens.push(Token {
            kind: TokenKind::Eof,
            span: Span::new(end, end),
        });
    }

    fn peek(&self, ahead: usize) -> Option<u8> {
        self.bytes.get(self.pos + ahead).copied()
    }

    fn span_from(&self, start: usize) -> Span {
        Span::new(offset(start), offset(self.pos))
    }

    fn push(&mut self, kind: TokenKind, start: usize) {
        let span = self.span_from(start);
        self.tokens.push(Token { kind, span });
    }

    fn line_comment(&mut self) {
        while let Some(byte) = self.peek(0) {
            if byte == b'\n' {
                break;
            }
            self.pos += 1;
        }
    }

    fn block_comment(&mut self) {
        let start = self.pos;
        self.pos += 2;
        loop {
            match self.peek(0) {
                None => {
                    let opener = Span::new(offset(start), offset(start + 2));
                    self.diagnostics.push(
                        Diagnostic::error(opener, "unterminated block comment")
                            .with_label("comment starts here")
                            .with_note(
                                "a block comment ends with '*/'; block comments do not nest",
                            ),
                    );
                    // An `Unknown` token tells the parser that the file
                    // ends in something already reported.
                    self.push(TokenKind::Unknown, start);
                    return;
                }
                Some(b'*') if self.peek(1) == Some(b'/') => {
                    self.pos += 2;
                    return;
                }
                Some(_) => self.pos += 1,
            }
        }
    }

    fn integer(&mut self) {
        let start = self.pos;
        let mut value: Option<u64> = Some(0);
        while let Some(byte @ b'0'..=b'9') = self.peek(0) {
            value = value
                .and_then(|value| value.checked_mul(10))
                .and_then(|value| value.checked_add(u64::from(byte - b'0')));
            self.pos += 1;
        }
        let digits_end = self.pos;
        if self.peek(0).is_some_and(is_ident_continue) {
            while self.peek(0).is_some_and(is_ident_continue) {
                self.pos += 1;
            }
            let suffix = &self.source[digits_end..self.pos];
            self.diagnostics.push(
                Diagnostic::error(
                    self.span_from(start),
                    format!("invalid suffix '{suffix}' on integer literal"),
                )
                .with_note("integer literals are written in decimal digits only"),
            );
            self.push(TokenKind::Int(0), start);
            return;
        }
        let value = match value {
            Some(value) if value <= NEGATABLE_LIMIT => value,
            _ => {
                self.diagnostics.push(int_too_large(self.span_from(start)));
                0
            }
        };
        self.push(TokenKind::Int(value), start);
    }

    /// A string literal. One that is not closed on its line is reported and
    /// taken to end before the line's last `)`, if any: strings appear only
    /// in `assert(...)` and `print(...)`, so that guess usually lets the rest
    /// of the line parse. Without a `)`, it ends at the end of the line and
    /// is followed by an empty [`TokenKind::Unknown`].
    fn string(&mut self) {
        let start = self.pos;
        let mut end = start + 1;
        let closed = loop {
            match self.bytes.get(end) {
                None | Some(b'\n') | Some(b'\r') => break false,
                Some(b'"') => break true,
                Some(b'\\') if !matches!(self.bytes.get(end + 1), None | Some(b'\n' | b'\r')) => {
                    end += 2;
                }
                Some(_) => end += 1,
            }
        };
        let content = start + 1..end;
        if closed {
            self.pos = end + 1;
        } else {
            let guess = self.source[content.clone()].rfind(')');
            self.pos = guess.map_or(end, |at| content.start + at);
            self.diagnostics.push(
                Diagnostic::error(self.span_from(start), "unterminated string literal")
                    .with_label("expected '\"' before the end of the line")
                    .with_note("a string literal must end on the line where it starts"),
            );
        }
        let value = self.unescape(content.start..self.pos.min(content.end));
        self.push(TokenKind::Str(value), start);
        if !closed && self.pos == end {
            // No `)` to end at: an empty `Unknown` token at the end of the
            // line keeps the parser from reporting what follows the string.
            self.push(TokenKind::Unknown, end);
        }
    }

    /// The text of a string literal's contents, escapes replaced; reports
    /// unknown escapes. Since `\\` and the escape letters are ASCII, every
    /// run between escapes is whole UTF-8.
    fn unescape(&mut self, content: std::ops::Range<usize>) -> String {
        let text = &self.source[content.clone()];
        let mut value = String::with_capacity(text.len());
        let mut chars = text.char_indices();
        while let Some((at, c)) = chars.next() {
            if c != '\\' {
                value.push(c);
                continue;
            }
            // A lone `\` at the end of an unterminated string is dropped: the
            // string is already reported.
            let Some((escaped_at, escaped)) = chars.next() else {
                break;
            };
            match escaped {
                '"' => value.push('"'),
                '\\' => value.push('\\'),
                'n' => value.push('\n'),
                't' => value.push('\t'),
                _ => {
                    let escape_start = content.start + at;
                    let escape_end = content.start + escaped_at + escaped.len_utf8();
                    let sequence = &self.source[escape_start..escape_end];
                    self.diagnostics.push(
                        Diagnostic::error(
                            Span::new(offset(escape_start), offset(escape_end)),
                            format!("unknown escape sequence '{sequence}'"),
                        )
                        .with_note(r#"the escapes are \" \\ \n and \t"#),
                    );
                }
            }
        }
        value
    }

    fn word(&mut self) {
        let start = self.pos;
        while self.peek(0).is_some_and(is_ident_continue) {
            self.pos += 1;
        }
        let text = &self.source[start..self.pos];
        let kind = match Keyword::from_text(text) {
            Some(keyword) => TokenKind::Keyword(keyword),
            None => TokenKind::Ident(text.to_string()),
        };
        self.push(kind, start);
    }

    /// The punctuation token starting with `byte`, and its length in bytes.
    fn punctuation(&self, byte: u8) -> Option<(TokenKind, usize)> {
        let next = self.peek(1);
        let token = match (byte, next) {
            (b'.', Some(b'.')) => (TokenKind::DotDot, 2),
            (b'=', Some(b'=')) => (TokenKind::EqEq, 2),
            (b'!', Some(b'=')) => (TokenKind::NotEq, 2),
            (b'<', Some(b'=')) => (TokenKind::Le, 2),
            (b'>', Some(b'=')) => (TokenKind::Ge, 2),
            (b'&', Some(b'&')) => (TokenKind::AndAnd, 2),
            (b'|', Some(b'|')) => (TokenKind::OrOr, 2),
            (b'(', _) => (TokenKind::LParen, 1),
            (b')', _) => (TokenKind::RParen, 1),
            (b'{', _) => (TokenKind::LBrace, 1),
            (b'}', _) => (TokenKind::RBrace, 1),
            (b'[', _) => (TokenKind::LBracket, 1),
            (b']', _) => (TokenKind::RBracket, 1),
            (b',', _) => (TokenKind::Comma, 1),
            (b';', _) => (TokenKind::Semi, 1),
            (b':', _) => (TokenKind::Colon, 1),
            (b'.', _) => (TokenKind::Dot, 1),
            (b'=', _) => (TokenKind::Assign, 1),
            (b'!', _) => (TokenKind::Bang, 1),
            (b'<', _) => (TokenKind::Lt, 1),
            (b'>', _) => (TokenKind::Gt, 1),
            (b'+', _) => (TokenKind::Plus, 1),
            (b'-', _) => (TokenKind::Minus, 1),
            (b'*', _) => (TokenKind::Star, 1),
            (b'/', _) => (TokenKind::Slash, 1),
            (b'%', _) => (TokenKind::Percent, 1),
            _ => return None,
        };
        Some(token)
    }

    /// Consumes a run of characters that start no token and reports it once.
    fn unknown(&mut self) {
        let start = self.pos;
        let source = self.source;
        for c in source[start..].chars() {
            let starts_token = c.is_ascii()
                && (c.is_ascii_whitespace()
                    || c == '"'
                    || is_ident_continue(c as u8)
                    || self.punctuation(c as u8).is_some());
            // `run` sends only a character that starts no token here, so the
            // run is never empty.
            if starts_token && self.pos > start {
                break;
            }
            self.pos += c.len_utf8();
        }
        let text = &self.source[start..self.pos];
        let (message, note) = match text {
            "&" => (
                "unexpected character '&'".to_string(),
                Some("logical and is written '&&'"),
            ),
            "|" => (
                "unexpected character '|'".to_string(),
                Some("logical or is written '||'"),
            ),
            _ if text.chars().count() == 1 => (format!("unexpected character '{text}'"), None),
            _ => (format!("unexpected characters '{text}'"), None),
        };
        let mut diagnostic = Diagnostic::error(self.span_from(start), message);
        if let Some(note) = note {
            diagnostic = diagnostic.with_note(note);
        }
        self.diagnostics.push(diagnostic);
        self.push(TokenKind::Unknown, start);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(source: &str) -> Vec<TokenKind> {
        let (tokens, diagnostics) = lex(source);
        assert_eq!(
            diagnostics,
            Vec::new(),
            "unexpected diagnostics for {source:?}"
        );
        tokens.into_iter().map(|token| token.kind).collect()
    }

    fn messages(source: &str) -> Vec<(String, std::ops::Range<usize>)> {
        let (_, diagnostics) = lex(source);
        diagnostics
            .into_iter()
            .map(|diagnostic| (diagnostic.message, diagnostic.span.range()))
            .collect()
    }

    #[test]
    fn lexes_every_kind_of_token() {
        use TokenKind::*;
        assert_eq!(
            kinds("let x1 = 42; for i in 0..n { a[i] = -b.f; } \"s\""),
            vec![
                Keyword(crate::token::Keyword::Let),
                Ident("x1".into()),
                Assign,
                Int(42),
                Semi,
                Keyword(crate::token::Keyword::For),
                Ident("i".into()),
                Keyword(crate::token::Keyword::In),
                Int(0),
                DotDot,
                Ident("n".into()),
                LBrace,
                Ident("a".into()),
                LBracket,
                Ident("i".into()),
                RBracket,
                Assign,
                Minus,
                Ident("b".into()),
                Dot,
                Ident("f".into()),
                Semi,
                RBrace,
                Str("s".into()),
                Eof,
            ]
        );
        assert_eq!(
            kinds("== != <= >= < > && || ! + - * / % , : ( ) ."),
            vec![
                EqEq, NotEq, Le, Ge, Lt, Gt, AndAnd, OrOr, Bang, Plus, Minus, Star, Slash, Percent,
                Comma, Colon, LParen, RParen, Dot, Eof
            ]
        );
    }

    #[test]
    fn spans_cover_the_token_bytes() {
        let (tokens, _) = lex("ab  <= \"x\"");
        let spans: Vec<_> = tokens.iter().map(|token| token.span.range()).collect();
        assert_eq!(spans, vec![0..2, 4..6, 7..10, 10..10]);
    }

    #[test]
    fn skips_comments() {
        assert_eq!(
            kinds("a // b\n/* c \n d */ e /**/"),
            vec![
                TokenKind::Ident("a".into()),
                TokenKind::Ident("e".into()),
                TokenKind::Eof
            ]
        );
    }

    #[test]
    fn replaces_string_escapes() {
        assert_eq!(
            kinds(r#""q\" b\\ n\n t\t é""#),
            vec![TokenKind::Str("q\" b\\ n\n t\t é".into()), TokenKind::Eof]
        );
    }

    #[test]
    fn integer_limits() {
        assert_eq!(
            kinds("9223372036854775807 9223372036854775808"),
            vec![
                TokenKind::Int(9_223_372_036_854_775_807),
                TokenKind::Int(NEGATABLE_LIMIT),
                TokenKind::Eof
            ]
        );
        assert_eq!(
            messages("x 9223372036854775809 99999999999999999999999"),
            vec![
                ("integer literal is too large".to_string(), 2..21),
                ("integer literal is too large".to_string(), 22..45),
            ]
        );
        assert_eq!(
            messages("12ab"),
            vec![("invalid suffix 'ab' on integer literal".to_string(), 0..4)]
        );
    }

    #[test]
    fn reports_unterminated_strings_and_comments() {
        assert_eq!(
            messages("\"abc\nx"),
            vec![("unterminated string literal".to_string(), 0..4)]
        );
        assert_eq!(
            messages("\"abc\\"),
            vec![("unterminated string literal".to_string(), 0..5)]
        );
        // The string is taken to end before the line's last `)`.
        let (tokens, _) = lex("print(\"a(b)c);\nx");
        let kinds: Vec<_> = tokens.into_iter().map(|token| token.kind).collect();
        assert_eq!(
            kinds,
            vec![
                TokenKind::Keyword(Keyword::Print),
                TokenKind::LParen,
                TokenKind::Str("a(b)c".into()),
                TokenKind::RParen,
                TokenKind::Semi,
                TokenKind::Ident("x".into()),
                TokenKind::Eof,
            ]
        );
        assert_eq!(
            messages("a /* b"),
            vec![("unterminated block comment".to_string(), 2..4)]
        );
        assert_eq!(
            messages(r#""a\qb\é""#),
            vec![
                ("unknown escape sequence '\\q'".to_string(), 2..4),
                ("unknown escape sequence '\\é'".to_string(), 5..8),
            ]
        );
    }

    #[test]
    fn reports_unknown_characters_once_per_run_and_goes_on() {
        let (tokens, diagnostics) = lex("a # b @@ ∀x & c");
        let found: Vec<_> = diagnostics
            .iter()
            .map(|diagnostic| (diagnostic.message.as_str(), diagnostic.span.range()))
            .collect();
        assert_eq!(
            found,
            vec![
                ("unexpected character '#'", 2..3),
                ("unexpected characters '@@'", 6..8),
                ("unexpected character '∀'", 9..12),
                ("unexpected character '&'", 14..15),
            ]
        );
        assert_eq!(diagnostics[3].notes, vec!["logical and is written '&&'"]);
        let idents = tokens
            .iter()
            .filter(|token| matches!(token.kind, TokenKind::Ident(_)))
            .count();
        assert_eq!(idents, 4);
    }
}
