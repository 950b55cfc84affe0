//! Every figure kind drawn from hand-made data: the SVG parses as XML, has
//! its title, axis titles and series names, and its marks carry exactly
//! the numbers given; no text runs past the canvas, however long the names
//! and however far the axes run; every strategy keeps its colour; the HTML
//! page parses and holds each figure; and, with headless Chromium at hand,
//! each figure renders to a screenshot that is not blank.

#[path = "support/geometry.rs"]
mod geometry;

use std::path::{Path, PathBuf};
use std::process::Command;

use rankcheck_plot::strategies::{bugs_found, mark_runs};
use rankcheck_plot::*;
use rankcheck_stats::{confidence_after, Probability};

fn p(x: f64) -> Probability {
    Probability::new(x).unwrap()
}

fn bound_figure() -> BoundFigure {
    let curve = |label: &str, kind, bound: f64| BoundCurve {
        label: label.into(),
        kind,
        bound: p(bound),
        runs: Some(1000),
    };
    BoundFigure {
        program: "examples/corner_variable.rk".into(),
        target: 0.99,
        panels: vec![
            BoundPanel {
                title: "depth 1 over no variable".into(),
                curves: vec![curve("pct and pctvb", CurveKind::Pctvb, 0.5)],
            },
            BoundPanel {
                title: "depth 2 over 1 variable (1 of 2)".into(),
                curves: vec![
                    curve("pctvb", CurveKind::Pctvb, 1.0 / 800.0),
                    curve("pct", CurveKind::Pct, 1.0 / 406.0),
                    curve("pctvb over hot", CurveKind::Set(0), 1.0 / 800.0),
                    curve("pctvb over cold", CurveKind::Set(1), 1.0 / 12.0),
                ],
            },
        ],
    }
}

fn hits_figure() -> HitsFigure {
    let bound = p(1.0 / 800.0);
    // 40 trials whose first failures came at 3, 6, 9, ... runs.
    let trials = 40;
    let checkpoints = hits::checkpoint_runs(200)
        .into_iter()
        .map(|n| Checkpoint::new(n, (n / 3).min(trials), trials, 0.95, bound).unwrap())
        .collect();
    HitsFigure {
        program: "examples/corner_variable.rk".into(),
        setting: "pctvb, depth 2 over 1 variable (1 of 2)".into(),
        trials,
        level: 0.95,
        bound,
        checkpoints,
        median_runs: Some(60),
    }
}

fn history() -> History {
    let night = |day: u32, runs: u64, bound: f64, failures: u64| NightPoint {
        night: format!("2025-03-{day:02}"),
        index: u64::from(day),
        runs,
        confidence: Some(confidence_after(p(bound), runs).value()),
        failures,
    };
    History {
        program: "examples/lost_push.rk".into(),
        target: 0.99,
        series: vec![
            NightSeries {
                setting: "depth 2 over 1 variable (1 of 2)".into(),
                strategy: "pctvb".into(),
                nights: (1..=6)
                    .map(|d| night(d, 20_000 * d as u64, 1.0 / 30.0, 0))
                    .collect(),
            },
            NightSeries {
                setting: "depth 3 over 2 variables (2 of 2)".into(),
                strategy: "pctvb".into(),
                nights: (1..=6)
                    .map(|d| night(d, 20_000 * d as u64, 1.0 / 24300.0, u64::from(d == 4)))
                    .collect(),
            },
        ],
    }
}

fn corner_figure() -> CornerFigure {
    let mut runs = Vec::new();
    for hot in [10, 50, 100, 200, 400] {
        for seed in 0..5 {
            for (tool, strategy, executions) in [
                ("rankcheck", "pct", hot * 4 + seed * 7),
                ("rankcheck", "pctvb", 4 + seed),
                ("shuttle", "pct", hot * 3 + seed * 5),
            ] {
                runs.push(CornerRun {
                    tool: tool.into(),
                    strategy: strategy.into(),
                    hot,
                    seed,
                    executions,
                    found: true,
                });
            }
        }
    }
    CornerFigure { runs }
}

