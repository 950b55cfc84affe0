//! `#[rankcheck::test]`: a test function whose body runs under
//! rankcheck-rt's search, with the builder's options as arguments.
//!
//! ```text
//! #[rankcheck::test(runs = 1000, seed = 7, strategy = "pctvb", depth = 2, vars = 1)]
//! fn counter_is_exact() {
//!     // the body of `Builder::check`'s closure
//! }
//! ```
//!
//! expands to a `#[test]` function calling `Builder::new().runs(1000)...
//! .check(|| { body })`. An unknown option, or a value of the wrong kind,
//! is a compile error at the option. A strategy's name is looked up in the
//! engine's registry of strategies when the test runs (a macro cannot see
//! what the test binary registers): an unknown one fails the test with the
//! attribute and the registered names. The generated code names the crate
//! as the test's Cargo.toml does (a dependency renamed from `rankcheck-rt`,
//! e.g. `rankcheck = { package = "rankcheck-rt" }`), or as `crate = "path"`
//! says.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as Tokens};
use quote::{quote, ToTokens};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Expr, ExprLit, ItemFn, Lit, MetaNameValue, Token};

/// Run the test function's body under rankcheck-rt's search (see the
/// crate's documentation for the options).
#[proc_macro_attribute]
pub fn test(args: TokenStream, item: TokenStream) -> TokenStream {
    match expand(args.into(), item.into()) {
        Ok(tokens) => tokens.into(),
        Err(error) => error.to_compile_error().into(),
    }
}

fn expand(args: Tokens, item: Tokens) -> syn::Result<Tokens> {
    let function: ItemFn = syn::parse2(item)?;
    check_signature(&function)?;
    let options = Punctuated::<MetaNameValue, Token![,]>::parse_terminated.parse2(args)?;
    let mut krate: Option<syn::Path> = None;
    let mut calls = Vec::new();
    for option in &options {
        let name = option
            .path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        if name == "crate" {
            krate = Some(string(&option.value)?.parse_with(syn::Path::parse_mod_style)?);
            continue;
        }
        calls.push((name, option));
    }
    let krate = krate.unwrap_or_else(default_crate);
    let calls = calls
        .into_iter()
        .map(|(name, option)| builder_call(&krate, &name, option))
        .collect::<syn::Result<Vec<Tokens>>>()?;
    let ItemFn {
        attrs,
        vis,
        sig,
        block,
    } = function;
    Ok(quote! {
        #[::core::prelude::v1::test]
        #(#attrs)*
        #vis #sig {
            #krate::Builder::new() #(#calls)* .check(|| #block);
        }
    })
}

/// A test function takes nothing and returns nothing.
fn check_signature(function: &ItemFn) -> syn::Result<()> {
    let sig = &function.sig;
    if let Some(asyncness) = sig.asyncness {
        return Err(syn::Error::new_spanned(
            asyncness,
            "#[rankcheck::test] cannot run async functions",
        ));
    }
    if !sig.inputs.is_empty() {
        return Err(syn::Error::new_spanned(
            &sig.inputs,
            "#[rankcheck::test] functions take no arguments",
        ));
    }
    if let syn::ReturnType::Type(_, ty) = &sig.output {
        return Err(syn::Error::new_spanned(
            ty,
            "#[rankcheck::test] functions return nothing (a failure is a panic)",
        ));
    }
    if !sig.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &sig.generics,
            "#[rankcheck::test] functions are not generic",
        ));
    }
    Ok(())
}

