//! Changes to one stored record, made on its text: every byte outside the member changed
//! stays as stored (key order, spelling of numbers, escapes, FORMAT.md §1.4), so a changed
//! record differs from the stored one only where `changed[]` says.

use std::fmt;
use std::ops::Range;

use crate::json::Json;

/// One step of the way to a member: an object key or an array index.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Step {
    /// An object member (the last of repeated keys, which is the one JSON.parse keeps).
    Key(String),
    /// An array element.
    Index(usize),
}

/// Where a member is in a record: `data.tools[0].origin`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct MemberPath(pub Vec<Step>);

impl MemberPath {
    /// The path of `keys`, object keys from the record's top.
    pub fn of(keys: &[&str]) -> MemberPath {
        MemberPath(keys.iter().map(|k| Step::Key((*k).to_owned())).collect())
    }

    /// This path, one step further.
    pub fn then(&self, step: Step) -> MemberPath {
        let mut steps = self.0.clone();
        steps.push(step);
        MemberPath(steps)
    }

    /// The last key, when the path ends in one.
    pub fn last_key(&self) -> Option<&str> {
        match self.0.last() {
            Some(Step::Key(k)) => Some(k),
            _ => None,
        }
    }
}

impl fmt::Display for MemberPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, step) in self.0.iter().enumerate() {
            match step {
                Step::Key(k) if i == 0 => write!(f, "{k}")?,
                Step::Key(k) => write!(f, ".{k}")?,
                Step::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

/// A change to one member of a record.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Edit {
    /// Take the member out (with one comma beside it).
    Remove(MemberPath),
    /// Give the member this value (compact JSON text); a top-level member that is not
    /// there is added last.
    Set(MemberPath, String),
}

impl Edit {
    /// The member the edit changes.
    pub fn path(&self) -> &MemberPath {
        match self {
            Edit::Remove(p) | Edit::Set(p, _) => p,
        }
    }
}

/// Where a value starts in `text`, which it borrows from.
fn offset(text: &str, value: Json<'_>) -> usize {
    value.raw().as_ptr() as usize - text.as_ptr() as usize
}

/// The value at `path` in the JSON `text`, and the key token that names it (`None` for an
/// array element or the root).
fn find<'a>(text: &'a str, path: &MemberPath) -> Option<(Option<Json<'a>>, Json<'a>)> {
    let mut value = Json::parse(text).ok()?;
    let mut key = None;
    for step in &path.0 {
        match step {
            Step::Key(k) => {
                let (name, v) = value
                    .members()
                    .filter(|(name, _)| name_is(*name, k))
                    .last()?;
                key = Some(name);
                value = v;
            }
            Step::Index(n) => {
                value = value.elements().nth(*n)?;
                key = None;
            }
        }
    }
    Some((key, value))
}

/// True when the key token `name` (quotes included) spells `key`.
fn name_is(name: Json<'_>, key: &str) -> bool {
    name.str_eq(key)
}

/// The byte range of the value at `path` in `text`.
pub fn value_span(text: &str, path: &MemberPath) -> Option<Range<usize>> {
    let (_, value) = find(text, path)?;
    let start = offset(text, value);
    Some(start..start + value.raw().len())
}

/// The raw JSON of the value at `path` in `text`.
pub fn value_at<'a>(text: &'a str, path: &MemberPath) -> Option<&'a str> {
    find(text, path).map(|(_, v)| v.raw())
}

/// The byte range that removing the member at `path` takes out of `text`: its key, colon
/// and value, and the comma before it (the comma after it for a first member).
fn member_span(text: &str, path: &MemberPath) -> Option<Range<usize>> {
    let (key, value) = find(text, path)?;
    Some(member_span_of(text, key?, value))
}

/// [`member_span`] of the member found in `text` as its `key` token and `value`.
fn member_span_of(text: &str, key: Json<'_>, value: Json<'_>) -> Range<usize> {
    member_range(
        text,
        offset(text, key),
        offset(text, value) + value.raw().len(),
    )
}

