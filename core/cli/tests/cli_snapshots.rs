//! End-to-end tests of `analyze`, `report`, `predict` and `diff`: the built binary is run with
//! `NO_COLOR=1` on the project's synthetic sample (`traces/synthetic/`) and, when present, on the
//! real exports in `../shared/traces/`. Human and machine outputs are pinned with insta snapshots
//! (paths filtered); numbers are checked against references that do not come from warpsight
//! (Nsight Compute's own Theoretical Occupancy in the exports, hand-computed in the sample). The
//! HTML review is opened in headless Chromium at 1280 px: its embedded layout check must report no
//! horizontal scroll and no overlapping chart labels, and a screenshot is decoded to check that the
//! roofline chart is drawn (skipped with a message when Chromium is not installed, an error when
//! `WARPSIGHT_REQUIRE_CHROMIUM=1`).

use std::path::{Path, PathBuf};
use std::process::Command;

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// The repository root (the binary is run from there so that paths in outputs are relative).
fn root() -> PathBuf {
    warpsight_test_support::paths::workspace_root()
}

/// The synthetic sample, relative to the repository root.
const SAMPLE: &str = "traces/synthetic/h100_classic_kernels.ncu-details.csv";

/// The real exports shared beside the project.
fn shared_traces() -> Option<PathBuf> {
    warpsight_test_support::paths::shared_traces()
}

/// What one run of the binary printed.
struct Run {
    stdout: String,
    stderr: String,
    success: bool,
}

/// Runs `warpsight --plugin-dir <workspace plugins> ARGS...` from the repository root.
fn warpsight(args: &[&str]) -> Result<Run, Box<dyn std::error::Error>> {
    let plugins = warpsight_test_support::plugins::binary_plugin_dir()?;
    let output = Command::new(env!("CARGO_BIN_EXE_warpsight"))
        .current_dir(root())
        .env("NO_COLOR", "1")
        .env_remove("WARPSIGHT_PLUGIN_PATH")
        .env_remove("RUST_LOG")
        .arg("--plugin-dir")
        .arg(&plugins)
        .args(args)
        .output()?;
    Ok(Run {
        stdout: String::from_utf8(output.stdout)?,
        stderr: String::from_utf8(output.stderr)?,
        success: output.status.success(),
    })
}

/// Runs and requires success, returning stdout.
fn ok(args: &[&str]) -> Result<String, Box<dyn std::error::Error>> {
    let run = warpsight(args)?;
    if !run.success {
        return Err(format!("warpsight {args:?} failed:\n{}", run.stderr).into());
    }
    Ok(run.stdout)
}

/// Snapshot settings: temporary directories and absolute paths replaced.
fn settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r"/tmp/[^\s`'\x22]+", "[TMP]");
    settings.add_filter(r"(/[\w.-]+)+/shared/traces/", "[SHARED]/");
    settings.set_prepend_module_to_snapshot(false);
    settings
}

#[test]
fn analyze_per_kernel_table() -> TestResult {
    let out = ok(&["analyze", SAMPLE])?;
    // Not a terminal: one line per row at full width, never wrapped (six kernels, a header and
    // four border lines), so the configuration cells stay whole.
    let table: Vec<&str> = out.lines().take_while(|l| !l.is_empty()).collect();
    assert_eq!(table.len(), 6 + 4, "{out}");
    assert!(out.contains("(128,128) × (16,16) · 64 reg · 9.00 KiB"));
    assert!(!out.contains('\x1b'), "no colour under NO_COLOR");
    settings().bind(|| insta::assert_snapshot!("analyze_kernel_table", out));
    Ok(())
}

#[test]
fn analyze_table_fits_terminal_widths() -> TestResult {
    for width in [80usize, 120, 200] {
        let width_text = width.to_string();
        let out = ok(&["analyze", SAMPLE, "--width", &width_text])?;
        let table: Vec<&str> = out.lines().take_while(|l| !l.is_empty()).collect();
        assert_eq!(table.len(), 6 + 4, "rows never wrap at {width}:\n{out}");
        assert!(
            table.iter().all(|l| l.chars().count() <= width),
            "wider than {width}:\n{out}"
        );
        // The kernel name and its time are never dropped.
        assert!(table[1].contains("Kernel") && table[1].contains("Total"));
        settings().bind(|| insta::assert_snapshot!(format!("analyze_kernel_table_w{width}"), out));
    }
    Ok(())
}

#[test]
fn analyze_columns_and_wide_choose_the_columns() -> TestResult {
    let out = ok(&[
        "analyze",
        SAMPLE,
        "--columns",
        "kernel,Share,bound",
        "--width",
        "60",
    ])?;
    let header = out.lines().nth(1).unwrap_or_default();
    assert!(header.contains("Kernel") && header.contains("Share") && header.contains("bound"));
    assert!(!header.contains("Total"), "{out}");
    let wide = ok(&["analyze", SAMPLE, "--wide", "--width", "80"])?;
    let header = wide.lines().nth(1).unwrap_or_default();
    for name in ["Mean", "AI DRAM", "Waves", "Findings"] {
        assert!(header.contains(name), "--wide lacks {name}: {header}");
    }
    let diff = ok(&["diff", SAMPLE, SAMPLE, "--columns", "kernel,status"])?;
    assert!(
        diff.lines()
            .nth(1)
            .is_some_and(|h| h.contains("Status") && !h.contains("Before"))
    );
    let predict = ok(&["predict", SAMPLE, "--on", "A100 SXM4 80GB", "--width", "80"])?;
    let table = predict.lines().take_while(|l| !l.is_empty());
    assert!(table.clone().all(|l| l.chars().count() <= 80), "{predict}");
    let run = warpsight(&["analyze", SAMPLE, "--columns", "nope"])?;
    assert!(!run.success && run.stderr.contains("no column `nope`"));
    Ok(())
}

