//! Provider readiness as a view (PROVIDERS.md; the rules themselves are in
//! [`crate::provider`]): once the log is read, the derived history the surface leaves is
//! checked as DSH's adapters would send it, and each P-finding joins the report's warnings.

use crate::json::Json;
use crate::rules::Rule;
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

/// The P-rules on the final derived history; tracks the request header's system prompt,
/// which OpenAI-compatible adapters send as message 0.
#[derive(Debug, Default)]
pub struct ProviderRules {
    system_prompt: bool,
}

impl View for ProviderRules {
    fn on_event(&mut self, event: &Checked<'_, '_>) {
        if let Some(system_prompt) = header_system_prompt(event) {
            self.system_prompt = system_prompt;
        }
    }

    /// Adds the P-findings to `report.warnings` when the log is not corrupt or refused. A
    /// P1 call of the open final turn says that a repair closes it; in a SQLite store a
    /// finding names the row (its seq column) instead of a line.
    fn finish(&mut self, report: &mut Report) {
        if report.finding.is_some() {
            return;
        }
        let pending = &report.open_turn.pending;
        let sqlite = report.session.is_some();
        let findings = report.replay.provider_findings(self.system_prompt);
        report.warnings.extend(findings.into_iter().map(|mut w| {
            let call = w.provider.as_ref().and_then(|p| p.call_id.as_deref());
            if w.rule == Rule::P1 && pending.iter().any(|p| Some(p.call_id.as_str()) == call) {
                w.message.push_str(
                    " (its turn is still open: `dsh-session repair` closes it as DSH would)",
                );
            }
            if sqlite {
                w.line_to_row();
            }
            w
        }));
    }
}