/// The byte range that removing the member whose key starts at `start` and whose value
/// ends at `end` takes out of `text`: with the comma before it (the comma after it, and the
/// blanks after that, for a first member).
fn member_range(text: &str, start: usize, end: usize) -> Range<usize> {
    let bytes = text.as_bytes();
    let is_ws = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r');
    let mut before = start;
    while before > 0 && is_ws(bytes[before - 1]) {
        before -= 1;
    }
    if before > 0 && bytes[before - 1] == b',' {
        return before - 1..end;
    }
    let mut after = end;
    while after < bytes.len() && is_ws(bytes[after]) {
        after += 1;
    }
    if after < bytes.len() && bytes[after] == b',' {
        after += 1;
        while after < bytes.len() && is_ws(bytes[after]) {
            after += 1;
        }
        return start..after;
    }
    start..end
}

/// A replacement of the bytes `range` of a text by `with`.
pub type Splice = (Range<usize>, String);

/// The splice an edit makes in `text`, or `None` when its member is not there.
pub fn splice(text: &str, edit: &Edit) -> Option<Splice> {
    match edit {
        Edit::Remove(path) => member_span(text, path).map(|r| (r, String::new())),
        Edit::Set(path, value) => value_span(text, path)
            .map(|r| (r, value.clone()))
            .or_else(|| added(text, path, value)),
    }
}

/// The splice that adds the top-level member `path` with `value` as the last of `text`'s
/// members; `None` for a deeper path or a text that is not an object.
fn added(text: &str, path: &MemberPath, value: &str) -> Option<Splice> {
    let [Step::Key(key)] = path.0.as_slice() else {
        return None;
    };
    let json = Json::parse(text).ok().filter(|j| j.is_object())?;
    let end = text.trim_end().len().checked_sub(1)?;
    let comma = if json.is_empty() { "" } else { "," };
    let name = serde_json::to_string(key).ok()?;
    Some((end..end, format!("{comma}{name}:{value}")))
}

/// `text` with `splices` made; they must not overlap (they are applied from the end, so
/// each range is one of the original text).
pub fn apply(text: &str, mut splices: Vec<Splice>) -> String {
    splices.sort_by_key(|(r, _)| std::cmp::Reverse(r.start));
    let mut out = text.to_owned();
    let mut before = text.len();
    for (range, with) in splices {
        // Overlapping splices would mangle the record: the later-starting one wins.
        if range.end > before {
            continue;
        }
        before = range.start;
        out.replace_range(range, &with);
    }
    out
}

/// A JSON object's text read once: where each of its top-level members is, so that a member
/// is looked up, taken out or set ([`Object::changed`]) without parsing the text again. A
/// recovered session's header is one: read once when its new id is given, then changed
/// as the checks ask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Object {
    text: String,
    /// Each member in text order: its name, the byte range of its key token (quotes
    /// included) and of its value.
    members: Vec<(String, Range<usize>, Range<usize>)>,
}

impl Object {
    /// The object `text` holds; `None` when it is not one JSON object.
    pub fn parse(text: String) -> Option<Object> {
        let json = Json::parse(&text).ok().filter(|j| j.is_object())?;
        let members = (json.members())
            .map(|(name, value)| {
                let key = offset(&text, name);
                let at = offset(&text, value);
                (
                    name.as_str().map(|k| k.into_owned()).unwrap_or_default(),
                    key..key + name.raw().len(),
                    at..at + value.raw().len(),
                )
            })
            .collect();
        Some(Object { text, members })
    }

    /// The object's text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The member named `key` (the last of repeated keys, as JSON.parse keeps it).
    fn member(&self, key: &str) -> Option<&(String, Range<usize>, Range<usize>)> {
        self.members.iter().rev().find(|(name, _, _)| name == key)
    }

