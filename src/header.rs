//! The session header (FORMAT.md §6.3): the JSONL header line or the SQLite `sessions` row.

/// The session header (FORMAT.md §6.3), as far as it could be read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Header {
    /// The header line as stored.
    pub raw: String,
    /// `id` as text.
    pub id: String,
    /// `version`.
    pub version: Option<i64>,
    /// `createdAt`, ms since the Unix epoch.
    pub created_at: Option<i64>,
    /// `cwd`.
    pub cwd: Option<String>,
    /// `parentSession`.
    pub parent_session: Option<String>,
    /// `seedLength`.
    pub seed_length: Option<i64>,
    /// `origin`.
    pub origin: Option<String>,
    /// `delegationDepth`.
    pub delegation_depth: Option<i64>,
    /// `agentPreset`.
    pub agent_preset: Option<String>,
}

/// An agent preset as `show` and `export` name it: the id, with a note when it is one DSH
/// later renamed. `code` became `ptc` at v3: the v2→v3 edge rewrites it in the header and
/// in every `agent-preset/selected` (GENERATIONS.md §6).
pub fn agent_preset_shown(preset: &str) -> String {
    match preset {
        "code" => "code, renamed ptc at v3".to_owned(),
        other => other.to_owned(),
    }
}
