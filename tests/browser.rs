//! The HTML export in a real browser (headless Chromium): one block per derived message and
//! per turn in the DOM the browser built, every collapsed part opens when its summary is
//! clicked (its content goes from not rendered to rendered), the page's own "Expand all"
//! and "Collapse all" work, and screenshots in light and dark mode are not blank.
//!
//! They need a Chromium-compatible browser (Debian's `chromium`, which `.ci/run` installs, or
//! the binary named in `DSH_SESSION_BROWSER`): without one they say so once and skip, and
//! with `DSH_SESSION_REQUIRE_ALL=1` (CI) they fail ([`common::require`]).

mod common;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{dsh, fixture, samples};
use serde_json::Value;

/// The browser to drive, or `None` after saying why these tests do not run.
fn browser() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("DSH_SESSION_BROWSER") {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ]
    .iter()
    .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
    .find(|candidate| candidate.is_file());
    let why = "the HTML export is tested in headless Chromium (chromium, chromium-browser or \
               google-chrome on PATH): `apt-get install -y chromium`, as .ci/run does, or name \
               one in DSH_SESSION_BROWSER";
    common::require("a headless browser", found.is_some(), why)
        .then_some(found)
        .flatten()
}

/// How long one browser run may take before the test gives up on it (it usually takes
/// about a second).
const BROWSER_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(90);

