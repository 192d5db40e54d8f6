//! Repairing a `.jsonl.zstd` log through a journal: cut the torn frame, append one
//! checksummed frame with the recovered lines and the closers (FORMAT.md §5.4, §7.5).

use std::io::{self, Write};

use crate::write::journal::apply_journaled;
use crate::write::plan::{Plan, WriteError};

/// zstd: the recovered lines of the torn frame are only in the torn frame, so the cut is
/// journaled first ([`apply_journaled`]): one new checksummed frame holds the recovered
/// lines, the closers and any heals.
pub fn apply_zstd(plan: &Plan) -> Result<(), WriteError> {
    if plan.resume.is_some() {
        return apply_journaled(plan, &[]);
    }
    let mut plain = String::new();
    for line in plan
        .recovered
        .iter()
        .map(String::as_str)
        .chain(plan.appended())
    {
        plain.push_str(line);
        plain.push('\n');
    }
    let frame = if plain.is_empty() {
        Vec::new()
    } else {
        zstd_frame(plain.as_bytes())?
    };
    apply_journaled(plan, &frame)
}

/// One standard zstd frame with the content checksum, at the default level (§7.5).
pub fn zstd_frame(plain: &[u8]) -> io::Result<Vec<u8>> {
    let mut encoder = zstd::stream::Encoder::new(Vec::new(), zstd::DEFAULT_COMPRESSION_LEVEL)?;
    encoder.include_checksum(true)?;
    encoder.include_contentsize(true)?;
    encoder.set_pledged_src_size(Some(plain.len() as u64))?;
    encoder.write_all(plain)?;
    encoder.finish()
}