/// The builder call for option `name = value`.
fn builder_call(krate: &syn::Path, name: &str, option: &MetaNameValue) -> syn::Result<Tokens> {
    let value = &option.value;
    Ok(match name {
        "runs" | "seed" | "max_runs" | "max_steps" | "profile_runs" => {
            let number = integer(value)?;
            let method = syn::Ident::new(name, Span::call_site());
            quote! { .#method(#number) }
        }
        "depth" => {
            let depth = integer(value)?;
            quote! { .depth(#depth) }
        }
        "confidence" => {
            let confidence = float(value)?;
            quote! { .confidence(#confidence) }
        }
        "time" => {
            // Parsed when the test runs, by the parser of `--time`.
            let text = string(value)?;
            quote! { .time(#krate::__private::duration("time", #text)) }
        }
        "max_time" => {
            let text = string(value)?;
            quote! { .max_time(Some(#krate::__private::duration("max_time", #text))) }
        }
        "json" => {
            let path = string(value)?;
            quote! { .json(#path) }
        }
        "strategy" => {
            // Looked up in the engine's registry when the test runs: the
            // registry is the linked program's, which a macro cannot see.
            let name = string(value)?;
            quote! { .strategy(#krate::__private::strategy(#name)) }
        }
        "vars" => {
            let vars = vars(krate, value)?;
            quote! { .vars(#vars) }
        }
        "priorities" => {
            let text = string(value)?;
            let variant = match text.value().as_str() {
                "pct" => quote! { Pct },
                "thread-bounded" => quote! { ThreadBounded },
                other => {
                    return Err(error(
                        value,
                        &format!(
                            "unknown priorities `{other}`: expected \"pct\" or \"thread-bounded\""
                        ),
                    ))
                }
            };
            quote! { .priorities(#krate::Priorities::#variant) }
        }
        "memory_model" => {
            let text = string(value)?;
            let variant = match text.value().as_str() {
                "sc" => quote! { Sc },
                "weak" => quote! { Weak },
                other => {
                    return Err(error(
                        value,
                        &format!("unknown memory model `{other}`: expected \"sc\" or \"weak\""),
                    ))
                }
            };
            quote! { .memory_model(#krate::MemoryModel::#variant) }
        }
        _ => {
            return Err(error(
                &option.path,
                &format!(
                    "unknown option `{}`: expected runs, seed, time, strategy, depth, vars, \
                     priorities, memory_model, confidence, max_runs, max_steps, profile_runs, json \
                     or crate",
                    option.path.to_token_stream()
                ),
            ))
        }
    })
}

/// `vars = N`, or `vars = "all" | "sync" | "none"`.
fn vars(krate: &syn::Path, value: &Expr) -> syn::Result<Tokens> {
    if let Ok(count) = integer(value) {
        return Ok(quote! { #krate::Vars::Count(#count) });
    }
    let text = string(value).map_err(|_| {
        error(
            value,
            "expected a number of variables or \"all\", \"sync\", \"none\"",
        )
    })?;
    Ok(match text.value().as_str() {
        "all" => quote! { #krate::Vars::All },
        "sync" => quote! { #krate::Vars::Sync },
        "none" => quote! { #krate::Vars::None },
        other => {
            return Err(error(
                value,
                &format!(
                    "unknown vars `{other}`: expected a number, \"all\", \"sync\" or \"none\""
                ),
            ))
        }
    })
}

fn literal(value: &Expr) -> Option<&Lit> {
    match value {
        Expr::Lit(ExprLit { lit, .. }) => Some(lit),
        _ => None,
    }
}

fn integer(value: &Expr) -> syn::Result<syn::LitInt> {
    match literal(value) {
        Some(Lit::Int(int)) => Ok(int.clone()),
        _ => Err(error(value, "expected a whole number")),
    }
}

fn float(value: &Expr) -> syn::Result<Tokens> {
    match literal(value) {
        Some(Lit::Float(f)) => Ok(f.to_token_stream()),
        _ => Err(error(value, "expected a number like 0.99")),
    }
}

fn string(value: &Expr) -> syn::Result<syn::LitStr> {
    match literal(value) {
        Some(Lit::Str(text)) => Ok(text.clone()),
        _ => Err(error(value, "expected a string")),
    }
}

fn error(at: impl ToTokens, message: &str) -> syn::Error {
    syn::Error::new_spanned(at, message)
}

/// How the crate being compiled names rankcheck-rt: as its Cargo.toml
/// renames it, else `rankcheck_rt`.
fn default_crate() -> syn::Path {
    let name = renamed_dependency().unwrap_or_else(|| "rankcheck_rt".to_owned());
    let ident = syn::Ident::new(&name, Span::call_site());
    syn::parse_quote! { ::#ident }
}

fn renamed_dependency() -> Option<String> {
    if std::env::var("CARGO_PKG_NAME").ok()? == "rankcheck-rt" {
        return None;
    }
    let dir = std::env::var("CARGO_MANIFEST_DIR").ok()?;
    let text = std::fs::read_to_string(std::path::Path::new(&dir).join("Cargo.toml")).ok()?;
    let manifest: toml::Table = text.parse().ok()?;
    ["dependencies", "dev-dependencies"]
        .iter()
        .filter_map(|section| manifest.get(*section)?.as_table())
        .flat_map(|table| table.iter())
        .find(|(_, spec)| spec.get("package").and_then(toml::Value::as_str) == Some("rankcheck-rt"))
        .map(|(key, _)| key.replace('-', "_"))
}

#[cfg(test)]
mod tests {
    use super::{expand, quote, Tokens};

    fn expanded(args: Tokens) -> Result<String, String> {
        expand(args, quote! { fn t() { body(); } })
            .map(|tokens| tokens.to_string())
            .map_err(|error| error.to_string())
    }

    #[test]
    fn options_become_builder_calls_around_the_body() {
        let code = expanded(quote! { runs = 10, seed = 7, strategy = "pctvb", vars = 1 }).unwrap();
        assert!(code.contains(". runs (10) . seed (7)"), "{code}");
        assert!(code.contains("__private :: strategy (\"pctvb\")"), "{code}");
        assert!(code.contains("Vars :: Count (1)"), "{code}");
        assert!(code.contains(". check (|| { body () ; })"), "{code}");
    }

    #[test]
    fn bad_options_are_compile_errors_that_say_what_was_expected() {
        let unknown = expanded(quote! { runz = 10 }).unwrap_err();
        assert!(unknown.contains("unknown option `runz`"), "{unknown}");
        let strategy = expanded(quote! { strategy = 3 }).unwrap_err();
        assert!(strategy.contains("expected a string"), "{strategy}");
        let kind = expanded(quote! { runs = "ten" }).unwrap_err();
        assert!(kind.contains("expected a whole number"), "{kind}");
        let arguments = expand(quote! {}, quote! { fn t(x: u32) {} }).unwrap_err();
        assert!(arguments.to_string().contains("take no arguments"));
    }
}
