//! Publishing a derived session ([`Derived`]) through the one writer of new sessions
//! ([`crate::write::new_session::publish_read_back`], as `recover` publishes), reading it
//! back as the newest DSH and as the DSH that writes its generation read it: a file that
//! does not load is removed again.

use crate::edge::DshLine;
use crate::write::new_session::{NewFile, publish_read_back};
use crate::write::plan::WriteError;

use super::{Derived, file_would_not_load};

/// What became of a derived session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Published {
    /// Written, and it loads.
    Written,
    /// A dry run: it would be written.
    WouldWrite,
    /// Its path (or its id under the root) exists: nothing was written.
    Exists,
}

/// Why a derived session was not published.
#[derive(Debug, thiserror::Error)]
pub enum PublishError {
    /// Writing failed, or the path appeared between the plan and the write
    /// ([`WriteError::Exists`]).
    #[error(transparent)]
    Write(#[from] WriteError),
    /// Written, but it does not load (a defect of this tool): removed again.
    #[error("{path}: {problem}; the file was removed again (please report this)")]
    WouldNotLoad {
        /// The file written and removed.
        path: String,
        /// What the reading DSH says of it.
        problem: String,
    },
}

/// Publishes `d` (unless `dry_run`, or it exists), judged as `lines` read it.
///
/// # Errors
/// [`PublishError`]: the write failed, or what was written does not load.
pub fn publish(d: &Derived, lines: &[DshLine], dry_run: bool) -> Result<Published, PublishError> {
    if d.exists {
        return Ok(Published::Exists);
    }
    if dry_run {
        return Ok(Published::WouldWrite);
    }
    let file = NewFile {
        path: &d.path,
        text: &d.text,
        encoding: d.encoding,
    };
    match publish_read_back(&[file], &mut |path| file_would_not_load(path, lines)) {
        Ok(()) => Ok(Published::Written),
        Err(WriteError::NotLoaded { path, problem }) => Err(PublishError::WouldNotLoad {
            path: path.display().to_string(),
            problem,
        }),
        Err(e) => Err(e.into()),
    }
}