fn cost_figure() -> CostFigure {
    let bars = |one: f64| {
        vec![
            CostBar {
                label: "observed only".into(),
                ratio: 1.03,
                range: None,
            },
            CostBar {
                label: "one variable (mean)".into(),
                ratio: one,
                range: Some((0.95, 1.44)),
            },
            CostBar {
                label: "two variables (mean)".into(),
                ratio: 1.05,
                range: Some((0.98, 1.3)),
            },
            CostBar {
                label: "every variable".into(),
                ratio: 1.85,
                range: None,
            },
        ]
    };
    CostFigure {
        title: "Time per execution by variables tracked".into(),
        target: Some(1.3),
        groups: ["bank", "pipeline", "hashmap"]
            .iter()
            .map(|name| CostGroup {
                program: name.to_string(),
                bars: bars(1.02),
            })
            .collect(),
    }
}

/// A small strategy corpus: three programs in `main`, one `trivial`.
pub fn strategies_figure() -> StrategiesFigure {
    let mut trials = Vec::new();
    let programs = [
        ("account", "main", 30),
        ("reorder", "main", 900),
        ("queue", "main", 0),
        ("twostage", "trivial", 1),
    ];
    for (strategy, parameters, factor) in [
        ("pctvb", "d=2 v=1", 1u64),
        ("pct", "d=2", 3),
        ("random", "", 20),
    ] {
        for (program, group, base) in programs {
            for seed in 0..4u64 {
                let executions = base * factor + seed;
                let found = base > 0 && executions <= 10_000;
                trials.push(StrategyTrial {
                    program: program.into(),
                    group: group.into(),
                    strategy: strategy.into(),
                    parameters: parameters.into(),
                    seed,
                    executions: if found { executions } else { 10_000 },
                    found,
                });
            }
        }
    }
    StrategiesFigure {
        trials,
        cap: 10_000,
    }
}

/// Every figure kind: a name and its SVG.
fn all_figures() -> Vec<(&'static str, String)> {
    vec![
        ("bound", bound_svg(&bound_figure()).unwrap()),
        ("hits", hits_svg(&hits_figure()).unwrap()),
        ("history", history_svg(&history()).unwrap()),
        ("corner", corner_svg(&corner_figure()).unwrap()),
        ("cost", cost_svg(&cost_figure()).unwrap()),
        ("strategies", strategies_svg(&strategies_figure()).unwrap()),
    ]
}

/// A data point read back from an SVG.
#[derive(Debug)]
struct Point {
    series: String,
    x: f64,
    y: f64,
    attrs: Vec<(String, String)>,
}

