//! What the judged DSH line and platform decide at the header (`--dsh`, `--platform`):
//! a generation the line does not read (G10), a June 2026 header DSH 0.1.1's store does
//! not take (H4), a `cwd` absolute only on another platform (H8), and the notes a verdict
//! carries about builds and platforms (GENERATIONS.md §1.3, §3; FORMAT.md §6.3; the oracle,
//! ORACLE.md).

use crate::event::Era;
use crate::rules::{Finding, Rule};
use crate::scan::Report;

/// G10, and H4 for a June 2026 header: a log the judged DSH line does not read at all —
/// DSH 0.1.1's store reads only v0 and requires `delegationDepth`, DSH 0.1.5 and 0.1.6
/// refuse v4 as newer (GENERATIONS §1.3; the oracle's store and edges say so).
pub(crate) fn generation_gate(
    report: &Report,
    judged: crate::edge::DshLine,
    era: Era,
    sqlite: bool,
) -> Option<Finding> {
    use crate::edge::DshLine;
    if judged == DshLine::Writer {
        // The DSH that wrote the log reads its own generation.
        return None;
    }
    let line = report.dsh;
    let id = report.header.as_ref().map_or("", |h| h.id.as_str());
    let newer = |generation: u8, reads: &str| {
        Finding::new(
            Rule::G10,
            None,
            Some(1),
            format!(
                "session \"{id}\" uses log format v{generation}, but {} reads {reads}: the log was written by a newer harness (judge it with --dsh {})",
                line.name(),
                if generation == 4 {
                    "0.1.7"
                } else {
                    "0.1.5 or 0.1.7"
                }
            ),
        )
    };
    match (line, era) {
        (DshLine::V0_1_1, Era::V1) => Some(newer(1, "only v0")),
        (DshLine::V0_1_1, Era::V2) => Some(newer(2, "only v0")),
        (DshLine::V0_1_1, Era::V3) => Some(newer(3, "only v0")),
        (DshLine::V0_1_1, Era::V4) => Some(newer(4, "only v0")),
        (DshLine::V0_1_5, Era::V4) => Some(newer(
            4,
            "v0 to v3 (\"stored Session uses newer format v4; this build writes v3\")",
        )),
        (DshLine::V0_1_1, Era::June2026) if !sqlite => Some(Finding::new(
            Rule::H4,
            None,
            Some(1),
            "first line is not a session header: DSH 0.1.1-rc.2's store requires delegationDepth, which a June 2026 header lacks",
        )),
        _ => None,
    }
}

/// H8 (FORMAT.md §6.3): DSH checks `cwd` with Node's `path.isAbsolute` on the machine it
/// runs on, so a Windows `cwd` (`C:\…`, `\\server\…`) is refused by DSH on Linux and
/// macOS ("session header cwd must be an absolute path"; the v0→v1 edge: "format v0 header
/// cwd must be absolute") and loads on Windows. `None` when the judged platform
/// ([`crate::edge::Platform::judging`]) takes `cwd`.
pub(crate) fn platform_problem(cwd: &str) -> Option<String> {
    use crate::edge::Platform;
    if !crate::load::layout::is_windows_cwd(cwd)
        || Platform::judging(Some(cwd)) == Platform::Windows
    {
        return None;
    }
    Some(format!(
        "header cwd `{cwd}` is absolute only on Windows: DSH on Linux or macOS refuses the log (\"session header cwd must be an absolute path\"); on Windows it loads (--platform windows)"
    ))
}

/// The notes of a verdict ([`Report::notes`]): a Windows log judged on its writer's
/// platform (no `--platform`) loads there only; the shapes single DSH builds are known to refuse.
pub(crate) fn verdict_notes(report: &Report, packed_rows: bool) -> Vec<String> {
    use crate::edge::{DshLine, Platform};
    let mut notes = Vec::new();
    let cwd = report.header.as_ref().and_then(|h| h.cwd.as_deref());
    if let Some(cwd) = cwd
        && crate::load::layout::is_windows_cwd(cwd)
        && Platform::process_override().is_none()
    {
        notes.push(format!(
            "written on Windows: DSH on Linux or macOS refuses it (cwd `{cwd}` is not absolute there); on Windows it loads (--platform posix judges as Linux and macOS)"
        ));
    }
    let v0 = matches!(report.era, Some(Era::Head | Era::V0Alpha));
    if report.dsh == DshLine::V0_1_5 && v0 && report.session.is_none() {
        if packed_rows {
            notes.push("DSH 0.1.5-rc.1 refuses this log: it reads the packed text-chunks, reasoning-chunks and tool-call-chunks rows as unknown v0 event types (a known defect of that build; 0.1.5-rc.2 reads it)".to_owned());
        }
        notes.push("DSH 0.1.6-alpha.1 refuses this log: its header check demands isSeeded and calls every v0 header \"first line is not a session header\" (a known defect of that build; other 0.1.5 and 0.1.6 builds read it)".to_owned());
    }
    notes
}
