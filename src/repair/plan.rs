//! From a scan of the log with DSH's closers to a [`Repair`]: the torn tail to cut, the
//! closers to append, and the provider findings that stay (FORMAT.md §5.1, §5.4; PROVIDERS.md
//! §3); with a provider, the heals ([`crate::repair::healing`]).

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

use crate::load::Encoding;
use crate::provider::Provider;
use crate::repair::stays::staying;
use crate::repair::{Repair, RepairError, Scan, healing};
use crate::replay::Keep;
use crate::scan::{Report, ScanOptions, Status, TornTail};
use crate::view::provider::ProviderRules;
use crate::view::stats::Stats;
use crate::write;

/// Plans the repair of the log `scan` reads (at `path`): one pass with DSH's closers
/// folded, then, with `provider`, the heals. `keep_messages`: also returns the report of
/// the last pass, keeping the messages it derived.
///
/// # Errors
/// As [`crate::repair::plan()`].
pub fn planned(
    path: &Path,
    session: Option<&str>,
    provider: Option<Provider>,
    keep_messages: bool,
    scan: &mut Scan<'_>,
) -> Result<(Repair, Option<Report>), RepairError> {
    let options = ScanOptions {
        session: session.map(str::to_owned),
        append_closers: true,
        ..ScanOptions::default()
    };
    // The history's messages wait in a temporary file past 2 MiB.
    let mut keep = if keep_messages {
        Keep::MESSAGES
    } else {
        Keep::NOTHING
    };
    // The provider rules say what stays after the closers; the turn rows say why.
    let mut turns = Stats::with_turn_rows();
    let mut rules = ProviderRules::default();
    let report = scan(&options, &mut [&mut turns, &mut rules, &mut keep])?;
    let mut repair = from_scan(path, &report, &turns)?;
    let healed = match provider {
        Some(provider) => {
            let healed = healing::heals_for(&report, &turns, &options, keep, provider, scan)?;
            healing::heal(&mut repair, healed)
        }
        None => None,
    };
    let history = keep_messages.then(|| healed.unwrap_or(report));
    Ok((repair, history))
}

/// The repair of a log from `report`, a scan that folded the closers (with `turns`, its
/// turn rows): refused for a corrupt or refused log; else cut the torn tail, append the
/// closers, and say what stays.
///
/// # Errors
/// [`RepairError::Refused`]; reading what the writer must find again.
pub fn from_scan(path: &Path, report: &Report, turns: &Stats) -> Result<Repair, RepairError> {
    if let (Status::Corrupt | Status::Refused | Status::Foreign, Some(finding)) =
        (report.status, report.finding.clone())
    {
        return Err(RepairError::Refused {
            status: report.status.name(),
            finding,
        });
    }
    let cut = report.torn.clone();
    // The writer re-hashes what it cuts, or (nothing cut) checks that nothing was appended.
    let tail_from = match (&cut, report.encoding) {
        (_, Encoding::Sqlite) => 0,
        (Some(t), _) => t.offset,
        (None, _) => report.size.unwrap_or(0),
    };
    let mut plan = write::Plan::new(
        path,
        report.session.clone(),
        report.encoding,
        cut.as_ref().map(|t| t.offset),
        tail_from,
    )?;
    plan.recovered = match (&cut, report.encoding) {
        (Some(t), Encoding::Zstd) if t.recovered_lines > 0 => recovered_lines(path, t)?,
        _ => Vec::new(),
    };
    plan.closers = report.closers.clone();
    let stored_events = report.events - report.closers.len() as u64;
    Ok(Repair {
        plan,
        cut,
        heals: Vec::new(),
        stays: staying(&report.warnings, turns, stored_events),
        unhealed: Vec::new(),
    })
}

/// The complete lines of a torn zstd frame, which the repair writes again (FORMAT.md §5.4).
fn recovered_lines(path: &Path, torn: &TornTail) -> io::Result<Vec<String>> {
    let mut file = File::open(path)?;
    file.seek(SeekFrom::Start(torn.offset))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    let plain = crate::load::decode_torn_frame(&bytes);
    Ok(plain
        .split(|b| *b == b'\n')
        .take(torn.recovered_lines as usize)
        .map(|l| String::from_utf8_lossy(l).into_owned())
        .collect())
}
