//! Library of `dsh-session`.
pub mod check;
pub mod derive;
pub mod event;
pub mod fuzz;
pub mod header;
pub mod heal;
pub mod json;
pub mod load;
pub mod prices;
pub mod provenance;
pub mod provider;
pub mod repair;
pub mod replay;
pub mod rules;
pub mod scan;
pub mod view;
pub mod write;
