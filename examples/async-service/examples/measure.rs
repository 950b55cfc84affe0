//! Executions until the reload's corner window is found, for PCTVB at
//! depth 2 over one variable and for the random strategy, one CSV row per
//! strategy and seed (results/async_service.csv):
//!
//! ```sh
//! cargo run --release -p async-service --features rankcheck --example measure -- SEEDS HOT WARM CAP
//! ```

use std::panic::{self, AssertUnwindSafe};

use async_service::{limit_of, reload_during_traffic};
use rankcheck::{future::block_on, Builder, Strategy, Vars};

/// Preparatory runs before PCTVB's search (the builder's default).
const PREPARATORY: u64 = 20;

fn scenario(hot: u64, warm: u64) {
    let (receipt, _) = block_on(reload_during_traffic(hot, warm));
    assert_eq!(
        receipt.config.limit,
        limit_of(receipt.config.epoch),
        "a configuration that never existed: {receipt:?}"
    );
}

/// Executions until the bug, the `preparatory` runs counted (the report's
/// `found in run N` counts the search's runs after them; `found in
/// preparatory run N`, theirs), or `None` within the builder's runs.
fn found_in(builder: Builder, preparatory: u64, hot: u64, warm: u64) -> Option<u64> {
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
        builder.check(move || scenario(hot, warm));
    }));
    let payload = outcome.err()?;
    let report = payload
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert!(
        report.contains("a configuration that never existed"),
        "another failure:\n{report}"
    );
    let found = report.split("found in ").nth(1)?;
    let (after, rest) = match found.strip_prefix("preparatory run ") {
        Some(rest) => (0, rest),
        None => (preparatory, found.strip_prefix("run ")?),
    };
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse::<u64>().ok().map(|run| after + run)
}

fn argument(args: &[String], index: usize, default: u64) -> u64 {
    args.get(index).map_or(default, |text| {
        text.parse().unwrap_or_else(|_| {
            eprintln!("error: argument {index} `{text}` is not a whole number");
            std::process::exit(2)
        })
    })
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let seeds = argument(&args, 1, 20);
    let hot = argument(&args, 2, 200);
    let warm = argument(&args, 3, 2);
    let cap = argument(&args, 4, 100_000);
    panic::set_hook(Box::new(|_| {}));
    println!("strategy,hot,warm,seed,executions_until_bug,found");
    let base = Builder::new().runs(cap).profile_runs(PREPARATORY);
    for (name, strategy) in [
        ("pctvb-d2-v1", Strategy::Pctvb),
        ("random", Strategy::Random),
    ] {
        for seed in 0..seeds {
            // PCTVB's preparatory runs choose its variables; the random
            // strategy needs none.
            let (builder, preparatory) = match strategy {
                Strategy::Pctvb => (base.clone().depth(2).vars(Vars::Count(1)), PREPARATORY),
                _ => (base.clone().profile_runs(0), 0),
            };
            let found = found_in(
                builder.strategy(strategy).seed(seed),
                preparatory,
                hot,
                warm,
            );
            println!(
                "{name},{hot},{warm},{seed},{},{}",
                found.unwrap_or(cap),
                found.is_some()
            );
        }
    }
}
