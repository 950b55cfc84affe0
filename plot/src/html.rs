//! One self-contained HTML page of tables and plots, such as the morning
//! report of a nightly campaign: the SVG figures are inline, the style is
//! in the page, and nothing is fetched from anywhere (no script at all, no
//! external `src` or `href`). The page is well-formed XML as well as HTML,
//! so that tests can parse it with an XML parser.

use std::fmt::Write as _;

use crate::error::{bad, PlotError};
use crate::marks::escape;

/// A table: a caption, a header row and rows of cells, all text.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// What the table shows.
    pub caption: String,
    /// Column names.
    pub header: Vec<String>,
    /// Rows, each as long as the header.
    pub rows: Vec<Vec<String>>,
}

/// A figure: a title and the SVG document a `*_svg` function made.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    /// What the figure shows.
    pub title: String,
    /// The SVG document (an optional XML declaration, then `<svg ...>`).
    pub svg: String,
}

/// A part of the page under its own heading.
#[derive(Clone, Debug, PartialEq)]
pub struct Section {
    /// The heading.
    pub heading: String,
    /// Paragraphs of text before the tables.
    pub paragraphs: Vec<String>,
    /// Tables, in order.
    pub tables: Vec<Table>,
    /// Figures, after the tables.
    pub figures: Vec<Figure>,
}

/// The page.
#[derive(Clone, Debug, PartialEq)]
pub struct Page {
    /// The title, also the first heading.
    pub title: String,
    /// Paragraphs under the title (when, which machine, which command).
    pub paragraphs: Vec<String>,
    /// The sections.
    pub sections: Vec<Section>,
}

/// The page's style sheet: readable tables, figures no wider than the page.
const STYLE: &str = "body{font-family:'DejaVu Sans',Verdana,sans-serif;margin:2em auto;max-width:72em;padding:0 1em;color:#222}\
h1{font-size:1.6em}h2{font-size:1.3em;margin-top:2em;border-bottom:1px solid #ccc}\
table{border-collapse:collapse;margin:1em 0}caption{text-align:left;font-weight:bold;padding:.3em 0}\
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left}th{background:#f2f2f2}\
tbody tr:nth-child(even){background:#fafafa}\
figure{margin:1.5em 0}figcaption{font-weight:bold;margin-bottom:.4em}\
figure svg{max-width:100%;height:auto}";

/// The SVG element of a document, without the XML declaration, after
/// checking that it is self-contained.
fn inline_svg(figure: &Figure) -> Result<&str, PlotError> {
    let start = figure
        .svg
        .find("<svg")
        .ok_or_else(|| bad(format!("figure `{}`", figure.title), "no <svg> element"))?;
    let svg = figure.svg[start..].trim_end();
    let lower = svg.to_ascii_lowercase();
    if lower.contains("<script") || lower.contains("href=\"http") || lower.contains("url(http") {
        return Err(bad(
            format!("figure `{}`", figure.title),
            "it refers to something outside the page",
        ));
    }
    Ok(svg)
}

/// The page as one HTML document.
pub fn page_html(page: &Page) -> Result<String, PlotError> {
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
        escape(&page.title),
        escape(&page.title)
    );
    for paragraph in &page.paragraphs {
        let _ = writeln!(out, "<p>{}</p>", text_html(paragraph));
    }
    for section in &page.sections {
        let _ = writeln!(out, "<section>\n<h2>{}</h2>", escape(&section.heading));
        for paragraph in &section.paragraphs {
            let _ = writeln!(out, "<p>{}</p>", text_html(paragraph));
        }
        for table in &section.tables {
            table_html(&mut out, table)?;
        }
        for figure in &section.figures {
            let _ = write!(
                out,
                "<figure>\n<figcaption>{}</figcaption>\n{}\n</figure>\n",
                escape(&figure.title),
                inline_svg(figure)?
            );
        }
        out.push_str("</section>\n");
    }
    out.push_str("</body>\n</html>\n");
    Ok(out)
}

/// Text as HTML: escaped, with each `quoted` span (as the reports quote
/// names: a variable, a command) set as `<code>`, never shown with its
/// backticks; an unpaired backtick stays as it is.
fn text_html(text: &str) -> String {
    let parts: Vec<&str> = text.split('`').collect();
    if parts.len() % 2 == 0 {
        return escape(text);
    }
    parts
        .iter()
        .enumerate()
        .map(|(i, part)| {
            if i % 2 == 1 {
                format!("<code>{}</code>", escape(part))
            } else {
                escape(part)
            }
        })
        .collect()
}

fn table_html(out: &mut String, table: &Table) -> Result<(), PlotError> {
    if let Some(row) = table.rows.iter().find(|r| r.len() != table.header.len()) {
        return Err(bad(
            format!("a row of table `{}`", table.caption),
            format!("{} cells for {} columns", row.len(), table.header.len()),
        ));
    }
    let _ = write!(
        out,
        "<table>\n<caption>{}</caption>\n<thead><tr>",
        escape(&table.caption)
    );
    for name in &table.header {
        let _ = write!(out, "<th>{}</th>", escape(name));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for row in &table.rows {
        out.push_str("<tr>");
        for cell in row {
            let _ = write!(out, "<td>{}</td>", text_html(cell));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::text_html;

    #[test]
    fn quoted_names_are_code_and_lose_their_backticks() {
        assert_eq!(
            text_html("waits for a signal on `nonempty` & more"),
            "waits for a signal on <code>nonempty</code> &amp; more"
        );
        assert_eq!(text_html("a lone ` stays"), "a lone ` stays");
    }
}
