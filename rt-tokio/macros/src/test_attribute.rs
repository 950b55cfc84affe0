//! `#[tokio::test]`: an async test function whose body runs under
//! rankcheck-rt's search, each run `block_on` of the body. tokio's own
//! options are kept: `flavor` (`"current_thread"`, tokio's default: one
//! task at a time, switched only where a task returns `Pending`;
//! `"multi_thread"`: tasks interleave at every operation), `worker_threads`
//! (changes nothing: the search interleaves however many workers there
//! are) and `start_paused = true` (pauses time before the body, as
//! tokio's, which only marks it paused, the facade's clock being
//! virtual); rankcheck-rt's (`runs`, `seed`, `strategy`, `depth`, `vars`,
//! ...) are passed to `#[rankcheck::test]`, which checks them.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{ItemFn, MetaNameValue, Token};

/// tokio's options that change nothing under the search.
const TOKIO_OPTIONS: [&str; 1] = ["worker_threads"];

pub fn expand(args: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let function: ItemFn = syn::parse2(item)?;
    check_signature(&function)?;
    let options = Punctuated::<MetaNameValue, Token![,]>::parse_terminated.parse2(args)?;
    let mut krate: Option<syn::Path> = None;
    let mut start_paused = false;
    let mut flavor = quote! { CurrentThread };
    let mut forwarded = Vec::new();
    for option in options {
        let name = option.path.get_ident().map(ToString::to_string);
        match name.as_deref() {
            Some("crate") => {
                let text = literal_string(&option.value)?;
                krate = Some(text.parse_with(syn::Path::parse_mod_style)?);
            }
            Some("start_paused") => {
                let syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Bool(paused),
                    ..
                }) = &option.value
                else {
                    return Err(syn::Error::new_spanned(&option.value, "expected a bool"));
                };
                start_paused = paused.value;
            }
            Some("flavor") => {
                let text = literal_string(&option.value)?;
                flavor = match text.value().as_str() {
                    "current_thread" => quote! { CurrentThread },
                    "multi_thread" => quote! { MultiThread },
                    other => {
                        return Err(syn::Error::new_spanned(
                            text,
                            format!(
                                "No such runtime flavor `{other}`. The runtime flavors are \
                                 `current_thread` and `multi_thread`."
                            ),
                        ))
                    }
                };
            }
            Some(name) if TOKIO_OPTIONS.contains(&name) => {}
            _ => forwarded.push(option),
        }
    }
    let krate = krate.unwrap_or_else(default_crate);
    let runtime = format!("{}::__private::rt", quote!(#krate)).replace(' ', "");
    let ItemFn {
        attrs,
        vis,
        sig,
        block,
    } = function;
    let name = &sig.ident;
    // The runtime the body runs on: its flavor, its clock paused or not.
    let pause = start_paused.then(|| quote! { #krate::time::pause(); });
    let setup = quote! {
        #krate::__private::rt::future::set_flavor(
            #krate::__private::rt::future::Flavor::#flavor,
        );
        #pause
    };
    let body = match &sig.output {
        syn::ReturnType::Default => quote! {
            #setup
            #krate::__private::rt::future::block_on(async move #block);
        },
        syn::ReturnType::Type(_, ty) => quote! {
            #setup
            let result: #ty = #krate::__private::rt::future::block_on(async move #block);
            if let ::core::result::Result::Err(error) = result {
                ::core::panic!("the test returned an error: {error:?}");
            }
        },
    };
    Ok(quote! {
        #[#krate::__private::rt::test(crate = #runtime, #(#forwarded),*)]
        #(#attrs)*
        #vis fn #name() {
            #body
        }
    })
}

/// An option's string literal.
fn literal_string(value: &syn::Expr) -> syn::Result<&syn::LitStr> {
    match value {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(text),
            ..
        }) => Ok(text),
        _ => Err(syn::Error::new_spanned(value, "expected a string")),
    }
}

