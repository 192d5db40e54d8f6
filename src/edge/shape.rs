//! The value checks the frozen validators are built from (GENERATIONS §4; the helpers of
//! `packages/session/session-format-v0-to-v1/src/payload-validation.ts` and
//! `validation-helpers.ts`, tenyi/deepseek-harness @ `77afa3438160c9b45d81277b1fa64e9edcd9416d`),
//! with their wording, so that a refusal reads as DSH's own.
//!
//! A [`Label`] is the subject DSH names in a message (`todo/write 12 todos[0] status`). It
//! is built on the stack and only formatted when a check fails, so checking a valid log
//! allocates nothing.

use std::fmt;

use crate::json::{Fields, Json, Kind, SlotMask, key_position};
use crate::rules::Rule;

/// Why an edge refuses a log: the rule, and DSH's words for it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Refusal {
    /// The rule of the F family this refusal falls under (saved by its id).
    #[serde(with = "rule_id")]
    pub rule: Rule,
    /// What DSH says, with the subject it names (seqs are the stored ones).
    pub detail: String,
}

/// A rule in a saved edge state ([`crate::edge::Edges::save`]): its id.
mod rule_id {
    use crate::rules::Rule;

    pub fn serialize<S: serde::Serializer>(rule: &Rule, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(rule.id())
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Rule, D::Error> {
        let id = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(d)?;
        Rule::from_id(&id).ok_or_else(|| serde::de::Error::custom(format!("no rule {id}")))
    }
}

/// The result of one frozen check.
pub type Checked<T = ()> = Result<T, Refusal>;

/// A refusal of the members of an object (F2).
pub fn members_refused(detail: String) -> Refusal {
    Refusal {
        rule: Rule::F2,
        detail,
    }
}

/// A refusal of a value (F3).
pub fn value_refused(detail: String) -> Refusal {
    Refusal {
        rule: Rule::F3,
        detail,
    }
}

/// The subject of a check, as DSH words it: `<type> <seq>`, then members joined by spaces
/// and array positions in brackets.
#[derive(Clone, Copy)]
pub enum Label<'a> {
    /// An event: `<type> <seq>`.
    Event(&'a str, u64),
    /// Free text (`released v0 physical header`).
    Text(&'a str),
    /// The data of an event as the v2→v3 edge names it: `format v2 <type> at seq <seq> data`.
    V2Data(&'a str, u64),
    /// A member or a phrase after the parent: `<parent> <name>`.
    Field(&'a Label<'a>, &'a str),
    /// An array member: `<parent>[<index>]`.
    Index(&'a Label<'a>, usize),
    /// A path step written without a space: `<parent><suffix>` (`….content`).
    Path(&'a Label<'a>, &'a str),
}

impl<'a> Label<'a> {
    /// `self <name>`.
    pub fn at(&'a self, name: &'a str) -> Label<'a> {
        Label::Field(self, name)
    }

    /// `self[index]`.
    pub fn nth(&'a self, index: usize) -> Label<'a> {
        Label::Index(self, index)
    }

    /// `self<suffix>`.
    pub fn then(&'a self, suffix: &'a str) -> Label<'a> {
        Label::Path(self, suffix)
    }
}

impl fmt::Display for Label<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Label::Event(ty, seq) => write!(f, "{ty} {seq}"),
            Label::Text(text) => f.write_str(text),
            Label::V2Data(ty, seq) => write!(f, "format v2 {ty} at seq {seq} data"),
            Label::Field(parent, name) => write!(f, "{parent} {name}"),
            Label::Index(parent, index) => write!(f, "{parent}[{index}]"),
            Label::Path(parent, suffix) => write!(f, "{parent}{suffix}"),
        }
    }
}

/// `releasedV0Record`: the value must be a JSON object.
pub fn record<'j>(value: Option<Json<'j>>, label: &Label<'_>) -> Checked<Json<'j>> {
    match value {
        Some(v) if v.is_object() => Ok(v),
        _ => Err(value_refused(format!("{label} must be a JSON object"))),
    }
}

/// True for a key JavaScript orders first in `Object.keys` (an array index: a canonical
/// decimal below 2^32 - 1).
fn is_index_key(key: &str) -> bool {
    !key.is_empty()
        && key.len() <= 10
        && key.bytes().all(|b| b.is_ascii_digit())
        && (key == "0" || !key.starts_with('0'))
        && key.parse::<u64>().is_ok_and(|n| n < u64::from(u32::MAX))
}

/// The first key of `object` in `Object.keys` order (array-index keys first, ascending,
/// then the others as stored) for which `wanted` holds.
pub fn first_key(object: Json<'_>, wanted: impl Fn(&str) -> bool) -> Option<String> {
    let mut index_key: Option<(u64, String)> = None;
    let mut other: Option<String> = None;
    for (k, _) in object.members() {
        let key = k.as_str().unwrap_or_default();
        if !wanted(&key) {
            continue;
        }
        if is_index_key(&key) {
            let n = key.parse::<u64>().unwrap_or(u64::MAX);
            if index_key.as_ref().is_none_or(|(m, _)| n < *m) {
                index_key = Some((n, key.into_owned()));
            }
        } else if other.is_none() {
            other = Some(key.into_owned());
        }
    }
    index_key.map(|(_, k)| k).or(other)
}

/// `assertReleasedV0Keys`: no member outside `required` and `optional` (the first one
/// named), then every `required` member present (the first missing one named).
pub fn exact_keys(
    object: Json<'_>,
    required: &[&str],
    optional: &[&str],
    label: &Label<'_>,
) -> Checked {
    exact_keys_waiving(object, required, 0, [optional, &[]], label)
}

/// [`exact_keys`] where the members of `required` at the bits of `waived` may be absent
/// (the edge supplies them), and either list of `optional` may be present: the member
/// lists of a payload as the edge adjusts them, without building new lists per event.
pub fn exact_keys_waiving(
    object: Json<'_>,
    required: &[&str],
    waived: u64,
    optional: [&[&str]; 2],
    label: &Label<'_>,
) -> Checked {
    // One pass over the members for a valid object (the common case); the messages, which
    // name keys in JavaScript's order, only when something is wrong.
    debug_assert!(required.len() < 64, "a bit per required member");
    let is_optional = |key: &str| optional.iter().any(|list| list.contains(&key));
    let mut seen = 0u64;
    let mut unexpected = false;
    for key in object.key_bodies() {
        match key_position(key, required) {
            Some(i) => seen |= 1 << i,
            None => {
                unexpected |= optional
                    .iter()
                    .all(|list| key_position(key, list).is_none());
            }
        }
    }
    let all = (1u64 << required.len()) - 1;
    if !unexpected && (seen | waived) & all == all {
        return Ok(());
    }
    if let Some(key) = first_key(object, |k| !required.contains(&k) && !is_optional(k)) {
        return Err(members_refused(format!(
            "{label} has unexpected member {}",
            js_quote(&key)
        )));
    }
    let missing = required
        .iter()
        .enumerate()
        .find(|&(i, k)| waived & (1 << i) == 0 && !object.has(k));
    if let Some((_, missing)) = missing {
        return Err(members_refused(format!(
            "{label} lacks required member {}",
            js_quote(missing)
        )));
    }
    Ok(())
}

/// An exact member list with the mask of its names' slots in the fixed record, made when
/// this crate is compiled ([`members!`]).
#[derive(Clone, Copy)]
pub struct Members {
    /// The names.
    pub names: &'static [&'static str],
    /// Their slots ([`Fields::has_exactly`]).
    pub mask: SlotMask,
}

