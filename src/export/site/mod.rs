//! `export PATH... --format site --out DIR` (issue 40): a static site of every session the
//! paths hold (roots, session directories, logs, SQLite stores, walked as `validate` walks
//! them): `index.html` lists them by project, newest first; `s/NAME.html` is one session's
//! page (the HTML export's page, with a timeline of its turns and links to the sessions it
//! came from and gave rise to); `search.js` is the search index the index page loads.
//! Nothing is loaded from the network; redaction is on unless `redact` is off.
//!
//! Incremental: `manifest.json` in DIR keeps, per session, its input's fingerprint (size,
//! modification time, inode) and what its page links to, with its index row and search
//! text. A later run reads again only the inputs whose fingerprint changed, rewrites only
//! the pages whose input or links changed, removes the pages of sessions no longer given,
//! and rewrites `index.html`, `search.js` and `manifest.json` only when their bytes
//! change. Every file is written whole (temporary file, then rename:
//! [`crate::write::site`]).

pub mod pages;
pub mod read;
pub mod search;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use read::{Ident, Outcome, Row, Unit};

/// The manifest's file name in DIR.
pub const MANIFEST: &str = "manifest.json";
/// What a manifest of another layout or tool version makes of every page: stale.
const LAYOUT: u32 = 1;

/// Why a site could not be written.
#[derive(Debug, thiserror::Error)]
pub enum SiteError {
    /// DIR holds files, but no manifest of a site: it is not ours to write into.
    #[error(
        "{0}: the directory is not empty and holds no {MANIFEST} of a site dsh-session wrote; give an empty or new directory"
    )]
    NotASite(PathBuf),
    /// Nothing to export: no session logs or stores under the paths.
    #[error("no session logs or SQLite stores found under the paths given")]
    Nothing,
    /// A file of the site could not be written or removed.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        error: std::io::Error,
    },
}

/// How a site is written.
#[derive(Debug, Clone)]
pub struct Options {
    /// Redact secrets and home directories ([`crate::export::redact`]).
    pub redact: bool,
    /// The prices each session's cost in the index is computed at, as `stats` computes it
    /// (each answer at the band of its own time, [`crate::prices`]).
    pub prices: crate::prices::PriceTable,
}

/// What a site export did.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    /// Sessions in the index.
    pub sessions: usize,
    /// Pages written (new or changed), relative to DIR.
    pub written: Vec<String>,
    /// Pages kept as they were.
    pub kept: usize,
    /// Pages removed (their sessions were not given again).
    pub removed: Vec<String>,
    /// Whether `index.html` was rewritten.
    pub index_written: bool,
    /// Sessions whose log is corrupt, refused or unreadable (their pages say so).
    pub damaged: Vec<String>,
    /// What the walk passed over, and files of other harnesses, one line each.
    pub notes: Vec<String>,
}

/// One session as the manifest keeps it.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    key: String,
    file_fp: String,
    page_fp: String,
    ident: Ident,
    row: Row,
    search: search::Doc,
}

#[derive(Debug, Serialize, Deserialize)]
struct Manifest {
    layout: u32,
    version: String,
    redact: bool,
    /// The prices the costs were computed with, if any.
    #[serde(default)]
    prices: Option<String>,
    entries: Vec<Entry>,
}