/// An async function without arguments or generics.
fn check_signature(function: &ItemFn) -> syn::Result<()> {
    let sig = &function.sig;
    if sig.asyncness.is_none() {
        return Err(syn::Error::new_spanned(
            sig.fn_token,
            "the `async` keyword is missing from the function declaration",
        ));
    }
    if !sig.inputs.is_empty() {
        return Err(syn::Error::new_spanned(
            &sig.inputs,
            "#[tokio::test] functions take no arguments",
        ));
    }
    if !sig.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &sig.generics,
            "#[tokio::test] functions are not generic",
        ));
    }
    Ok(())
}

/// How the crate being compiled names rankcheck-tokio: as its Cargo.toml
/// renames it (`tokio = { package = "rankcheck-tokio", ... }`, in its
/// dependencies or dev-dependencies, also under a `[target.'cfg(..)']`),
/// else `rankcheck_tokio`.
fn default_crate() -> syn::Path {
    let name = renamed_dependency().unwrap_or_else(|| "rankcheck_tokio".to_owned());
    let ident = syn::Ident::new(&name, Span::call_site());
    syn::parse_quote! { ::#ident }
}

fn renamed_dependency() -> Option<String> {
    let dir = std::env::var("CARGO_MANIFEST_DIR").ok()?;
    let text = std::fs::read_to_string(std::path::Path::new(&dir).join("Cargo.toml")).ok()?;
    renamed_in(&text.parse().ok()?)
}

/// The key under which `manifest` renames rankcheck-tokio.
fn renamed_in(manifest: &toml::Table) -> Option<String> {
    let targets = manifest
        .get("target")
        .and_then(toml::Value::as_table)
        .into_iter()
        .flat_map(|targets| targets.values().filter_map(toml::Value::as_table));
    std::iter::once(manifest)
        .chain(targets)
        .flat_map(|tables| {
            ["dependencies", "dev-dependencies"]
                .iter()
                .filter_map(|section| tables.get(*section)?.as_table())
        })
        .flat_map(|table| table.iter())
        .find(|(_, spec)| {
            spec.get("package").and_then(toml::Value::as_str) == Some("rankcheck-tokio")
        })
        .map(|(key, _)| key.replace('-', "_"))
}

#[cfg(test)]
mod tests {
    use super::expand;
    use quote::quote;

    #[test]
    fn options_pass_to_the_rankcheck_attribute_and_tokio_options_are_dropped() {
        let code = expand(
            quote! { flavor = "multi_thread", worker_threads = 2, runs = 10, strategy = "pctvb" },
            quote! { async fn t() { body().await; } },
        )
        .unwrap()
        .to_string();
        assert!(code.contains("runs = 10"), "{code}");
        assert!(code.contains("strategy = \"pctvb\""), "{code}");
        assert!(code.contains("Flavor :: MultiThread"), "{code}");
        assert!(!code.contains("worker_threads"), "{code}");
        assert!(code.contains("block_on (async move"), "{code}");
        assert!(!code.contains("pause"), "{code}");
    }

    #[test]
    fn start_paused_pauses_time_before_the_body() {
        let code = expand(quote! { start_paused = true }, quote! { async fn t() {} })
            .unwrap()
            .to_string();
        assert!(code.contains(":: time :: pause () ;"), "{code}");
        assert!(!code.contains("start_paused"), "{code}");
        assert!(code.contains("Flavor :: CurrentThread"), "{code}");
    }

    #[test]
    fn the_rename_is_found_also_under_a_target_table() {
        let manifest = r#"
[dev-dependencies]
futures = "0.3"

[target."cfg(not(loom))".dev-dependencies.tokio]
package = "rankcheck-tokio"
path = "/r/rt-tokio"
"#;
        assert_eq!(
            super::renamed_in(&manifest.parse().unwrap()).as_deref(),
            Some("tokio")
        );
        let plain = "[dependencies]\ntokio = \"1\"\n";
        assert_eq!(super::renamed_in(&plain.parse().unwrap()), None);
    }

    #[test]
    fn an_unknown_flavor_is_refused_as_tokio_refuses_it() {
        let error = expand(quote! { flavor = "local" }, quote! { async fn t() {} }).unwrap_err();
        assert!(error.to_string().contains("No such runtime flavor `local`"));
    }

    #[test]
    fn a_function_without_async_is_refused() {
        let error = expand(quote! {}, quote! { fn t() {} }).unwrap_err();
        assert!(error.to_string().contains("`async` keyword is missing"));
    }
}
