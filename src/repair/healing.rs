//! The heals for a provider (`repair --provider`, PROVIDERS.md §3) added to a planned
//! repair, and the in-memory check of the healed log: what [`crate::heal`] chooses and
//! builds, from the passes of the scan it needs.

use crate::event::Era;
use crate::heal;
use crate::provider::Provider;
use crate::repair::stays::staying;
use crate::repair::{Repair, RepairError, Scan};
use crate::replay::{Keep, SurfaceEntry};
use crate::rules::Finding;
use crate::scan::{Report, ScanOptions};
use crate::view::heal_sources::HealSources;
use crate::view::provider::ProviderRules;
use crate::view::stats::Stats;

/// Adds `healed` ([`heals_for`] the log of `repair`) to the planned repair: its heals,
/// the findings no heal fixes and what stays; returns the report of the scan that
/// validated the healed log (`None` when nothing needed healing).
pub fn heal(repair: &mut Repair, healed: Healed) -> Option<Report> {
    repair.unhealed = healed.unhealed;
    match healed.stays {
        Some(stays) => repair.stays = stays,
        None => {
            let unhealed = &repair.unhealed;
            repair.stays.retain(|s| {
                !unhealed
                    .iter()
                    .any(|u| u.finding.seq == s.finding.seq && u.finding.rule == s.finding.rule)
            });
        }
    }
    repair.plan.heals = healed.heals.iter().map(|h| h.record.clone()).collect();
    repair.heals = healed.heals;
    healed.report
}

/// What healing a log for a provider gives ([`heals_for`]).
#[derive(Debug)]
pub struct Healed {
    /// The heal records to append after the closers, in order (empty: nothing to heal).
    pub heals: Vec<heal::Heal>,
    /// Findings no heal fixes, and why.
    pub unhealed: Vec<heal::Unhealed>,
    /// With heals: the provider findings the healed history still has, and why (those no
    /// heal fixes left out); `None` when nothing was healed.
    pub stays: Option<Vec<crate::repair::stays::Staying>>,
    /// With heals: the report of the scan that validated the healed log.
    pub report: Option<Report>,
}

/// The heals for `provider` of the log `scan` reads, from `report` (a scan of it with the
/// closers folded, `turns` its turn rows); what a repair ([`heal`]) and `recover
/// --provider` append after DSH's closers. The healed log is checked: a second pass
/// collects the messages the heals are built from, a third validates stored events +
/// closers + heals (its report is kept, with what `keep` says).
///
/// # Errors
/// [`RepairError::Heal`] when the healed log would not validate, or a finding the heals
/// should fix remains; [`RepairError::Changed`] when a pass read another number of events.
pub fn heals_for(
    report: &Report,
    turns: &Stats,
    options: &ScanOptions,
    keep: Keep,
    provider: Provider,
    scan: &mut Scan<'_>,
) -> Result<Healed, RepairError> {
    let era = report.era.unwrap_or(Era::Head);
    let entries: Vec<SurfaceEntry> = (report.replay.iter_without_texts()).collect();
    let selection = heal::select(&entries, &report.warnings, provider, era);
    let unhealed_list = selection.unhealed.clone();
    let unhealed = |f: &Finding| {
        (selection.unhealed.iter()).any(|u| u.finding.seq == f.seq && u.finding.rule == f.rule)
    };
    if selection.is_empty() {
        return Ok(Healed {
            heals: Vec::new(),
            unhealed: unhealed_list,
            stays: None,
            report: None,
        });
    }
    let mut collect = HealSources::new(
        selection.source_seqs(&entries),
        selection.orphan_call_ids(&entries),
    );
    scan(options, &mut [&mut collect])?;
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
    let mut keep = keep;
    let healed = scan(&checked, &mut [&mut rules, &mut keep])?;
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
    let stays = staying(&healed.warnings, turns, stored_events);
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
    let stays = stays
        .into_iter()
        .filter(|s| !unhealed(&s.finding))
        .collect();
    Ok(Healed {
        heals,
        unhealed: unhealed_list,
        stays: Some(stays),
        report: Some(healed),
    })
}