/// Writes the site of the sessions under `inputs` into `dir` (created if needed), as the
/// module documentation says, with `options`.
///
/// # Errors
/// [`SiteError`]: `dir` is not a site's directory, nothing was found, or a file could not
/// be written.
pub fn build(inputs: &[PathBuf], dir: &Path, options: &Options) -> Result<Summary, SiteError> {
    let redact = options.redact;
    let prices_key = Some(format!("{:?}", options.prices.key()));
    let prices = std::sync::Arc::new(options.prices.clone());
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |error| SiteError::Io { path, error }
    };
    let manifest_path = dir.join(MANIFEST);
    let old: Option<Manifest> = std::fs::read(&manifest_path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok());
    if old.is_none() && std::fs::read_dir(dir).is_ok_and(|mut d| d.next().is_some()) {
        return Err(SiteError::NotASite(dir.to_path_buf()));
    }
    // A manifest of another layout, version, redaction or prices: every page is written again
    // (the pages it names are still removed when their sessions are gone).
    let (old_entries, same_kind) = match old {
        Some(m) => {
            let same = m.layout == LAYOUT
                && m.version == env!("CARGO_PKG_VERSION")
                && m.redact == redact
                && m.prices == prices_key;
            (m.entries, same)
        }
        None => (Vec::new(), false),
    };
    let usable: HashMap<&str, &Entry> = if same_kind {
        old_entries.iter().map(|e| (e.key.as_str(), e)).collect()
    } else {
        HashMap::new()
    };
    let (units, mut notes) = read::units(inputs);
    if units.is_empty() {
        return Err(SiteError::Nothing);
    }
    std::fs::create_dir_all(dir.join("s")).map_err(io(&dir.join("s")))?;

    // Who each session is: from the manifest for an input that did not change, else from
    // its header.
    let idents: Vec<Option<Ident>> = units
        .par_iter()
        .map(|u| match usable.get(u.key.as_str()) {
            Some(e) if e.file_fp == u.file_fp && !u.file_fp.is_empty() => Some(e.ident.clone()),
            _ => read::ident(u),
        })
        .collect();
    let mut sessions: Vec<(Unit, Ident, String)> = Vec::new();
    let mut used_pages = HashSet::new();
    for (u, ident) in units.into_iter().zip(idents) {
        let Some(ident) = ident else {
            notes.push(format!(
                "{}: not a DSH session log: not in the site",
                u.path.display()
            ));
            continue;
        };
        let page = page_name(&u, &ident, &mut used_pages);
        sessions.push((u, ident, page));
    }
    let links = lineage(&sessions);

    // Read and write the pages whose input or links changed.
    let results: Vec<Result<Option<Done>, SiteError>> = sessions
        .par_iter()
        .zip(&links)
        .map(|((unit, ident, page), links)| {
            let page_fp = page_fingerprint(unit, page, links);
            if let Some(e) = usable.get(unit.key.as_str())
                && e.page_fp == page_fp
                && !unit.file_fp.is_empty()
                && dir.join(page).is_file()
            {
                return Ok(Some(Done {
                    entry: (*e).clone(),
                    written: false,
                }));
            }
            let (row, html, doc) = match read::read(unit, redact, &prices) {
                Outcome::Foreign(_) => return Ok(None),
                Outcome::Unreadable(why) => {
                    let row = Row {
                        page: page.clone(),
                        id: ident.id.clone(),
                        file: crate::export::redact::Redactor::new(redact)
                            .text(&unit.path.display().to_string())
                            .into_owned(),
                        status: "unreadable".to_owned(),
                        rule: Some(why.clone()),
                        ..Row::default()
                    };
                    let html = pages::unreadable_page(&row, &why);
                    (row, html, search::Doc::default())
                }
                Outcome::Read(r) => {
                    let mut row = r.row;
                    row.page = page.clone();
                    let damaged = matches!(
                        r.status,
                        crate::scan::Status::Corrupt | crate::scan::Status::Refused
                    );
                    let finding = (r.finding.as_deref())
                        .filter(|_| damaged)
                        .map(|f| (f, r.reading.as_str()));
                    let html = pages::session_page(&r.transcript, &row, links, finding);
                    (row, html, search::doc(&r.transcript))
                }
            };
            let path = dir.join(page);
            crate::write::site::replace_file(&path, html.as_bytes()).map_err(io(&path))?;
            Ok(Some(Done {
                entry: Entry {
                    key: unit.key.clone(),
                    file_fp: unit.file_fp.clone(),
                    page_fp,
                    ident: ident.clone(),
                    row,
                    search: doc,
                },
                written: true,
            }))
        })
        .collect();
    let mut summary = Summary::default();
    let mut entries = Vec::new();
    for (r, (unit, _, _)) in results.into_iter().zip(&sessions) {
        match r? {
            Some(done) => {
                if done.written {
                    summary.written.push(done.entry.row.page.clone());
                } else {
                    summary.kept += 1;
                }
                if matches!(
                    done.entry.row.status.as_str(),
                    "corrupt" | "refused" | "unreadable"
                ) {
                    summary.damaged.push(format!(
                        "{}: {}{}",
                        unit.path.display(),
                        done.entry.row.status,
                        done.entry
                            .row
                            .rule
                            .as_ref()
                            .map(|r| format!(" {r}"))
                            .unwrap_or_default()
                    ));
                }
                entries.push(done.entry);
            }
            None => notes.push(format!(
                "{}: not a DSH session log: not in the site",
                unit.path.display()
            )),
        }
    }
    // The pages of sessions not given this time.
    let kept: HashSet<&str> = entries.iter().map(|e| e.row.page.as_str()).collect();
    let mut gone: Vec<&str> = old_entries
        .iter()
        .map(|e| e.row.page.as_str())
        .filter(|p| !kept.contains(p))
        .collect();
    gone.sort_unstable();
    gone.dedup();
    for page in gone {
        let path = dir.join(page);
        crate::write::site::remove_file(&path).map_err(io(&path))?;
        summary.removed.push(page.to_owned());
    }
    let rows: Vec<Row> = entries.iter().map(|e| e.row.clone()).collect();
    let index = pages::index_page(&rows, notes.len());
    let index_path = dir.join("index.html");
    summary.index_written = crate::write::site::replace_if_changed(&index_path, index.as_bytes())
        .map_err(io(&index_path))?;
    let docs: Vec<(&str, &str, &search::Doc)> = entries
        .iter()
        .map(|e| {
            let title = e.row.title.as_deref().or(e.row.id.as_deref()).unwrap_or("");
            (e.row.page.as_str(), title, &e.search)
        })
        .collect();
    let search_path = dir.join("search.js");
    crate::write::site::replace_if_changed(&search_path, search::script(&docs).as_bytes())
        .map_err(io(&search_path))?;
    let manifest = Manifest {
        layout: LAYOUT,
        version: env!("CARGO_PKG_VERSION").to_owned(),
        redact,
        prices: prices_key,
        entries,
    };
    let bytes = serde_json::to_vec(&manifest).unwrap_or_default();
    crate::write::site::replace_if_changed(&manifest_path, &bytes).map_err(io(&manifest_path))?;
    crate::write::site::sync_dir(dir).map_err(io(dir))?;
    crate::write::site::sync_dir(&dir.join("s")).map_err(io(&dir.join("s")))?;
    summary.sessions = rows.len();
    notes.sort();
    summary.notes = notes;
    Ok(summary)
}

