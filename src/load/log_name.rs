//! Which file names are DSH session logs (FORMAT.md §7.1, GENERATIONS §1.1), told by the
//! name alone. Below both the JSONL layout ([`crate::load::layout`]) and what DSH leaves
//! beside a log ([`crate::load::leftovers`]), which each ask it.

/// True for a log file name DSH writes: `session.jsonl`, `session.jsonl.zstd`, and the later
/// generations' `session.vN.jsonl[.zstd]` (N a decimal without leading zeros).
pub fn is_session_file_name(name: &str) -> bool {
    let stem = name.strip_suffix(".zstd").unwrap_or(name);
    let Some(stem) = stem.strip_suffix(".jsonl") else {
        return false;
    };
    match stem.strip_prefix("session.v") {
        Some(n) => {
            n.starts_with(|c: char| ('1'..='9').contains(&c))
                && n.bytes().all(|b| b.is_ascii_digit())
        }
        None => stem == "session",
    }
}
