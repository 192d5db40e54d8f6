//! Provider readiness as a view (PROVIDERS.md; the rules themselves are in
//! [`crate::provider`]): once the log is read, the derived history the surface leaves is
//! checked as DSH's adapters would send it, and each P-finding joins the report's warnings.

use crate::json::Json;
use crate::replay::Replay;
use crate::rules::Finding;
use crate::scan::report::Report;
use crate::view::{Checked, View};

/// For a folded `request/header`: whether the header it puts in force has a system prompt
/// (which OpenAI-compatible adapters send as message 0); `None` for any other event.
pub(crate) fn header_system_prompt(event: &Checked<'_, '_>) -> Option<bool> {
    (event.folded && event.event.type_str() == "request/header").then(|| {
        event
            .event
            .data()
            .and_then(|d| d.get("header"))
            .and_then(|h| h.get("system"))
            .is_some_and(Json::is_nonempty_string)
    })
}

/// The P-rules on the history DSH sends after its own load: the stored events plus the
/// closers it appends to an open final turn (FORMAT.md §5.1), as `messages --provider`
/// derives it; tracks the request header's system prompt, which OpenAI-compatible adapters
/// send as message 0. A pending call of the open turn is therefore no finding: DSH answers
/// it before anything is sent.
#[derive(Debug, Default)]
pub struct ProviderRules {
    system_prompt: bool,
    /// The findings on the closed history, when DSH appends closers on load.
    closed: Option<Vec<Finding>>,
}

impl View for ProviderRules {
    fn on_event(&mut self, event: &Checked<'_, '_>) {
        if let Some(system_prompt) = header_system_prompt(event) {
            self.system_prompt = system_prompt;
        }
    }

    fn needs_closed_history(&self) -> bool {
        true
    }

    fn on_closed_history(&mut self, replay: &Replay) {
        self.closed = Some(replay.provider_findings(self.system_prompt));
    }

    /// Adds the P-findings to `report.warnings` when the log is not corrupt or refused. A
    /// finding about a closer (its seq after the stored events) has no line and says so;
    /// in a SQLite store a finding names the row (its seq column) instead of a line.
    fn finish(&mut self, report: &mut Report) {
        if report.finding.is_some() {
            return;
        }
        let sqlite = report.session.is_some();
        let stored = report.events;
        let findings = match self.closed.take() {
            Some(findings) => findings,
            None => report.replay.provider_findings(self.system_prompt),
        };
        report.warnings.extend(findings.into_iter().map(|mut w| {
            if w.seq.is_some_and(|seq| seq >= stored) {
                w.line = None;
                w.message
                    .push_str(" (in a closer DSH appends on load to end the open turn)");
            } else if let Some(answer) = w
                .provider
                .as_ref()
                .and_then(|p| p.answer_seq)
                .filter(|seq| *seq >= stored)
            {
                w.message.push_str(&format!(
                    " (seq {answer} is the closer DSH appends on load to end the open turn)"
                ));
            }
            if sqlite {
                w.line_to_row();
            }
            w
        }));
    }
}