#[test]
fn analyze_findings_are_grouped_ranked_and_limited() -> TestResult {
    let out = ok(&["analyze", SAMPLE, "--per", "launch", "--findings", "all"])?;
    let findings = out.split("Findings").nth(1).ok_or("no findings")?;
    // ncu's rule on the three launches of sgemm, and of flash, is said once per kernel, with the
    // count, first sentence only.
    assert_eq!(
        findings
            .matches("ncu:TheoreticalOccupancy` [ncu] (3 launches")
            .count(),
        2,
        "{out}"
    );
    assert!(!findings.contains("Synthetic rule text"), "{out}");
    // The first finding saves the most: 50 % of sgemm's 85.7 % share.
    let first = findings
        .lines()
        .find(|l| l.trim_start().starts_with("- "))
        .unwrap_or_default();
    assert!(
        first.contains("sgemm") || first.contains("saves ≈ 42.8 %"),
        "{out}"
    );
    // No occupancy or latency advice for the FMA-bound sgemm nor the L2-bound flash kernel.
    for rule in [
        "register-limit",
        "shared-memory-limit",
        "block-size",
        "latency-bound",
    ] {
        assert!(!findings.contains(&format!("`{rule}`")), "{rule} in\n{out}");
    }
    let one = ok(&["analyze", SAMPLE, "--findings", "1"])?;
    assert!(one.contains("(1 of "), "{one}");
    assert_eq!(
        one.lines().filter(|l| l.starts_with("  - ")).count(),
        1,
        "{one}"
    );
    let none = ok(&["analyze", SAMPLE, "--findings", "none"])?;
    assert!(!none.contains("Findings"), "{none}");
    Ok(())
}

#[test]
fn completions_and_help_examples() -> TestResult {
    let bash = ok(&["completions", "bash"])?;
    assert!(
        bash.contains("_warpsight") && bash.contains("analyze"),
        "{bash}"
    );
    let help = ok(&["analyze", "--help"])?;
    let examples = help
        .split("Examples:")
        .nth(1)
        .ok_or("no Examples section")?;
    assert!(examples.contains("warpsight analyze traces/synthetic/"));
    Ok(())
}

#[test]
fn analyze_per_kernel_markdown() -> TestResult {
    let out = ok(&["analyze", SAMPLE, "--format", "md"])?;
    assert!(out.starts_with("| Kernel |"));
    settings().bind(|| insta::assert_snapshot!("analyze_kernel_md", out));
    Ok(())
}

#[test]
fn analyze_per_kernel_csv() -> TestResult {
    let out = ok(&["analyze", SAMPLE, "--format", "csv"])?;
    let header = out.lines().next().unwrap_or_default();
    for column in [
        "file",
        "launch_id",
        "kernel",
        "theoretical_occupancy",
        "ncu_theoretical_occupancy",
        "limiter",
        "bound",
        "duration_ns",
        "predicted_ns",
    ] {
        assert!(
            header.split(',').any(|c| c == column),
            "missing column {column} in {header}"
        );
    }
    // Six kernels in the sample (README: vectorAdd, sgemm_tiled, reduce_sum, transpose_tiled,
    // flash_fwd_kernel, daxpy) plus the header.
    assert_eq!(out.lines().count(), 7);
    settings().bind(|| insta::assert_snapshot!("analyze_kernel_csv", out));
    Ok(())
}

#[test]
fn analyze_per_launch_json_matches_ncu_theoretical_occupancy() -> TestResult {
    let out = ok(&["analyze", SAMPLE, "--per", "launch", "--format", "json"])?;
    let rows: Vec<serde_json::Value> = serde_json::from_str(&out)?;
    // The sample has 16 launches (traces/synthetic/README.md).
    assert_eq!(rows.len(), 16);
    for row in &rows {
        // ncu's Theoretical Occupancy in the export was computed by hand (README); the model's
        // must agree on every launch, in 0–1 units.
        let ours = row["theoretical_occupancy"]
            .as_f64()
            .ok_or("no theoretical_occupancy")?;
        let ncu = row["ncu_theoretical_occupancy"]
            .as_f64()
            .ok_or("no ncu_theoretical_occupancy")?;
        assert!(
            (ours - ncu).abs() < 0.005,
            "launch {}: {ours} vs ncu {ncu}",
            row["launch_id"]
        );
        assert!((0.0..=1.0).contains(&ours));
        assert!(
            row["duration_ns"].as_f64().is_some_and(|d| d > 1000.0),
            "durations are in ns"
        );
    }
    settings().bind(|| insta::assert_snapshot!("analyze_launch_json", out));
    Ok(())
}

#[test]
fn analyze_per_launch_table_sorted_and_truncated() -> TestResult {
    let out = ok(&[
        "analyze",
        SAMPLE,
        "--per",
        "launch",
        "--sort",
        "duration_ns",
        "--top",
        "4",
    ])?;
    settings().bind(|| insta::assert_snapshot!("analyze_launch_table_top4", out));
    Ok(())
}

