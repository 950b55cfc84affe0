//! Which priority settings a search runs for the depth and variables asked
//! for: one rule for both front ends (the command line's `--depth` and
//! `--vars`, rt's `Builder::depth` and `Builder::vars`).

use super::{PrioritySetting, VarSelection};
use crate::id::VarId;
use crate::profile::{accessed_vars, Profile};

/// The variables asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VarsAsked {
    /// Nothing: PCTVB's rotation for the depth.
    Unset,
    /// `v` variables drawn from the pool each run.
    Count(usize),
    /// A set chosen by the front end (every variable, the sync objects,
    /// none).
    Selection(VarSelection),
}

/// More variables asked for than the pool has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", choosable(*.available))]
pub struct TooManyVars {
    /// The count asked for.
    pub asked: usize,
    /// The pool's size.
    pub available: usize,
}

/// What [`TooManyVars`] says of a pool of `available` variables.
fn choosable(available: usize) -> String {
    match available {
        0 => "no variable to choose from".to_string(),
        1 => "only 1 variable to choose from".to_string(),
        n => format!("only {n} variables to choose from"),
    }
}

/// The depths a setting without `depth` runs at.
fn depths(depth: Option<u32>) -> Vec<u32> {
    depth.map_or(vec![1, 2, 3], |d| vec![d])
}

/// The variables drawn from when the user names none: those the
/// preparatory runs saw accessed, or all `n_vars` if they saw none.
pub fn default_pool(profile: &Profile, n_vars: usize) -> Vec<VarId> {
    let accessed = accessed_vars(profile);
    if accessed.is_empty() {
        (0..n_vars).map(|i| VarId(i as u32)).collect()
    } else {
        accessed
    }
}

/// Plain PCT: every variable tracked, at `depth` or at depths 1 to 3.
pub fn pct_settings(depth: Option<u32>, window: u64) -> Vec<PrioritySetting> {
    depths(depth)
        .into_iter()
        .map(|depth| PrioritySetting {
            depth,
            vars: VarSelection::All { window },
        })
        .collect()
}

/// PCTVB's settings over `pool`:
/// - `v` variables at depth `d`, or at depth `v + 1` without a depth;
/// - a chosen set at the depth, or at depths 1 to 3;
/// - a depth alone: 1 and 2 variables (as many as the depth can use);
/// - nothing: the common bug classes (1, 0), (2, 1), (3, 1), (3, 2).
///
/// When `whole_pool_is_fixed` (the user named the pool), drawing all of it
/// tracks exactly the pool.
pub fn pctvb_settings(
    depth: Option<u32>,
    vars: VarsAsked,
    pool: &[VarId],
    whole_pool_is_fixed: bool,
) -> Result<Vec<PrioritySetting>, TooManyVars> {
    let count = |v: usize| -> Result<VarSelection, TooManyVars> {
        if v > pool.len() {
            return Err(TooManyVars {
                asked: v,
                available: pool.len(),
            });
        }
        Ok(match v {
            0 => VarSelection::Fixed(Vec::new()),
            v if v == pool.len() && whole_pool_is_fixed => VarSelection::Fixed(pool.to_vec()),
            v => VarSelection::Drawn {
                pool: pool.to_vec(),
                count: v,
            },
        })
    };
    let setting = |depth: u32, vars: VarSelection| PrioritySetting { depth, vars };
    Ok(match (depth, vars) {
        (Some(d), VarsAsked::Count(v)) => vec![setting(d, count(v)?)],
        (None, VarsAsked::Count(v)) => vec![setting(v as u32 + 1, count(v)?)],
        (depth, VarsAsked::Selection(selection)) => depths(depth)
            .into_iter()
            .map(|d| setting(d, selection.clone()))
            .collect(),
        (Some(d), VarsAsked::Unset) => {
            let most = (d.saturating_sub(1) as usize).min(2).min(pool.len());
            let counts: Vec<usize> = if most == 0 {
                vec![0]
            } else {
                (1..=most).collect()
            };
            counts
                .into_iter()
                .map(|v| count(v).map(|s| setting(d, s)))
                .collect::<Result<_, _>>()?
        }
        (None, VarsAsked::Unset) => [(1, 0), (2, 1), (3, 1), (3, 2)]
            .into_iter()
            .filter(|&(_, v)| v <= pool.len())
            .map(|(d, v)| count(v).map(|s| setting(d, s)))
            .collect::<Result<_, _>>()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(n: u32) -> Vec<VarId> {
        (0..n).map(VarId).collect()
    }

    fn shape(settings: &[PrioritySetting]) -> Vec<(u32, Option<usize>)> {
        settings
            .iter()
            .map(|s| {
                let v = match &s.vars {
                    VarSelection::All { .. } => None,
                    VarSelection::Fixed(vars) => Some(vars.len()),
                    VarSelection::Drawn { count, .. } => Some(*count),
                };
                (s.depth, v)
            })
            .collect()
    }

    #[test]
    fn the_rotation_keeps_the_classes_the_pool_allows() {
        let all = pctvb_settings(None, VarsAsked::Unset, &pool(3), false).unwrap();
        assert_eq!(
            shape(&all),
            [(1, Some(0)), (2, Some(1)), (3, Some(1)), (3, Some(2))]
        );
        let one = pctvb_settings(None, VarsAsked::Unset, &pool(1), false).unwrap();
        assert_eq!(shape(&one), [(1, Some(0)), (2, Some(1)), (3, Some(1))]);
    }

    #[test]
    fn a_count_without_depth_is_depth_v_plus_1_and_too_many_is_refused() {
        let s = pctvb_settings(None, VarsAsked::Count(2), &pool(3), false).unwrap();
        assert_eq!(shape(&s), [(3, Some(2))]);
        let e = pctvb_settings(Some(2), VarsAsked::Count(4), &pool(3), false).unwrap_err();
        assert_eq!(
            e,
            TooManyVars {
                asked: 4,
                available: 3
            }
        );
        assert_eq!(e.to_string(), "only 3 variables to choose from");
        let e = pctvb_settings(Some(2), VarsAsked::Count(2), &pool(1), false).unwrap_err();
        assert_eq!(e.to_string(), "only 1 variable to choose from");
        let e = pctvb_settings(Some(2), VarsAsked::Count(1), &pool(0), false).unwrap_err();
        assert_eq!(e.to_string(), "no variable to choose from");
    }

    #[test]
    fn a_named_pool_drawn_whole_is_fixed() {
        let s = pctvb_settings(Some(2), VarsAsked::Count(2), &pool(2), true).unwrap();
        assert_eq!(s[0].vars, VarSelection::Fixed(pool(2)));
    }

    #[test]
    fn a_depth_alone_uses_as_many_variables_as_it_can() {
        let s = pctvb_settings(Some(3), VarsAsked::Unset, &pool(5), false).unwrap();
        assert_eq!(shape(&s), [(3, Some(1)), (3, Some(2))]);
        let s = pctvb_settings(Some(1), VarsAsked::Unset, &pool(5), false).unwrap();
        assert_eq!(shape(&s), [(1, Some(0))]);
    }
}
