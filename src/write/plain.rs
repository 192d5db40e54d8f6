//! Repairing a plain JSONL log: cut the torn tail, append the closers (FORMAT.md §5.4).

use std::fs::OpenOptions;

use crate::write::durable::{append, truncate};
use crate::write::plan::{Plan, WriteError};

pub fn apply_plain(plan: &Plan) -> Result<(), WriteError> {
    let file = match plan.cut_at {
        Some(at) => truncate(&plan.path, at)?,
        None => OpenOptions::new().write(true).open(&plan.path)?,
    };
    let records: Vec<&str> = plan.appended().collect();
    if !records.is_empty() {
        let mut batch = records.join("\n");
        batch.push('\n');
        append(file, batch.as_bytes(), &plan.path)?;
    }
    Ok(())
}