#[test]
fn analyze_writes_parquet_with_raw_base_units() -> TestResult {
    use polars::prelude::*;
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("kernels.parquet");
    let path_text = path.display().to_string();
    ok(&["analyze", SAMPLE, "-o", &path_text])?;
    let frame = ParquetReader::new(std::fs::File::open(&path)?).finish()?;
    assert_eq!(frame.height(), 6);
    let names: Vec<String> = frame
        .get_column_names()
        .iter()
        .map(|n| n.to_string())
        .collect();
    settings().bind(|| insta::assert_snapshot!("analyze_parquet_columns", names.join("\n")));
    // Shares are 0–1 and sum to 1 over all kernels.
    let share: f64 = frame.column("time_share")?.f64()?.iter().flatten().sum();
    assert!((share - 1.0).abs() < 1e-9);
    Ok(())
}

#[test]
fn analyze_filter_and_bad_sort() -> TestResult {
    let out = ok(&[
        "analyze",
        SAMPLE,
        "--filter",
        "^void sgemm",
        "--format",
        "csv",
    ])?;
    assert_eq!(out.lines().count(), 2, "{out}");
    assert!(out.contains("sgemm_tiled"));
    let run = warpsight(&["analyze", SAMPLE, "--sort", "nope"])?;
    assert!(!run.success);
    settings().bind(|| insta::assert_snapshot!("analyze_bad_sort_stderr", run.stderr));
    Ok(())
}

#[test]
fn report_is_self_contained_html_with_charts() -> TestResult {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("review.html");
    let path_text = path.display().to_string();
    ok(&["report", SAMPLE, "-o", &path_text])?;
    let html = std::fs::read_to_string(&path)?;
    assert!(html.starts_with("<!DOCTYPE html>"));
    // One inline script (the table sort), nothing loaded from anywhere.
    assert_eq!(html.matches("<script").count(), 1, "only the sort script");
    assert!(!html.contains("<script src"), "no external scripts");
    assert!(!html.contains("<link"), "no external stylesheets");
    assert!(
        !html.contains("https://") && !html.contains("src=\"http"),
        "no network references"
    );
    assert!(
        !html.contains("id=\"layout-check\""),
        "the layout check only when asked"
    );
    // The summary comes first, then the table, the roofline, the prediction chart, the sections.
    let order = [
        "<h2 id=\"summary\">",
        "<h2 id=\"kernels\">",
        "<h2 id=\"roofline\">",
        "<h2 id=\"prediction\">",
        "<h2 id=\"per-kernel\">",
    ];
    let positions: Vec<usize> = order
        .iter()
        .map(|h| html.find(h).ok_or(format!("no {h}")))
        .collect::<Result<_, _>>()?;
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{positions:?}");
    let svgs: Vec<&str> = html.split("<svg ").skip(1).collect();
    let roofline = svgs
        .iter()
        .find(|s| s.contains("Roofline — NVIDIA H100"))
        .ok_or("no roofline")?;
    // Five kernels on the roofline (transpose_tiled only moves data: zero FLOP has no place on a
    // log axis), each a numbered marker; the names are in the legend table, not on the chart.
    assert_eq!(roofline.matches("<circle").count(), 5);
    assert_eq!(roofline.matches("<text class=\"marker\"").count(), 5);
    for ceiling in [
        "DRAM 3.35 TB/s",
        "L2 6.60 TB/s",
        "L1/shared 33.5 TB/s",
        "FP64 33.5 TFLOP/s",
    ] {
        assert!(
            roofline.contains(&format!(">{ceiling}<")),
            "{ceiling} missing"
        );
    }
    // All six sample kernels have a prediction; the three top kernels get three sweeps each.
    let scatter = svgs
        .iter()
        .find(|s| s.contains("aria-label=\"Predicted vs measured"))
        .ok_or("no prediction chart")?;
    assert_eq!(scatter.matches("<circle").count(), 6);
    assert_eq!(html.matches("theoretical occupancy</text>").count(), 9);
    assert_eq!(html.matches("<h3 id=\"k").count(), 6);
    let table = html
        .split("<h2 id=\"kernels\">Kernels</h2>")
        .nth(1)
        .and_then(|rest| rest.split("</table>").next())
        .ok_or("no summary table")?;
    settings().bind(|| insta::assert_snapshot!("report_summary_table", table));
    Ok(())
}

/// The headless browser on PATH. Without one the Chromium tests skip, unless
/// `WARPSIGHT_REQUIRE_CHROMIUM=1` (CI, which installs it) makes that an error.
fn chromium() -> Result<Option<&'static str>, Box<dyn std::error::Error>> {
    let found = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|name| {
            Command::new(name)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        });
    if found.is_none() {
        if std::env::var("WARPSIGHT_REQUIRE_CHROMIUM").as_deref() == Ok("1") {
            return Err("WARPSIGHT_REQUIRE_CHROMIUM=1 but no chromium on PATH".into());
        }
        println!("skipping: no chromium on PATH (install it with `apt-get install -y chromium`)");
    }
    Ok(found)
}

