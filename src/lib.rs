//! Library of `dsh-session`. A session travels one way through it (STYLE.md): [`load`]
//! reads bytes into records (it alone looks at paths), [`check`] turns each into a checked
//! event in DSH's stage order, [`replay`] folds the surface and tells each change, and the
//! [`view`]s a command composes consume events and changes; [`scan`] drives that pass.
//! [`repair`] plans a repair from such passes (what to cut and append, the heals
//! [`heal`] builds, why findings stay) and writes nothing; so does [`recover`], which plans
//! new sessions from a log DSH refuses; [`mod@write`], the only module that writes, applies
//! the plans, one backend per file.
pub mod check;
pub mod derive;
pub mod edge;
pub mod event;
pub mod export;
pub mod follow;
pub mod fuzz;
pub mod header;
pub mod heal;
pub mod index;
pub mod json;
pub mod lineage;
pub mod load;
pub mod period;
pub mod prices;
pub mod provenance;
pub mod provider;
pub mod recover;
pub mod repair;
pub mod replay;
pub mod rules;
pub mod saved;
pub mod scan;
pub mod sessions;
pub mod stats;
pub mod tui;
pub mod validate;
pub mod varint;
pub mod version;
pub mod view;
pub mod wording;
pub mod write;
