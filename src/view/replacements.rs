//! Every committed replace of a log, in log order (FORMAT.md §3.1): `replacements`,
//! `surface --all`, `provenance` and `export` compose it. Built from the fold's surface
//! changes; a scan that does not compose it keeps only the replaces' number, so memory does
//! not grow with the log's history.

use std::path::Path;

use crate::replay::SurfaceChange;
use crate::scan::{Report, ScanError, ScanOptions, scan_path_with};
use crate::view::View;

/// The log at `path` scanned for its replaces alone (`replacements`).
///
/// # Errors
/// As [`scan_path_with`].
pub fn scan(path: &Path, options: &ScanOptions) -> Result<(Report, Replacements), ScanError> {
    let mut replacements = Replacements::default();
    let report = scan_path_with(path, options, &mut [&mut replacements])?;
    Ok((report, replacements))
}

/// One committed replace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replacement {
    /// 1 for the first replace of the log, then 2, 3 …
    pub generation: u64,
    /// The replacing event's seq.
    pub seq: u64,
    /// The replacing event's type.
    pub ty: String,
    /// Declared start seq.
    pub start: u64,
    /// Declared end seq.
    pub end: u64,
    /// The seqs removed from the surface, in surface order.
    pub shadowed: Vec<u64>,
    /// Surface length before the replace.
    pub len_before: usize,
    /// Surface length after the replace.
    pub len_after: usize,
}

/// Collects each replace's details as the fold commits it.
#[derive(Debug, Default)]
pub struct Replacements {
    /// The replaces, in log order.
    pub list: Vec<Replacement>,
}

impl View for Replacements {
    fn on_surface(&mut self, change: &SurfaceChange<'_>) {
        if let Some(r) = &change.replace {
            self.list.push(Replacement {
                generation: r.generation,
                seq: change.seq,
                ty: change.ty.to_owned(),
                start: r.start,
                end: r.end,
                shadowed: r.shadowed.to_vec(),
                len_before: r.len_before,
                len_after: r.len_after,
            });
        }
    }
}
