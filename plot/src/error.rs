//! What can go wrong when drawing: data that cannot be plotted, or the
//! drawing library refusing.

use thiserror::Error;

/// An error while making a figure.
#[derive(Debug, Error)]
pub enum PlotError {
    /// The input has nothing to draw (no setting, no trial, no night).
    #[error("nothing to plot: {0}")]
    Empty(String),
    /// A value the figure cannot place (a probability outside [0, 1], an
    /// execution count of 0 on a log axis).
    #[error("cannot plot {what}: {value}")]
    BadValue {
        /// What the value is.
        what: String,
        /// The value, as given.
        value: String,
    },
    /// The drawing library failed (a bug of ours, or of plotters).
    #[error("drawing failed: {0}")]
    Drawing(String),
}

impl<E: std::error::Error + Send + Sync> From<plotters::drawing::DrawingAreaErrorKind<E>>
    for PlotError
{
    fn from(error: plotters::drawing::DrawingAreaErrorKind<E>) -> Self {
        PlotError::Drawing(error.to_string())
    }
}

/// A [`PlotError::BadValue`].
pub(crate) fn bad(what: impl Into<String>, value: impl ToString) -> PlotError {
    PlotError::BadValue {
        what: what.into(),
        value: value.to_string(),
    }
}
