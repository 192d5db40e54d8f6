//! A generated JSONL root for the site export's tests: sessions placed where DSH puts them
//! (`ROOT/<project key>/<id>/session.vN.jsonl`, FORMAT.md §7.1), made from the project's
//! fixtures with their headers' `id` and `cwd` set, one of them carrying a planted word,
//! one corrupt, and one fork written by `dsh-session fork`.

use std::path::{Path, PathBuf};

/// The word planted in the user message of `site-alpha` (seq 3).
pub const PLANTED: &str = "zanzibarquux";

/// One session of the generated root.
pub struct Placed {
    /// Its session id.
    pub id: String,
    /// Its log.
    pub path: PathBuf,
}

/// Writes `fixture`'s log as session `id` of project `cwd` under `root`, with each
/// `(from, to)` of `replace` applied to the records after the header; returns its path.
pub fn place(root: &Path, fixture: &str, id: &str, cwd: &str, replace: &[(&str, &str)]) -> PathBuf {
    let text = std::fs::read_to_string(super::fixture(fixture)).unwrap();
    let (head, rest) = text.split_once('\n').unwrap();
    let mut header: serde_json::Value = serde_json::from_str(head).unwrap();
    header["id"] = id.into();
    header["cwd"] = cwd.into();
    let version = header["version"].as_u64().unwrap();
    let mut rest = rest.to_owned();
    for (from, to) in replace {
        assert!(rest.contains(from), "{fixture} holds {from}");
        rest = rest.replace(from, to);
    }
    let project = dsh_session::load::layout::project_key(cwd);
    let dir = root
        .join(project)
        .join(dsh_session::load::layout::encode_segment(id));
    std::fs::create_dir_all(&dir).unwrap();
    let name = if version == 0 {
        "session.jsonl".to_owned()
    } else {
        format!("session.v{version}.jsonl")
    };
    let path = dir.join(name);
    std::fs::write(
        &path,
        format!("{}\n{rest}", serde_json::to_string(&header).unwrap()),
    )
    .unwrap();
    path
}

/// The generated root: `site-alpha` (v4, the planted word, project /home/ana/alpha),
/// `site-beta` (compactions, project /home/ana/beta), `site-broken` (J5: a seq gap,
/// corrupt, in beta) and a fork of `site-alpha` at seq 8 (in alpha). Returns them in that
/// order.
pub fn generate(root: &Path) -> Vec<Placed> {
    let alpha = place(
        root,
        "v4-tool-result-error.jsonl",
        "site-alpha",
        "/home/ana/alpha",
        &[(
            "Search the docs.",
            "Search the docs for zanzibarquux please.",
        )],
    );
    let beta = place(
        root,
        "compaction-and-prune.jsonl",
        "site-beta",
        "/home/ana/beta",
        &[],
    );
    let broken = place(
        root,
        "rules/J4-seq-gap-committed.jsonl",
        "site-broken",
        "/home/ana/beta",
        &[],
    );
    let out = super::dsh()
        .args(["fork", "--at", "8", "--format", "json", "--out"])
        .arg(root)
        .arg(&alpha)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let forked: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let session = &forked["new"];
    let fork_path = PathBuf::from(
        session["path"]
            .as_str()
            .unwrap_or_else(|| panic!("{forked}")),
    );
    let fork_id = session["session"]
        .as_str()
        .unwrap_or_else(|| panic!("{forked}"))
        .to_owned();
    vec![
        Placed {
            id: "site-alpha".into(),
            path: alpha,
        },
        Placed {
            id: "site-beta".into(),
            path: beta,
        },
        Placed {
            id: "site-broken".into(),
            path: broken,
        },
        Placed {
            id: fork_id,
            path: fork_path,
        },
    ]
}
