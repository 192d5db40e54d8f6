//! `export PATH... --format site --out DIR` (issue 40) without a browser: the files it
//! writes, what the index and the pages say of a generated root and of the real samples,
//! that every local link resolves, that a second run rewrites only what changed, and that
//! a directory that is not a site is left alone. The browser's side is in tests/browser.rs.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use common::site_root::{self, PLANTED};
use common::{dsh, samples};

fn export(paths: &[&Path], dir: &Path) -> std::process::Output {
    let mut cmd = dsh();
    cmd.arg("export");
    for p in paths {
        cmd.arg(p);
    }
    cmd.args(["--format", "site", "--out"])
        .arg(dir)
        .output()
        .unwrap()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The `<tr class="session" …>` rows of index.html: (page, status).
fn index_rows(dir: &Path) -> Vec<(String, String)> {
    let html = read(&dir.join("index.html"));
    html.lines()
        .filter(|l| l.starts_with("<tr class=\"session\""))
        .map(|l| {
            let status = between(l, "data-status=\"", "\"").to_owned();
            let page = between(l, "<td class=\"title\"><a href=\"", "\"").to_owned();
            (page, status)
        })
        .collect()
}

fn between<'a>(s: &'a str, start: &str, end: &str) -> &'a str {
    let i = s.find(start).unwrap_or_else(|| panic!("{start} in {s}")) + start.len();
    &s[i..i + s[i..].find(end).unwrap()]
}