/// Runs headless Chromium on `html` with a fresh profile in `profile` and `args`, returning stdout.
fn run_chromium(
    chromium: &str,
    profile: &Path,
    html: &Path,
    args: &[String],
) -> Result<String, Box<dyn std::error::Error>> {
    let output = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(format!("file://{}", html.display()))
        .output()?;
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// Where the review test leaves its pages and screenshots: `<target>/html-review/`.
fn review_artifacts() -> Result<PathBuf, Box<dyn std::error::Error>> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"));
    let dir = target.join("html-review");
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

#[test]
fn report_fits_1280_px_without_overlapping_labels_in_chromium() -> TestResult {
    let Some(chromium) = chromium()? else {
        return Ok(());
    };
    // A one-kernel capture of the repository, and when ../shared is there the largest real
    // exports: 27 kernels of an LLM decode step with long templated CUTLASS/FlashAttention names,
    // counters and predictions (H200), and an nsys summary of 113 kernels.
    let mut inputs: Vec<(&str, String)> = vec![(
        "one-kernel",
        "traces/h100-80gb-hbm3/reduction.ncu-raw.csv".to_string(),
    )];
    if let Some(shared) = shared_traces() {
        for (name, file) in [
            (
                "decode-27-kernels",
                "moeresearch__R_short_decode_ncu_raw_full.csv",
            ),
            (
                "nsys-113-kernels",
                "llm-perf-opt__all-stage_summary_cuda_gpu_kern_sum.csv",
            ),
        ] {
            inputs.push((name, shared.join(file).display().to_string()));
        }
    }
    let artifacts = review_artifacts()?;
    let profiles = tempfile::tempdir()?;
    for (name, input) in &inputs {
        let html = artifacts.join(format!("{name}.html"));
        ok(&[
            "report",
            input,
            "--layout-check",
            "-o",
            &html.display().to_string(),
        ])?;
        let dom = run_chromium(
            chromium,
            &profiles.path().join(format!("{name}-dom")),
            &html,
            &["--dump-dom".into(), "--window-size=1280,900".into()],
        )?;
        let verdict = dom
            .split("<pre id=\"layout-check\">")
            .nth(1)
            .and_then(|rest| rest.split("</pre>").next())
            .ok_or_else(|| format!("{name}: no layout verdict in the DOM chromium dumped"))?;
        println!("{name}: {verdict}");
        assert!(
            verdict.starts_with("ok\n"),
            "{name} ({input}) fails the layout check at 1280 px:\n{verdict}"
        );
        // The verdict measured real charts: the page always has the bar chart.
        assert!(verdict.contains("window 12"), "{verdict}");
        let png = artifacts.join(format!("{name}.png"));
        let _ = std::fs::remove_file(&png);
        run_chromium(
            chromium,
            &profiles.path().join(format!("{name}-shot")),
            &html,
            &[
                format!("--screenshot={}", png.display()),
                "--window-size=1280,2400".into(),
            ],
        )?;
        assert!(png.is_file(), "{name}: chromium wrote no screenshot");
        println!("{name}: screenshot {}", png.display());
    }
    Ok(())
}

#[test]
fn the_layout_check_reports_overlaps_and_horizontal_scroll_in_chromium() -> TestResult {
    // The check itself must be able to fail: a page with two labels on top of each other in a
    // chart, a label outside its chart, and a block wider than the window.
    let Some(chromium) = chromium()? else {
        return Ok(());
    };
    let dir = tempfile::tempdir()?;
    let html = dir.path().join("broken.html");
    std::fs::write(
        &html,
        format!(
            "<!DOCTYPE html><html><body>\
             <svg width=\"300\" height=\"60\" aria-label=\"broken chart\" font-size=\"12\">\
             <text x=\"10\" y=\"20\">first label</text><text x=\"14\" y=\"22\">second label</text>\
             <text x=\"280\" y=\"50\">cut off here</text></svg>\
             <div style=\"width:1600px\">wide</div>\
             <pre id=\"{}\">pending</pre><script>{}</script></body></html>",
            warpsight_report::render::layout_check::RESULT_ID,
            warpsight_report::render::layout_check::SCRIPT
        ),
    )?;
    let dom = run_chromium(
        chromium,
        &dir.path().join("profile"),
        &html,
        &["--dump-dom".into(), "--window-size=1280,900".into()],
    )?;
    let verdict = dom
        .split("<pre id=\"layout-check\">")
        .nth(1)
        .and_then(|rest| rest.split("</pre>").next())
        .ok_or("no layout verdict in the DOM")?;
    assert!(verdict.starts_with("FAIL\n"), "{verdict}");
    assert!(verdict.contains("horizontal scroll"), "{verdict}");
    assert!(
        verdict.contains("broken chart: \"first label\" overlaps \"second label\""),
        "{verdict}"
    );
    assert!(
        verdict.contains("\"cut off here\" sticks out of the chart"),
        "{verdict}"
    );
    Ok(())
}

#[test]
fn report_screenshot_shows_the_roofline_chart() -> TestResult {
    let Some(chromium) = chromium()? else {
        return Ok(());
    };
    let dir = tempfile::tempdir()?;
    let html = dir.path().join("review.html");
    let png = dir.path().join("review.png");
    // No sweep charts: the first plot area (fill #fbfbfb) down the page is then the roofline's.
    ok(&[
        "report",
        SAMPLE,
        "--top",
        "0",
        "-o",
        &html.display().to_string(),
    ])?;
    run_chromium(
        chromium,
        &dir.path().join("profile"),
        &html,
        &[
            "--hide-scrollbars".into(),
            format!("--screenshot={}", png.display()),
            "--window-size=1400,2400".into(),
        ],
    )?;
    assert!(png.is_file(), "chromium wrote no screenshot");
    let image = decode_rgb(&png)?;
    let plot = image
        .first_band_box(|p| p == [251, 251, 251])
        .ok_or("no chart plot area in the screenshot")?;
    let (width, height) = (plot.2 - plot.0, plot.3 - plot.1);
    // The plot area is 590 × 405 CSS pixels in the SVG.
    assert!(
        width > 500 && height > 350,
        "plot area {width}×{height} too small"
    );
    let mut drawn = 0usize;
    let mut colours = std::collections::HashSet::new();
    let mut dram_line = 0usize;
    for y in plot.1..plot.3 {
        for x in plot.0..plot.2 {
            let p = image.pixel(x, y);
            if p != [251, 251, 251] {
                drawn += 1;
                colours.insert(p);
            }
            // The DRAM ceiling's stroke, #1f77b4.
            if p.iter()
                .zip([31u8, 119, 180])
                .all(|(a, b)| a.abs_diff(b) <= 12)
            {
                dram_line += 1;
            }
        }
    }
    let fraction = drawn as f64 / (width * height) as f64;
    assert!(
        fraction > 0.03,
        "only {:.1} % of the plot area is drawn",
        fraction * 100.0
    );
    assert!(
        colours.len() > 20,
        "only {} colours in the plot area",
        colours.len()
    );
    assert!(
        dram_line > 100,
        "the DRAM ceiling is not visible ({dram_line} pixels)"
    );
    Ok(())
}

/// An RGB image.
struct Rgb {
    width: usize,
    height: usize,
    data: Vec<u8>,
}

impl Rgb {
    fn pixel(&self, x: usize, y: usize) -> [u8; 3] {
        let i = (y * self.width + x) * 3;
        [self.data[i], self.data[i + 1], self.data[i + 2]]
    }

    /// (x0, y0, x1, y1) of the pixels matching `test` in the first band of rows that have any
    /// (the topmost chart when charts are stacked with gaps between them); rows with fewer than
    /// 100 matches count as without, and a band ends after 8 such rows, so grid lines across a plot
    /// area do not end it.
    fn first_band_box(
        &self,
        test: impl Fn([u8; 3]) -> bool,
    ) -> Option<(usize, usize, usize, usize)> {
        let mut bbox: Option<(usize, usize, usize, usize)> = None;
        let mut empty_rows = 0;
        for y in 0..self.height {
            let mut row: Vec<usize> = (0..self.width)
                .filter(|&x| test(self.pixel(x, y)))
                .collect();
            // A stray anti-aliased pixel of the colour is no plot area.
            if row.len() < 100 {
                row.clear();
            }
            match (row.first(), row.last(), bbox) {
                (Some(&first), Some(&last), None) => bbox = Some((first, y, last + 1, y + 1)),
                (Some(&first), Some(&last), Some((x0, y0, x1, _))) => {
                    empty_rows = 0;
                    bbox = Some((x0.min(first), y0, x1.max(last + 1), y + 1));
                }
                (None, _, Some(_)) => {
                    empty_rows += 1;
                    if empty_rows > 8 {
                        break;
                    }
                }
                _ => {}
            }
        }
        bbox
    }
}

/// Decodes a PNG into 8-bit RGB.
fn decode_rgb(path: &Path) -> Result<Rgb, Box<dyn std::error::Error>> {
    let mut decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path)?));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info()?;
    let mut buffer = vec![0; reader.output_buffer_size().ok_or("image too large")?];
    let info = reader.next_frame(&mut buffer)?;
    let channels = info.color_type.samples();
    let (width, height) = (info.width as usize, info.height as usize);
    let mut data = Vec::with_capacity(width * height * 3);
    for pixel in buffer[..info.buffer_size()].chunks(channels) {
        match channels {
            1 | 2 => data.extend([pixel[0]; 3]),
            _ => data.extend(&pixel[..3]),
        }
    }
    Ok(Rgb {
        width,
        height,
        data,
    })
}

