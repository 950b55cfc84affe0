//! A failure as text: after the front end's head, the interleaving as a
//! table, what the program printed, what the interleaving took and, under
//! priorities, what the run tracked and where its change points fired.

use std::fmt::Write as _;

use super::{FailureJson, StepView, Touched};
use crate::words::{count, list};

/// The human report of `failure`. `head` is the front end's opening (the
/// headline, the source at the failure, the blocked threads of a deadlock),
/// ending with a blank line; `fewest_preemptions` says how the front end
/// measures the fewest preemptions a bug needs, if it can, for a run
/// without priorities, whose switches are not preemptions.
pub fn failure_text(failure: &FailureJson, head: &str, fewest_preemptions: Option<&str>) -> String {
    let mut out = head.to_string();
    out.push_str(&interleaving(failure));
    if !failure.printed.is_empty() {
        out.push_str("\nprinted:\n");
        for printed in &failure.printed {
            let _ = writeln!(out, "  [{}] {}", printed.thread, printed.text);
        }
    }
    out.push('\n');
    out.push_str(&observed_text(failure, fewest_preemptions));
    if let Some(line) = tracking_text(failure) {
        out.push_str(&line);
    }
    if let Some(line) = shrunk_text(failure) {
        out.push_str(&line);
    }
    out
}

/// `shrunk from 41 steps, 4 preemptions and 9 switches (212 replays);
/// critical switches (!): before steps 5, 9`.
fn shrunk_text(failure: &FailureJson) -> Option<String> {
    let shrunk = failure.shrunk.as_ref()?;
    let before = &shrunk.before;
    let cut_short = if shrunk.complete {
        ""
    } else {
        ", stopped by --shrink-time"
    };
    let critical = match shrunk.critical.as_slice() {
        [] => "no switch is critical alone".to_string(),
        [step] => format!("critical switch (!): before step {step}"),
        steps => format!(
            "critical switches (!): before steps {}",
            list(&steps.iter().map(u64::to_string).collect::<Vec<_>>())
        ),
    };
    Some(format!(
        "shrunk from {}, {} and {} ({}{cut_short}); {critical}\n",
        count(before.steps, "step", "steps"),
        count(before.preemptions, "preemption", "preemptions"),
        count(before.switches, "switch", "switches"),
        count(shrunk.replays, "replay", "replays"),
    ))
}

/// `the interleaving took 2 preemptions, after accesses to m, among 3
/// threads`, or for a run without priorities its switches.
fn observed_text(failure: &FailureJson, fewest_preemptions: Option<&str>) -> String {
    let observed = &failure.observed;
    let threads = count(observed.threads, "thread", "threads");
    if !failure.priorities {
        let how = fewest_preemptions
            .map(|how| format!(": {how}"))
            .unwrap_or_default();
        return format!(
            "the interleaving switched {} away from a thread that could have gone on, among {threads};\nwithout priorities a switch is not a preemption{how}\n",
            count(observed.switches, "time", "times"),
        );
    }
    let after = if observed.variables.is_empty() {
        String::new()
    } else {
        format!(", after accesses to {}", list(&observed.variables))
    };
    format!(
        "the interleaving took {}{after}, among {threads}\n",
        count(observed.preemptions, "preemption", "preemptions")
    )
}