/// The page of session `id`, from the manifest.
fn page_of(dir: &Path, id: &str) -> String {
    let m: serde_json::Value = serde_json::from_str(&read(&dir.join("manifest.json"))).unwrap();
    m["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["ident"]["id"] == id)
        .unwrap_or_else(|| panic!("{id} in the manifest"))["row"]["page"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The pages of a derived session and of its source link to each other: the derived one's
/// lineage list says `<li>{derived_says} <a href="../SOURCE-PAGE">source</a></li>`, the
/// source's says `<li>{source_says} <a href="../DERIVED-PAGE">derived</a></li>`.
fn assert_linked(
    site: &Path,
    (derived, derived_says): (&str, &str),
    (source, source_says): (&str, &str),
) {
    let (derived_page, source_page) = (page_of(site, derived), page_of(site, source));
    let page = read(&site.join(&derived_page));
    assert!(
        page.contains(&format!(
            "<li>{derived_says} <a href=\"../{source_page}\">{source}</a></li>"
        )),
        "{page}"
    );
    let page = read(&site.join(&source_page));
    assert!(
        page.contains(&format!(
            "<li>{source_says} <a href=\"../{derived_page}\">{derived}</a></li>"
        )),
        "{page}"
    );
}

/// Every `href` and `src` of every HTML file of the site resolves: a file of the site, and
/// its `#anchor` an id in that file; none names a scheme (no network).
pub fn check_links(dir: &Path) -> usize {
    let mut pages = BTreeMap::new();
    for entry in walk(dir) {
        if entry.extension().is_some_and(|e| e == "html") {
            pages.insert(entry.clone(), read(&entry));
        }
    }
    let ids = |html: &str| -> BTreeSet<String> {
        html.split(" id=\"")
            .skip(1)
            .map(|s| s[..s.find('"').unwrap()].to_owned())
            .collect()
    };
    let mut checked = 0;
    for (page, html) in &pages {
        for attr in [" href=\"", " src=\""] {
            for part in html.split(attr).skip(1) {
                let target = &part[..part.find('"').unwrap()];
                assert!(
                    !target.contains(':'),
                    "{}: {target} names a scheme",
                    page.display()
                );
                let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
                let file = if file.is_empty() {
                    page.clone()
                } else {
                    page.parent().unwrap().join(file)
                };
                let file = normalise(&file);
                assert!(
                    file.is_file(),
                    "{}: {target} does not resolve",
                    page.display()
                );
                if !anchor.is_empty() {
                    let html = pages.get(&file).map_or_else(|| read(&file), Clone::clone);
                    assert!(
                        ids(&html).contains(anchor),
                        "{}: {target}: no id {anchor}",
                        page.display()
                    );
                }
                checked += 1;
            }
        }
    }
    checked
}

fn normalise(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out.sort();
    out
}

#[test]
fn a_generated_root_becomes_an_index_pages_and_a_search_index() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    let placed = site_root::generate(&root);
    let site = tmp.path().join("site");
    let out = export(&[&root], &site);
    // The corrupt session makes the exit code 1, and is named on standard error.
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("site-broken"), "{stderr}");
    assert!(stderr.contains("corrupt J5"), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(
            "4 sessions in the site; 4 pages written, 0 unchanged, 0 removed; index written"
        ),
        "{stdout}"
    );
    let rows = index_rows(&site);
    assert_eq!(rows.len(), 4);
    let statuses: BTreeMap<String, String> = placed
        .iter()
        .map(|p| {
            let page = page_of(&site, &p.id);
            let status = rows.iter().find(|r| r.0 == page).unwrap().1.clone();
            (p.id.clone(), status)
        })
        .collect();
    assert_eq!(statuses["site-alpha"], "valid");
    assert_eq!(statuses["site-beta"], "valid");
    assert_eq!(statuses["site-broken"], "corrupt");
    assert_eq!(statuses[&placed[3].id], "valid");
    // Grouped by project, the most recently active first: alpha (its v4 log is of 2026)
    // before beta (logs of 2025).
    let index = read(&site.join("index.html"));
    let alpha_group = index.find("data-project=\"~/alpha\"><th").unwrap();
    let beta_group = index.find("data-project=\"~/beta\"><th").unwrap();
    assert!(
        alpha_group < beta_group,
        "the most recently active project first"
    );
    assert!(
        index.contains("corrupt (J5 at line "),
        "the rule beside the status"
    );
    // The corrupt log's page: a banner, and what was read before its defect.
    let broken = read(&site.join(page_of(&site, "site-broken")));
    assert!(
        broken
            .contains("<p class=\"banner\" id=\"damaged\">DSH does not load this log: corrupt J5")
    );
    assert!(broken.contains("This page shows what could be read before the defect (lines 1–"));
    assert!(broken.contains("), as export --salvage reads it."));
    // The fork links to where it came from, and back.
    assert_linked(
        &site,
        (&placed[3].id, "Forked from"),
        ("site-alpha", "Fork"),
    );
    let alpha_page = page_of(&site, "site-alpha");
    let alpha = read(&site.join(&alpha_page));
    // The timeline: one line per turn, linked to its boundary.
    assert!(
        alpha.contains("<li><a href=\"#turn-1\">Turn 1</a> <span class=\"when\">2026-08-30T"),
        "{alpha}"
    );
    // The planted word is on the page, at its message, and in the search index at seq 3.
    assert!(alpha.contains(&format!("Search the docs for {PLANTED} please.")));
    assert!(alpha.contains("id=\"seq-3\""));
    let search = read(&site.join("search.js"));
    let line = search
        .lines()
        .find(|l| l.starts_with(&format!("[\"{alpha_page}\"")))
        .expect("site-alpha in search.js");
    let entry: serde_json::Value = serde_json::from_str(line.trim_end_matches(',')).unwrap();
    assert_eq!(entry[0], alpha_page.as_str());
    let seqs = entry[2].as_array().unwrap();
    let text = entry[3].as_str().unwrap();
    let at = text[..text.find(PLANTED).unwrap()].matches('\n').count();
    assert_eq!(seqs[at], 3, "the planted word is in seq 3's text");
    // Nothing loads from the network, every link resolves.
    assert!(check_links(&site) > 10);
    for page in walk(&site)
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
    {
        let html = read(page);
        assert!(
            !html.contains("http://") && !html.contains("https://"),
            "{}",
            page.display()
        );
        assert!(
            html.contains("prefers-color-scheme:dark"),
            "{}",
            page.display()
        );
    }
}

#[test]
fn redaction_is_on_by_default() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    site_root::place(
        &root,
        "v4-tool-result-error.jsonl",
        "site-secret",
        "/home/ana/alpha",
        &[(
            "Search the docs.",
            "Use key sk-abcdefghijklmnopqrstuvwxyz0123456789 now.",
        )],
    );
    let site = tmp.path().join("site");
    assert!(export(&[&root], &site).status.success());
    let page = read(&site.join(page_of(&site, "site-secret")));
    assert!(!page.contains("sk-abcdefghijklmnopqrstuvwxyz0123456789"));
    assert!(page.contains("[REDACTED"), "{page}");
    assert!(!read(&site.join("search.js")).contains("abcdefghijklmnopqrstuvwxyz0123456789"));
    assert!(!read(&site.join("index.html")).contains("/home/ana"));
}