#[test]
fn predict_sample_on_another_device() -> TestResult {
    let out = ok(&["predict", SAMPLE, "--on", "A100 SXM4 80GB"])?;
    assert!(out.contains("assumptions:"));
    settings().bind(|| insta::assert_snapshot!("predict_sample_on_a100", out));
    Ok(())
}

#[test]
fn predict_real_a100_export_on_h100() -> TestResult {
    let Some(shared) = shared_traces() else {
        return Ok(());
    };
    let input = shared
        .join("opparam__bert_torch_nsight.csv")
        .display()
        .to_string();
    // MANIFEST.md #6: 26 launches on an A100 whose name the export does not carry.
    let run = warpsight(&[
        "predict",
        &input,
        "--from",
        "A100 SXM4 40GB",
        "--on",
        "H100 SXM5 80GB",
        "--format",
        "json",
    ])?;
    assert!(run.success, "{}", run.stderr);
    let rows: Vec<serde_json::Value> = serde_json::from_str(&run.stdout)?;
    let launches: i64 = rows.iter().filter_map(|r| r["launches"].as_i64()).sum();
    assert_eq!(launches, 26);
    assert!(
        rows.iter()
            .all(|r| r["target_device"] == "NVIDIA H100 80GB HBM3" || r["target_device"].is_null())
    );
    // H100 SXM5 has more SMs, bandwidth and peak FLOP/s than the A100 40GB (DEVICES.csv): no kernel
    // is predicted slower; tiny kernels stay near the launch overhead (speedup about 1), and the
    // 128×128 SGEMM tiles (FP32 pipe: 108 SMs × 2 warp-inst/clk × 1.41 GHz → 132 × 4 × 1.98 GHz)
    // get clearly faster, though their few-µs launches keep part of the fixed overhead.
    let speedups: Vec<f64> = rows.iter().filter_map(|r| r["speedup"].as_f64()).collect();
    assert!(!speedups.is_empty());
    assert!(speedups.iter().all(|s| *s >= 0.999), "{speedups:?}");
    let sgemm = rows
        .iter()
        .filter(|r| r["kernel"].as_str().is_some_and(|k| k.contains("sgemm")))
        .filter_map(|r| r["speedup"].as_f64());
    assert!(sgemm.clone().count() >= 2 && sgemm.clone().all(|s| s > 1.05));
    let big_tiles = rows
        .iter()
        .filter(|r| {
            r["kernel"]
                .as_str()
                .is_some_and(|k| k.contains("sgemm_128x128"))
        })
        .filter_map(|r| r["speedup"].as_f64());
    assert!(big_tiles.clone().count() == 2 && big_tiles.clone().all(|s| s > 1.3));
    assert!(run.stderr.contains("assumptions:"));
    Ok(())
}

