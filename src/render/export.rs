//! How `export` says what it wrote: a site's summary, and each session of a store exported
//! as JSONL.

use std::io::Write;
use std::path::Path;

use dsh_session::export::jsonl::Outcome;
use dsh_session::export::site::Summary;
use dsh_session::wording::count;

/// A site's summary (`DIR: N sessions in the site; …`) and where to open it.
///
/// # Errors
/// A write error.
pub fn site(out: &mut dyn Write, dir: &Path, summary: &Summary) -> std::io::Result<()> {
    writeln!(
        out,
        "{}: {} in the site; {} written, {} unchanged, {} removed; index {}",
        dir.display(),
        count(summary.sessions as u64, "session"),
        count(summary.written.len() as u64, "page"),
        summary.kept,
        summary.removed.len(),
        if summary.index_written {
            "written"
        } else {
            "unchanged"
        }
    )?;
    writeln!(out, "open {}", dir.join("index.html").display())
}

/// One line per session of the store `name` written, and the count; the sessions not
/// exported are returned, one line each (`NAME: session ID: not exported: WHY`), for
/// standard error.
///
/// # Errors
/// A write error.
pub fn store(
    out: &mut dyn Write,
    name: &str,
    outcomes: &[Outcome],
) -> std::io::Result<Vec<String>> {
    let (mut written, mut refused) = (0, Vec::new());
    for outcome in outcomes {
        match outcome {
            Outcome::Written {
                session,
                path,
                events,
                records,
            } => {
                written += 1;
                writeln!(
                    out,
                    "{session}: wrote {} ({events} events in {records} records); valid, messages and surface equal the store's",
                    path.display()
                )?;
            }
            Outcome::Refused { session, reason } => {
                refused.push(format!("{name}: session {session}: not exported: {reason}"));
            }
        }
    }
    writeln!(out, "{written} exported, {} not exported", refused.len())?;
    Ok(refused)
}