fn stamps(dir: &Path) -> BTreeMap<PathBuf, (std::time::SystemTime, u64)> {
    use std::os::unix::fs::MetadataExt;
    walk(dir)
        .into_iter()
        .map(|p| {
            let m = std::fs::metadata(&p).unwrap();
            (p, (m.modified().unwrap(), m.ino()))
        })
        .collect()
}

#[test]
fn a_second_run_rewrites_only_what_changed() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    let placed = site_root::generate(&root);
    let site = tmp.path().join("site");
    export(&[&root], &site);
    let before = stamps(&site);
    // Nothing changed: not one file is written again (same mtime, same inode).
    let out = export(&[&root], &site);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(
            "4 sessions in the site; 0 pages written, 4 unchanged, 0 removed; index unchanged"
        ),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(stamps(&site), before);
    // One session changed: its page, the search index and the manifest are written again
    // (the index's row did not change), nothing else.
    std::thread::sleep(std::time::Duration::from_millis(20));
    let beta = &placed[1].path;
    let text = read(beta).replace("hello", "hello again");
    assert_ne!(text, read(beta), "the beta fixture says hello");
    std::fs::write(beta, text).unwrap();
    let out = export(&[&root], &site);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("1 page written, 3 unchanged, 0 removed"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let after = stamps(&site);
    let changed: BTreeSet<String> = after
        .iter()
        .filter(|(p, s)| before.get(*p) != Some(s))
        .map(|(p, _)| p.strip_prefix(&site).unwrap().display().to_string())
        .collect();
    let beta_page = page_of(&site, "site-beta");
    let want: BTreeSet<String> = [beta_page.as_str(), "manifest.json", "search.js"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(changed, want);
    // A session removed from the input: its page goes, the index is written again.
    std::fs::remove_dir_all(placed[2].path.parent().unwrap()).unwrap();
    let broken_page = page_of(&site, "site-broken");
    let out = export(&[&root], &site);
    assert!(out.status.success(), "the corrupt session is gone");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(
            "3 sessions in the site; 0 pages written, 3 unchanged, 1 removed; index written"
        ),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(!site.join(&broken_page).exists());
    assert_eq!(index_rows(&site).len(), 3);
    assert!(check_links(&site) > 5);
    // No temporary file is left behind.
    assert!(
        walk(&site)
            .iter()
            .all(|p| !p.file_name().unwrap().to_string_lossy().starts_with(".dsh"))
    );
}

#[test]
fn a_directory_that_is_not_a_site_is_left_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    site_root::place(
        &root,
        "v4-tool-result-error.jsonl",
        "s-x",
        "/home/ana/x",
        &[],
    );
    let site = tmp.path().join("mine");
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(site.join("index.html"), "my own page").unwrap();
    let out = export(&[&root], &site);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("holds no manifest.json of a site"));
    assert_eq!(read(&site.join("index.html")), "my own page");
    // --out is required, and -o is for one transcript.
    let out = dsh()
        .args(["export", "--format", "site"])
        .arg(&root)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--format site needs --out DIR"));
}

#[test]
fn the_real_samples_each_get_a_page() {
    if !common::have_samples() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    let real = samples().join("real");
    let logs: Vec<PathBuf> = [
        "capital-generation.session.v4.jsonl",
        "dumen.prefix.session.v3.jsonl",
        "tolik-benchmark.prefix.session.v4.jsonl",
    ]
    .iter()
    .map(|n| real.join(n))
    .collect();
    let sqlite = samples().join("sqlite");
    let subagents = samples().join(
        "jsonl/examples__acp-agent__tests__snapshots__subagent-fork-in-process__session.jsonl",
    );
    let child = samples().join(
        "jsonl/examples__acp-agent__tests__snapshots__subagent-fork-in-process__session.1.jsonl",
    );
    let mut paths: Vec<&Path> = logs.iter().map(PathBuf::as_path).collect();
    paths.extend([sqlite.as_path(), subagents.as_path(), child.as_path()]);
    let out = export(&paths, &site);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let rows = index_rows(&site);
    let stores = walk(&sqlite).len();
    // One row per log and one per store session (each sample store holds one).
    assert_eq!(rows.len(), 3 + stores + 2, "{stderr}");
    let capital = read(&site.join(page_of(&site, &header_id(&logs[0]))));
    assert!(capital.contains("<title>指南针下周操作重点分析</title>"));
    assert!(read(&site.join("index.html")).contains(">指南针下周操作重点分析</a>"));
    // The subagent links to its parent and back.
    let child_id = header_id(&child);
    let parent_id = header_id(&subagents);
    let child_page = read(&site.join(page_of(&site, &child_id)));
    assert!(child_page.contains(&format!(
        "<li>Subagent of <a href=\"../{}\">{parent_id}</a></li>",
        page_of(&site, &parent_id)
    )));
    let parent_page = read(&site.join(page_of(&site, &parent_id)));
    assert!(parent_page.contains(&format!(
        "<li>Subagent <a href=\"../{}\">{child_id}</a></li>",
        page_of(&site, &child_id)
    )));
    check_links(&site);
}

