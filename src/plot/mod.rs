//! `rankcheck plot bound|hits|history`, and the guarantee figure `check
//! --plot` draws: the numbers come from the engine and `stats` (or the
//! campaign history), the drawing from `rankcheck-plot`; each command
//! prints the numbers it plots.

mod bound;
mod history;
mod hits;

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;

use crate::cli::{PlotArgs, PlotKind};
use crate::output_file::FileFormat;

pub use self::bound::{guarantee_figure, plot_bound};

/// Run the plot command `args` names.
pub fn plot(args: &PlotArgs) -> Result<ExitCode> {
    let output = match &args.kind {
        PlotKind::Bound(args) => &args.output,
        PlotKind::Hits(args) => &args.output,
        PlotKind::History(args) => &args.output,
    };
    // Before the runs, which can take minutes.
    FileFormat::Svg.check_name(output, "-o")?;
    match &args.kind {
        PlotKind::Bound(args) => plot_bound(args),
        PlotKind::Hits(args) => hits::plot_hits(args),
        PlotKind::History(args) => history::plot_history(args),
    }
}

/// Write an SVG document (to a name [`FileFormat::check_name`] accepted)
/// and say so.
pub fn write_svg(path: &Path, svg: &str) -> Result<()> {
    FileFormat::Svg.write(path, svg)
}
