//! The entries `surface` lists (FORMAT.md §3): the final surface, or the surface right
//! after one seq (`--at`), and with `--all` the shadowed entries too, in seq order, each
//! with the replace that shadowed it. Entries are read back one at a time from what the
//! scan kept (previews past 2 MiB wait in a temporary file).

use std::collections::HashMap;
use std::io;
use std::path::Path;

use crate::replay::{Keep, Replay, SurfaceEntry};
use crate::scan::{Report, ScanError, ScanOptions, scan_path_with};
use crate::view::View;
use crate::view::replacements::Replacements;
use crate::view::surface_at::SurfaceAt;

/// One listed entry: its position on the surface (`None`: shadowed), the replace that
/// shadowed it, and the entry.
pub type Listed = (Option<usize>, Option<u64>, SurfaceEntry);

/// What the scan for a listing computes: the snapshot at `--at`, and the replaces.
pub type Scanned = (SurfaceAt, Replacements);

/// Scans the log at `path` for a listing: previews kept (shadowed entries' too with
/// `all`), the surface taken at `at`, and with `all` the replaces' details (which replace
/// shadowed each entry).
///
/// # Errors
/// As [`scan_path_with`].
pub fn scan(
    path: &Path,
    options: &ScanOptions,
    at: Option<u64>,
    all: bool,
) -> Result<(Report, Scanned), ScanError> {
    let mut keep = Keep {
        shadowed: all,
        ..Keep::PREVIEWS
    };
    let mut snapshot = SurfaceAt::new(at.unwrap_or_default(), keep);
    let mut replacements = Replacements::default();
    let mut views: Vec<&mut dyn View> = match at {
        Some(_) => vec![&mut snapshot],
        None => vec![&mut keep],
    };
    if all {
        views.push(&mut replacements);
    }
    let report = scan_path_with(path, options, &mut views)?;
    Ok((report, (snapshot, replacements)))
}

/// Why there is nothing to list.
#[derive(Debug, thiserror::Error)]
pub enum ListError {
    /// `--at` names a seq past the log's last replayed one (`None`: no events).
    #[error("--at {at} is beyond the log: its last replayed seq is {}", last.map_or("none".into(), |s| s.to_string()))]
    Beyond {
        /// The seq asked for.
        at: u64,
        /// The last replayed seq.
        last: Option<u64>,
    },
    /// A kept entry could not be read back from its temporary file.
    #[error(transparent)]
    ReadBack(#[from] io::Error),
}

/// The entries to list, read back on demand ([`Listing::entries`]).
pub struct Listing<'a> {
    replay: &'a Replay,
    /// With `--at`: the snapshot's entries (and the shadowed ones, with `--all`).
    snapshot: Option<Vec<Listed>>,
    /// Without `--at`, with `--all`: every entry's seq, position and shadowing replace.
    by_seq: Vec<(u64, Option<usize>, Option<u64>)>,
    all: bool,
}

/// The listing of the scan's `report` and `scanned` ([`scan`]), at `at`, with `all`.
///
/// # Errors
/// [`ListError::Beyond`] for an `at` past the log; [`ListError::ReadBack`].
pub fn listing(
    report: &Report,
    (snapshot, replacements): Scanned,
    at: Option<u64>,
    all: bool,
) -> Result<Listing<'_>, ListError> {
    let replay = &report.replay;
    // A node leaves the surface once, so each shadowed seq has one replacement.
    let until = at.unwrap_or(u64::MAX);
    let shadowed_by: HashMap<u64, u64> = match all {
        true => (replacements.list.iter())
            .filter(|r| r.seq <= until)
            .flat_map(|r| r.shadowed.iter().map(move |s| (*s, r.seq)))
            .collect(),
        false => HashMap::new(),
    };
    // With --at, the snapshot the scan took; with --all, the entries in seq order, listed
    // by seq and read back one at a time.
    let snapshot: Option<Vec<Listed>> = match at {
        None => None,
        Some(at) => {
            let Some(entries) = snapshot.entries else {
                return Err(ListError::Beyond {
                    at,
                    last: report.events.checked_sub(1),
                });
            };
            let mut listed: Vec<Listed> = (entries?.into_iter().enumerate())
                .map(|(i, e)| (Some(i), None, e))
                .collect();
            if all {
                for e in replay.shadowed_entries()? {
                    if let Some(by) = shadowed_by.get(&e.seq) {
                        listed.push((None, Some(*by), e));
                    }
                }
                listed.sort_by_key(|(_, _, e)| e.seq);
            }
            Some(listed)
        }
    };
    let by_seq = match (&snapshot, all) {
        (None, true) => {
            let mut order: Vec<_> = (replay.seqs().into_iter().enumerate())
                .map(|(i, seq)| (seq, Some(i), None))
                .chain(
                    (replay.shadowed_seqs())
                        .filter_map(|seq| shadowed_by.get(&seq).map(|by| (seq, None, Some(*by)))),
                )
                .collect();
            order.sort_unstable_by_key(|(seq, _, _)| *seq);
            order
        }
        _ => Vec::new(),
    };
    Ok(Listing {
        replay,
        snapshot,
        by_seq,
        all,
    })
}

impl Listing<'_> {
    /// The entries in order, each read back as it comes.
    pub fn entries(&self) -> Box<dyn Iterator<Item = io::Result<Listed>> + '_> {
        match (&self.snapshot, self.all) {
            (Some(listed), _) => Box::new(listed.iter().cloned().map(Ok)),
            (None, false) => {
                Box::new((self.replay.iter().enumerate()).map(|(i, e)| Ok((Some(i), None, e?))))
            }
            (None, true) => Box::new(self.by_seq.iter().map(|&(seq, p, by)| {
                let e = self
                    .replay
                    .entry_by_seq(seq)
                    .unwrap_or_else(|| Err(io::Error::other(format!("seq {seq} is not kept"))));
                Ok((p, by, e?))
            })),
        }
    }
}
