//! How costs and counts are written lives in [`dsh_session::prices::money`]; the commands
//! that write them (`show`, `export`) reach it here too.

pub use dsh_session::prices::money::{cost_json, cost_text};
pub use dsh_session::stats::{session_total, session_view};
