//! Per-event checks and the legacy conversions HEAD applies on load
//! (FORMAT.md §1.3 E0–E8, §2.2 U1, §2.5 M1–M8 / R1–R4 / L1–L3, §9.3 L4–L6).
//!
//! Every check looks at one event and returns the first rule it breaks, so that [`stages`]
//! can apply them in the stage order of §6.5: the envelope and the request header
//! ([`envelope`]), the message shapes ([`message`]), the legacy conversions ([`legacy`]).
//! [`header`] checks the header line and [`closers`] the closers DSH appends on load (§5.2).
//! This file holds what they share: the event after conversion ([`Logical`]) and how a
//! finding shows a value.

pub mod closers;
pub mod envelope;
pub mod foreign;
pub mod header;
pub mod legacy;
pub mod message;
pub mod stages;

use std::borrow::Cow;

use crate::event::Event;
use crate::json::{Fields, Json};
use crate::rules::Rule;

/// A rule broken by one event, with the one-line explanation (the scan adds seq and line).
pub type Broken = (Rule, String);

/// An event after the legacy conversions of FORMAT.md §9.3: the stored envelope with,
/// possibly, a new type and a rebuilt `data`.
#[derive(Debug, Clone)]
pub struct Logical<'a> {
    /// The stored event.
    pub ev: Event<'a>,
    /// The (converted) type, when `type` is a string.
    pub ty: Option<Cow<'a, str>>,
    /// The rebuilt `data` text, when a conversion changed it.
    data_owned: Option<String>,
    /// The message of a stored (unconverted) message event, looked up once.
    message_cache: Option<Json<'a>>,
    /// The fixed record of the stored `data`: its members read in one pass, for every
    /// stage after (the checks, the edges, the fold).
    fields: Fields<'a>,
    /// The fixed record of [`Logical::message`] when not converted.
    message_fields: Fields<'a>,
}

impl<'a> Logical<'a> {
    /// An event taken as stored, without conversion.
    pub fn stored(ev: Event<'a>) -> Self {
        let mut logical = Logical {
            ty: ev.type_name(),
            ev,
            data_owned: None,
            message_cache: None,
            fields: Fields::of(ev.data),
            message_fields: Fields::default(),
        };
        logical.cache_message();
        logical
    }

    fn cache_message(&mut self) {
        self.message_cache = match (self.data_owned.is_none(), self.ev.data) {
            (true, Some(data)) => match self.type_str() {
                "user/message" => Some(data),
                "assistant/message" | "tool/result" | "system/message" | "developer/message" => {
                    self.fields.get("message")
                }
                _ => None,
            },
            _ => None,
        };
        // `user/message`: the message is `data` itself, whose record is made.
        let at = |v: Option<Json<'_>>| v.map(|v| v.raw().as_ptr());
        self.message_fields = if at(self.message_cache) == at(self.ev.data) {
            self.fields
        } else {
            Fields::of(self.message_cache)
        };
    }

    /// The fixed record of [`Logical::data`]: what [`Json::get`] gives on it, read from
    /// the record made once per event (a rebuilt `data` is looked up by name).
    pub fn data_fields(&self) -> Fields<'_> {
        match &self.data_owned {
            Some(_) => Fields::of(self.data()),
            None => self.fields,
        }
    }

    /// The records of the stored `data` and of its message, borrowed; `None` for a
    /// converted event, whose records [`Logical::data_fields`] and
    /// [`Logical::message_fields`] make.
    pub fn stored_records(&self) -> Option<(&Fields<'a>, &Fields<'a>)> {
        self.data_owned
            .is_none()
            .then_some((&self.fields, &self.message_fields))
    }

    /// The fixed record of [`Logical::message`].
    pub fn message_fields(&self) -> Fields<'_> {
        match &self.data_owned {
            Some(_) => Fields::of(self.message()),
            None => self.message_fields,
        }
    }

    /// `data` after conversion.
    pub fn data(&self) -> Option<Json<'_>> {
        match &self.data_owned {
            Some(text) => Some(Json::from_valid(text)),
            None => self.ev.data,
        }
    }

    /// The converted type, or `""` when `type` is not a string.
    pub fn type_str(&self) -> &str {
        self.ty.as_deref().unwrap_or("")
    }

    /// True when a conversion rebuilt the event.
    pub fn is_converted(&self) -> bool {
        self.data_owned.is_some()
    }

    /// The message the event carries, for the three message types: `data` itself for
    /// `user/message`, `data.message` for `assistant/message` and `tool/result`.
    pub fn message(&self) -> Option<Json<'_>> {
        if self.data_owned.is_none() {
            return self.message_cache;
        }
        let data = self.data()?;
        match self.type_str() {
            "user/message" => Some(data),
            "assistant/message" | "tool/result" | "system/message" | "developer/message" => {
                data.get("message")
            }
            _ => None,
        }
    }
}

/// Short rendering of an optional value for messages: `absent` or the raw text, cut.
pub fn shown(v: Option<Json<'_>>) -> String {
    match v {
        None => "absent".into(),
        Some(v) => {
            let raw = v.raw();
            if raw.chars().count() > 60 {
                format!("{}…", raw.chars().take(60).collect::<String>())
            } else {
                raw.to_owned()
            }
        }
    }
}