/// `depth 3 run tracking cold; change points: #1 after ...`, for a run
/// under priorities.
fn tracking_text(failure: &FailureJson) -> Option<String> {
    let depth = failure.depth?;
    let tracked = match &failure.chosen_vars {
        None => "every variable".to_string(),
        Some(vars) if vars.is_empty() => "no variable".to_string(),
        Some(vars) => list(vars),
    };
    if failure.shrunk.is_some() {
        // Its change points were the first schedule's, not the one shown.
        return Some(format!("found by a depth {depth} run tracking {tracked}\n"));
    }
    let described = if failure.change_points.is_empty() {
        "none fired".to_string()
    } else {
        failure
            .change_points
            .iter()
            .map(|c| {
                format!(
                    "#{} after tracked access {} (step {}, thread {}{})",
                    c.index,
                    c.access,
                    c.step,
                    c.thread,
                    c.var.as_ref().map(|v| format!(", {v}")).unwrap_or_default()
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    };
    Some(format!(
        "depth {depth} run tracking {tracked}; change points: {described}\n"
    ))
}

/// The interleaving as a table: a row per step, with its mark (a
/// preemption before it, or a switch), thread, place, operation and the
/// variables it touched; a step repeated unmarked is one row, then one
/// line that says how many times more (the JSON keeps every step).
fn interleaving(failure: &FailureJson) -> String {
    let steps = &failure.trace;
    let mut out = header(failure);
    let places: Vec<String> = steps.iter().map(place).collect();
    let width = widest(steps.iter().map(|s| &s.thread), 6);
    let place_width = widest(&places, 5);
    let op_width = widest(steps.iter().map(|s| &s.operation), 9);
    let _ = writeln!(
        out,
        "  {:>5}  {:<width$}  {:>place_width$}  {:<op_width$}  touches",
        "step", "thread", "line", "operation"
    );
    let mut i = 0;
    while i < steps.len() {
        let (step, place) = (&steps[i], &places[i]);
        let mark = mark(failure, step);
        let row = format!(
            "{mark} {:>5}  {:<width$}  {:>place_width$}  {:<op_width$}  {}",
            step.step,
            step.thread,
            place,
            step.operation,
            touches(&step.touched)
        );
        let _ = writeln!(out, "{}", row.trim_end());
        let repeats = repeats_after(failure, &places, i);
        if repeats >= FOLD_AT {
            let (first, last) = (steps[i + 1].step, steps[i + repeats].step);
            let _ = writeln!(
                out,
                "  {:>5}  (the same step {} more times: steps {first}-{last})",
                "...", repeats
            );
            i += repeats;
        }
        i += 1;
    }
    out
}

/// Repeats of one step, unmarked, at least this many in a row are folded
/// into one line: a spin loop or a hot counter would fill the table.
const FOLD_AT: usize = 2;

/// How many steps right after step `i` repeat it: the same thread, place,
/// operation and variables touched, with no mark of their own.
fn repeats_after(failure: &FailureJson, places: &[String], i: usize) -> usize {
    let steps = &failure.trace;
    let same = |j: usize| {
        let (a, b) = (&steps[i], &steps[j]);
        a.thread == b.thread
            && places[i] == places[j]
            && a.operation == b.operation
            && a.touched == b.touched
            && mark(failure, b) == ' '
    };
    (i + 1..steps.len()).take_while(|&j| same(j)).count()
}

/// A step's mark: `!` after a critical switch, `>` after a preemption
/// (under priorities), `~` after a switch (without), else a space.
fn mark(failure: &FailureJson, step: &StepView) -> char {
    match (failure.priorities, step.preemption, step.switch) {
        _ if step.critical => '!',
        (true, true, _) => '>',
        (false, _, true) => '~',
        _ => ' ',
    }
}

/// The width of a column: its widest cell, at least `least` (its
/// heading's).
fn widest<'a>(cells: impl IntoIterator<Item = &'a String>, least: usize) -> usize {
    cells
        .into_iter()
        .map(|cell| cell.chars().count())
        .max()
        .unwrap_or(0)
        .max(least)
}

/// `interleaving (12 steps, 1 preemption; > marks ...):`, or the
/// switches it marks without priorities.
fn header(failure: &FailureJson) -> String {
    let steps = &failure.trace;
    if failure.priorities {
        let marked = steps.iter().filter(|s| s.preemption).count();
        let critical = if steps.iter().any(|s| s.critical) {
            ", ! after a critical switch"
        } else {
            ""
        };
        format!(
            "interleaving ({}, {}; > marks the step after a preemption{critical}):\n",
            count(steps.len(), "step", "steps"),
            count(marked, "preemption", "preemptions")
        )
    } else {
        let marked = steps.iter().filter(|s| s.switch).count();
        format!(
            "interleaving ({}, {} away from a thread that could have gone on, marked ~):\n",
            count(steps.len(), "step", "steps"),
            count(marked, "switch", "switches")
        )
    }
}

/// Where a step's operation is: its `file.rs:line` where the front end
/// has one, else its line.
fn place(step: &StepView) -> String {
    match (&step.location, step.line) {
        (Some(location), _) => location.clone(),
        (None, Some(line)) => line.to_string(),
        (None, None) => String::new(),
    }
}

/// `head r, m w`: each variable with whether it was read, written or both.
fn touches(touched: &[Touched]) -> String {
    touched
        .iter()
        .map(|t| {
            let how = match (t.read, t.write) {
                (true, true) => "rw",
                (false, true) => "w",
                _ => "r",
            };
            format!("{} {how}", t.var)
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::failure::{change_points, observe};

    /// A step of thread `thread` ending in `operation` on `var`.
    fn step(number: usize, thread: &str, operation: &str, var: Option<&str>) -> StepView {
        StepView {
            step: number,
            thread: thread.into(),
            line: Some(number * 10),
            location: None,
            operation: operation.into(),
            var: var.map(Into::into),
            touched: var
                .map(|v| Touched {
                    var: v.into(),
                    read: true,
                    write: false,
                })
                .into_iter()
                .collect(),
            preemption: false,
            critical: false,
            switch: false,
            tracked: var.is_some(),
        }
    }

    /// A failure with `trace`, under priorities at depth 2.
    fn failure(trace: Vec<StepView>) -> FailureJson {
        FailureJson {
            run: 1,
            kind: "assert".into(),
            message: "m".into(),
            line: 0,
            column: 0,
            file: None,
            thread: "t".into(),
            replay: None,
            change_points: change_points(&trace),
            observed: observe(&trace),
            trace,
            found_by: "search",
            strategy: "pctvb".into(),
            depth: Some(2),
            chosen_vars: Some(vec!["x".into()]),
            printed: Vec::new(),
            shrunk: None,
            priorities: true,
        }
    }

    #[test]
    fn the_marks_give_the_change_points_and_what_the_interleaving_took() {
        let mut trace = vec![
            step(1, "a", "read x", Some("x")),
            step(2, "b", "read x", Some("x")),
            step(3, "a", "assertion fails", None),
        ];
        trace[1].preemption = true;
        let text = failure_text(&failure(trace), "HEAD\n", None);
        assert!(text.starts_with("HEAD\ninterleaving (3 steps, 1 preemption;"));
        assert!(text.contains("\n>     2  b          20  read x           x r\n"));
        assert!(text.contains(
            "the interleaving took 1 preemption, after accesses to x, among 2 threads\n"
        ));
        assert!(text.ends_with(
            "depth 2 run tracking x; change points: #1 after tracked access 1 (step 1, thread a, x)\n"
        ));
    }

    #[test]
    fn a_location_takes_the_line_s_place_and_widens_its_column() {
        let mut trace = vec![step(1, "main", "spawn", None)];
        trace[0].location = Some("lib.rs:12".into());
        let mut failure = failure(trace);
        failure.priorities = false;
        failure.depth = None;
        let text = failure_text(&failure, "", Some("ask"));
        assert!(text.contains("\n   step  thread       line  operation  touches\n"));
        assert!(text.contains("\n      1  main    lib.rs:12  spawn\n"));
        assert!(text.contains("without priorities a switch is not a preemption: ask\n"));
    }

    #[test]
    fn a_step_repeated_unmarked_is_folded_into_one_line() {
        let mut trace: Vec<StepView> = (1..=6)
            .map(|n| StepView {
                line: Some(10),
                ..step(n, "a", "write x", Some("x"))
            })
            .collect();
        trace.push(step(7, "b", "read x", Some("x")));
        trace[6].preemption = true;
        trace.push(StepView {
            line: Some(10),
            ..step(8, "a", "write x", Some("x"))
        });
        let text = failure_text(&failure(trace), "", None);
        assert!(
            text.contains("interleaving (8 steps, 1 preemption;"),
            "{text}"
        );
        assert!(
            text.contains(
                "\n      1  a          10  write x    x r\n    ...  (the same step 5 more times: steps 2-6)\n>     7  b"
            ),
            "{text}"
        );
        assert!(text.contains("\n      8  a          10  write x"), "{text}");
    }
}
