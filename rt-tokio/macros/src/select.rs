//! `select!`: wait on several futures, run the handler of the first to
//! complete whose output matches its pattern, as tokio's. Each poll starts
//! at a branch the search chooses (`choose`), as tokio's starts at a
//! random one, so when more than one branch is ready both outcomes are
//! explored; `biased;` polls in source order.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::parse::{Parse, ParseStream};
use syn::visit_mut::VisitMut;
use syn::{Expr, Pat, Token};

struct Select {
    krate: TokenStream,
    biased: bool,
    branches: Vec<Branch>,
    otherwise: Option<Expr>,
}

/// `pattern = future, if condition => handler`.
struct Branch {
    pattern: Pat,
    future: Expr,
    condition: Option<Expr>,
    handler: Expr,
}

impl Parse for Select {
    fn parse(input: ParseStream<'_>) -> syn::Result<Select> {
        let krate = super::facade_path(input)?;
        let biased = super::biased(input)?;
        let mut branches = Vec::new();
        let mut otherwise = None;
        while !input.is_empty() {
            if input.peek(Token![else]) {
                input.parse::<Token![else]>()?;
                input.parse::<Token![=>]>()?;
                otherwise = Some(handler(input)?);
                continue;
            }
            branches.push(input.parse()?);
        }
        if branches.is_empty() {
            return Err(syn::Error::new(
                Span::call_site(),
                "select! needs at least one branch `pattern = future => handler`",
            ));
        }
        Ok(Select {
            krate,
            biased,
            branches,
            otherwise,
        })
    }
}

impl Parse for Branch {
    fn parse(input: ParseStream<'_>) -> syn::Result<Branch> {
        let pattern = Pat::parse_multi_with_leading_vert(input)?;
        input.parse::<Token![=]>()?;
        let future = input.parse()?;
        let condition = if input.peek(Token![,]) && input.peek2(Token![if]) {
            input.parse::<Token![,]>()?;
            input.parse::<Token![if]>()?;
            Some(input.parse()?)
        } else {
            None
        };
        input.parse::<Token![=>]>()?;
        let handler = handler(input)?;
        Ok(Branch {
            pattern,
            future,
            condition,
            handler,
        })
    }
}

/// A branch's handler: a block, with an optional comma after it, or an
/// expression ended by a comma (or the end).
fn handler(input: ParseStream<'_>) -> syn::Result<Expr> {
    let block = input.peek(syn::token::Brace);
    let handler: Expr = input.parse()?;
    if input.peek(Token![,]) {
        input.parse::<Token![,]>()?;
    } else if !block && !input.is_empty() {
        return Err(input.error("expected `,` after a select! branch's handler"));
    }
    Ok(handler)
}

/// A pattern without `mut` and `ref`, to test an output by reference
/// before it is moved into the real pattern (as tokio does).
struct Clean;

impl VisitMut for Clean {
    fn visit_pat_ident_mut(&mut self, ident: &mut syn::PatIdent) {
        ident.by_ref = None;
        ident.mutability = None;
        syn::visit_mut::visit_pat_ident_mut(self, ident);
    }
}

pub fn expand(input: TokenStream) -> syn::Result<TokenStream> {
    let Select {
        krate,
        biased,
        branches,
        otherwise,
    } = syn::parse2(input)?;
    let count = branches.len();
    let futures: Vec<_> = (0..count)
        .map(|i| format_ident!("__rk_future_{i}"))
        .collect();
    let variants: Vec<_> = (0..count).map(|i| format_ident!("Branch{i}")).collect();
    let types: Vec<_> = (0..count).map(|i| format_ident!("T{i}")).collect();
    let disabled = branches.iter().map(|branch| match &branch.condition {
        Some(condition) => quote! { !(#condition) },
        None => quote! { false },
    });
    let creations = branches.iter().zip(&futures).map(|(branch, name)| {
        let future = &branch.future;
        quote! { let mut #name = ::core::pin::pin!(::core::future::IntoFuture::into_future(#future)); }
    });
    let polls = branches
        .iter()
        .enumerate()
        .map(|(index, branch)| {
            let (name, variant) = (&futures[index], &variants[index]);
            let mut check = branch.pattern.clone();
            Clean.visit_pat_mut(&mut check);
            quote! {
                #index => {
                    if __rk_disabled[#index] {
                        continue;
                    }
                    let __rk_output = match ::core::future::Future::poll(#name.as_mut(), __rk_cx) {
                        ::core::task::Poll::Ready(output) => output,
                        ::core::task::Poll::Pending => {
                            __rk_pending = true;
                            continue;
                        }
                    };
                    __rk_disabled[#index] = true;
                    #[allow(unused_variables, unreachable_patterns)]
                    match &__rk_output {
                        #check => {}
                        _ => continue,
                    }
                    return ::core::task::Poll::Ready(__RkOut::#variant(__rk_output));
                }
            }
        })
        .collect::<Vec<_>>();
    let handlers = branches.iter().zip(&variants).map(|(branch, variant)| {
        let (pattern, handler) = (&branch.pattern, &branch.handler);
        quote! { __RkOut::#variant(#pattern) => #handler, }
    });
    let otherwise = otherwise.map_or_else(
        || quote! { ::core::panic!("all branches are disabled and there is no else branch") },
        |otherwise| quote! { #otherwise },
    );
    let round = super::round_of_polls(&krate, biased, count, &polls);
    Ok(quote! {{
        enum __RkOut<#(#types),*> {
            #(#variants(#types),)*
            Disabled,
        }
        let mut __rk_disabled: [bool; #count] = [#(#disabled),*];
        #(#creations)*
        let __rk_out = ::core::future::poll_fn(|__rk_cx| {
            let mut __rk_pending = false;
            #round
            if __rk_pending {
                ::core::task::Poll::Pending
            } else {
                ::core::task::Poll::Ready(__RkOut::Disabled)
            }
        })
        .await;
        #[allow(unreachable_patterns, unused_variables)]
        match __rk_out {
            #(#handlers)*
            __RkOut::Disabled => #otherwise,
            _ => ::core::unreachable!("a select! branch's output matched its pattern by reference"),
        }
    }})
}