    /// The raw JSON of the member named `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.member(key)
            .map(|(_, _, value)| &self.text[value.clone()])
    }

    /// The object with `edits` made to its top-level members, each as [`splice`] makes it
    /// in the original text and all of them as [`apply`] makes them (the same bytes), and
    /// the value each edit's member held before (raw JSON; `None` where it was absent). An
    /// edit of a deeper member is not made (`None`).
    pub fn changed(&self, edits: &[Edit]) -> (Object, Vec<Option<String>>) {
        let mut before = Vec::new();
        let mut splices = Vec::new();
        for edit in edits {
            let key = match edit.path().0.as_slice() {
                [Step::Key(key)] => Some(key.as_str()),
                _ => None,
            };
            let found = key.and_then(|k| self.member(k));
            before.push(found.map(|(_, _, v)| self.text[v.clone()].to_owned()));
            splices.extend(match (edit, found, key) {
                (Edit::Remove(_), Some((_, k, v)), _) => {
                    Some((member_range(&self.text, k.start, v.end), String::new()))
                }
                (Edit::Set(_, with), Some((_, _, v)), _) => Some((v.clone(), with.clone())),
                (Edit::Set(_, with), None, Some(key)) => self.added(key, with),
                _ => None,
            });
        }
        (self.spliced(splices), before)
    }

    /// The splice that adds the member `key` with `value` last, as [`added`] makes it.
    fn added(&self, key: &str, value: &str) -> Option<Splice> {
        let end = self.text.trim_end().len().checked_sub(1)?;
        let comma = if self.members.is_empty() { "" } else { "," };
        let name = serde_json::to_string(key).ok()?;
        Some((end..end, format!("{comma}{name}:{value}")))
    }

    /// The object with `splices` made as [`apply`] makes them, its members found again
    /// where the splices moved them (a member a splice takes out is gone; one it sets or
    /// adds is where the splice put it).
    fn spliced(&self, mut splices: Vec<Splice>) -> Object {
        splices.sort_by_key(|(r, _)| std::cmp::Reverse(r.start));
        let mut text = self.text.clone();
        let mut members = self.members.clone();
        let mut before = text.len();
        for (range, with) in splices {
            // Overlapping splices: the later-starting one wins, as in [`apply`].
            if range.end > before {
                continue;
            }
            before = range.start;
            let grown = with.len() as isize - range.len() as isize;
            let shift = |r: &Range<usize>| {
                let move_by = |at: usize| (at as isize + grown) as usize;
                move_by(r.start)..move_by(r.end)
            };
            members.retain(|(_, k, v)| {
                !(range.start <= k.start && v.end <= range.end) || range.is_empty()
            });
            for (_, k, v) in &mut members {
                if *v == range {
                    *v = range.start..range.start + with.len();
                } else if k.start >= range.end {
                    (*k, *v) = (shift(k), shift(v));
                }
            }
            if range.is_empty() {
                // An added member: `,"key":value` at the end.
                let comma = usize::from(with.starts_with(','));
                let colon = string_end(with.as_bytes(), comma);
                let key = range.start + comma..range.start + colon;
                let name = serde_json::from_str(&with[comma..colon]).unwrap_or_default();
                members.push((name, key, range.start + colon + 1..range.start + with.len()));
            }
            text.replace_range(range, &with);
        }
        Object { text, members }
    }
}

/// The end of the JSON string token that starts at `at` in `bytes` (after its closing quote).
fn string_end(bytes: &[u8], at: usize) -> usize {
    let mut i = at + 1;
    while i < bytes.len() && bytes[i] != b'"' {
        i += if bytes[i] == b'\\' { 2 } else { 1 };
    }
    (i + 1).min(bytes.len())
}

/// Every object member named `key` in the value at `within` of `text`, at any depth, as
/// paths (in document order).
pub fn members_named(text: &str, within: &MemberPath, key: &str) -> Vec<MemberPath> {
    let mut found = Vec::new();
    if let Some((_, value)) = find(text, within) {
        walk(value, within.clone(), &mut |path, name, _| {
            if name == Some(key) {
                found.push(path.clone());
            }
        });
    }
    found
}

/// Every number written as negative zero (`-0`, `-0.0`) in `text`, as paths.
pub fn negative_zeros(text: &str) -> Vec<MemberPath> {
    let mut found = Vec::new();
    if let Ok(root) = Json::parse(text) {
        walk(root, MemberPath::default(), &mut |path, _, value| {
            if value.is_negative_zero() {
                found.push(path.clone());
            }
        });
    }
    found
}