struct Done {
    entry: Entry,
    written: bool,
}

/// `s/<id, its unusual characters as _, at most 60>-<8 hex digits of the key>.html`:
/// stable across runs, unique in the site.
fn page_name(unit: &Unit, ident: &Ident, used: &mut HashSet<String>) -> String {
    let base = ident.id.clone().unwrap_or_else(|| {
        unit.path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    });
    let slug: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .take(60)
        .collect();
    let mut hash = crate::saved::fnv1a(unit.key.as_bytes());
    loop {
        let name = format!("s/{slug}-{:08x}.html", hash as u32);
        if used.insert(name.clone()) {
            return name;
        }
        hash = crate::saved::fnv1a(&hash.to_le_bytes());
    }
}

fn page_fingerprint(unit: &Unit, page: &str, links: &[pages::Link]) -> String {
    let mut s = format!("{}|{page}", unit.file_fp);
    for l in links {
        s.push_str(&format!("|{}:{}:{}", l.relation, l.page, l.id));
    }
    format!(
        "{}:{:016x}",
        unit.file_fp,
        crate::saved::fnv1a(s.as_bytes())
    )
}

/// Each session's links to the others: its parent (`subagent of`, `forked from`), the
/// session it was recovered from (`<id>-recovered`, `<id>-branch-N`, as `recover` names
/// them), and the other way round.
fn lineage(sessions: &[(Unit, Ident, String)]) -> Vec<Vec<pages::Link>> {
    let mut by_id: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, (_, ident, _)) in sessions.iter().enumerate() {
        if let Some(id) = &ident.id {
            by_id.entry(id.as_str()).or_insert(i);
        }
    }
    let mut links: Vec<Vec<pages::Link>> = vec![Vec::new(); sessions.len()];
    let link = |relation, j: usize| pages::Link {
        relation,
        page: sessions[j].2.clone(),
        id: sessions[j].1.id.clone().unwrap_or_default(),
    };
    for (i, (_, ident, _)) in sessions.iter().enumerate() {
        let subagent = ident.origin.as_deref() == Some("subagent");
        if let Some(&p) = ident.parent.as_deref().and_then(|p| by_id.get(p))
            && p != i
        {
            let (up, down) = if subagent {
                ("subagent of", "subagent")
            } else {
                ("forked from", "fork")
            };
            links[i].push(link(up, p));
            links[p].push(link(down, i));
        }
        if let Some(id) = &ident.id
            && let Some(source) = recovered_from(id)
            && let Some(&s) = by_id.get(source)
            && s != i
        {
            links[i].push(link("recovered from", s));
            links[s].push(link("recovered as", i));
        }
    }
    links
}

/// The id a recovered session's id names: `X` of `X-recovered` or `X-branch-N`.
fn recovered_from(id: &str) -> Option<&str> {
    if let Some(source) = id.strip_suffix("-recovered") {
        return Some(source);
    }
    let (source, n) = id.rsplit_once("-branch-")?;
    (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())).then_some(source)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovered_ids_name_their_source() {
        assert_eq!(recovered_from("session-a-recovered"), Some("session-a"));
        assert_eq!(recovered_from("session-a-branch-2"), Some("session-a"));
        assert_eq!(recovered_from("session-a-branch-"), None);
        assert_eq!(recovered_from("session-a"), None);
    }
}
