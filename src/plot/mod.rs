//! `rankcheck plot bound|hits|history`, and the guarantee figure `check
//! --plot` draws: the numbers come from the engine and `stats` (or the
//! campaign history), the drawing from `rankcheck-plot`; each command
//! prints the numbers it plots.

mod bound;
mod history;
mod hits;

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};

use crate::cli::{PlotArgs, PlotKind};

pub use self::bound::{guarantee_figure, plot_bound};

/// Run the plot command `args` names.
pub fn plot(args: &PlotArgs) -> Result<ExitCode> {
    match &args.kind {
        PlotKind::Bound(args) => plot_bound(args),
        PlotKind::Hits(args) => hits::plot_hits(args),
        PlotKind::History(args) => history::plot_history(args),
    }
}

/// Write an SVG document, saying which file failed.
pub fn write_svg(path: &Path, svg: &str) -> Result<()> {
    std::fs::write(path, svg).with_context(|| format!("cannot write {}", path.display()))
}