impl Point {
    fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The marks of an SVG document, and its text.
fn read(svg: &str) -> (Vec<Point>, String) {
    let doc = roxmltree::Document::parse(svg).expect("the SVG is well-formed XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let points = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("point"))
        .map(|n| Point {
            series: n.attribute("data-series").unwrap().to_string(),
            x: n.attribute("data-x").unwrap().parse().unwrap(),
            y: n.attribute("data-y").unwrap().parse().unwrap(),
            attrs: n
                .attributes()
                .filter_map(|a| {
                    a.name()
                        .strip_prefix("data-")
                        .map(|k| (k.to_string(), a.value().to_string()))
                })
                .collect(),
        })
        .collect();
    let text: Vec<&str> = doc
        .descendants()
        .filter(|n| n.tag_name().name() == "text" || n.tag_name().name() == "title")
        .filter_map(|n| n.text())
        .collect();
    (points, text.join("\n"))
}

#[test]
fn bound_marks_are_the_guarantees_at_the_runs_done() {
    let figure = bound_figure();
    let (points, text) = read(&bound_svg(&figure).unwrap());
    for words in [
        "executions N (log scale)",
        "guarantee 1 - (1 - p)^N",
        "target 0.99",
        "1,000 runs",
        "pctvb over cold: p ≥ 1/12",
        "depth 2 over 1 variable (1 of 2)",
    ] {
        assert!(text.contains(words), "`{words}` missing from\n{text}");
    }
    let curves: Vec<(&BoundPanel, &BoundCurve)> = figure
        .panels
        .iter()
        .flat_map(|p| p.curves.iter().map(move |c| (p, c)))
        .collect();
    assert_eq!(points.len(), curves.len());
    for (panel, curve) in curves {
        let point = points
            .iter()
            .find(|m| m.series == curve.label && m.attr("panel") == Some(&panel.title))
            .unwrap_or_else(|| panic!("no mark for {}", curve.label));
        assert_eq!(point.x, 1000.0);
        assert_eq!(point.y, curve.guarantee().unwrap());
    }
}

#[test]
fn hits_marks_are_the_checkpoints() {
    let figure = hits_figure();
    let (points, text) = read(&hits_svg(&figure).unwrap());
    for words in [
        "measured: fraction of 40 searches",
        "95% Clopper-Pearson interval",
        "guarantee 1 - (1 - p)^N, p ≥ 1/800",
        "probability the bug is found by N",
        "half the searches found the bug by 60 runs",
    ] {
        assert!(text.contains(words), "`{words}` missing from\n{text}");
    }
    for c in &figure.checkpoints {
        let at = |series: &str| {
            points
                .iter()
                .find(|m| m.series == series && m.x == c.runs as f64)
                .unwrap_or_else(|| panic!("no {series} mark at {}", c.runs))
        };
        let measured = at("measured");
        assert_eq!(measured.y, c.fraction);
        assert_eq!(measured.attr("low").unwrap().parse::<f64>().unwrap(), c.low);
        assert_eq!(
            measured.attr("high").unwrap().parse::<f64>().unwrap(),
            c.high
        );
        assert_eq!(at("guarantee").y, c.guarantee);
        // The bound stays under the measured curve here.
        assert!(c.guarantee <= c.high);
    }
}

#[test]
fn history_marks_every_night_and_the_failure() {
    let history = history();
    let (points, text) = read(&history_svg(&history).unwrap());
    for words in [
        "runs accumulated (log scale)",
        "guarantee (nines)",
        "night with a failure",
        "2025-03-01",
        "depth 3 over 2 variables (2 of 2)",
    ] {
        assert!(text.contains(words), "`{words}` missing from\n{text}");
    }
    for series in &history.series {
        for night in &series.nights {
            let on = |panel: &str| {
                points
                    .iter()
                    .find(|m| {
                        m.series == series.setting
                            && m.attr("night") == Some(&night.night)
                            && m.attr("panel") == Some(panel)
                    })
                    .unwrap_or_else(|| panic!("no {panel} mark on {}", night.night))
            };
            assert_eq!(on("runs").y, night.runs as f64);
            assert_eq!(on("guarantee").y, night.confidence.unwrap());
        }
    }
    let failures: Vec<&Point> = points.iter().filter(|m| m.series == "failure").collect();
    assert_eq!(failures.len(), 2, "one ring per panel");
    assert!(failures
        .iter()
        .all(|m| m.attr("night") == Some("2025-03-04")));
}

/// Settings whose lines coincide night for night (sampling streams with
/// the same runs and no guarantee) are one legend entry naming them all,
/// drawn in one colour; each keeps its own marks.
#[test]
fn history_names_coinciding_lines_together() {
    let sampling = |setting: &str| NightSeries {
        setting: setting.into(),
        strategy: setting.into(),
        nights: (1u32..=3)
            .map(|d| NightPoint {
                night: format!("2025-03-{d:02}"),
                index: u64::from(d),
                runs: 1024 * u64::from(d),
                confidence: None,
                failures: 0,
            })
            .collect(),
    };
    let mut history = history();
    history
        .series
        .extend([sampling("urw"), sampling("pos"), sampling("surw")]);
    let (points, text) = read(&history_svg(&history).unwrap());
    assert!(text.contains("urw, pos, surw (one line)"), "{text}");
    for setting in ["urw", "pos", "surw"] {
        assert!(
            !text.lines().any(|l| l.trim() == setting),
            "`{setting}` has no entry of its own"
        );
        assert_eq!(points.iter().filter(|m| m.series == setting).count(), 3);
    }
    // The settings with lines of their own keep their entries.
    assert!(text.contains("depth 2 over 1 variable (1 of 2)"));
}

#[test]
fn corner_cost_and_strategies_marks_are_their_numbers() {
    let (points, text) = read(&corner_svg(&corner_figure()).unwrap());
    assert!(text.contains("executions until the bug (log scale)"));
    let pct = points
        .iter()
        .find(|m| m.series == "rankcheck pct" && m.x == 100.0)
        .unwrap();
    // Seeds 0..5 at HOT = 100: 400 + 7 * (0 + 1 + 2 + 3 + 4) / 5 = 414.
    assert_eq!(pct.y, 414.0);
    assert!(text.contains("shuttle pct") && text.contains("rankcheck pctvb (v = 1)"));

    let (points, text) = read(&cost_svg(&cost_figure()).unwrap());
    assert!(text.contains("time per execution / tracking none (x)"));
    assert!(text.contains("target for one variable: 1.3x"));
    assert_eq!(points.len(), 12);
    let one = points
        .iter()
        .find(|m| m.series == "one variable (mean)" && m.attr("program") == Some("pipeline"))
        .unwrap();
    assert_eq!((one.x, one.y), (1.0, 1.02));

    let figure = strategies_figure();
    let (points, text) = read(&strategies_svg(&figure).unwrap());
    assert!(text.contains("executions N per trial (log scale)"));
    for line in ["pctvb d=2 v=1", "pct d=2", "random"] {
        for group in ["main", "trivial"] {
            for n in mark_runs(figure.cap) {
                let mark = points
                    .iter()
                    .find(|m| m.series == line && m.attr("panel") == Some(group) && m.x == n as f64)
                    .unwrap_or_else(|| panic!("no mark for {line} in {group} at {n}"));
                assert_eq!(mark.y, bugs_found(&figure, group, line, n));
            }
        }
        // Named at the end of its line, with the bugs it found.
        assert!(text.contains(&format!("{line} (")), "{line} is labelled");
    }
    // pctvb finds account (30 + seed) and reorder (900 + seed) within 10k,
    // never queue: 2 bugs; random finds account by 600..603 only.
    assert_eq!(bugs_found(&figure, "main", "pctvb d=2 v=1", 10_000), 2.0);
    assert_eq!(bugs_found(&figure, "main", "random", 10_000), 1.0);
    assert_eq!(bugs_found(&figure, "main", "pctvb d=2 v=1", 31), 0.5);
}

#[test]
fn the_page_is_self_contained_and_holds_every_figure() {
    let figures = all_figures();
    let page = Page {
        title: "rankcheck nightly report <2025-03-06>".into(),
        paragraphs: vec!["machine: test & co".into()],
        sections: vec![Section {
            heading: "examples/lost_push.rk".into(),
            paragraphs: vec![],
            tables: vec![Table {
                caption: "settings".into(),
                header: vec!["setting".into(), "runs".into()],
                rows: vec![vec!["depth 2 over 1 variable".into(), "120000".into()]],
            }],
            figures: figures
                .iter()
                .map(|(name, svg)| Figure {
                    title: name.to_string(),
                    svg: svg.clone(),
                })
                .collect(),
        }],
    };
    let html = page_html(&page).unwrap();
    let doc = roxmltree::Document::parse_with_options(
        &html,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        },
    )
    .expect("the page is well-formed");
    assert!(doc.descendants().all(|n| n.tag_name().name() != "script"));
    for node in doc.descendants() {
        for attr in ["src", "href"] {
            if let Some(value) = node.attribute(attr) {
                assert!(
                    value.starts_with('#') || value.starts_with("data:"),
                    "external {attr}={value}"
                );
            }
        }
    }
    let svgs = doc
        .descendants()
        .filter(|n| n.tag_name().name() == "svg")
        .count();
    assert_eq!(svgs, figures.len());
    let captions: Vec<&str> = doc
        .descendants()
        .filter(|n| n.tag_name().name() == "figcaption")
        .filter_map(|n| n.text())
        .collect();
    for (name, _) in &figures {
        assert!(captions.contains(name), "{name}");
    }
    let cells: Vec<&str> = doc
        .descendants()
        .filter(|n| n.tag_name().name() == "td")
        .filter_map(|n| n.text())
        .collect();
    assert_eq!(cells, ["depth 2 over 1 variable", "120000"]);
    assert!(html.contains("&lt;2025-03-06&gt;"));
    // A table with a short row is refused.
    let mut bad = page.clone();
    bad.sections[0].tables[0].rows.push(vec!["x".into()]);
    assert!(page_html(&bad).is_err());
}

/// Chromium from the distribution's packages, if installed.
fn chromium() -> Option<PathBuf> {
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            std::env::split_paths(&std::env::var_os("PATH")?)
                .map(|dir| dir.join(name))
                .find(|p| p.is_file())
        })
}