impl Members {
    /// The list of `names`, with its mask.
    pub const fn new(names: &'static [&'static str]) -> Members {
        Members {
            names,
            mask: SlotMask::of(names),
        }
    }
}

/// A [`Members`] list made when this crate is compiled: `members!["type", "text"]`.
macro_rules! members {
    ($($name:literal),* $(,)?) => {
        const { $crate::edge::shape::Members::new(&[$($name),*]) }
    };
}
pub(crate) use members;

/// [`exact_keys`] on an object whose fixed record is at hand: decided from the record's
/// mask of present members when every member's name has a slot (no key compared), by
/// [`exact_keys`] otherwise and for the message of a refusal.
#[inline]
pub fn exact_fields(
    object: Json<'_>,
    fields: &Fields<'_>,
    required: Members,
    optional: Members,
    label: &Label<'_>,
) -> Checked {
    debug_assert_eq!(fields.value(), Some(object), "the record of the object");
    if fields.has_exactly(required.mask, optional.mask) == Some(true) {
        return Ok(());
    }
    exact_keys(object, required.names, optional.names, label)
}

/// `exactRecord`: an object with exactly these members.
pub fn exact_record<'j>(
    value: Option<Json<'j>>,
    label: &Label<'_>,
    required: &[&str],
    optional: &[&str],
) -> Checked<Json<'j>> {
    let object = record(value, label)?;
    exact_keys(object, required, optional, label)?;
    Ok(object)
}

