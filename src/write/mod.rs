//! Making a repair durable: the only code in dsh-session that writes (FORMAT.md §5.4).
//!
//! A repair is planned from a scan that already checked "stored events + closers"
//! (`ScanOptions::append_closers`), then applied per backend, one file each ([`plain`],
//! [`zstd_jsonl`], [`sqlite`]; shared: [`mod@plan`], [`durable`]):
//!
//! * plain JSONL: truncate to the end of the last good line, fsync; append the closer
//!   lines in one write, fsync;
//! * zstd JSONL: truncate to the start of the torn frame, fsync; append one checksummed
//!   frame holding the lines recovered from the torn frame and the closers, fsync;
//! * SQLite: one `BEGIN IMMEDIATE` transaction that re-checks the schema and the row set,
//!   deletes the torn rows, inserts the closers and bumps `revision` (schema 17).
//!
//! Safety: nothing is written unless the scan found no corruption and no refusal; a
//! backup of the original is made first (fsynced, named `FILE.bak.<UTC timestamp>`);
//! size, mtime and a hash of the region to cut are re-checked right before writing, so a
//! live writer's appends are never overwritten. Each step is fsynced (file, then its
//! directory), and a crash between steps leaves a log that a second repair completes to
//! the same bytes: after the truncation the log has no torn tail and the same open turn,
//! and a half-written append is itself a torn tail.

pub mod durable;
pub mod journal;
pub mod plain;
pub mod plan;
pub mod sqlite;
pub mod zstd_jsonl;

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

pub use plan::{CRASH_EXIT, CRASH_HOOK, Journal, Plan, RepairError, journal_path};
pub use zstd_jsonl::zstd_frame;

use crate::event::Era;
use crate::heal;
use crate::load::Encoding;
use crate::load::sqlite::sidecar;
use crate::provider::Provider;
use crate::rules::Finding;
use crate::scan::{self, Report, ScanOptions, Status, TornTail};
use crate::view::heal_sources::HealSources;
use crate::view::provider::ProviderRules;
use crate::view::stats::Stats;
use durable::{crash_point, sync_dir};
use plan::{fingerprint, read_journal};

/// Scans the log and plans its repair.
///
/// # Errors
/// [`RepairError::Refused`] for a corrupt or refused log (including one whose closers
/// would not validate); scan errors.
pub fn plan(path: &Path, session: Option<&str>) -> Result<Plan, RepairError> {
    plan_healing(path, session, None)
}

/// Scans the log and plans its repair, and with `provider` the heals that make its derived
/// history pass that provider's P-rules ([`crate::heal`]): the heal records come after the
/// closers, and the log with both is validated in memory (DSH's rules and the provider's)
/// before the plan is returned.
///
/// # Errors
/// As [`plan()`]; [`RepairError::Heal`] when the healed log would not validate (nothing is
/// written then).
pub fn plan_healing(
    path: &Path,
    session: Option<&str>,
    provider: Option<Provider>,
) -> Result<Plan, RepairError> {
    plan_with(path, session, provider, false).map(|(plan, _)| plan)
}

/// [`plan_healing`] for `provider`, and the history the log would then derive: the report
/// of the scan that validated stored events + closers + heals, with its messages kept
/// (spilled to a temporary file past 2 MiB, [`ScanOptions::spill_texts`]). `None` for a log
/// whose repair journal is waiting to be completed (its plan resumes it; nothing was
/// scanned).
///
/// # Errors
/// As [`plan_healing`].
pub fn healed_history(
    path: &Path,
    session: Option<&str>,
    provider: Provider,
) -> Result<(Plan, Option<Report>), RepairError> {
    plan_with(path, session, Some(provider), true)
}

