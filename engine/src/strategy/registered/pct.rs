//! `pct`: PCT, change points among every tracked access, at the depth
//! asked or at depths 1 to 3.

use crate::strategy::planning::{pct_asked, priority_search};
use crate::strategy::registry::Registered;

inventory::submit! {
    Registered {
        name: "pct",
        about: "PCT: change points among all accesses",
        takes_settings: true,
        claims_bound: true,
        build: |asked, profile, _| priority_search(asked, profile, pct_asked(asked, profile)?),
    }
}