/// `JSON.stringify` of a string, for messages.
pub fn js_quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    crate::json::write_js_string(&mut out, text);
    out
}

/// `stringValue`.
pub fn string(value: Option<Json<'_>>, label: &Label<'_>) -> Checked {
    match value {
        Some(v) if v.kind() == Kind::String => Ok(()),
        _ => Err(value_refused(format!("{label} must be a string"))),
    }
}

/// `nonEmptyString`.
pub fn nonempty(value: Option<Json<'_>>, label: &Label<'_>) -> Checked {
    match value {
        Some(v) if v.is_nonempty_string() => Ok(()),
        _ => Err(value_refused(format!("{label} must be a non-empty string"))),
    }
}

/// `booleanValue`.
pub fn boolean(value: Option<Json<'_>>, label: &Label<'_>) -> Checked {
    match value.and_then(Json::as_bool) {
        Some(_) => Ok(()),
        None => Err(value_refused(format!("{label} must be a boolean"))),
    }
}

/// `sessionFormatCount`: a non-negative safe integer, not `-0`.
pub fn count(value: Option<Json<'_>>, label: &Label<'_>) -> Checked<u64> {
    match value {
        Some(v) if v.kind() == Kind::Number && !v.is_negative_zero() => v
            .as_seq()
            .ok_or_else(|| value_refused(format!("{label} must be a non-negative safe integer"))),
        _ => Err(value_refused(format!(
            "{label} must be a non-negative safe integer"
        ))),
    }
}

/// [`count`] of a member of a fixed record, its integer read once when the record was
/// made ([`Fields::safe_integer`]); the zero, negative and missing cases by [`count`].
#[inline]
pub fn count_of(fields: &Fields<'_>, key: &str, label: &Label<'_>) -> Checked<u64> {
    match fields.safe_integer(key) {
        // A positive safe integer is a number and not `-0`.
        Some(n) if n > 0 => Ok(n.unsigned_abs()),
        _ => count(fields.get(key), label),
    }
}

/// `sessionFormatSafeInteger`: a safe integer, not `-0`.
pub fn safe_integer(value: Option<Json<'_>>, label: &Label<'_>) -> Checked<i64> {
    match value {
        Some(v) if v.kind() == Kind::Number && !v.is_negative_zero() => v
            .as_safe_integer()
            .ok_or_else(|| value_refused(format!("{label} must be a safe integer"))),
        _ => Err(value_refused(format!("{label} must be a safe integer"))),
    }
}

/// `positiveIntegerValue`.
pub fn positive(value: Option<Json<'_>>, label: &Label<'_>) -> Checked<u64> {
    let n = count(value, label)?;
    if n == 0 {
        return Err(value_refused(format!("{label} must be positive")));
    }
    Ok(n)
}