/// Calls `visit(path, key, value)` for every value under `value` (itself excluded), in
/// document order; `key` is the member's name for object members.
fn walk(
    value: Json<'_>,
    path: MemberPath,
    visit: &mut dyn FnMut(&MemberPath, Option<&str>, Json<'_>),
) {
    if value.is_object() {
        for (name, v) in value.members() {
            let key = name.as_str().map(|k| k.into_owned()).unwrap_or_default();
            let here = path.then(Step::Key(key.clone()));
            visit(&here, Some(&key), v);
            walk(v, here, visit);
        }
    } else if value.is_array() {
        for (i, v) in value.elements().enumerate() {
            let here = path.then(Step::Index(i));
            visit(&here, None, v);
            walk(v, here, visit);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edited(text: &str, edit: Edit) -> String {
        let s = splice(text, &edit).expect("member found");
        apply(text, vec![s])
    }

    #[test]
    fn a_removed_member_takes_one_comma_with_it() {
        let text = r#"{"a":1,"b":{"x":2, "y":3},"c":4}"#;
        assert_eq!(
            edited(text, Edit::Remove(MemberPath::of(&["b", "y"]))),
            r#"{"a":1,"b":{"x":2},"c":4}"#
        );
        assert_eq!(
            edited(text, Edit::Remove(MemberPath::of(&["a"]))),
            r#"{"b":{"x":2, "y":3},"c":4}"#
        );
        assert_eq!(
            edited(r#"{"only":true}"#, Edit::Remove(MemberPath::of(&["only"]))),
            "{}"
        );
    }

    #[test]
    fn a_set_value_keeps_every_other_byte() {
        let text = r#"{"data":{"version":2,"mode":"one-shot"},"t":"é\u00e9"}"#;
        assert_eq!(
            edited(
                text,
                Edit::Set(MemberPath::of(&["data", "version"]), "3".into())
            ),
            r#"{"data":{"version":3,"mode":"one-shot"},"t":"é\u00e9"}"#
        );
    }

    #[test]
    fn a_top_level_member_that_is_not_there_is_added_last() {
        let text = r#"{"type":"turn/start","seq":0,"time":1}"#;
        assert_eq!(
            edited(
                text,
                Edit::Set(MemberPath::of(&["data"]), r#"{"turn":1}"#.into())
            ),
            r#"{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}"#
        );
    }

    #[test]
    fn repeated_keys_edit_the_last_one_as_json_parse_reads_it() {
        let text = r#"{"k":1,"k":2}"#;
        assert_eq!(
            edited(text, Edit::Set(MemberPath::of(&["k"]), "7".into())),
            r#"{"k":1,"k":7}"#
        );
    }

    #[test]
    fn an_object_read_once_changes_as_its_text_does() {
        let texts = [
            r#"{"type":"session","version":3,"id":"s-1","sandboxMode":"x", "cwd":"/p","approvalPolicy":1}"#,
            r#"{ "sandboxMode" : "x" , "id":"s\"1","k":1,"k":2 }"#,
            r#"{"only":true}"#,
            r#"{}"#,
        ];
        let edits = [
            vec![Edit::Remove(MemberPath::of(&["sandboxMode"]))],
            vec![
                Edit::Remove(MemberPath::of(&["approvalPolicy"])),
                Edit::Remove(MemberPath::of(&["sandboxMode"])),
            ],
            vec![Edit::Set(
                MemberPath::of(&["id"]),
                r#""s-1-recovered""#.into(),
            )],
            vec![Edit::Set(MemberPath::of(&["k"]), "7".into())],
            vec![Edit::Remove(MemberPath::of(&["only"]))],
            vec![Edit::Set(MemberPath::of(&["new\"key"]), "[1]".into())],
            vec![Edit::Remove(MemberPath::of(&["absent"]))],
        ];
        // The same edits made on the text, each member found by parsing it again.
        let change = |text: &str, edits: &[Edit]| {
            let splices = edits.iter().filter_map(|e| splice(text, e)).collect();
            let before: Vec<Option<String>> = (edits.iter())
                .map(|e| value_at(text, e.path()).map(str::to_owned))
                .collect();
            (apply(text, splices), before)
        };
        for text in texts {
            let object = Object::parse(text.to_owned()).expect("an object");
            for first in &edits {
                let (once, before) = object.changed(first);
                assert_eq!(
                    (once.text(), &before),
                    (change(text, first).0.as_str(), &change(text, first).1)
                );
                // The members are found again where the change moved them.
                assert_eq!(
                    once,
                    Object::parse(once.text().to_owned()).expect("still one")
                );
                for then in &edits {
                    let (twice, _) = once.changed(then);
                    assert_eq!(
                        twice.text(),
                        change(once.text(), then).0,
                        "{text} {first:?} {then:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn members_and_negative_zeros_are_found_at_any_depth() {
        let text = r#"{"data":{"origin":1,"list":[{"origin":2}],"turn":-0}}"#;
        let found = members_named(text, &MemberPath::of(&["data"]), "origin");
        let shown: Vec<String> = found.iter().map(ToString::to_string).collect();
        assert_eq!(shown, ["data.origin", "data.list[0].origin"]);
        let zeros: Vec<String> = negative_zeros(text)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(zeros, ["data.turn"]);
    }
}
