//! The parser: tokens to a [`Module`] by recursive descent. Syntax errors are
//! collected, not stopped at: the parser recovers at `;`, `}` and item
//! keywords, so independent mistakes are reported once each.

use rankcheck_engine::Span;

use crate::ast::{
    BinaryOp, Block, ConstItem, Expr, ExprKind, FieldInit, FnItem, GlobalItem, Ident, IfArm, Item,
    ItemKind, Module, Place, PlaceKind, PrintArg, Replication, Stmt, StmtKind, StrLit, ThreadItem,
    UnaryOp,
};
use crate::diagnostic::Diagnostic;
use crate::lexer::{int_too_large, lex, NEGATABLE_LIMIT};
use crate::token::{Keyword, Token, TokenKind};

/// How deeply blocks and expressions may nest. Each block, each operand
/// (so each parenthesis and prefix operator), and each operator or postfix
/// `.f`, `[i]`, `(args)` of a chain counts one level, so the tree handed on
/// is never much deeper than this and recursive passes over it cannot
/// overflow the stack.
///
/// Real programs nest a few levels deep. The limit is set by the stack: a
/// debug build spends about 5 KiB of stack per level of the parser's
/// recursion, so 128 levels peak near 700 KiB, well inside the 2 MiB of a
/// test thread, with room left for passes over the tree.
pub const MAX_NESTING: u32 = 128;

/// Parses a whole `.rk` source file.
///
/// Returns the module if the source has no lexical or syntax error, and
/// otherwise every error found, sorted by position. The parser does not stop
/// at the first error: it recovers at `;`, `}` and item keywords (`const`,
/// `global`, `mutex`, `cond`, `fn`, `thread`), so each independent mistake
/// is reported once, without cascades. It never panics, and nesting deeper
/// than [`MAX_NESTING`] is a diagnostic, not a stack overflow.
///
/// Besides syntax, the parser checks what needs no name resolution:
/// duplicate fields in one record literal, duplicate parameters of one
/// function, the number of arguments of the built-in statements and
/// expressions, and that string literals appear only as `assert` and `print`
/// messages.
pub fn parse(source: &str) -> Result<Module, Vec<Diagnostic>> {
    let (tokens, mut diagnostics) = lex(source);
    let mut parser = Parser::new(source, tokens);
    let module = parser.module();
    diagnostics.append(&mut parser.diagnostics);
    if diagnostics.is_empty() {
        Ok(module)
    } else {
        diagnostics.sort_by_key(|diagnostic| diagnostic.span.start);
        Err(diagnostics)
    }
}

/// The list of items named in "expected item" diagnostics.
const ITEM_LIST: &str = "item (const, global, mutex, cond, fn or thread)";

/// The token that `nth_kind` reports past the end of the tokens.
static EOF: TokenKind = TokenKind::Eof;

/// The parser's state: a cursor into the tokens and what it has found.
struct Parser<'a> {
    source: &'a str,
    /// Never empty: the last token is always [`TokenKind::Eof`].
    tokens: Vec<Token>,
    /// Index of the current token; never past the final `Eof`.
    pos: usize,
    /// `brace_balance[i]`: the number of `{` minus the number of `}` among
    /// `tokens[i..]`, to tell a missing `}` from a misplaced declaration.
    brace_balance: Vec<i64>,
    diagnostics: Vec<Diagnostic>,
    /// The token index of the last "expected ..." diagnostic: a second one
    /// at the same token would only repeat the first.
    last_expected: Option<usize>,
    /// Current nesting, counted as described at [`MAX_NESTING`].
    depth: u32,
    reported_too_deep: bool,
    /// The `{` of every block being parsed, outermost first.
    open_braces: Vec<Span>,
    /// A missing `}` has been reported for the current item: the enclosing
    /// blocks end without reporting it again.
    unwinding: bool,
}

/// What a block does on meeting an item keyword.
enum ItemKeywordInBlock {
    /// The block's `}` is missing: end the block here.
    CloseBlock,
    /// A declaration was written inside the block: it was reported and
    /// skipped, and the block goes on.
    Skipped,
}

fn binary_op(kind: &TokenKind) -> Option<BinaryOp> {
    let op = match kind {
        TokenKind::Star => BinaryOp::Mul,
        TokenKind::Slash => BinaryOp::Div,
        TokenKind::Percent => BinaryOp::Rem,
        TokenKind::Plus => BinaryOp::Add,
        TokenKind::Minus => BinaryOp::Sub,
        TokenKind::Lt => BinaryOp::Lt,
        TokenKind::Le => BinaryOp::Le,
        TokenKind::Gt => BinaryOp::Gt,
        TokenKind::Ge => BinaryOp::Ge,
        TokenKind::EqEq => BinaryOp::Eq,
        TokenKind::NotEq => BinaryOp::Ne,
        TokenKind::AndAnd => BinaryOp::And,
        TokenKind::OrOr => BinaryOp::Or,
        _ => return None,
    };
    Some(op)
}

fn can_start_expr(kind: &TokenKind) -> bool {
    match kind {
        TokenKind::Int(_)
        | TokenKind::Str(_)
        | TokenKind::Ident(_)
        | TokenKind::LParen
        | TokenKind::Minus
        | TokenKind::Bang => true,
        TokenKind::Keyword(keyword) => matches!(
            keyword,
            Keyword::New
                | Keyword::Len
                | Keyword::SelfKw
                | Keyword::Spawn
                | Keyword::True
                | Keyword::False
                | Keyword::Null
        ),
        _ => false,
    }
}

/// Keywords that begin a statement that has no value.
fn is_statement_keyword(keyword: Keyword) -> bool {
    matches!(
        keyword,
        Keyword::Let
            | Keyword::If
            | Keyword::While
            | Keyword::For
            | Keyword::Break
            | Keyword::Continue
            | Keyword::Return
            | Keyword::Assert
            | Keyword::Lock
            | Keyword::Unlock
            | Keyword::Sync
            | Keyword::Wait
            | Keyword::Signal
            | Keyword::Broadcast
            | Keyword::Await
            | Keyword::Atomic
            | Keyword::Yield
            | Keyword::Join
            | Keyword::Print
    )
}

/// "1 argument", "2 arguments", "no arguments".
fn arguments(count: usize) -> String {
    match count {
        0 => "no arguments".to_string(),
        1 => "1 argument".to_string(),
        _ => format!("{count} arguments"),
    }
}