/// [`plan_healing`]; `keep_messages`: also the report of the last scan, keeping messages.
fn plan_with(
    path: &Path,
    session: Option<&str>,
    provider: Option<Provider>,
    keep_messages: bool,
) -> Result<(Plan, Option<Report>), RepairError> {
    if let Some(journal) = read_journal(path)? {
        let size = std::fs::metadata(path)?.len();
        if size < journal.offset {
            return Err(RepairError::Changed(format!(
                "the journal {} cuts at byte {} but the log has {size} bytes",
                journal_path(path).display(),
                journal.offset
            )));
        }
        let plan = Plan {
            path: path.to_path_buf(),
            session: None,
            encoding: journaled_encoding(path)?,
            cut: None,
            closers: Vec::new(),
            recovered: Vec::new(),
            backup: None,
            fingerprint: fingerprint(path, journal.offset)?,
            row_set: None,
            resume: Some(journal),
            stays: Vec::new(),
            heals: Vec::new(),
            unhealed: Vec::new(),
        };
        return Ok((plan, None));
    }
    let options = ScanOptions {
        session: session.map(str::to_owned),
        append_closers: true,
        keep_messages,
        spill_texts: keep_messages,
        ..ScanOptions::default()
    };
    // The provider rules say what stays after the closers; the turn rows say why.
    let mut turns = Stats::with_turn_rows();
    let mut rules = ProviderRules::default();
    let report = scan::scan_path_with(path, &options, &mut [&mut turns, &mut rules])?;
    let mut plan = plan_from_report(path, &report, &turns)?;
    let healed = match provider {
        Some(provider) => heal(&mut plan, &report, &turns, &options, provider)?,
        None => None,
    };
    let history = keep_messages.then(|| healed.unwrap_or(report));
    Ok((plan, history))
}

/// Adds the heals for `provider` to a plan made from `report` (a scan with the closers
/// folded), and checks the healed log: a second pass collects the messages the heals are
/// built from, a third validates stored events + closers + heals (its report is returned;
/// `None` when nothing needs healing).
fn heal(
    plan: &mut Plan,
    report: &Report,
    turns: &Stats,
    options: &ScanOptions,
    provider: Provider,
) -> Result<Option<Report>, RepairError> {
    let era = report.era.unwrap_or(Era::Head);
    let entries: Vec<heal::Entry> = (report.replay.iter_without_texts())
        .map(heal::Entry::from)
        .collect();
    let selection = heal::select(&entries, &report.warnings, provider, era);
    plan.unhealed = selection.unhealed.clone();
    let unhealed = |f: &Finding| {
        (selection.unhealed.iter()).any(|u| u.finding.seq == f.seq && u.finding.rule == f.rule)
    };
    if selection.is_empty() {
        plan.stays.retain(|s| !unhealed(&s.finding));
        return Ok(None);
    }
    let mut collect = HealSources::new(
        selection.source_seqs(&entries),
        selection.orphan_call_ids(&entries),
    );
    let sources = ScanOptions {
        keep_messages: false,
        spill_texts: false,
        ..options.clone()
    };
    scan::scan_path_with(&plan.path, &sources, &mut [&mut collect])?;
    let time = report.open_turn.last_time.unwrap_or_default();
    let heals = heal::records(
        &entries,
        &selection,
        &collect.sources,
        era,
        report.events,
        time,
    );
    let checked = ScanOptions {
        then_append: heals.iter().map(|h| h.record.clone()).collect(),
        ..options.clone()
    };
    let mut rules = ProviderRules::default();
    let healed = scan::scan_path_with(&plan.path, &checked, &mut [&mut rules])?;
    // Each pass reads the file again: a live writer's appends show as a different count.
    let want = report.events + heals.len() as u64;
    if healed.finding.is_none() && healed.events != want {
        return Err(RepairError::Changed(format!(
            "{} events were read while planning the heals, {} before",
            healed.events - heals.len() as u64,
            report.events
        )));
    }
    if let Some(finding) = &healed.finding {
        return Err(RepairError::Heal(format!(
            "{} {finding}",
            healed.status.name()
        )));
    }
    let stored_events = report.events - report.closers.len() as u64;
    let stays = crate::repair::staying(&healed.warnings, turns, stored_events);
    if let Some(left) = stays
        .iter()
        .find(|s| provider.enforces(s.finding.rule) && !unhealed(&s.finding))
    {
        return Err(RepairError::Heal(format!(
            "{} {} remains for {}",
            left.finding.rule.id(),
            left.finding.message,
            provider.name()
        )));
    }
    plan.stays = stays
        .into_iter()
        .filter(|s| !unhealed(&s.finding))
        .collect();
    plan.heals = heals;
    Ok(Some(healed))
}

