//! The files a command writes: a figure or page where the user asked
//! (`-o`, `--plot`, `--html`) and a failure's replay file. A name is
//! checked against the format before any work is done, so that no file
//! holds one format under another's extension (SVG in `x.png`), and every
//! file written is announced the same way: `wrote FILE` on stderr, where
//! it mixes with no report a script reads from stdout.

use std::path::Path;

use anyhow::{bail, Context, Result};

/// A format rankcheck writes to a file the user names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileFormat {
    /// A self-contained SVG figure.
    Svg,
    /// A self-contained HTML page.
    Html,
}

impl FileFormat {
    /// Its name in messages.
    pub fn name(self) -> &'static str {
        match self {
            FileFormat::Svg => "SVG",
            FileFormat::Html => "HTML",
        }
    }

    /// The extensions a file of this format may have, the usual first.
    pub fn extensions(self) -> &'static [&'static str] {
        match self {
            FileFormat::Svg => &["svg"],
            FileFormat::Html => &["html", "htm"],
        }
    }

    /// Refuse `path` (given to `flag`) when its extension names another
    /// format: `x.png` for a figure, which is SVG only. A name without an
    /// extension (`/dev/stdout`) is taken as it is.
    pub fn check_name(self, path: &Path, flag: &str) -> Result<()> {
        let Some(extension) = path.extension() else {
            return Ok(());
        };
        let extension = extension.to_string_lossy().to_ascii_lowercase();
        if self.extensions().contains(&extension.as_str()) {
            return Ok(());
        }
        let supported: Vec<String> = self.extensions().iter().map(|e| format!(".{e}")).collect();
        let raster = match (self, extension.as_str()) {
            (FileFormat::Svg, "png" | "jpg" | "jpeg" | "gif" | "webp" | "pdf") => {
                " (a browser, rsvg-convert or Inkscape turns the SVG into other formats)"
            }
            _ => "",
        };
        bail!(
            "{flag} {}: rankcheck writes {} here, and `.{extension}` names another format: name the file with {}{raster}",
            path.display(),
            self.name(),
            supported.join(" or "),
        )
    }

    /// Write `contents` to `path`, which [`FileFormat::check_name`]
    /// accepted, and say so.
    pub fn write(self, path: &Path, contents: &str) -> Result<()> {
        std::fs::write(path, contents)
            .with_context(|| format!("cannot write {} {}", self.name(), path.display()))?;
        announce(path);
        Ok(())
    }
}

/// Say that `path` was written: `wrote FILE` on stderr, the one line every
/// command prints for every file it writes.
pub fn announce(path: &Path) {
    errln!("wrote {}", path.display());
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::FileFormat;

    #[test]
    fn a_name_must_not_promise_another_format() {
        for ok in ["x.svg", "dir/X.SVG", "/dev/stdout", "plot"] {
            assert!(
                FileFormat::Svg.check_name(Path::new(ok), "-o").is_ok(),
                "{ok}"
            );
        }
        for ok in ["page.html", "page.HTM"] {
            assert!(FileFormat::Html.check_name(Path::new(ok), "--html").is_ok());
        }
        let error = FileFormat::Svg
            .check_name(Path::new("x.png"), "-o")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("-o x.png") && error.contains(".svg"),
            "{error}"
        );
        let error = FileFormat::Html
            .check_name(Path::new("page.svg"), "--html")
            .unwrap_err()
            .to_string();
        assert!(error.contains(".html or .htm"), "{error}");
        assert!(FileFormat::Svg
            .check_name(Path::new("x.html"), "-o")
            .is_err());
    }
}
