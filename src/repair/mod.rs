//! Crash repair, the planning half (FORMAT.md §5): from a finished scan, what a repair cuts
//! and appends, and why findings stay. The closers themselves are a load-time check
//! ([`crate::check::closers`]); making a plan durable is [`crate::write`]'s.

pub mod stays;