/// `finiteNumberValue`: a finite number, not `-0`.
pub fn finite(value: Option<Json<'_>>, label: &Label<'_>) -> Checked<f64> {
    match value
        .filter(|v| !v.is_negative_zero())
        .and_then(Json::as_f64)
    {
        Some(n) if n.is_finite() => Ok(n),
        _ => Err(value_refused(format!("{label} must be a finite number"))),
    }
}

/// One admitted literal of `literalValue`: a string, a number or `true`.
#[derive(Clone, Copy)]
pub enum Lit {
    /// A string.
    S(&'static str),
    /// A number.
    N(f64),
    /// `true`.
    True,
}

impl Lit {
    fn matches(self, v: Json<'_>) -> bool {
        match self {
            Lit::S(s) => v.str_eq(s),
            Lit::N(n) => v.kind() == Kind::Number && v.as_f64() == Some(n),
            Lit::True => v.as_bool() == Some(true),
        }
    }
}

impl fmt::Display for Lit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Lit::S(s) => f.write_str(s),
            Lit::N(n) => write!(f, "{n}"),
            Lit::True => f.write_str("true"),
        }
    }
}

/// `literalValue`: one of `allowed`.
pub fn literal(value: Option<Json<'_>>, allowed: &[Lit], label: &Label<'_>) -> Checked {
    if value.is_some_and(|v| allowed.iter().any(|a| a.matches(v))) {
        return Ok(());
    }
    let list = allowed
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    Err(value_refused(format!("{label} must be one of {list}")))
}

/// [`literal`] over strings.
pub fn one_of(value: Option<Json<'_>>, allowed: &[&'static str], label: &Label<'_>) -> Checked {
    if value.is_some_and(|v| allowed.iter().any(|a| v.str_eq(a))) {
        return Ok(());
    }
    Err(value_refused(format!(
        "{label} must be one of {}",
        allowed.join(", ")
    )))
}

/// `arrayValue`: an array, each member checked with its `label[i]`.
pub fn array<'j>(
    value: Option<Json<'j>>,
    label: &Label<'_>,
    mut each: impl FnMut(Json<'j>, &Label<'_>) -> Checked,
) -> Checked<Json<'j>> {
    let Some(array) = value.filter(|v| v.is_array()) else {
        return Err(value_refused(format!("{label} must be an array")));
    };
    for (i, member) in array.elements().enumerate() {
        each(member, &label.nth(i))?;
    }
    Ok(array)
}

/// `earlierSeq`: a count below the event's own seq.
pub fn earlier(value: Option<Json<'_>>, event_seq: u64, label: &Label<'_>) -> Checked<u64> {
    let seq = count(value, label)?;
    if seq >= event_seq {
        return Err(value_refused(format!(
            "{label} must identify an earlier event"
        )));
    }
    Ok(seq)
}

/// `seqArray`: unique earlier seqs, non-empty when asked.
pub fn seq_array(
    value: Option<Json<'_>>,
    event_seq: u64,
    label: &Label<'_>,
    nonempty: bool,
) -> Checked<Vec<u64>> {
    let mut seqs = Vec::new();
    array(value, label, |member, member_label| {
        let seq = earlier(Some(member), event_seq, member_label)?;
        if seqs.contains(&seq) {
            return Err(value_refused(format!("{label} repeats seq {seq}")));
        }
        seqs.push(seq);
        Ok(())
    })?;
    if nonempty && seqs.is_empty() {
        return Err(value_refused(format!("{label} must be non-empty")));
    }
    Ok(seqs)
}

