//! Views: consumers of one scan's checked events and surface, each computing what one
//! command shows (STYLE.md "views").

pub mod nodes;