/// The H100's cuBLAS wgmma GEMMs (213–231 KiB of dynamic shared memory per block, wgmma, TMA,
/// clusters of 2 blocks) cannot run on an A100: no predicted time and no speedup, a mark in the
/// table, the launches counted with their share of the time and their causes, and the target's
/// SM clock stated.
#[test]
fn predict_wgmma_gemms_on_an_a100_says_they_cannot_run() -> TestResult {
    let input = "traces/h100-80gb-hbm3-wgmma/cublas_gemm.ncu-raw.csv";
    let out = ok(&["predict", input, "--on", "NVIDIA A100-SXM4-40GB"])?;
    assert!(
        out.contains(
            "9 launches (100.0 % of the time) cannot run on NVIDIA A100-SXM4-40GB: shared memory \
             per block (9), wgmma (9), TMA (9), thread-block clusters (9); see the \
             `not_launchable` column"
        ),
        "{out}"
    );
    assert!(out.contains("total on NVIDIA A100-SXM4-40GB: no kernel has a predicted time"));
    assert!(out.contains("target modelled at its boost clock 1.41 GHz (--sm-clock changes it)"));
    let table: Vec<&str> = out.lines().take_while(|l| !l.is_empty()).collect();
    // Seven kernels, a header and four border lines; no row has a speedup.
    assert_eq!(table.len(), 7 + 4, "{out}");
    for row in &table[3..10] {
        assert!(
            row.contains("cannot run: shared memory per block, wgmma, TMA, thread-block clusters"),
            "{row}"
        );
        assert!(!row.contains('×'), "{row}");
    }
    // The snapshot leaves out the source device's predictions (they follow the time model).
    let pinned = ok(&[
        "predict",
        input,
        "--on",
        "NVIDIA A100-SXM4-40GB",
        "--columns",
        "kernel,launches,measured_total_ns,target_predicted_total_ns,speedup,on_target,target_limiter",
    ])?;
    settings().bind(|| insta::assert_snapshot!("predict_wgmma_gemms_on_a100", pinned));

    // A base clock is stated as such.
    let base = ok(&[
        "predict",
        input,
        "--on",
        "NVIDIA A100-SXM4-40GB",
        "--sm-clock",
        "base",
    ])?;
    assert!(base.contains("target modelled at its base clock"), "{base}");
    Ok(())
}

/// Beside them, the capture kit's plain kernels stay launchable and predicted on the A100; in JSON,
/// every kernel that cannot run has a null speedup, the mark and the model's reason.
#[test]
fn predict_keeps_the_kit_kernels_beside_the_unlaunchable_gemms() -> TestResult {
    let run = warpsight(&[
        "predict",
        "traces/h100-80gb-hbm3/sgemm.ncu-raw.csv",
        "traces/h100-80gb-hbm3/smem_limited.ncu-raw.csv",
        "traces/h100-80gb-hbm3-wgmma/cublas_gemm.ncu-raw.csv",
        "--on",
        "NVIDIA A100-SXM4-40GB",
        "--format",
        "json",
    ])?;
    assert!(run.success, "{}", run.stderr);
    let rows: Vec<serde_json::Value> = serde_json::from_str(&run.stdout)?;
    let (cannot, can): (Vec<_>, Vec<_>) = rows
        .iter()
        .partition(|r| r["not_launchable_launches"].as_i64().unwrap_or(0) > 0);
    assert_eq!(cannot.len(), 7, "{rows:?}");
    for row in &cannot {
        assert!(row["speedup"].is_null(), "{row}");
        assert!(row["target_predicted_total_ns"].is_null(), "{row}");
        let reason = row["not_launchable"].as_str().unwrap_or_default();
        assert!(
            reason.starts_with("not launchable on NVIDIA A100-SXM4-40GB: needs "),
            "{row}"
        );
        assert!(
            reason.contains("the device allows 163 KiB; uses wgmma"),
            "{row}"
        );
        assert!(
            row["on_target"]
                .as_str()
                .is_some_and(|m| m.starts_with("cannot run: ")),
            "{row}"
        );
    }
    assert_eq!(can.len(), 3, "{rows:?}");
    for row in &can {
        assert!(row["speedup"].as_f64().is_some_and(|s| s > 0.0), "{row}");
        assert!(
            row["not_launchable"].is_null() && row["on_target"].is_null(),
            "{row}"
        );
    }
    assert!(
        run.stderr.contains("cannot run on NVIDIA A100-SXM4-40GB"),
        "{}",
        run.stderr
    );
    Ok(())
}

#[test]
fn diff_of_the_sample_with_itself_changes_nothing() -> TestResult {
    let out = ok(&["diff", SAMPLE, SAMPLE])?;
    assert!(out.contains("(+0.0 %)"));
    settings().bind(|| insta::assert_snapshot!("diff_sample_with_itself", out));
    Ok(())
}

