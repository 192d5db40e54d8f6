//! Library of `dsh-session`.
pub mod json;
pub mod check;
pub mod event;
pub mod load;
pub mod replay;
pub mod rules;
pub mod derive;
pub mod layout;
pub mod header;
pub mod scan;
pub mod sqlite;
