//! `pctvb`: PCT with variable bounding, change points only at accesses to
//! the variables drawn for each run (docs/ALGORITHMS.md).

use crate::strategy::planning::{pctvb_asked, priority_search};
use crate::strategy::registry::{Registered, SETTINGS_DEFAULT};

inventory::submit! {
    Registered {
        name: SETTINGS_DEFAULT,
        about: "PCT with variable bounding: change points only at accesses to v variables \
                drawn for each run",
        takes_settings: true,
        claims_bound: true,
        build: |asked, profile, variables| {
            priority_search(asked, profile, pctvb_asked(asked, profile, variables)?)
        },
    }
}