#[test]
fn diff_of_two_real_exports_is_sorted_by_impact() -> TestResult {
    let Some(shared) = shared_traces() else {
        return Ok(());
    };
    let before = shared
        .join("xplacer__cfd_kernel-level-measurement_nsight_cfd_097K.log")
        .display()
        .to_string();
    let after = shared
        .join("xplacer__bfs_lassen-kernel-level-measurement_nsight_bfs_graph4096.log")
        .display()
        .to_string();
    let out = ok(&["diff", &before, &after, "--format", "json"])?;
    let rows: Vec<serde_json::Value> = serde_json::from_str(&out)?;
    // MANIFEST.md: #1 has 100 launches, #3 has 13, of different kernels (CFD vs BFS).
    let before_launches: i64 = rows
        .iter()
        .filter_map(|r| r["before_launches"].as_i64())
        .sum();
    let after_launches: i64 = rows
        .iter()
        .filter_map(|r| r["after_launches"].as_i64())
        .sum();
    assert_eq!((before_launches, after_launches), (100, 13));
    assert!(
        rows.iter()
            .all(|r| r["status"] == "removed" || r["status"] == "added")
    );
    let impacts: Vec<f64> = rows
        .iter()
        .filter_map(|r| r["delta_ns"].as_f64())
        .map(f64::abs)
        .collect();
    assert!(impacts.windows(2).all(|w| w[0] >= w[1]), "{impacts:?}");
    Ok(())
}

#[test]
fn kernel_summaries_give_per_kernel_rows_with_their_own_share() -> TestResult {
    let Some(shared) = shared_traces() else {
        return Ok(());
    };
    // MANIFEST.md #18: an nsys cuda_gpu_kern_sum export with 175 kernel names.
    let input = shared
        .join("moeresearch__AT_ON_CG_ON_cuda_gpu_kern_sum.csv")
        .display()
        .to_string();
    let rows: Vec<serde_json::Value> =
        serde_json::from_str(&ok(&["analyze", &input, "--format", "json"])?)?;
    assert_eq!(rows.len(), 175);
    // The shares are nsys's own `Time (%)` column / 100, printed with one decimal: they add up to
    // 100 % within the rounding of 175 values.
    let share: f64 = rows.iter().filter_map(|r| r["time_share"].as_f64()).sum();
    assert!((share - 1.0).abs() < 175.0 * 0.0005, "{share}");
    // No launch configuration exists in a summary: no occupancy is invented.
    assert!(rows.iter().all(|r| r["theoretical_occupancy"].is_null()));
    assert!(
        rows.windows(2)
            .all(|w| w[0]["total_ns"].as_f64() >= w[1]["total_ns"].as_f64())
    );
    Ok(())
}

#[test]
fn launches_without_a_device_are_counted_not_dropped() -> TestResult {
    let Some(shared) = shared_traces() else {
        return Ok(());
    };
    // MANIFEST.md #6: 26 launches, and the export names neither the device nor the CC.
    let input = shared
        .join("opparam__bert_torch_nsight.csv")
        .display()
        .to_string();
    let run = warpsight(&["analyze", &input, "--per", "launch", "--format", "csv"])?;
    assert!(run.success, "{}", run.stderr);
    assert_eq!(
        run.stdout.lines().count(),
        1 + 26,
        "every launch keeps its row"
    );
    assert!(
        run.stderr.contains("26 launches could not be modelled"),
        "{}",
        run.stderr
    );
    // With the device named, every launch is modelled and warpsight agrees with ncu's own
    // Theoretical Occupancy on each of them.
    let run = warpsight(&[
        "analyze",
        &input,
        "--per",
        "launch",
        "--format",
        "json",
        "--device",
        "A100 SXM4 40GB",
    ])?;
    assert!(
        !run.stderr.contains("could not be modelled"),
        "{}",
        run.stderr
    );
    let rows: Vec<serde_json::Value> = serde_json::from_str(&run.stdout)?;
    for row in &rows {
        let (Some(ours), Some(ncu)) = (
            row["theoretical_occupancy"].as_f64(),
            row["ncu_theoretical_occupancy"].as_f64(),
        ) else {
            return Err(format!("launch {} lacks an occupancy", row["launch_id"]).into());
        };
        assert!(
            (ours - ncu).abs() < 0.005,
            "launch {}: {ours} vs ncu {ncu}",
            row["launch_id"]
        );
    }
    Ok(())
}

