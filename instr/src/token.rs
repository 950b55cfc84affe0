//! Tokens: the lexer's output and the parser's input, each with its byte span.

use std::fmt;

use rankcheck_engine::Span;

/// One token of `.rk` source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// What the token is.
    pub kind: TokenKind,
    /// The bytes it covers (empty for [`TokenKind::Eof`], at the end of the
    /// source).
    pub span: Span,
}

/// What a token is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// An integer literal's value. It is at most `2^63`: that value fits an
    /// `i64` only when negated, which the parser checks. A literal the lexer
    /// rejected (too large, bad suffix) is reported and becomes `Int(0)`.
    Int(u64),
    /// A string literal's value, escapes already replaced.
    Str(String),
    /// An identifier that is not a keyword.
    Ident(String),
    /// A keyword.
    Keyword(Keyword),
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `,`
    Comma,
    /// `;`
    Semi,
    /// `:`
    Colon,
    /// `.`
    Dot,
    /// `..`
    DotDot,
    /// `=`
    Assign,
    /// `==`
    EqEq,
    /// `!`
    Bang,
    /// `!=`
    NotEq,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `+`
    Plus,
    /// `-`
    Minus,
    /// `*`
    Star,
    /// `/`
    Slash,
    /// `%`
    Percent,
    /// `&&`
    AndAnd,
    /// `||`
    OrOr,
    /// A run of characters that start no token, an unterminated block
    /// comment, or (empty) the end of a string literal that was not closed.
    /// The lexer has reported it, so the parser skips it without a
    /// diagnostic of its own.
    Unknown,
    /// The end of the source; always the last token.
    Eof,
}

impl fmt::Display for TokenKind {
    /// Describes the token for a diagnostic's "found ..." part: `'}'`,
    /// `'while'`, `'x'`, `'42'`, `string literal`, `end of file`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = match self {
            TokenKind::Int(value) => return write!(f, "'{value}'"),
            TokenKind::Str(_) => return f.write_str("string literal"),
            TokenKind::Ident(name) => return write!(f, "'{name}'"),
            TokenKind::Keyword(keyword) => return write!(f, "'{keyword}'"),
            TokenKind::Unknown => return f.write_str("unknown character"),
            TokenKind::Eof => return f.write_str("end of file"),
            TokenKind::LParen => "(",
            TokenKind::RParen => ")",
            TokenKind::LBrace => "{",
            TokenKind::RBrace => "}",
            TokenKind::LBracket => "[",
            TokenKind::RBracket => "]",
            TokenKind::Comma => ",",
            TokenKind::Semi => ";",
            TokenKind::Colon => ":",
            TokenKind::Dot => ".",
            TokenKind::DotDot => "..",
            TokenKind::Assign => "=",
            TokenKind::EqEq => "==",
            TokenKind::Bang => "!",
            TokenKind::NotEq => "!=",
            TokenKind::Lt => "<",
            TokenKind::Le => "<=",
            TokenKind::Gt => ">",
            TokenKind::Ge => ">=",
            TokenKind::Plus => "+",
            TokenKind::Minus => "-",
            TokenKind::Star => "*",
            TokenKind::Slash => "/",
            TokenKind::Percent => "%",
            TokenKind::AndAnd => "&&",
            TokenKind::OrOr => "||",
        };
        write!(f, "'{text}'")
    }
}

/// Declares [`Keyword`] with its spellings, so the enum, `ALL` and the text
/// cannot disagree.
macro_rules! keywords {
    ($($variant:ident => $text:literal,)*) => {
        /// A reserved word: none of these can name an item, a local or a
        /// parameter; any can name a record field (see `Parser::expect_field_name`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Keyword {
            $(
                #[doc = concat!("`", $text, "`")]
                $variant,
            )*
        }

        impl Keyword {
            /// Every keyword, in the order of docs/LANGUAGE.md's list.
            pub const ALL: &'static [Keyword] = &[$(Keyword::$variant,)*];

            /// The keyword as written in source.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Keyword::$variant => $text,)*
                }
            }

            /// The keyword spelled `text`, if it is one.
            pub fn from_text(text: &str) -> Option<Keyword> {
                match text {
                    $($text => Some(Keyword::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

keywords! {
    Const => "const",
    Global => "global",
    Mutex => "mutex",
    Cond => "cond",
    Fn => "fn",
    Thread => "thread",
    Let => "let",
    If => "if",
    Else => "else",
    While => "while",
    For => "for",
    In => "in",
    Break => "break",
    Continue => "continue",
    Return => "return",
    Assert => "assert",
    Lock => "lock",
    Unlock => "unlock",
    Sync => "sync",
    Wait => "wait",
    Signal => "signal",
    Broadcast => "broadcast",
    Await => "await",
    Atomic => "atomic",
    Yield => "yield",
    Join => "join",
    Print => "print",
    Spawn => "spawn",
    New => "new",
    True => "true",
    False => "false",
    Null => "null",
    Len => "len",
    SelfKw => "self",
}

impl Keyword {
    /// Whether the keyword begins an item: `const`, `global`, `mutex`,
    /// `cond`, `fn` or `thread`. (`mutex` and `cond` also follow `new`.)
    pub fn starts_item(self) -> bool {
        matches!(
            self,
            Keyword::Const
                | Keyword::Global
                | Keyword::Mutex
                | Keyword::Cond
                | Keyword::Fn
                | Keyword::Thread
        )
    }
}

impl fmt::Display for Keyword {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_keyword_round_trips_through_its_text() {
        assert_eq!(Keyword::ALL.len(), 34);
        for &keyword in Keyword::ALL {
            assert_eq!(Keyword::from_text(keyword.as_str()), Some(keyword));
        }
        assert_eq!(Keyword::from_text("main"), None);
        assert_eq!(Keyword::SelfKw.as_str(), "self");
    }

    #[test]
    fn tokens_describe_themselves_for_diagnostics() {
        assert_eq!(TokenKind::RBrace.to_string(), "'}'");
        assert_eq!(TokenKind::Keyword(Keyword::While).to_string(), "'while'");
        assert_eq!(TokenKind::Ident("x".into()).to_string(), "'x'");
        assert_eq!(TokenKind::Int(42).to_string(), "'42'");
        assert_eq!(TokenKind::Str("s".into()).to_string(), "string literal");
        assert_eq!(TokenKind::Eof.to_string(), "end of file");
    }
}