fn header_id(log: &Path) -> String {
    let text = read(log);
    let v: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    v["id"].as_str().unwrap().to_owned()
}

#[test]
fn a_log_named_twice_is_one_session_and_no_redact_writes_every_page_again() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    let alpha = site_root::place(
        &root,
        "v4-tool-result-error.jsonl",
        "site-alpha",
        "/home/ana/alpha",
        &[],
    );
    let site = tmp.path().join("site");
    let out = export(&[&root, &alpha], &site);
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with(&format!(
            "{}: 1 session in the site; 1 page written",
            site.display()
        )),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(index_rows(&site).len(), 1);
    // Redaction off: the manifest says the pages were redacted, so each is written again.
    let out = dsh()
        .arg("export")
        .arg(&root)
        .args(["--format", "site", "--no-redact", "--out"])
        .arg(&site)
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("1 page written, 0 unchanged"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(read(&site.join("index.html")).contains("/home/ana/alpha"));
}

#[test]
fn a_recovered_session_links_to_the_damaged_one() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    let damaged = common::fixture("recover/garbage-line-inside-turn-2.jsonl");
    let out = dsh()
        .arg("recover")
        .arg(&damaged)
        .arg("--out")
        .arg(&root)
        .output()
        .unwrap();
    // The garbage line is quoted in the recovery note: every message kept, exit 0.
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let site = tmp.path().join("site");
    let out = export(&[&root, &damaged], &site);
    // The damaged log is corrupt (J5): exit 1, its page written with the banner.
    assert_eq!(out.status.code(), Some(1));
    assert_linked(
        &site,
        ("s-1-recovered", "Recovered from"),
        ("s-1", "Recovered as"),
    );
    let page = read(&site.join(page_of(&site, "s-1")));
    assert!(page.contains("DSH does not load this log: corrupt J5 at line 14"));
    check_links(&site);
}

#[test]
fn with_prices_the_index_shows_each_sessions_cost() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    site_root::place(
        &root,
        "v4-tool-result-error.jsonl",
        "site-priced",
        "/home/ana/alpha",
        &[(
            "\"usage\":{\"inputTokens\":120,\"outputTokens\":11}",
            "\"usage\":{\"inputTokens\":1200000,\"outputTokens\":100000}",
        )],
    );
    let site = tmp.path().join("site");
    // The built-in table, as `stats` prices: deepseek/deepseek-chat is V4-Flash, and the
    // answer at 2026-08-30 14:26 UTC (22:26 in Beijing) is off-peak: 1.2 M uncached input
    // at 1.00 CNY, 0.1 M output at 4.00 CNY per million.
    let out = export(&[&root], &site);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let index = read(&site.join("index.html"));
    assert!(
        index.contains("<td class=\"n\">1300000</td><td class=\"n\">1.6000 CNY</td>"),
        "{index}"
    );
    // A prices file is tried first: 0.27 and 1.10 USD per million (and the rows are made
    // again).
    let prices = tmp.path().join("prices.toml");
    std::fs::write(
        &prices,
        "[[price]]\nprovider = \"deepseek\"\nmodel = \"deepseek-chat\"\ncurrency = \"USD\"\ncache_hit = 0.07\ncache_miss = 0.27\noutput = 1.10\n",
    )
    .unwrap();
    let out = dsh()
        .arg("export")
        .arg(&root)
        .args(["--format", "site", "--prices"])
        .arg(&prices)
        .arg("--out")
        .arg(&site)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let index = read(&site.join("index.html"));
    assert!(
        index.contains("<td class=\"n\">1300000</td><td class=\"n\">0.4340 USD</td>"),
        "{index}"
    );
    // --prices is for the site only.
    let out = dsh()
        .args(["export", "--prices"])
        .arg(&prices)
        .arg(common::fixture("v4-tool-result-error.jsonl"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