/// Screenshot `file` with headless Chromium into `png`.
fn screenshot(browser: &Path, file: &Path, png: &Path, profile: &Path) {
    let status = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--hide-scrollbars",
            "--window-size=1000,700",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("file://{}", file.display()))
        .output()
        .expect("chromium runs");
    assert!(
        png.is_file(),
        "no screenshot of {}: {}",
        file.display(),
        String::from_utf8_lossy(&status.stderr)
    );
}

/// The share of pixels that are not the background (the top-left pixel).
fn ink(png: &Path) -> f64 {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(png).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let pixels: Vec<&[u8]> = buf[..info.buffer_size()].chunks(channels).collect();
    let background = pixels[0];
    let inked = pixels
        .iter()
        .filter(|p| {
            p.iter()
                .zip(background)
                .take(3)
                .any(|(a, b)| a.abs_diff(*b) > 40)
        })
        .count();
    inked as f64 / pixels.len() as f64
}

/// Each figure and the page, rendered by a real browser, show something:
/// more than 1% of the screenshot differs from the background (a figure
/// draws its axes, grid, text and lines over about 2-6%). Ignored by a
/// plain `cargo test`, since it needs Chromium; `./test.sh` runs it when
/// `chromium` is on the PATH or `RANKCHECK_BROWSER_TEST=1` (CI installs
/// chromium and sets it), and then a missing browser fails it.
/// `RANKCHECK_PLOT_OUT=DIR` keeps the figures and screenshots in DIR, to
/// look at them.
#[test]
#[ignore = "needs Chromium: ./test.sh runs it when chromium is on the PATH or RANKCHECK_BROWSER_TEST=1"]
fn figures_render_in_a_browser() {
    let browser = chromium().expect("no chromium on PATH: `apt-get install chromium`");
    let keep = std::env::var_os("RANKCHECK_PLOT_OUT").map(PathBuf::from);
    let dir = keep.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("rankcheck-plot-browser-{}", std::process::id()))
    });
    std::fs::create_dir_all(&dir).unwrap();
    let mut files = Vec::new();
    for (name, svg) in all_figures() {
        let path = dir.join(format!("{name}.svg"));
        std::fs::write(&path, &svg).unwrap();
        files.push((name.to_string(), path));
    }
    let page = Page {
        title: "report".into(),
        paragraphs: vec![],
        sections: vec![Section {
            heading: "figures".into(),
            paragraphs: vec![],
            tables: vec![],
            figures: vec![Figure {
                title: "bound".into(),
                svg: bound_svg(&bound_figure()).unwrap(),
            }],
        }],
    };
    let path = dir.join("page.html");
    std::fs::write(&path, page_html(&page).unwrap()).unwrap();
    files.push(("page".into(), path));
    for (name, file) in &files {
        let png = dir.join(format!("{name}.png"));
        screenshot(&browser, file, &png, &dir.join("profile"));
        let share = ink(&png);
        assert!(
            share > 0.01,
            "{name}: only {:.3}% of the screenshot is drawn",
            share * 100.0
        );
    }
    if keep.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Every figure, as the tests above draw it, keeps its text on the canvas.