#[test]
fn unknown_devices_and_empty_selections_are_clear_errors() -> TestResult {
    let run = warpsight(&["predict", SAMPLE, "--on", "Imaginary GPU 9000"])?;
    assert!(!run.success);
    assert!(
        run.stderr
            .starts_with("error: no loaded plugin provides the device `Imaginary GPU 9000`"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("hint: known devices:"),
        "{}",
        run.stderr
    );
    let run = warpsight(&["analyze", SAMPLE, "--filter", "no_such_kernel"])?;
    assert!(!run.success);
    settings().bind(|| insta::assert_snapshot!("analyze_empty_filter_stderr", run.stderr));
    Ok(())
}

#[test]
fn occupancy_sweep_prints_tables_and_writes_svg() -> TestResult {
    let dir = tempfile::tempdir()?;
    let svg = dir.path().join("sweep.svg");
    let svg_text = svg.display().to_string();
    // CUDA Programming Guide, "Multiprocessor Level": 512-thread blocks on CC 6.x hold 2 blocks
    // (50 %) up to 64 registers per thread and 1 block (25 %) from 65.
    let out = ok(&[
        "occupancy",
        "--cc",
        "6.1",
        "--block-size",
        "512",
        "--registers",
        "65",
        "--sweep",
        "--svg",
        &svg_text,
    ])?;
    let registers = out
        .split("occupancy vs registers per thread")
        .nth(1)
        .ok_or("no register sweep")?;
    let step = |value: &str| {
        registers
            .lines()
            .find(|l| l.split_whitespace().next() == Some(value))
            .map(str::to_string)
    };
    assert!(
        step("41").is_some_and(|l| l.contains("50.0 %")),
        "{registers}"
    );
    assert!(
        step("65").is_some_and(|l| l.contains("25.0 %") && l.contains("← current")),
        "{registers}"
    );
    let document = std::fs::read_to_string(&svg)?;
    assert!(document.matches("<polyline").count() >= 3);
    assert_eq!(
        document.matches("<svg").count(),
        4,
        "one document holding three charts"
    );
    Ok(())
}

/// An Nsight Compute report of the project (`traces/ncu-rep/`), relative to the repository root
/// the binary runs from.
fn ncu_rep(name: &str) -> String {
    format!("traces/ncu-rep/{name}")
}

#[test]
fn analyze_reads_an_ncu_rep_report_like_its_raw_page() -> TestResult {
    let (report, raw) = (
        ncu_rep("copy_basic.ncu-rep"),
        ncu_rep("copy_basic.ncu-raw.csv"),
    );
    let table = ok(&["analyze", &report])?;
    settings().bind(|| insta::assert_snapshot!("analyze_ncu_rep_copy_basic", table));

    let launches = |input: &str| -> Result<Vec<serde_json::Value>, Box<dyn std::error::Error>> {
        Ok(serde_json::from_str(&ok(&[
            "analyze", input, "--per", "launch", "--format", "json",
        ])?)?)
    };
    let (from_report, from_page) = (launches(&report)?, launches(&raw)?);
    assert_eq!(from_report.len(), 3);
    assert_eq!(from_page.len(), 3);
    for (a, b) in from_report.iter().zip(&from_page) {
        for key in [
            "launch_id",
            "registers_per_thread",
            "duration_ns",
            "grid_x",
            "block_x",
            "ncu_block_limit_registers",
        ] {
            assert_eq!(a[key], b[key], "{key}");
        }
        // The model's occupancy equals ncu's, as for every export.
        let ours = a["theoretical_occupancy"].as_f64().ok_or("occupancy")?;
        let ncu = a["ncu_theoretical_occupancy"]
            .as_f64()
            .ok_or("ncu occupancy")?;
        assert!((ours - ncu).abs() < 0.005, "{ours} vs {ncu}");
    }

    let inspect = ok(&["inspect", &report])?;
    assert!(
        inspect.contains("ncu-rep  report v7  ncu 2025.3.1.0  3 launches")
            && inspect.contains("NVIDIA H100 80GB HBM3 (cc 9.0)"),
        "{inspect}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&ok(&["inspect", &report, "--format", "json"])?)?;
    assert_eq!(json[0]["format"], "ncu-rep");
    assert_eq!(json[0]["report_version"], 7);
    assert_eq!(
        json[0]["ncu_version"],
        "2025.3.1.0 (build 36398880) (public-release)"
    );
    Ok(())
}

#[test]
fn unreadable_reports_name_the_file_and_offset() -> TestResult {
    let report = ncu_rep("copy_basic.ncu-rep");
    let dir = tempfile::tempdir()?;
    let cut = dir.path().join("cut.ncu-rep");
    let bytes = std::fs::read(root().join(&report))?;
    std::fs::write(&cut, &bytes[..bytes.len() / 2])?;
    let run = warpsight(&["analyze", &cut.display().to_string()])?;
    assert!(!run.success);
    assert!(
        run.stderr.contains("cut.ncu-rep")
            && run
                .stderr
                .contains("cannot decode the Nsight Compute report")
            && run.stderr.contains("Caused by: offset "),
        "{}",
        run.stderr
    );
    let nsys = dir.path().join("report1.nsys-rep");
    std::fs::write(&nsys, b"NVIDIA Tegra Profiler Report 2025@5@2")?;
    let run = warpsight(&["analyze", &nsys.display().to_string()])?;
    assert!(!run.success);
    assert!(
        run.stderr.contains("Nsight Systems report"),
        "{}",
        run.stderr
    );
    // `inspect` says why on its line and, since the file cannot be read, fails (issue #14).
    let run = warpsight(&["inspect", &nsys.display().to_string()])?;
    assert!(!run.success);
    let out = run.stdout;
    assert!(
        out.contains("hint: export it first") && out.contains("nsys export --type sqlite"),
        "{out}"
    );
    assert!(
        run.stderr.contains("1 of 1 inputs could not be read"),
        "{}",
        run.stderr
    );
    Ok(())
}

/// Issue #11 item 8: a launch whose export names no device is modelled with the device its compute
/// capability, SM count and memory clock single out, and a note says so; a launch without counters
/// gets a note naming them and the `ncu` options that add them.
#[test]
fn inferred_devices_and_missing_counters_are_said_in_notes()
-> Result<(), Box<dyn std::error::Error>> {
    let run = warpsight(&[
        "analyze",
        "traces/h100-80gb-hbm3/sgemm.ncu-details.csv",
        "--format",
        "csv",
    ])?;
    assert!(run.success, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("4 launches name no device; modelled as NVIDIA H100 80GB HBM3"),
        "{}",
        run.stderr
    );
    let basic = warpsight_test_support::paths::traces_dir()
        .join("pytorch-layers/h200_gpt_layer.ncu-details.csv");
    {
        let run = warpsight(&["analyze", &basic.display().to_string(), "--format", "csv"])?;
        assert!(run.success, "{}", run.stderr);
        assert!(
            run.stderr.contains("modelled as NVIDIA H200"),
            "{}",
            run.stderr
        );
        assert!(
            run.stderr.contains("18 launches have no predicted time"),
            "{}",
            run.stderr
        );
        assert!(
            run.stderr.contains("smsp__inst_executed.sum"),
            "{}",
            run.stderr
        );
    }
    Ok(())
}
