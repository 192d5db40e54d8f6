//! The message one event derives (`messages --seq`, `show --seq`, MCP `get_message`;
//! FORMAT.md §4), on the surface or shadowed by a replace, read from a scan that kept
//! messages and shadowed entries ([`KEEP`]).

use crate::replay::Keep;
use crate::scan::Report;

/// What the scan keeps for [`find`]: every entry's message, shadowed entries too.
pub const KEEP: Keep = Keep {
    shadowed: true,
    ..Keep::MESSAGES
};

/// The message one event derives ([`find`]), with where it stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OneMessage {
    /// The event's seq.
    pub seq: u64,
    /// The event's type (`user/message`, `assistant/message`, `tool/result` …).
    pub ty: String,
    /// The message's role, when it has one.
    pub role: Option<String>,
    /// False when a replace took it off the surface (compacted or pruned).
    pub on_surface: bool,
    /// The derived message, byte for byte as stored (FORMAT.md §4).
    pub message: String,
}

/// Why an event gives no message.
#[derive(Debug, thiserror::Error)]
pub enum NoMessage {
    /// No entry of the surface, on it or shadowed, has this seq (`events`: the log's).
    #[error("seq {seq} derives no message")]
    NotAnEntry {
        /// The seq asked for.
        seq: u64,
        /// Events in the log.
        events: u64,
    },
    /// The entry derives no message (its type).
    #[error("seq {seq} ({ty}) derives no message")]
    Derives {
        /// The seq asked for.
        seq: u64,
        /// Its type.
        ty: String,
    },
    /// A kept message could not be read back from its temporary file.
    #[error(transparent)]
    ReadBack(#[from] std::io::Error),
}

/// The message the event `seq` derives, from the `report` of a scan that kept [`KEEP`].
///
/// # Errors
/// [`NoMessage`]: no entry has that seq, it derives no message, or it cannot be read back.
pub fn find(report: &Report, seq: u64) -> Result<OneMessage, NoMessage> {
    let entry = (report.replay.entry_by_seq(seq)).ok_or(NoMessage::NotAnEntry {
        seq,
        events: report.events,
    })??;
    let Some(message) = entry.message else {
        return Err(NoMessage::Derives {
            seq,
            ty: entry.ty.into_owned(),
        });
    };
    Ok(OneMessage {
        seq,
        ty: entry.ty.into_owned(),
        role: entry.role.map(|r| r.into_owned()),
        on_surface: report.replay.contains(seq),
        message,
    })
}
