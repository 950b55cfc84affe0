//! `join!` and `try_join!`: poll every future until all complete (or, for
//! `try_join!`, one fails), as tokio's. Each poll starts at a future the
//! search chooses (`biased;`: in source order), so the order in which the
//! futures' steps interleave within the task is explored as the tasks'
//! order is.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Expr, Token};

/// Which macro.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `join!`: a tuple of the outputs.
    Join,
    /// `try_join!`: `Ok` of the tuple of the `Ok` values, or the first
    /// `Err`.
    TryJoin,
}

struct Combine {
    krate: TokenStream,
    biased: bool,
    futures: Punctuated<Expr, Token![,]>,
}

impl Parse for Combine {
    fn parse(input: ParseStream<'_>) -> syn::Result<Combine> {
        let krate = super::facade_path(input)?;
        let biased = super::biased(input)?;
        Ok(Combine {
            krate,
            biased,
            futures: Punctuated::parse_terminated(input)?,
        })
    }
}

pub fn expand(input: TokenStream, kind: Kind) -> syn::Result<TokenStream> {
    let Combine {
        krate,
        biased,
        futures,
    } = syn::parse2(input)?;
    let count = futures.len();
    if count == 0 {
        return Ok(match kind {
            Kind::Join => quote! { () },
            Kind::TryJoin => quote! { ::core::result::Result::Ok(()) },
        });
    }
    let names: Vec<_> = (0..count)
        .map(|i| format_ident!("__rk_future_{i}"))
        .collect();
    let outputs: Vec<_> = (0..count)
        .map(|i| format_ident!("__rk_output_{i}"))
        .collect();
    let creations = futures
        .iter()
        .zip(&names)
        .zip(&outputs)
        .map(|((future, name), output)| {
            quote! {
                let mut #name = ::core::pin::pin!(::core::future::IntoFuture::into_future(#future));
                let mut #output = ::core::option::Option::None;
            }
        });
    let polls = names.iter().zip(&outputs).enumerate().map(|(index, (name, output))| {
        let ready = match kind {
            Kind::Join => quote! { ::core::task::Poll::Ready(value) => #output = ::core::option::Option::Some(value), },
            Kind::TryJoin => quote! {
                ::core::task::Poll::Ready(::core::result::Result::Ok(value)) => {
                    #output = ::core::option::Option::Some(value)
                }
                ::core::task::Poll::Ready(::core::result::Result::Err(error)) => {
                    return ::core::task::Poll::Ready(::core::result::Result::Err(error));
                }
            },
        };
        quote! {
            #index => {
                if #output.is_none() {
                    match ::core::future::Future::poll(#name.as_mut(), __rk_cx) {
                        #ready
                        ::core::task::Poll::Pending => __rk_done = false,
                    }
                }
            }
        }
    });
    let round = super::round_of_polls(&krate, biased, count, &polls.collect::<Vec<_>>());
    let all = quote! {
        (#(#outputs.take().expect("invariant: every future of a join completed")),*,)
    };
    let finish = match kind {
        Kind::Join => quote! { ::core::task::Poll::Ready(()) },
        Kind::TryJoin => quote! { ::core::task::Poll::Ready(::core::result::Result::Ok(())) },
    };
    let result = match kind {
        Kind::Join => quote! { #all },
        Kind::TryJoin => quote! { __rk_result.map(|()| #all) },
    };
    Ok(quote! {{
        #(#creations)*
        let __rk_result = ::core::future::poll_fn(|__rk_cx| {
            let mut __rk_done = true;
            #round
            if __rk_done {
                #finish
            } else {
                ::core::task::Poll::Pending
            }
        })
        .await;
        #result
    }})
}