fn plan_from_report(path: &Path, report: &Report, turns: &Stats) -> Result<Plan, RepairError> {
    if let (Status::Corrupt | Status::Refused, Some(finding)) =
        (report.status, report.finding.clone())
    {
        return Err(RepairError::Refused {
            status: report.status.name(),
            finding,
        });
    }
    let cut = report.torn.clone();
    let tail_from = match (&cut, report.encoding) {
        (_, Encoding::Sqlite) => 0,
        (Some(t), _) => t.offset,
        (None, _) => report.size.unwrap_or(0),
    };
    let recovered = match (&cut, report.encoding) {
        (Some(t), Encoding::Zstd) if t.recovered_lines > 0 => recovered_lines(path, t)?,
        _ => Vec::new(),
    };
    let row_set = match (&report.session, report.encoding) {
        (Some(session), Encoding::Sqlite) => Some(
            crate::load::sqlite::Store::open(path)
                .map_err(io::Error::other)?
                .row_set(session)?,
        ),
        _ => None,
    };
    let stored_events = report.events - report.closers.len() as u64;
    let stays = crate::repair::staying(&report.warnings, turns, stored_events);
    Ok(Plan {
        row_set,
        resume: None,
        stays,
        heals: Vec::new(),
        unhealed: Vec::new(),
        path: path.to_path_buf(),
        session: report.session.clone(),
        encoding: report.encoding,
        cut,
        closers: report.closers.clone(),
        recovered,
        backup: None,
        fingerprint: fingerprint(path, tail_from)?,
    })
}

/// The encoding of a log with a journal (plain or zstd JSONL), from its first bytes.
fn journaled_encoding(path: &Path) -> io::Result<Encoding> {
    let mut head = [0u8; 16];
    let n = File::open(path)?.read(&mut head)?;
    Ok(Encoding::detect(&head[..n], path))
}

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

/// A name for the backup that does not exist yet: `FILE.bak.<YYYYMMDDTHHMMSSZ>`, with
/// `.1`, `.2` … appended when needed.
fn backup_path(path: &Path) -> PathBuf {
    let stamp = humantime::format_rfc3339_seconds(SystemTime::now())
        .to_string()
        .replace(['-', ':'], "");
    let base = sidecar(path, &format!(".bak.{stamp}"));
    let mut candidate = base.clone();
    let mut n = 0;
    while candidate.exists() {
        n += 1;
        candidate = sidecar(&base, &format!(".{n}"));
    }
    candidate
}

/// Applies a plan. With `backup`, copies the original first.
///
/// # Errors
/// [`RepairError::Changed`] when the file changed since the scan; I/O and SQLite errors.
pub fn apply(plan: &mut Plan, backup: bool) -> Result<(), RepairError> {
    if plan.is_empty() {
        return Ok(());
    }
    let now = fingerprint(&plan.path, plan.fingerprint.tail_from)?;
    if now != plan.fingerprint {
        let what = if now.size != plan.fingerprint.size {
            format!("size {} → {}", plan.fingerprint.size, now.size)
        } else {
            "modification time or tail bytes differ".to_owned()
        };
        return Err(RepairError::Changed(what));
    }
    if backup {
        let to = backup_path(&plan.path);
        let made = || -> Result<(), RepairError> {
            if plan.encoding == Encoding::Sqlite {
                let conn = rusqlite::Connection::open_with_flags(
                    &plan.path,
                    rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
                )?;
                conn.backup(
                    rusqlite::MAIN_DB,
                    &to,
                    None::<fn(rusqlite::backup::Progress)>,
                )?;
            } else {
                std::fs::copy(&plan.path, &to)?;
            }
            File::open(&to)?.sync_all()?;
            Ok(sync_dir(&to)?)
        };
        // A backup that failed half way (a full disk) is not left behind.
        if let Err(e) = made() {
            let _ = std::fs::remove_file(&to);
            return Err(e);
        }
        plan.backup = Some(to);
    }
    crash_point("backup");
    match plan.encoding {
        // Heals in a plain log go through the journal, so that a crash in the middle of
        // the batch is completed to the same bytes (a partial batch would be planned again
        // differently); DSH's own two steps stay as DSH makes them.
        Encoding::Plain if plan.resume.is_some() => journal::apply_journaled(plan, &[]),
        Encoding::Plain if !plan.heals.is_empty() => {
            let mut batch: String = plan.appended().collect::<Vec<_>>().join("\n");
            batch.push('\n');
            journal::apply_journaled(plan, batch.as_bytes())
        }
        Encoding::Plain => plain::apply_plain(plan),
        Encoding::Zstd => zstd_jsonl::apply_zstd(plan),
        Encoding::Sqlite => sqlite::apply_repair(plan),
    }
}