/// Runs `check` unless the value is `undefined` (absent).
pub fn optional(
    value: Option<Json<'_>>,
    check: impl FnOnce(Option<Json<'_>>) -> Checked,
) -> Checked {
    match value {
        None => Ok(()),
        some => check(some),
    }
}

/// A `sourceEventSeqs` list as the frozen codecs decode it: plain seqs, and `[start, end]`
/// pairs expanded (GENERATIONS §1.5; a list the codec refuses is refused earlier, by the
/// checks of DSH 0.1.1 or the generation's own).
pub fn seq_list(value: Option<Json<'_>>) -> Vec<u64> {
    seqs(value).collect()
}

/// [`seq_list`], one seq at a time (nothing allocated).
pub fn seqs<'j>(value: Option<Json<'j>>) -> impl Iterator<Item = u64> + 'j {
    value
        .into_iter()
        .flat_map(Json::elements)
        .flat_map(|member| {
            let (single, range) = if let Some(seq) = member.as_seq() {
                (Some(seq), None)
            } else if member.is_array() {
                let mut ends = member.elements().filter_map(Json::as_seq);
                // Bounded by the codec's own rule: no more members than the event's seq.
                let range = ends
                    .next()
                    .zip(ends.next())
                    .map(|(start, end)| (start..=end).take(1 << 24));
                (None, range)
            } else {
                (None, None)
            };
            single.into_iter().chain(range.into_iter().flatten())
        })
}

/// `JSON.stringify` of a parsed value: members in `Object.keys` order (array-index keys
/// first), the last of repeated keys winning, integers in plain decimal, strings
/// re-escaped; other numbers as stored (DSH only stringifies counts and text here).
pub fn js_stringify(v: Json<'_>, out: &mut String) {
    match v.kind() {
        Kind::Object => {
            let keys = v.keys();
            let mut names: Vec<(Option<u64>, usize, String)> = keys
                .iter()
                .enumerate()
                .map(|(i, k)| {
                    let name = k.as_str().unwrap_or_default().into_owned();
                    let index = is_index_key(&name).then(|| name.parse::<u64>().unwrap_or(0));
                    (index, i, name)
                })
                .collect();
            names.sort_by_key(|(index, i, _)| (index.is_none(), index.unwrap_or(0), *i));
            out.push('{');
            for (n, (_, i, name)) in names.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                crate::json::write_js_string(out, name);
                out.push(':');
                if let Some(value) = v.get_by_key(keys[*i]) {
                    js_stringify(value, out);
                }
            }
            out.push('}');
        }
        Kind::Array => {
            out.push('[');
            for (i, e) in v.elements().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                js_stringify(e, out);
            }
            out.push(']');
        }
        _ => out.push_str(&crate::json::js_token(v)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_named_in_object_keys_order() {
        let v = Json::parse(r#"{"b":1,"10":2,"a":3,"2":4}"#).unwrap();
        let label = Label::Text("x");
        let err = exact_keys(v, &["b"], &[], &label).unwrap_err();
        assert_eq!(err.detail, r#"x has unexpected member "2""#);
        let err = exact_keys(v, &["b", "a", "2", "10", "c"], &[], &label).unwrap_err();
        assert_eq!(err.detail, r#"x lacks required member "c""#);
        assert_eq!(err.rule, Rule::F2);
    }

    #[test]
    fn labels_read_as_dsh_writes_them() {
        let event = Label::Event("todo/write", 12);
        let todos = event.at("todos");
        let item = todos.nth(0);
        let status = item.at("status");
        let err = one_of(None, &["pending", "in_progress", "completed"], &status).unwrap_err();
        assert_eq!(
            err.detail,
            "todo/write 12 todos[0] status must be one of pending, in_progress, completed"
        );
    }

    #[test]
    fn numbers_follow_javascript() {
        let label = Label::Text("n");
        for (text, ok) in [
            ("3", true),
            ("3.0", true),
            ("-0", false),
            ("-1", false),
            ("1e400", false),
        ] {
            assert_eq!(count(Json::parse(text).ok(), &label).is_ok(), ok, "{text}");
        }
        assert!(finite(Json::parse("1e400").ok(), &label).is_err());
        assert!(finite(Json::parse("-0.0").ok(), &label).is_err());
        assert!(literal(Json::parse("3.0").ok(), &[Lit::N(3.0)], &label).is_ok());
        assert_eq!(
            literal(Json::parse("2").ok(), &[Lit::N(3.0)], &label)
                .unwrap_err()
                .detail,
            "n must be one of 3"
        );
    }
}
