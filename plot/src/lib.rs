//! Plots of rankcheck's numbers as self-contained SVG text, and the HTML
//! page that gathers tables and plots: pure functions from plain data to
//! strings, so that the binary and the benchmark harness decide what to
//! read and where to write, and every figure can be rebuilt from a CSV.
//!
//! What is here:
//! - [`bound`]: the guarantee `1 - (1 - p)^N` against executions `N`, per
//!   (depth, variables) setting, PCT beside PCTVB, per variable set, the
//!   target confidence and the runs done ([`BoundFigure`]).
//! - [`hits`]: the measured fraction of independent searches that found
//!   the bug by `N` executions, with its Clopper-Pearson band, over the
//!   guaranteed lower bound ([`HitsFigure`]).
//! - [`history`]: a nightly campaign's accumulated runs and guarantee per
//!   setting, night by night, with failures marked ([`History`]).
//! - [`corner`], [`cost`], [`strategies`]: the benchmark figures of
//!   `results/` (executions until the bug against the hot variable's
//!   accesses; the cost of tracking; bugs found against executions).
//! - [`html`]: one self-contained page of tables and inline plots
//!   ([`Page`]).
//!
//! Every data point a figure plots is also written as a `<circle
//! class="point">` whose `data-series`, `data-x` and `data-y` attributes
//! hold the exact numbers (Rust's shortest round-trip form), with a
//! `<title>` a browser shows on hover: see [`marks`]. Text is laid out with
//! the DejaVu Sans metrics embedded in this crate ([`font`]), so nothing
//! is read from the system.
//!
//! Figures are drawn with plotters' SVG backend. Of rankcheck's crates
//! this one depends on `rankcheck-stats` alone.

pub mod axis;
pub mod bound;
mod canvas;
pub mod corner;
pub mod cost;
pub mod error;
pub mod font;
pub mod history;
pub mod hits;
pub mod html;
pub mod labels;
pub mod marks;
pub mod strategies;
pub mod style;

pub use bound::{bound_svg, BoundCurve, BoundFigure, BoundPanel, CurveKind};

pub use error::PlotError;

pub use marks::Mark;

pub use corner::{corner_svg, CornerFigure, CornerRun};
pub use cost::{cost_svg, CostBar, CostFigure, CostGroup};
pub use history::{history_svg, History, NightPoint, NightSeries};
pub use hits::{hits_svg, Checkpoint, HitsFigure};
pub use html::{page_html, Figure, Page, Section, Table};
pub use strategies::{strategies_svg, StrategiesFigure, StrategyTrial};