#[test]
fn every_figure_keeps_its_text_inside() {
    for (name, svg) in all_figures() {
        geometry::assert_text_inside(&svg, name);
    }
}

/// The guarantee figure measures its text: a legend of long names (the
/// variable sets of a program with long variable names), bounds down to
/// 1/10^17 and an axis out to 10^12 executions stay inside the canvas, in
/// one panel and in two side by side.
#[test]
fn the_bound_figure_makes_room_for_long_names_and_wide_axes() {
    let curve = |label: String, kind, bound: f64, runs| BoundCurve {
        label,
        kind,
        bound: p(bound),
        runs: Some(runs),
    };
    let long = "a_rather_long_variable_name_from_a_real_program";
    for (runs, bound) in [(100_000_000, 1.0 / 3.0), (400_000_000_000, 1e-17)] {
        let panel = |title: &str| BoundPanel {
            title: title.into(),
            curves: vec![
                curve("pctvb".into(), CurveKind::Pctvb, bound, runs),
                curve("pct".into(), CurveKind::Pct, bound / 2.0, runs),
                curve(format!("pctvb over {long}"), CurveKind::Set(0), bound, runs),
                curve(
                    format!("pctvb over {long} and {long}"),
                    CurveKind::Set(1),
                    bound,
                    runs,
                ),
            ],
        };
        for panels in 1..=3 {
            let figure = BoundFigure {
                program: format!("examples/{long}/{long}.rk"),
                target: 0.99,
                panels: (0..panels)
                    .map(|i| panel(&format!("depth {i} over 2 variables ({long}, {long})")))
                    .collect(),
            };
            let svg = bound_svg(&figure).unwrap();
            geometry::assert_text_inside(&svg, &format!("{panels} panels, {runs} runs"));
        }
    }
}