/// Runs the browser headless on `page` with `args`, as root in a container needs it; a run
/// that hangs is killed and fails the test instead of hanging `cargo test`.
fn headless(browser: &Path, page: &Path, args: &[&str]) -> std::process::Output {
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--no-first-run",
            "--disable-extensions",
        ])
        .args(args)
        .arg(format!("file://{}", page.display()))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the browser starts");
    let started = std::time::Instant::now();
    // Read the pipes on threads so a full pipe cannot stall the browser while we wait.
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let out_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut stdout, &mut buf).map(|_| buf)
    });
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut stderr, &mut buf).map(|_| buf)
    });
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > BROWSER_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{} did not finish within {BROWSER_TIMEOUT:?}",
                browser.display()
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let out = std::process::Output {
        status,
        stdout: out_reader.join().expect("reader").expect("stdout"),
        stderr: err_reader.join().expect("reader").expect("stderr"),
    };
    assert!(
        out.status.success(),
        "{}: {}",
        browser.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn export_html(log: &Path, dir: &Path, name: &str) -> PathBuf {
    let page = dir.join(name);
    let out = dsh()
        .args(["export", "--format", "html", "-o"])
        .arg(&page)
        .arg(log)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    page
}

/// A probe appended to a copy of the page: it counts blocks, then clicks every summary in
/// document order (a nested part's parent is open by then) and records for each `details`
/// whether its content was rendered before and after, then tries the page's buttons. The
/// result is written into the DOM, which `--dump-dom` prints.
const PROBE: &str = r#"<pre id="probe"></pre><script>
const r = {};
r.messages = document.querySelectorAll('article.message').length;
r.turns = document.querySelectorAll('section.turn').length;
r.shadowed = document.querySelectorAll('article.shadowed').length;
const all = [...document.querySelectorAll('details')];
const inner = d => [...d.children].filter(c => c.tagName !== 'SUMMARY');
r.details = all.map(d => {
  const closed = [d.open, d.getBoundingClientRect().height, inner(d).some(c => c.checkVisibility())];
  d.querySelector(':scope > summary').click();
  return closed.concat([d.open, d.getBoundingClientRect().height, inner(d).length > 0 && inner(d).every(c => c.checkVisibility())]);
});
document.getElementById('collapse').click();
r.openAfterCollapse = all.filter(d => d.open).length;
document.getElementById('expand').click();
r.openAfterExpand = all.filter(d => d.open).length;
document.getElementById('probe').textContent = JSON.stringify(r);
</script>"#;

fn probe(browser: &Path, page: &Path) -> Value {
    let html = std::fs::read_to_string(page).unwrap();
    let probed = page.with_extension("probe.html");
    std::fs::write(&probed, html.replace("</body>", &format!("{PROBE}</body>"))).unwrap();
    let out = headless(browser, &probed, &["--dump-dom"]);
    probe_output(out)
}

fn count(args: &[&str]) -> (usize, usize) {
    let run = |a: &[&str]| {
        let out = dsh().args(a).output().unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let messages = run(&[&["messages", "--format", "jsonl"], args].concat())
        .lines()
        .count();
    let show: Value =
        serde_json::from_str(&run(&[&["show", "--format", "json"], args].concat())).unwrap();
    (messages, show["per_turn"].as_array().unwrap().len())
}

fn check_details_open(r: &Value, want: usize) {
    let details = r["details"].as_array().unwrap();
    assert_eq!(details.len(), want);
    for d in details {
        let [
            open_before,
            h_before,
            shown_before,
            open_after,
            h_after,
            shown_after,
        ] = [0, 1, 2, 3, 4, 5].map(|i| d[i].clone());
        assert_eq!(open_before, false, "{d}");
        assert_eq!(shown_before, false, "closed content is not rendered: {d}");
        assert_eq!(open_after, true, "{d}");
        assert_eq!(shown_after, true, "opened content is rendered: {d}");
        assert!(h_after.as_f64() > h_before.as_f64(), "{d}");
    }
    assert_eq!(r["openAfterCollapse"], 0);
    assert_eq!(r["openAfterExpand"], want);
}

#[test]
fn blocks_and_collapsed_parts_in_a_browser() {
    let Some(browser) = browser() else { return };
    let dir = tempfile::tempdir().unwrap();
    // A log with replacements: three `details.replaced`, six shadowed entries.
    let log = fixture("compaction-and-prune.jsonl");
    let r = probe(&browser, &export_html(&log, dir.path(), "compaction.html"));
    assert_eq!(
        (r["messages"].as_u64(), r["turns"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(r["shadowed"], 6);
    assert_eq!(count(&[log.to_str().unwrap()]), (2, 1));
    check_details_open(&r, 3);
    if !common::have_samples() {
        return;
    }
    // The real v3 log: a system message (collapsed) and reasoning.
    let real = samples().join("real/dumen.prefix.session.v3.jsonl");
    let r = probe(&browser, &export_html(&real, dir.path(), "dumen.html"));
    let (messages, turns) = count(&[real.to_str().unwrap()]);
    assert_eq!(
        (r["messages"].as_u64(), r["turns"].as_u64()),
        (Some(messages as u64), Some(turns as u64))
    );
    assert_eq!((messages, turns), (4, 1));
    let n = r["details"].as_array().unwrap().len();
    assert!(n >= 1);
    check_details_open(&r, n);
}

/// Decodes a PNG: (width, height, RGB pixels).
fn pixels(png_path: &Path) -> (u32, u32, Vec<[u8; 3]>) {
    let decoder = png::Decoder::new(std::fs::File::open(png_path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let step = match info.color_type {
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        other => panic!("unexpected PNG colour type {other:?}"),
    };
    let px = buf[..info.buffer_size()]
        .chunks(step)
        .map(|c| [c[0], c[1], c[2]])
        .collect();
    (info.width, info.height, px)
}

#[test]
fn screenshots_are_not_blank_in_light_and_dark() {
    let Some(browser) = browser() else { return };
    if !common::have_samples() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let log = samples().join("real/capital-generation.session.v4.jsonl");
    let page = export_html(&log, dir.path(), "capital.html");
    for (mode, flags) in [("light", &[][..]), ("dark", &["--force-dark-mode"][..])] {
        let shot = dir.path().join(format!("{mode}.png"));
        let screenshot = format!("--screenshot={}", shot.display());
        let mut args = vec!["--window-size=412,1200", screenshot.as_str()];
        args.extend_from_slice(flags);
        headless(&browser, &page, &args);
        let (w, h, px) = pixels(&shot);
        assert_eq!((w, h), (412, 1200), "{mode}: a phone-sized viewport");
        let colours: HashSet<[u8; 3]> = px.iter().copied().collect();
        assert!(
            colours.len() > 50,
            "{mode}: {} distinct colours",
            colours.len()
        );
        // The page background is the corner pixel; text, bars and tables cover more than
        // 5% of the page.
        let background = px[0];
        let covered = px.iter().filter(|p| **p != background).count();
        assert!(
            covered * 20 > px.len(),
            "{mode}: {covered} of {} pixels drawn",
            px.len()
        );
        let lum = |p: [u8; 3]| p.iter().map(|&c| c as u32).sum::<u32>() / 3;
        match mode {
            "light" => assert!(lum(background) > 200, "light background {background:?}"),
            _ => assert!(lum(background) < 60, "dark background {background:?}"),
        }
    }
}

/// A probe for the site's `index.html`: counts the sessions listed, runs two searches
/// through the page's own search (loading search.js), filters and sorts the table, and
/// lists every resource the page loaded.
fn site_probe(cjk: &str) -> String {
    format!(
        r#"<pre id="probe"></pre><script>
(async () => {{
  const r = {{}};
  r.rows = document.querySelectorAll('tr.session').length;
  const t0 = performance.now();
  r.planted = (await window.dshSearch('{}')).map(h => h.href);
  r.ms = performance.now() - t0;
  r.cjk = (await window.dshSearch('{cjk}')).map(h => h.href);
  r.none = (await window.dshSearch('no such words anywhere')).length;
  const f = document.getElementById('filter');
  f.value = 'site-beta';
  f.dispatchEvent(new Event('input'));
  r.filtered = [...document.querySelectorAll('tr.session')].filter(x => !x.hidden).length;
  f.value = '';
  f.dispatchEvent(new Event('input'));
  document.querySelector('th[data-key=tokens]').click();
  r.tokens = [...document.querySelectorAll('tr.session')].map(x => Number(x.dataset.tokens));
  r.violations = window.dshViolations;
  document.getElementById('probe').textContent = JSON.stringify(r);
}})();
</script>"#,
        common::site_root::PLANTED
    )
}

/// A probe for a session's page opened at a message: what `:target` is and what it says.
const TARGET_PROBE: &str = r#"<pre id="probe"></pre><script>
window.addEventListener('load', () => {
  const t = document.querySelector(':target');
  document.getElementById('probe').textContent = JSON.stringify({
    hash: location.hash, target: t ? t.id : null, text: t ? t.textContent : '',
    scrolled: window.scrollY, violations: window.dshViolations});
});
</script>"#;

/// Listens, from the top of the page, for every request the page's Content-Security-Policy
/// blocked: a request for anything but the site's own files would be one.
const VIOLATIONS: &str = "<script>window.dshViolations=[];document.addEventListener('securitypolicyviolation',e=>window.dshViolations.push(e.blockedURI+' '+e.violatedDirective));</script>";

/// Runs `page` (a copy of it with `probe` before `</body>`, beside it) in the browser at
/// `#fragment` and returns what the probe wrote.
fn probe_with(browser: &Path, page: &Path, probe: &str, fragment: &str) -> Value {
    let html = std::fs::read_to_string(page).unwrap();
    let probed = page.with_extension("probe.html");
    let html = html
        .replacen("<head>", &format!("<head>{VIOLATIONS}"), 1)
        .replace("</body>", &format!("{probe}</body>"));
    std::fs::write(&probed, html).unwrap();
    let at = PathBuf::from(format!("{}{fragment}", probed.display()));
    let out = headless(browser, &at, &["--dump-dom"]);
    std::fs::remove_file(&probed).unwrap();
    probe_output(out)
}

#[test]
fn a_site_lists_searches_and_opens_messages_in_a_browser() {
    let Some(browser) = browser() else { return };
    if !common::have_samples() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    let placed = common::site_root::generate(&root);
    let real = samples().join("real");
    let site = tmp.path().join("site");
    let logs = [
        "capital-generation.session.v4.jsonl",
        "dumen.prefix.session.v3.jsonl",
        "tolik-benchmark.prefix.session.v4.jsonl",
    ]
    .map(|n| real.join(n));
    let out = dsh()
        .arg("export")
        .arg(&root)
        .args(&logs)
        .args(["--format", "site", "--out"])
        .arg(&site)
        .output()
        .unwrap();
    // site-broken is corrupt: exit 1, its page written.
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(site.join("manifest.json")).unwrap())
            .unwrap();
    let page_of = |id: &str| -> String {
        manifest["entries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["ident"]["id"] == id)
            .unwrap_or_else(|| panic!("{id}"))["row"]["page"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    // A word of the real v4 log's first user message (seq 12).
    let cjk = "技术和基础两个维度";
    let r = probe_with(&browser, &site.join("index.html"), &site_probe(cjk), "");
    // The generated root's 4 sessions and the 3 real logs.
    assert_eq!(r["rows"], 4 + 3, "{r}");
    let alpha = page_of("site-alpha");
    // In site-alpha and in its fork, which inherited the message.
    let fork = page_of(&placed[3].id);
    let mut planted: Vec<&str> = r["planted"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h.as_str().unwrap())
        .collect();
    planted.sort_unstable();
    let mut want = [format!("{alpha}#seq-3"), format!("{fork}#seq-3")];
    want.sort();
    assert_eq!(planted, want, "{r}");
    let capital = page_of(&placed_header_id(
        &real.join("capital-generation.session.v4.jsonl"),
    ));
    assert_eq!(r["cjk"][0], format!("{capital}#seq-12"), "{r}");
    assert_eq!(r["none"], 0);
    assert_eq!(r["filtered"], 1, "the filter keeps site-beta alone");
    let tokens: Vec<u64> = r["tokens"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_u64().unwrap())
        .collect();
    assert!(
        tokens.windows(2).all(|w| w[0] >= w[1]),
        "sorted by tokens: {tokens:?}"
    );
    assert!(tokens[0] > 0);
    // The policy blocked nothing: the page asked for nothing but its own files (the
    // search index was loaded: the searches found what they should).
    assert_eq!(r["violations"], serde_json::json!([]), "{r}");
    // Each hit opens its page at its message.
    for (href, word) in [
        (format!("{alpha}#seq-3"), common::site_root::PLANTED),
        (format!("{capital}#seq-12"), cjk),
    ] {
        let (page, fragment) = href.split_once('#').unwrap();
        let t = probe_with(
            &browser,
            &site.join(page),
            TARGET_PROBE,
            &format!("#{fragment}"),
        );
        assert_eq!(t["target"], fragment, "{t}");
        assert!(t["text"].as_str().unwrap().contains(word), "{t}");
        assert_eq!(t["violations"], serde_json::json!([]), "{t}");
    }
    // The index in light and dark: drawn, on the background of each.
    for (mode, flags) in [("light", &[][..]), ("dark", &["--force-dark-mode"][..])] {
        let shot = tmp.path().join(format!("site-{mode}.png"));
        let screenshot = format!("--screenshot={}", shot.display());
        let mut args = vec!["--window-size=1000,700", screenshot.as_str()];
        args.extend_from_slice(flags);
        headless(&browser, &site.join("index.html"), &args);
        let (_, _, px) = pixels(&shot);
        let background = px[0];
        let covered = px.iter().filter(|p| **p != background).count();
        assert!(covered * 20 > px.len(), "{mode}: {covered} pixels drawn");
        let lum = |p: [u8; 3]| p.iter().map(|&c| c as u32).sum::<u32>() / 3;
        match mode {
            "light" => assert!(lum(background) > 200, "light background {background:?}"),
            _ => assert!(lum(background) < 60, "dark background {background:?}"),
        }
    }
    drop(placed);
}

fn placed_header_id(log: &Path) -> String {
    let text = std::fs::read_to_string(log).unwrap();
    let v: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    v["id"].as_str().unwrap().to_owned()
}

/// What the probe wrote into the page: the JSON in its `<pre id="probe">`, from the DOM the
/// headless browser dumped.
fn probe_output(out: std::process::Output) -> serde_json::Value {
    let dom = String::from_utf8(out.stdout).expect("utf-8 DOM");
    let start = dom.find("<pre id=\"probe\">").expect("probe ran") + "<pre id=\"probe\">".len();
    let end = start + dom[start..].find("</pre>").expect("probe closed");
    let json = dom[start..end]
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&");
    serde_json::from_str(&json).unwrap_or_else(|e| panic!("probe output {json}: {e}"))
}
