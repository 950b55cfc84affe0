//! The macros of rankcheck-tokio: `select!`, `join!` and `try_join!`
//! (each reached through a `macro_rules!` wrapper of the facade, which
//! passes its own path, `$crate`, as the first token tree) and the
//! `#[tokio::test]` attribute.

use proc_macro::TokenStream;

mod combine;
mod select;
mod test_attribute;

/// `select!`'s expansion: `{ $crate } branches...`.
#[proc_macro]
pub fn select_inner(input: TokenStream) -> TokenStream {
    expanded(select::expand(input.into()))
}

/// `join!`'s expansion: `{ $crate } futures...`.
#[proc_macro]
pub fn join_inner(input: TokenStream) -> TokenStream {
    expanded(combine::expand(input.into(), combine::Kind::Join))
}

/// `try_join!`'s expansion: `{ $crate } futures...`.
#[proc_macro]
pub fn try_join_inner(input: TokenStream) -> TokenStream {
    expanded(combine::expand(input.into(), combine::Kind::TryJoin))
}

/// An async test run under rankcheck-rt's search, as `#[tokio::test]`
/// (see rankcheck-tokio's documentation for the options).
#[proc_macro_attribute]
pub fn test(args: TokenStream, item: TokenStream) -> TokenStream {
    expanded(test_attribute::expand(args.into(), item.into()))
}

fn expanded(result: syn::Result<proc_macro2::TokenStream>) -> TokenStream {
    match result {
        Ok(tokens) => tokens.into(),
        Err(error) => error.to_compile_error().into(),
    }
}

/// `biased;` at the start of a macro's input: whether it is there.
fn biased(input: syn::parse::ParseStream<'_>) -> syn::Result<bool> {
    let biased = input.peek(syn::Ident) && input.fork().parse::<syn::Ident>()? == "biased";
    if biased {
        input.parse::<syn::Ident>()?;
        input.parse::<syn::Token![;]>()?;
    }
    Ok(biased)
}

/// One round of polls: `polls` (match arms on the indices `0..count`)
/// each run once, in turn from the index the search chooses (`choose`,
/// through the facade at `krate`), or from 0 when `biased`.
fn round_of_polls(
    krate: &proc_macro2::TokenStream,
    biased: bool,
    count: usize,
    polls: &[proc_macro2::TokenStream],
) -> proc_macro2::TokenStream {
    let start = if biased {
        quote::quote! { 0 }
    } else {
        quote::quote! { #krate::__private::choose(#count) }
    };
    quote::quote! {
        let __rk_start: usize = #start;
        for __rk_offset in 0..#count {
            match (__rk_start + __rk_offset) % #count {
                #(#polls)*
                _ => ::core::unreachable!(),
            }
        }
    }
}

/// The facade's path, in braces before a macro's own input.
fn facade_path(input: syn::parse::ParseStream<'_>) -> syn::Result<proc_macro2::TokenStream> {
    let inner;
    syn::braced!(inner in input);
    inner.parse()
}