/// The hit-rate figure of a long-named program and setting, its
/// searches run to 100M executions, keeps its title, notes and last tick
/// label on the canvas.
#[test]
fn the_hits_figure_makes_room_for_long_names_and_wide_axes() {
    let mut figure = hits_figure();
    figure.program = format!("examples/{}.rk", "a_long_program_name_".repeat(6));
    figure.setting = format!(
        "pctvb, depth 2 over 1 variable ({})",
        "long_name ".repeat(8)
    );
    let bound = figure.bound;
    figure.checkpoints = hits::checkpoint_runs(100_000_000)
        .into_iter()
        .map(|n| Checkpoint::new(n, (n / 3).min(40), 40, 0.95, bound).unwrap())
        .collect();
    let svg = hits_svg(&figure).unwrap();
    let (_, boxes) = geometry::text_boxes(&svg);
    assert!(
        boxes.iter().any(|b| b.text == "100M"),
        "the axis reaches 100M"
    );
    geometry::assert_text_inside(&svg, "hits");
}

/// The nightly history with long setting names and runs in the trillions
/// keeps its legend and labels on the canvas.
#[test]
fn the_history_makes_room_for_long_settings() {
    let mut history = history();
    for series in &mut history.series {
        series.setting = format!(
            "{} track=a_long_variable,another_long_variable",
            series.setting
        );
        for night in &mut series.nights {
            night.runs *= 10_000_000;
        }
    }
    let svg = history_svg(&history).unwrap();
    geometry::assert_text_inside(&svg, "history");
}

/// The stroke colour of each series' mark.
fn mark_colors(svg: &str) -> Vec<(String, String)> {
    let doc = roxmltree::Document::parse(svg).unwrap();
    doc.descendants()
        .filter(|n| n.attribute("class") == Some("point"))
        .map(|n| {
            let color = n
                .attribute("fill")
                .or(n.attribute("stroke"))
                .unwrap_or_default()
                .to_string();
            (n.attribute("data-series").unwrap().to_string(), color)
        })
        .collect()
}

/// The hex form of a palette colour, as the SVG writes it.
fn hex(color: plotters::style::RGBColor) -> String {
    format!("#{:02X}{:02X}{:02X}", color.0, color.1, color.2)
}

/// A history of one setting per strategy draws each in its strategy's
/// colour from the shared palette: `urw` and `ksurw` no longer share one.
#[test]
fn the_history_draws_each_strategy_in_its_colour() {
    let mut history = history();
    history.series = style::STRATEGY_COLORS
        .iter()
        .enumerate()
        .map(|(i, (strategy, _))| NightSeries {
            setting: strategy.to_string(),
            strategy: strategy.to_string(),
            nights: (1u32..=3)
                .map(|d| NightPoint {
                    night: format!("2025-03-{d:02}"),
                    index: u64::from(d),
                    // Lines apart, so that none is drawn as another's.
                    runs: 1000 * u64::from(d) + i as u64,
                    confidence: None,
                    failures: 0,
                })
                .collect(),
        })
        .collect();
    let svg = history_svg(&history).unwrap();
    let colors = mark_colors(&svg);
    for (strategy, color) in style::STRATEGY_COLORS {
        let drawn: Vec<&String> = colors
            .iter()
            .filter(|(s, _)| s == strategy)
            .map(|(_, c)| c)
            .collect();
        assert!(!drawn.is_empty(), "{strategy} has marks");
        for c in drawn {
            assert!(
                c.eq_ignore_ascii_case(&hex(color)),
                "{strategy}: {c} is not {}",
                hex(color)
            );
        }
    }
}
