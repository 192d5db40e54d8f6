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
    /// `parentSession`, `seedLength`, `origin`, `delegationDepth`.
    pub lineage: Lineage,
    /// `agentPreset`.
    pub agent_preset: Option<String>,
}

/// Where a session came from (FORMAT.md §6.3): the header fields a fork or a subagent's
/// session sets, as the header, the index (`sessions` table), `sessions --format json` and
/// `show --format json` (both flattened, in this order) carry them.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Lineage {
    /// `parentSession`: the session it was forked from (a subagent's: its parent).
    pub parent_session: Option<String>,
    /// `seedLength`: the number of leading events inherited from the parent at fork time.
    pub seed_length: Option<i64>,
    /// `origin`: `subagent` for a subagent's session.
    pub origin: Option<String>,
    /// `delegationDepth`: 0 for a top-level session.
    pub delegation_depth: Option<i64>,
}

impl Lineage {
    /// `seedLength` as a count of events: the leading events inherited from the parent;
    /// `None` when absent or negative.
    pub fn seed(&self) -> Option<u64> {
        self.seed_length.and_then(|n| u64::try_from(n).ok())
    }

    /// `subagent` for a subagent's session (`origin: "subagent"` or a delegation depth
    /// above 0), `fork` for one with a `parentSession`, else `None`.
    pub fn kind(&self) -> Option<&'static str> {
        if self.origin.as_deref() == Some("subagent")
            || self.delegation_depth.is_some_and(|d| d > 0)
        {
            Some("subagent")
        } else if self.parent_session.is_some() {
            Some("fork")
        } else {
            None
        }
    }
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
