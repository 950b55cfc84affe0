//! `portfolio`, the default search: runs rotate through the cycle of
//! [`default_search`], each priority setting's runs earning its
//! guarantee.

use crate::strategy::default_search;
use crate::strategy::planning::{priority, runnable, Built};
use crate::strategy::registry::{Registered, DEFAULT};
use crate::strategy::PlanKind;

inventory::submit! {
    Registered {
        name: DEFAULT,
        about: "The default: runs rotate through partial order sampling (plain, weighted \
                and sticky), URW, SURW and the priority settings (1, none) and (3, all), \
                each setting's runs earning its guarantee",
        takes_settings: false,
        claims_bound: true,
        build: |asked, profile, _| {
            let (settings, skipped) = runnable(default_search::settings(profile), profile);
            let portfolio = default_search::portfolio(priority(asked, profile, settings), profile);
            Ok(Built {
                kind: PlanKind::Portfolio(Box::new(portfolio)),
                skipped,
            })
        },
    }
}