/// A stand-in for an expression that was reported as wrong but did not
/// derail the parse; it never leaves the parser, since a parse with a
/// diagnostic returns no module.
fn placeholder(span: Span) -> Expr {
    Expr {
        kind: ExprKind::Null,
        span,
    }
}

fn string_not_expr(span: Span) -> Diagnostic {
    Diagnostic::error(span, "expected expression, found string literal")
        .with_note("string literals are allowed only as 'assert' and 'print' messages")
}

impl<'a> Parser<'a> {
    fn new(source: &'a str, mut tokens: Vec<Token>) -> Parser<'a> {
        if tokens.last().map(|token| &token.kind) != Some(&TokenKind::Eof) {
            let end = u32::try_from(source.len()).unwrap_or(u32::MAX);
            tokens.push(Token {
                kind: TokenKind::Eof,
                span: Span::new(end, end),
            });
        }
        let mut brace_balance = vec![0; tokens.len() + 1];
        for (index, token) in tokens.iter().enumerate().rev() {
            let change = match token.kind {
                TokenKind::LBrace => 1,
                TokenKind::RBrace => -1,
                _ => 0,
            };
            brace_balance[index] = brace_balance[index + 1] + change;
        }
        Parser {
            source,
            tokens,
            pos: 0,
            brace_balance,
            diagnostics: Vec::new(),
            last_expected: None,
            depth: 0,
            reported_too_deep: false,
            open_braces: Vec::new(),
            unwinding: false,
        }
    }

    // ----- Cursor -----

    fn peek(&self) -> &Token {
        // `pos` never passes the final `Eof` (see `bump`).
        &self.tokens[self.pos]
    }

    fn peek_kind(&self) -> &TokenKind {
        &self.peek().kind
    }

    fn nth_kind(&self, ahead: usize) -> &TokenKind {
        self.tokens
            .get(self.pos + ahead)
            .map_or(&EOF, |token| &token.kind)
    }

    fn at(&self, kind: &TokenKind) -> bool {
        self.peek_kind() == kind
    }

    fn at_keyword(&self, keyword: Keyword) -> bool {
        self.at(&TokenKind::Keyword(keyword))
    }

    /// Whether the current token begins an item: an item keyword, except
    /// `mutex` and `cond` right after `new`.
    fn at_item_start(&self) -> bool {
        match self.peek_kind() {
            TokenKind::Keyword(keyword) => {
                keyword.starts_item()
                    && !(self.pos > 0
                        && self.tokens[self.pos - 1].kind == TokenKind::Keyword(Keyword::New))
            }
            _ => false,
        }
    }

    /// Moves past the current token (but never past `Eof`) and returns its
    /// span.
    fn bump(&mut self) -> Span {
        let span = self.peek().span;
        if self.pos + 1 < self.tokens.len() {
            self.pos += 1;
        }
        span
    }

    fn eat(&mut self, kind: &TokenKind) -> Option<Span> {
        if self.at(kind) {
            Some(self.bump())
        } else {
            None
        }
    }

    /// The end of the last token consumed (0 before the first).
    fn prev_end(&self) -> u32 {
        match self.pos.checked_sub(1) {
            Some(prev) => self.tokens[prev].span.end,
            None => 0,
        }
    }

    /// The span from `start` to the end of the last token consumed.
    fn since(&self, start: Span) -> Span {
        Span::new(start.start, self.prev_end().max(start.start))
    }

    /// Whether a line break separates the current token from the previous.
    fn on_new_line(&self) -> bool {
        let gap = self.prev_end() as usize..self.peek().span.start as usize;
        self.source
            .get(gap)
            .is_some_and(|between| between.contains('\n'))
    }

    // ----- Diagnostics -----

    /// Starts an `expected {what}, found {token}` diagnostic at the current
    /// token, or returns `None` if it should not be shown: the lexer already
    /// reported an unknown character there (or an unterminated comment just
    /// before the end of file), or another "expected" did.
    ///
    /// When the current token is on a later line than the previous one (or
    /// is the end of file), the caret goes right after the previous token,
    /// where the missing piece belongs, not at the start of the next line.
    fn expected(&mut self, what: &str) -> Option<Diagnostic> {
        let span = if self.pos > 0 && (self.at(&TokenKind::Eof) || self.on_new_line()) {
            let end = self.prev_end();
            Span::new(end, end)
        } else {
            self.peek().span
        };
        self.expected_at(span, what)
    }

    /// Like [`Parser::expected`], with the caret on the current token: for a
    /// token that is wrong in itself, not a sign that something is missing.
    fn unexpected(&mut self, what: &str) -> Option<Diagnostic> {
        let span = self.peek().span;
        self.expected_at(span, what)
    }

    fn expected_at(&mut self, span: Span, what: &str) -> Option<Diagnostic> {
        // After an unterminated comment, the end of file is no news.
        let after_unknown = self.pos > 0 && self.tokens[self.pos - 1].kind == TokenKind::Unknown;
        if self.at(&TokenKind::Unknown)
            || (self.at(&TokenKind::Eof) && after_unknown)
            || self.last_expected == Some(self.pos)
        {
            return None;
        }
        self.last_expected = Some(self.pos);
        Some(Diagnostic::error(
            span,
            format!("expected {what}, found {}", self.peek_kind()),
        ))
    }

    fn report(&mut self, diagnostic: Option<Diagnostic>) {
        self.diagnostics.extend(diagnostic);
    }

    fn expect(&mut self, kind: &TokenKind, what: &str) -> Option<Span> {
        if let Some(span) = self.eat(kind) {
            return Some(span);
        }
        let diagnostic = self.expected(what);
        self.report(diagnostic);
        None
    }

    /// Expects the `)` or `]` that closes `open`.
    fn expect_closer(&mut self, kind: &TokenKind, open: Span, opener: &str) -> Option<Span> {
        if let Some(span) = self.eat(kind) {
            return Some(span);
        }
        let diagnostic = self
            .expected(&kind.to_string())
            .map(|diagnostic| diagnostic.with_related(open, format!("unclosed '{opener}'")));
        self.report(diagnostic);
        None
    }

    /// Expects the `;` that ends a statement or declaration. If it is
    /// missing but the next token starts a new line, closes a block or
    /// starts an item, parsing goes on as if it were there: the rest is
    /// likely fine.
    fn expect_semi(&mut self, after: &str) -> Option<()> {
        if self.eat(&TokenKind::Semi).is_some() {
            return Some(());
        }
        let diagnostic = self.expected(&format!("';' after {after}"));
        self.report(diagnostic);
        let goes_on = self.on_new_line()
            || self.at_item_start()
            || matches!(self.peek_kind(), TokenKind::RBrace | TokenKind::Eof);
        goes_on.then_some(())
    }

    /// Expects a name (an identifier that is not a keyword).
    fn expect_name(&mut self, what: &str) -> Option<Ident> {
        if let TokenKind::Ident(name) = self.peek_kind() {
            let name = name.clone();
            let span = self.bump();
            return Some(Ident { name, span });
        }
        let keyword = match self.peek_kind() {
            TokenKind::Keyword(keyword) => Some(*keyword),
            _ => None,
        };
        let diagnostic = self.expected(what).map(|diagnostic| match keyword {
            Some(keyword) => diagnostic.with_note(format!(
                "'{keyword}' is a keyword and cannot be used as a name"
            )),
            None => diagnostic,
        });
        self.report(diagnostic);
        None
    }

    /// Expects a field name: an identifier or a keyword. A field name only
    /// ever follows `.` or stands before `:` in a record literal, where no
    /// keyword could mean anything else, so `p.lock` and `new { len: 0 }`
    /// read as a C or Rust programmer means them.
    fn expect_field_name(&mut self, what: &str) -> Option<Ident> {
        if let TokenKind::Keyword(keyword) = self.peek_kind() {
            let name = keyword.as_str().to_string();
            let span = self.bump();
            return Some(Ident { name, span });
        }
        self.expect_name(what)
    }

    /// Adds a nesting level; false (after reporting, once per parse) if that
    /// passes [`MAX_NESTING`]. The caller restores the depth.
    fn deepen(&mut self) -> bool {
        self.depth += 1;
        if self.depth <= MAX_NESTING {
            return true;
        }
        if !self.reported_too_deep {
            self.reported_too_deep = true;
            self.diagnostics.push(
                Diagnostic::error(self.peek().span, "expression or block nested too deeply")
                    .with_label(format!("more than {MAX_NESTING} levels deep"))
                    .with_note(
                        "each block, parenthesis and prefix operator, and each link of an \
                         operator chain, counts one level; split the code with 'let' or a \
                         function",
                    ),
            );
        }
        false
    }

    // ----- Recovery -----

    /// After an error in an item's header: skips to the next item keyword.
    fn recover_item(&mut self) {
        while !self.at(&TokenKind::Eof) && !self.at_item_start() {
            self.bump();
        }
    }

    /// After an error in a statement: skips past the next `;`, or past a
    /// `{ ... }` group (which ends statements such as `if` and `while`), or
    /// up to a `}` that closes the enclosing block. With `stop_at_items`, it
    /// also stops before an item keyword, where a missing `}` likely was.
    fn recover_stmt(&mut self, stop_at_items: bool) {
        let mut depth = 0u32;
        loop {
            if stop_at_items && self.at_item_start() {
                return;
            }
            match self.peek_kind() {
                TokenKind::Eof => return,
                TokenKind::Semi if depth == 0 => {
                    self.bump();
                    return;
                }
                TokenKind::RBrace if depth == 0 => return,
                TokenKind::RBrace if depth == 1 => {
                    self.bump();
                    return;
                }
                TokenKind::LBrace | TokenKind::LParen | TokenKind::LBracket => depth += 1,
                TokenKind::RBrace | TokenKind::RParen | TokenKind::RBracket => {
                    depth = depth.saturating_sub(1);
                }
                _ => {}
            }
            self.bump();
        }
    }

    /// After an error inside a `(...)`, `[...]` or `{...}` list: skips to the
    /// list's closer and returns its span, or gives up (`None`) at whatever
    /// must belong to an enclosing construct.
    fn recover_list(&mut self, close: &TokenKind) -> Option<Span> {
        let mut depth = 0u32;
        loop {
            if self.at_item_start() {
                return None;
            }
            let kind = self.peek_kind();
            match kind {
                TokenKind::Eof => return None,
                _ if depth == 0 && kind == close => return Some(self.bump()),
                // A `;` inside braces is likely a typo for `,`; inside
                // parentheses or brackets, the closer is likely missing.
                TokenKind::Semi if depth == 0 && *close != TokenKind::RBrace => return None,
                TokenKind::LBrace | TokenKind::LParen | TokenKind::LBracket => depth += 1,
                TokenKind::RBrace | TokenKind::RParen | TokenKind::RBracket => {
                    if depth == 0 {
                        return None;
                    }
                    depth -= 1;
                }
                _ => {}
            }
            self.bump();
        }
    }

    /// Parses `item (',' item)* ','? close`, the opener already consumed.
    /// After an error inside, skips to the closer and returns what was
    /// parsed, or `None` if the closer cannot be found.
    fn list<T>(
        &mut self,
        close: TokenKind,
        what: &str,
        mut item: impl FnMut(&mut Self) -> Option<T>,
    ) -> Option<(Vec<T>, Span)> {
        let mut items = Vec::new();
        loop {
            if let Some(span) = self.eat(&close) {
                return Some((items, span));
            }
            match item(self) {
                Some(parsed) => items.push(parsed),
                None => return self.recover_list(&close).map(|span| (items, span)),
            }
            if self.eat(&TokenKind::Comma).is_some() {
                continue;
            }
            if let Some(span) = self.eat(&close) {
                return Some((items, span));
            }
            let diagnostic = self.expected(&format!("',' or {close} after {what}"));
            self.report(diagnostic);
            return self.recover_list(&close).map(|span| (items, span));
        }
    }

    // ----- Items -----

    fn module(&mut self) -> Module {
        let mut items = Vec::new();
        loop {
            self.unwinding = false;
            self.open_braces.clear();
            match self.peek_kind() {
                TokenKind::Eof => break,
                TokenKind::Keyword(keyword) if keyword.starts_item() => {
                    let keyword = *keyword;
                    match self.item(keyword) {
                        Some(item) => items.push(item),
                        None => self.recover_item(),
                    }
                }
                _ => {
                    let diagnostic = self.unexpected(ITEM_LIST);
                    self.report(diagnostic);
                    self.bump();
                    self.recover_item();
                }
            }
        }
        let end = u32::try_from(self.source.len()).unwrap_or(u32::MAX);
        Module {
            items,
            span: Span::new(0, end),
        }
    }

    fn item(&mut self, keyword: Keyword) -> Option<Item> {
        let start = self.bump();
        let kind = match keyword {
            Keyword::Const => ItemKind::Const(self.const_item()?),
            Keyword::Global => ItemKind::Global(self.global_item()?),
            Keyword::Mutex => {
                let name = self.expect_name("mutex name after 'mutex'")?;
                self.expect_semi("mutex declaration")?;
                ItemKind::Mutex(name)
            }
            Keyword::Cond => {
                let name = self.expect_name("condition variable name after 'cond'")?;
                self.expect_semi("condition variable declaration")?;
                ItemKind::Cond(name)
            }
            Keyword::Fn => ItemKind::Fn(self.fn_item()?),
            _ => ItemKind::Thread(self.thread_item()?),
        };
        Some(Item {
            kind,
            span: self.since(start),
        })
    }

    fn const_item(&mut self) -> Option<ConstItem> {
        let name = self.expect_name("constant name after 'const'")?;
        self.expect(&TokenKind::Assign, "'=' after the constant name")?;
        let value = self.expr()?;
        self.expect_semi("constant declaration")?;
        Some(ConstItem { name, value })
    }

    fn global_item(&mut self) -> Option<GlobalItem> {
        let name = self.expect_name("global name after 'global'")?;
        let array_len = match self.eat(&TokenKind::LBracket) {
            Some(open) => {
                let len = self.expr()?;
                self.expect_closer(&TokenKind::RBracket, open, "[")?;
                Some(len)
            }
            None => None,
        };
        let init = match self.eat(&TokenKind::Assign) {
            Some(_) => Some(self.expr()?),
            None => None,
        };
        self.expect_semi("global declaration")?;
        Some(GlobalItem {
            name,
            array_len,
            init,
        })
    }

    fn fn_item(&mut self) -> Option<FnItem> {
        let name = self.expect_name("function name after 'fn'")?;
        self.expect(&TokenKind::LParen, "'(' after the function name")?;
        let (params, _) = self.list(TokenKind::RParen, "parameter", |parser| {
            parser.expect_name("parameter name")
        })?;
        for (index, param) in params.iter().enumerate() {
            if let Some(first) = params[..index].iter().find(|p| p.name == param.name) {
                self.diagnostics.push(
                    Diagnostic::error(param.span, format!("duplicate parameter `{}`", param.name))
                        .with_label("declared again here")
                        .with_related(first.span, "first declared here"),
                );
            }
        }
        let body = self.block("'{' after the parameter list")?;
        Some(FnItem { name, params, body })
    }

    fn thread_item(&mut self) -> Option<ThreadItem> {
        let name = self.expect_name("thread name after 'thread'")?;
        let replication = match self.eat(&TokenKind::LBracket) {
            Some(open) => {
                let count = self.expr()?;
                self.expect_closer(&TokenKind::RBracket, open, "[")?;
                let Some(paren) = self.eat(&TokenKind::LParen) else {
                    let diagnostic = self.expected("'(' after the number of copies").map(|d| {
                        d.with_note(
                            "a replicated thread names its index: thread NAME[N](i) { ... }",
                        )
                    });
                    self.report(diagnostic);
                    return None;
                };
                let index = self.expect_name("index name")?;
                self.expect_closer(&TokenKind::RParen, paren, "(")?;
                Some(Replication { count, index })
            }
            None => None,
        };
        let body = self.block("'{' after the thread name")?;
        Some(ThreadItem {
            name,
            replication,
            body,
        })
    }

    // ----- Blocks and statements -----

    /// Parses `{ STMT* }`; `what` describes the expected `{` for the
    /// diagnostic when it is missing.
    fn block(&mut self, what: &str) -> Option<Block> {
        let saved = self.depth;
        let result = if self.deepen() {
            self.block_inner(what)
        } else {
            None
        };
        self.depth = saved;
        result
    }

    fn block_inner(&mut self, what: &str) -> Option<Block> {
        let Some(open) = self.eat(&TokenKind::LBrace) else {
            self.missing_block(what);
            return None;
        };
        self.open_braces.push(open);
        let mut stmts = Vec::new();
        let end = loop {
            match self.peek_kind() {
                TokenKind::RBrace => break self.bump().end,
                TokenKind::Eof => break self.unclosed_block(),
                // An empty statement, as in C and Rust: `;;`, or `};` after
                // a block.
                TokenKind::Semi => {
                    self.bump();
                }
                _ if self.at_item_start() => match self.item_keyword_in_block() {
                    ItemKeywordInBlock::CloseBlock => break self.unclosed_block(),
                    ItemKeywordInBlock::Skipped => {}
                },
                _ => match self.stmt() {
                    Some(stmt) => stmts.push(stmt),
                    None => self.recover_stmt(true),
                },
            }
        };
        self.open_braces.pop();
        Some(Block {
            stmts,
            span: Span::new(open.start, end.max(open.end)),
        })
    }

    fn missing_block(&mut self, what: &str) {
        let found_assign = self.at(&TokenKind::Assign);
        let diagnostic = self.expected(what).map(|diagnostic| {
            if found_assign {
                diagnostic.with_note("to compare two values, use '=='")
            } else {
                diagnostic
            }
        });
        self.report(diagnostic);
    }

    /// Reports (once per item) that the blocks being parsed lack their `}`
    /// and returns where the current block ends.
    fn unclosed_block(&mut self) -> u32 {
        if !self.unwinding {
            self.unwinding = true;
            let open_braces = self.open_braces.clone();
            let diagnostic = self.expected("'}' to close the block").map(|diagnostic| {
                open_braces
                    .into_iter()
                    .fold(diagnostic, |diagnostic, open| {
                        diagnostic.with_related(open, "unclosed '{'")
                    })
            });
            self.report(diagnostic);
        }
        self.prev_end()
    }

    /// An item keyword where a statement should be: either the blocks'
    /// `}` is missing before the next item, or a declaration was written
    /// inside a block. If the rest of the file has enough `}` to close every
    /// open block, it is the latter.
    fn item_keyword_in_block(&mut self) -> ItemKeywordInBlock {
        let open = i64::try_from(self.open_braces.len()).unwrap_or(i64::MAX);
        let closers_left = -self.brace_balance.get(self.pos).copied().unwrap_or(0);
        if self.unwinding || closers_left < open {
            return ItemKeywordInBlock::CloseBlock;
        }
        let diagnostic = self.unexpected("statement").map(|diagnostic| {
            diagnostic.with_note(
                "declarations (const, global, mutex, cond, fn, thread) are allowed only at \
                 the top level",
            )
        });
        self.report(diagnostic);
        self.bump();
        self.recover_stmt(false);
        ItemKeywordInBlock::Skipped
    }

    fn stmt(&mut self) -> Option<Stmt> {
        let start = self.peek().span;
        let kind = self.stmt_kind()?;
        Some(Stmt {
            kind,
            span: self.since(start),
        })
    }

    /// Dispatches on the statement's first token. Every arm is one call, and
    /// statements with blocks have functions of their own, so that the
    /// frames on the block-in-statement recursion stay small (see
    /// [`MAX_NESTING`]).
    fn stmt_kind(&mut self) -> Option<StmtKind> {
        let keyword = match self.peek_kind() {
            TokenKind::Keyword(keyword) => Some(*keyword),
            _ => None,
        };
        match keyword {
            Some(Keyword::Let) => self.let_stmt(),
            Some(Keyword::If) => self.if_stmt(),
            Some(Keyword::While) => self.while_stmt(),
            Some(Keyword::For) => self.for_stmt(),
            Some(Keyword::Break) => self.bare_stmt(StmtKind::Break),
            Some(Keyword::Continue) => self.bare_stmt(StmtKind::Continue),
            Some(Keyword::Yield) => self.bare_stmt(StmtKind::Yield),
            Some(Keyword::Return) => self.return_stmt(),
            Some(Keyword::Assert) => self.assert_stmt(),
            Some(Keyword::Print) => self.print_stmt(),
            Some(Keyword::Wait) => self.wait_stmt(),
            Some(
                keyword @ (Keyword::Lock
                | Keyword::Unlock
                | Keyword::Signal
                | Keyword::Broadcast
                | Keyword::Join),
            ) => self.one_arg_stmt(keyword),
            Some(Keyword::Sync) => self.sync_stmt(),
            Some(Keyword::Await) => self.await_stmt(),
            Some(Keyword::Atomic) => self.atomic_stmt(),
            _ if can_start_expr(self.peek_kind()) => self.expr_stmt(),
            _ => self.not_a_stmt(keyword),
        }
    }

    fn not_a_stmt(&mut self, keyword: Option<Keyword>) -> Option<StmtKind> {
        let diagnostic = self.unexpected("statement").map(|diagnostic| {
            if keyword == Some(Keyword::Else) {
                diagnostic.with_note("an 'else' must follow the '}' of an 'if' block")
            } else {
                diagnostic
            }
        });
        self.report(diagnostic);
        None
    }

    /// `break;`, `continue;`, `yield;`.
    fn bare_stmt(&mut self, kind: StmtKind) -> Option<StmtKind> {
        self.bump();
        self.expect_semi("statement")?;
        Some(kind)
    }

    fn while_stmt(&mut self) -> Option<StmtKind> {
        self.bump();
        let cond = self.expr()?;
        let body = self.block("'{' after the while condition")?;
        Some(StmtKind::While { cond, body })
    }

    fn return_stmt(&mut self) -> Option<StmtKind> {
        self.bump();
        let value = if can_start_expr(self.peek_kind()) {
            Some(self.expr()?)
        } else {
            None
        };
        self.expect_semi("statement")?;
        Some(StmtKind::Return(value))
    }

    fn print_stmt(&mut self) -> Option<StmtKind> {
        self.bump();
        let (args, _) = self.args(true, "'print'")?;
        self.expect_semi("statement")?;
        Some(StmtKind::Print(args))
    }

    fn wait_stmt(&mut self) -> Option<StmtKind> {
        self.bump();
        let mut args = self
            .exact_args(Keyword::Wait, 2, "a condition variable and a mutex")?
            .into_iter();
        let (Some(cond), Some(mutex)) = (args.next(), args.next()) else {
            return None;
        };
        self.expect_semi("statement")?;
        Some(StmtKind::Wait { cond, mutex })
    }

    fn sync_stmt(&mut self) -> Option<StmtKind> {
        self.bump();
        let mutex = self.expr()?;
        let body = self.block("'{' after the mutex")?;
        Some(StmtKind::Sync { mutex, body })
    }

    fn await_stmt(&mut self) -> Option<StmtKind> {
        self.bump();
        let cond = self.expr()?;
        self.expect_semi("statement")?;
        Some(StmtKind::Await(cond))
    }

    fn atomic_stmt(&mut self) -> Option<StmtKind> {
        self.bump();
        Some(StmtKind::Atomic(self.block("'{' after 'atomic'")?))
    }

    fn let_stmt(&mut self) -> Option<StmtKind> {
        self.bump();
        let name = self.expect_name("variable name after 'let'")?;
        self.expect(&TokenKind::Assign, "'=' after the variable name")?;
        let value = self.expr()?;
        self.expect_semi("statement")?;
        Some(StmtKind::Let { name, value })
    }

    /// `if E { } else if E { } else { }`, parsed as one flat chain.
    fn if_stmt(&mut self) -> Option<StmtKind> {
        let mut arms = vec![self.if_arm()?];
        let mut else_block = None;
        while self.eat(&TokenKind::Keyword(Keyword::Else)).is_some() {
            if !self.at_keyword(Keyword::If) {
                else_block = Some(self.block("'{' or 'if' after 'else'")?);
                break;
            }
            arms.push(self.if_arm()?);
        }
        Some(StmtKind::If { arms, else_block })
    }

    /// `if COND { ... }`, at the `if`.
    fn if_arm(&mut self) -> Option<IfArm> {
        let start = self.bump();
        let cond = self.expr()?;
        let body = self.block("'{' after the if condition")?;
        Some(IfArm {
            span: start.to(body.span),
            cond,
            body,
        })
    }

    fn for_stmt(&mut self) -> Option<StmtKind> {
        self.bump();
        let var = self.expect_name("loop variable after 'for'")?;
        self.expect(
            &TokenKind::Keyword(Keyword::In),
            "'in' after the loop variable",
        )?;
        let start = self.expr()?;
        self.expect(&TokenKind::DotDot, "'..' after the start of the range")?;
        let end = self.expr()?;
        let body = self.block("'{' after the range")?;
        Some(StmtKind::For {
            var,
            start,
            end,
            body,
        })
    }

    fn assert_stmt(&mut self) -> Option<StmtKind> {
        self.bump();
        let (args, span) = self.args(true, "'assert'")?;
        if args.is_empty() || args.len() > 2 {
            self.diagnostics.push(
                Diagnostic::error(
                    span,
                    format!(
                        "expected 1 or 2 arguments to 'assert', found {}",
                        args.len()
                    ),
                )
                .with_label("'assert' takes a condition and an optional message"),
            );
        }
        let mut args = args.into_iter();
        let cond = match args.next() {
            Some(PrintArg::Expr(cond)) => cond,
            Some(PrintArg::Str(text)) => {
                self.diagnostics.push(string_not_expr(text.span));
                placeholder(text.span)
            }
            None => placeholder(span),
        };
        let message = match args.next() {
            Some(PrintArg::Str(text)) => Some(text),
            Some(PrintArg::Expr(expr)) => {
                self.diagnostics.push(
                    Diagnostic::error(
                        expr.span,
                        "expected a string literal as the assertion message",
                    )
                    .with_label("not a string literal"),
                );
                None
            }
            None => None,
        };
        self.expect_semi("statement")?;
        Some(StmtKind::Assert { cond, message })
    }

    /// `lock(e);`, `unlock(e);`, `signal(e);`, `broadcast(e);`, `join(e);`.
    fn one_arg_stmt(&mut self, keyword: Keyword) -> Option<StmtKind> {
        self.bump();
        let meaning = match keyword {
            Keyword::Lock | Keyword::Unlock => "a mutex",
            Keyword::Signal | Keyword::Broadcast => "a condition variable",
            _ => "a thread handle",
        };
        let arg = self.exact_args(keyword, 1, meaning)?.into_iter().next()?;
        self.expect_semi("statement")?;
        Some(match keyword {
            Keyword::Lock => StmtKind::Lock(arg),
            Keyword::Unlock => StmtKind::Unlock(arg),
            Keyword::Signal => StmtKind::Signal(arg),
            Keyword::Broadcast => StmtKind::Broadcast(arg),
            _ => StmtKind::Join(arg),
        })
    }

    /// An expression statement or an assignment.
    fn expr_stmt(&mut self) -> Option<StmtKind> {
        let expr = self.expr()?;
        let kind = if self.eat(&TokenKind::Assign).is_some() {
            let value = self.expr()?;
            let target = self.place(expr);
            StmtKind::Assign { target, value }
        } else {
            StmtKind::Expr(expr)
        };
        self.expect_semi("statement")?;
        Some(kind)
    }

    /// The assignable location `expr` denotes; reports it if it is none.
    fn place(&mut self, expr: Expr) -> Place {
        let span = expr.span;
        let kind = match expr.kind {
            ExprKind::Name(name) => PlaceKind::Name(name),
            ExprKind::Field { base, field } => PlaceKind::Field { base: *base, field },
            ExprKind::Index { base, index } => PlaceKind::Index {
                base: *base,
                index: *index,
            },
            _ => {
                self.diagnostics.push(
                    Diagnostic::error(
                        span,
                        "expected a variable, field or array element on the left of '='",
                    )
                    .with_label("cannot be assigned to")
                    .with_note("to compare two values, use '=='"),
                );
                PlaceKind::Name(Ident {
                    name: String::new(),
                    span,
                })
            }
        };
        Place { kind, span }
    }

    // ----- Arguments -----

    /// Parses `( ARG, ... )` after `after` (e.g. `'print'`); with `strings`,
    /// a string literal on its own is an argument. Returns the arguments and
    /// the span from `(` to `)`.
    fn args(&mut self, strings: bool, after: &str) -> Option<(Vec<PrintArg>, Span)> {
        let open = self.expect(&TokenKind::LParen, &format!("'(' after {after}"))?;
        let (args, close) = self.list(TokenKind::RParen, "argument", |parser| {
            if strings {
                if let TokenKind::Str(value) = parser.peek_kind() {
                    if matches!(
                        parser.nth_kind(1),
                        TokenKind::Comma | TokenKind::RParen | TokenKind::Unknown
                    ) {
                        let value = value.clone();
                        let span = parser.bump();
                        return Some(PrintArg::Str(StrLit { value, span }));
                    }
                }
            }
            parser.expr().map(PrintArg::Expr)
        })?;
        Some((args, open.to(close)))
    }

    /// Parses `( EXPR, ... )` after `keyword`, which takes exactly `count`
    /// arguments (`meaning` says what they are); a wrong number is reported
    /// and the list padded or cut to `count`.
    fn exact_args(&mut self, keyword: Keyword, count: usize, meaning: &str) -> Option<Vec<Expr>> {
        let (args, span) = self.args(false, &format!("'{keyword}'"))?;
        let mut exprs: Vec<Expr> = args
            .into_iter()
            .map(|arg| match arg {
                PrintArg::Expr(expr) => expr,
                PrintArg::Str(text) => placeholder(text.span),
            })
            .collect();
        if exprs.len() != count {
            let label = if count == 0 {
                format!("'{keyword}' takes no arguments")
            } else {
                format!("'{keyword}' takes {meaning}")
            };
            self.diagnostics.push(
                Diagnostic::error(
                    span,
                    format!(
                        "expected {} to '{keyword}', found {}",
                        arguments(count),
                        exprs.len()
                    ),
                )
                .with_label(label),
            );
            exprs.resize_with(count, || placeholder(span));
        }
        Some(exprs)
    }

    /// Parses `( EXPR, ... )` of a call or `spawn`.
    fn call_args(&mut self, after: &str) -> Option<(Vec<Expr>, Span)> {
        let (args, span) = self.args(false, after)?;
        let exprs = args
            .into_iter()
            .map(|arg| match arg {
                PrintArg::Expr(expr) => expr,
                PrintArg::Str(text) => placeholder(text.span),
            })
            .collect();
        Some((exprs, span))
    }

    // ----- Expressions -----

    fn expr(&mut self) -> Option<Expr> {
        self.binary(1)
    }

    /// Precedence climbing over [`BinaryOp::precedence`]: parses operators
    /// binding at least as tightly as `min_precedence`, left-associatively.
    /// Each operator of a chain adds a nesting level, restored on return,
    /// since the tree of `a + b + ... + z` is as deep as the chain is long.
    fn binary(&mut self, min_precedence: u8) -> Option<Expr> {
        let saved = self.depth;
        let result = self.binary_chain(min_precedence);
        self.depth = saved;
        result
    }

    fn binary_chain(&mut self, min_precedence: u8) -> Option<Expr> {
        let mut lhs = self.unary()?;
        while let Some(op) = binary_op(self.peek_kind()) {
            if op.precedence() < min_precedence {
                break;
            }
            if !self.deepen() {
                return None;
            }
            lhs = self.binary_rhs(lhs, op)?;
        }
        Some(lhs)
    }

    /// The operator and right operand of `lhs OP rhs`.
    fn binary_rhs(&mut self, lhs: Expr, op: BinaryOp) -> Option<Expr> {
        let op_span = self.bump();
        let rhs = self.binary(op.precedence() + 1)?;
        Some(Expr {
            span: lhs.span.to(rhs.span),
            kind: ExprKind::Binary {
                op,
                op_span,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
            },
        })
    }

    fn unary(&mut self) -> Option<Expr> {
        let saved = self.depth;
        let result = if self.deepen() {
            self.unary_inner()
        } else {
            None
        };
        self.depth = saved;
        result
    }

    fn unary_inner(&mut self) -> Option<Expr> {
        let op = match self.peek_kind() {
            TokenKind::Minus => UnaryOp::Neg,
            TokenKind::Bang => UnaryOp::Not,
            _ => return self.postfix(),
        };
        // `-9223372036854775808` is the one literal whose magnitude is not an
        // `i64`; it is a literal only when nothing binds tighter to it.
        if op == UnaryOp::Neg
            && *self.nth_kind(1) == TokenKind::Int(NEGATABLE_LIMIT)
            && !matches!(
                self.nth_kind(2),
                TokenKind::Dot | TokenKind::LBracket | TokenKind::LParen
            )
        {
            let start = self.bump();
            let end = self.bump();
            return Some(Expr {
                kind: ExprKind::Int(i64::MIN),
                span: start.to(end),
            });
        }
        let op_span = self.bump();
        let operand = self.unary()?;
        Some(Expr {
            span: op_span.to(operand.span),
            kind: ExprKind::Unary {
                op,
                op_span,
                operand: Box::new(operand),
            },
        })
    }

    /// A primary expression followed by `.f`, `[i]` and `(args)`; each adds
    /// a nesting level, restored on return.
    fn postfix(&mut self) -> Option<Expr> {
        let saved = self.depth;
        let result = self.postfix_chain();
        self.depth = saved;
        result
    }

    fn postfix_chain(&mut self) -> Option<Expr> {
        let mut expr = self.primary()?;
        loop {
            let apply: fn(&mut Self, Expr) -> Option<Expr> = match self.peek_kind() {
                TokenKind::Dot => Self::field_access,
                TokenKind::LBracket => Self::index_access,
                TokenKind::LParen => Self::call,
                _ => return Some(expr),
            };
            if !self.deepen() {
                return None;
            }
            expr = apply(self, expr)?;
        }
    }

    /// `base.field`, `base` already parsed.
    fn field_access(&mut self, base: Expr) -> Option<Expr> {
        self.bump();
        if matches!(base.kind, ExprKind::Int(_)) && matches!(self.peek_kind(), TokenKind::Int(_)) {
            let diagnostic = self.expected("field name after '.'").map(|diagnostic| {
                diagnostic.with_note("there are no fractions: every number is a 64-bit integer")
            });
            self.report(diagnostic);
            return None;
        }
        let field = self.expect_field_name("field name after '.'")?;
        Some(Expr {
            span: base.span.to(field.span),
            kind: ExprKind::Field {
                base: Box::new(base),
                field,
            },
        })
    }

    /// `base[index]`, `base` already parsed.
    fn index_access(&mut self, base: Expr) -> Option<Expr> {
        let open = self.bump();
        let index = self.expr()?;
        let close = self.expect_closer(&TokenKind::RBracket, open, "[")?;
        Some(Expr {
            span: base.span.to(close),
            kind: ExprKind::Index {
                base: Box::new(base),
                index: Box::new(index),
            },
        })
    }

    /// `callee(args)`, the callee already parsed; only a plain name can be
    /// called.
    fn call(&mut self, callee: Expr) -> Option<Expr> {
        let (args, args_span) = self.call_args("the function name")?;
        let span = callee.span.to(args_span);
        match callee.kind {
            ExprKind::Name(name) if name.span == callee.span => Some(Expr {
                kind: ExprKind::Call { callee: name, args },
                span,
            }),
            _ => {
                self.diagnostics.push(
                    Diagnostic::error(callee.span, "expected a function name before '('")
                        .with_label("not a function name")
                        .with_note("only functions declared with 'fn' can be called, by name"),
                );
                Some(placeholder(span))
            }
        }
    }

    /// Dispatches on the first token of an operand. Every arm is one call,
    /// to keep this frame small on the expression recursion (see
    /// [`MAX_NESTING`]).
    fn primary(&mut self) -> Option<Expr> {
        match self.peek_kind() {
            TokenKind::Int(value) => {
                let value = *value;
                self.int_literal(value)
            }
            TokenKind::Str(_) => self.misplaced_string(),
            TokenKind::Ident(_) => self.name_expr(),
            TokenKind::LParen => self.paren_expr(),
            TokenKind::Keyword(Keyword::True) => self.literal(ExprKind::Bool(true)),
            TokenKind::Keyword(Keyword::False) => self.literal(ExprKind::Bool(false)),
            TokenKind::Keyword(Keyword::Null) => self.literal(ExprKind::Null),
            TokenKind::Keyword(Keyword::New) => self.new_expr(),
            TokenKind::Keyword(Keyword::Len) => self.len_expr(),
            TokenKind::Keyword(Keyword::SelfKw) => self.self_expr(),
            TokenKind::Keyword(Keyword::Spawn) => self.spawn_expr(),
            _ => self.not_an_expr(),
        }
    }

    /// A one-token expression.
    fn literal(&mut self, kind: ExprKind) -> Option<Expr> {
        let span = self.bump();
        Some(Expr { kind, span })
    }

    fn int_literal(&mut self, value: u64) -> Option<Expr> {
        let span = self.bump();
        let value = i64::try_from(value).unwrap_or_else(|_| {
            self.diagnostics.push(int_too_large(span));
            0
        });
        Some(Expr {
            kind: ExprKind::Int(value),
            span,
        })
    }

    fn misplaced_string(&mut self) -> Option<Expr> {
        let span = self.bump();
        self.diagnostics.push(string_not_expr(span));
        Some(placeholder(span))
    }

    fn name_expr(&mut self) -> Option<Expr> {
        let name = self.expect_name("name")?;
        Some(Expr {
            span: name.span,
            kind: ExprKind::Name(name),
        })
    }

    /// `( EXPR )`: the parentheses become part of the expression's span.
    fn paren_expr(&mut self) -> Option<Expr> {
        let open = self.bump();
        let inner = self.expr()?;
        let close = self.expect_closer(&TokenKind::RParen, open, "(")?;
        Some(Expr {
            kind: inner.kind,
            span: open.to(close),
        })
    }

    fn len_expr(&mut self) -> Option<Expr> {
        let start = self.bump();
        let array = self
            .exact_args(Keyword::Len, 1, "an array")?
            .into_iter()
            .next()?;
        Some(Expr {
            kind: ExprKind::Len(Box::new(array)),
            span: self.since(start),
        })
    }

    fn self_expr(&mut self) -> Option<Expr> {
        let start = self.bump();
        self.exact_args(Keyword::SelfKw, 0, "")?;
        Some(Expr {
            kind: ExprKind::SelfId,
            span: self.since(start),
        })
    }

    fn spawn_expr(&mut self) -> Option<Expr> {
        let start = self.bump();
        let callee = self.expect_name("function name after 'spawn'")?;
        let (args, _) = self.call_args("the function name")?;
        Some(Expr {
            kind: ExprKind::Spawn { callee, args },
            span: self.since(start),
        })
    }

    fn not_an_expr(&mut self) -> Option<Expr> {
        let note = match self.peek_kind() {
            TokenKind::Keyword(keyword) if is_statement_keyword(*keyword) => Some(format!(
                "'{keyword}' begins a statement, which has no value"
            )),
            kind => self.compound_assignment(kind),
        };
        let diagnostic = self.expected("expression").map(|diagnostic| match note {
            Some(note) => diagnostic.with_note(note),
            None => diagnostic,
        });
        self.report(diagnostic);
        None
    }

    /// A note for C's `x += 1`, `x++` or `x--` (an arithmetic operator
    /// right before `=`, or `++`, `--`, with no space): the language has
    /// none of them. `x--;` fails at the `;`, after both `-`.
    fn compound_assignment(&self, kind: &TokenKind) -> Option<String> {
        let token = |back: usize| self.pos.checked_sub(back).map(|at| &self.tokens[at]);
        let touching = |a: &Token, b: &Token| a.span.end == b.span.start;
        let previous = token(1)?;
        let op = binary_op(&previous.kind)?;
        let arithmetic = matches!(
            op,
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem
        );
        let step = matches!(op, BinaryOp::Add | BinaryOp::Sub);
        let assign = *kind == TokenKind::Assign && touching(previous, self.peek());
        let doubled = step && *kind == previous.kind && touching(previous, self.peek());
        let after_doubled = step
            && token(2)
                .is_some_and(|before| before.kind == previous.kind && touching(before, previous));
        (arithmetic && (assign || doubled || after_doubled)).then(|| {
            format!("there is no '{op}=', '++' or '--': assign the result, 'x = x {op} y'")
        })
    }

    /// `new { f: e, ... }`, `new [n]`, `new [n] = e`, `new mutex`, `new cond`.
    fn new_expr(&mut self) -> Option<Expr> {
        let start = self.bump();
        match self.peek_kind() {
            TokenKind::LBrace => self.new_record(start),
            TokenKind::LBracket => self.new_array(start),
            TokenKind::Keyword(Keyword::Mutex) => self.new_primitive(start, ExprKind::NewMutex),
            TokenKind::Keyword(Keyword::Cond) => self.new_primitive(start, ExprKind::NewCond),
            _ => {
                let diagnostic = self.expected("'{', '[', 'mutex' or 'cond' after 'new'");
                self.report(diagnostic);
                None
            }
        }
    }

    /// `new mutex` or `new cond`, after `new`.
    fn new_primitive(&mut self, start: Span, kind: ExprKind) -> Option<Expr> {
        let end = self.bump();
        Some(Expr {
            kind,
            span: start.to(end),
        })
    }

    /// `{ f: e, ... }` after `new`; reports a field given twice.
    fn new_record(&mut self, start: Span) -> Option<Expr> {
        self.bump();
        let (fields, close) = self.list(TokenKind::RBrace, "field", |parser| {
            let name = parser.expect_field_name("field name")?;
            parser.expect(&TokenKind::Colon, "':' after the field name")?;
            let value = parser.expr()?;
            Some(FieldInit { name, value })
        })?;
        for (index, field) in fields.iter().enumerate() {
            let earlier = fields[..index]
                .iter()
                .find(|earlier| earlier.name.name == field.name.name);
            if let Some(first) = earlier {
                self.diagnostics.push(
                    Diagnostic::error(
                        field.name.span,
                        format!("duplicate field `{}` in record literal", field.name.name),
                    )
                    .with_label("given again here")
                    .with_related(first.name.span, "first given here"),
                );
            }
        }
        Some(Expr {
            kind: ExprKind::NewRecord(fields),
            span: start.to(close),
        })
    }

    /// `[n]` or `[n] = e` after `new`.
    fn new_array(&mut self, start: Span) -> Option<Expr> {
        let open = self.bump();
        let len = self.expr()?;
        self.expect_closer(&TokenKind::RBracket, open, "[")?;
        let init = match self.eat(&TokenKind::Assign) {
            Some(_) => Some(Box::new(self.expr()?)),
            None => None,
        };
        Some(Expr {
            kind: ExprKind::NewArray {
                len: Box::new(len),
                init,
            },
            span: self.since(start),
        })
    }
}
