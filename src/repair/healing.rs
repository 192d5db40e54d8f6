//! The heals for a provider (`repair --provider`, PROVIDERS.md §3) added to a planned
//! repair, and the in-memory check of the healed log: what [`crate::heal`] chooses and
//! builds, from the passes of the scan it needs.

use crate::event::Era;
use crate::heal;
use crate::provider::Provider;
use crate::repair::stays::staying;
use crate::repair::{Repair, RepairError, Scan};
use crate::replay::Keep;
use crate::rules::Finding;
use crate::scan::{Report, ScanOptions};
use crate::view::heal_sources::HealSources;
use crate::view::provider::ProviderRules;
use crate::view::stats::Stats;

/// Adds the heals for `provider` to a repair planned from `report` (a scan with the closers
/// folded), and checks the healed log: a second pass collects the messages the heals are
/// built from, a third validates stored events + closers + heals (its report is returned,
/// keeping what `keep` says; `None` when nothing needs healing).
///
/// # Errors
/// [`RepairError::Heal`] when the healed log would not validate, or a finding the heals
/// should fix remains; [`RepairError::Changed`] when a pass read another number of events.
pub fn heal(
    repair: &mut Repair,
    report: &Report,
    turns: &Stats,
    options: &ScanOptions,
    keep: Keep,
    provider: Provider,
    scan: &mut Scan<'_>,
) -> Result<Option<Report>, RepairError> {
    let era = report.era.unwrap_or(Era::Head);
    let entries: Vec<heal::Entry> = (report.replay.iter_without_texts())
        .map(heal::Entry::from)
        .collect();
    let selection = heal::select(&entries, &report.warnings, provider, era);
    repair.unhealed = selection.unhealed.clone();
    let unhealed = |f: &Finding| {
        (selection.unhealed.iter()).any(|u| u.finding.seq == f.seq && u.finding.rule == f.rule)
    };
    if selection.is_empty() {
        repair.stays.retain(|s| !unhealed(&s.finding));
        return Ok(None);
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
    repair.stays = stays
        .into_iter()
        .filter(|s| !unhealed(&s.finding))
        .collect();
    repair.plan.heals = heals.iter().map(|h| h.record.clone()).collect();
    repair.heals = heals;
    Ok(Some(healed))
}
