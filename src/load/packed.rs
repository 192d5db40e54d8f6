//! Packed chunk rows: runs of stream deltas stored as one record (FORMAT.md §7.4).

use crate::json::{Json, Kind};

/// The tags of packed rows (§7.4): storage vocabulary, never logical types.
pub const PACKED_TAGS: [&str; 3] = ["text-chunks", "reasoning-chunks", "tool-call-chunks"];

/// A validated packed chunk row: its members' seqs and times, and what rebuilds each
/// member event.
#[derive(Debug, Clone)]
pub struct PackedRow<'a> {
    /// Seq of the first member.
    pub seq0: u64,
    /// Each member's time, ms since the Unix epoch (`time0` plus the running `dt`).
    pub times: Vec<i64>,
    kind: &'static str,
    turn: Json<'a>,
    step: Json<'a>,
    index: Json<'a>,
    id: Option<Json<'a>>,
    name: Option<Json<'a>>,
    payload: Vec<Json<'a>>,
}

/// What a packed row means for the fold: the seq of its first member and each member's
/// time (ms since the Unix epoch). Owned, so it can be worked out on another thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackedSpan {
    /// Seq of the first member.
    pub seq0: u64,
    /// Each member's time, ms since the Unix epoch.
    pub times: Vec<i64>,
}

impl PackedSpan {
    /// Number of members.
    pub fn len(&self) -> usize {
        self.times.len()
    }

    /// Always false: a valid row has at least one member.
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }
}

/// The span of a packed row, as [`packed_row`] reads it.
pub fn packed_span(json: Json<'_>) -> Option<Result<PackedSpan, String>> {
    packed_row(json).map(|row| row.map(PackedRow::into_span))
}

impl PackedRow<'_> {
    /// The row's members' seqs and times.
    pub fn into_span(self) -> PackedSpan {
        PackedSpan {
            seq0: self.seq0,
            times: self.times,
        }
    }

    /// Number of members.
    pub fn len(&self) -> usize {
        self.payload.len()
    }

    /// Always false: a valid row has at least one member.
    pub fn is_empty(&self) -> bool {
        self.payload.is_empty()
    }

    /// Member `k` (0-based) as the `assistant/chunk` event it stands for, in the key order
    /// of §7.4: `type, seq, time, data{turn, step, chunk}`.
    pub fn member_json(&self, k: usize) -> String {
        let (kind, index, member) = (self.kind, self.index.raw(), self.payload[k].raw());
        let chunk = match (self.id, self.name) {
            (Some(id), Some(name)) => format!(
                r#"{{"type":"{kind}","index":{index},"id":{},"name":{},"argumentsDelta":{member}}}"#,
                id.raw(),
                name.raw()
            ),
            (Some(id), None) => format!(
                r#"{{"type":"{kind}","index":{index},"id":{},"argumentsDelta":{member}}}"#,
                id.raw()
            ),
            _ => format!(r#"{{"type":"{kind}","index":{index},"text":{member}}}"#),
        };
        format!(
            r#"{{"type":"assistant/chunk","seq":{},"time":{},"data":{{"turn":{},"step":{},"chunk":{chunk}}}}}"#,
            self.seq0 + k as u64,
            self.times[k],
            self.turn.raw(),
            self.step.raw(),
        )
    }
}

/// Reads a packed chunk row (§7.4). `None` when `json` is not a packed row (its `type` is
/// not one of [`PACKED_TAGS`]); `Some(Err)` when it is one but invalid (J3 / a Q defect).
pub fn packed_row(json: Json<'_>) -> Option<Result<PackedRow<'_>, String>> {
    packed_row_of_type(json, json.get("type")?)
}

/// As [`packed_row`], for a record whose `type` value the caller already has.
pub fn packed_row_of_type<'a>(
    json: Json<'a>,
    tag: Json<'_>,
) -> Option<Result<PackedRow<'a>, String>> {
    let delta = PACKED_TAGS.into_iter().find(|t| tag.str_eq(t))?;
    Some(parse_packed(json, delta))
}

fn parse_packed<'a>(row: Json<'a>, tag: &str) -> Result<PackedRow<'a>, String> {
    let [seq0, time0, data] = row
        .exact_keys(["seq0", "time0", "data", "type"])
        .map(|[s, t, d, _]| [s, t, d])
        .ok_or("envelope keys must be exactly type, seq0, time0, data")?;
    let seq0 = seq0
        .as_seq()
        .ok_or("seq0 must be a non-negative safe integer")?;
    let time0 = time0
        .as_safe_integer()
        .ok_or("time0 must be a safe integer")?;
    if !data.is_object() {
        return Err("data must be an object".into());
    }
    let tool = tag == "tool-call-chunks";
    let payload_key = if tool { "args" } else { "texts" };
    let keys_error = |want: &[&str]| format!("data keys must be exactly {}", want.join(", "));
    let (fields, id, name) = if tool {
        const NAMED: [&str; 7] = ["turn", "step", "index", "dt", "id", "name", "args"];
        const UNNAMED: [&str; 6] = ["turn", "step", "index", "dt", "id", "args"];
        if let Some([t, s, i, d, id, name, p]) = data.exact_keys(NAMED) {
            ([t, s, i, d, p], Some(id), Some(name))
        } else if let Some([t, s, i, d, id, p]) = data.exact_keys(UNNAMED) {
            ([t, s, i, d, p], Some(id), None)
        } else {
            let want: &[&str] = if data.has("name") { &NAMED } else { &UNNAMED };
            return Err(keys_error(want));
        }
    } else {
        const TEXT: [&str; 5] = ["turn", "step", "index", "dt", "texts"];
        (
            data.exact_keys(TEXT).ok_or_else(|| keys_error(&TEXT))?,
            None,
            None,
        )
    };
    let [turn, step, index, dt, payload] = fields;
    for (k, v) in [("turn", turn), ("step", step), ("index", index)] {
        if v.kind() != Kind::Number {
            return Err(format!("{k} must be a number"));
        }
    }
    if id.is_some_and(|v| v.kind() != Kind::String) {
        return Err("id must be a string".into());
    }
    if name.is_some_and(|n| n.kind() != Kind::String) {
        return Err("name must be a string".into());
    }
    if !payload.is_array() {
        return Err(format!("{payload_key} must be an array of strings"));
    }
    let members: Vec<Json<'_>> = payload.elements().collect();
    if members.is_empty() || members.iter().any(|m| m.kind() != Kind::String) {
        return Err(format!(
            "{payload_key} must be a non-empty array of strings"
        ));
    }
    if !dt.is_array() {
        return Err("dt must be an array".into());
    }
    let kind = match tag {
        "text-chunks" => "text-delta",
        "reasoning-chunks" => "reasoning-delta",
        _ => "tool-call-delta",
    };
    // Each member's time: time0, then the running sum of the gaps.
    let mut times = Vec::with_capacity(members.len());
    times.push(time0);
    let mut bad_gap = false;
    for gap in dt.elements() {
        let Some(gap) = gap.as_safe_integer() else {
            bad_gap = true;
            break;
        };
        times.push(times[times.len() - 1] + gap);
    }
    if bad_gap {
        return Err("dt must hold safe integers".into());
    }
    if times.len() != members.len() {
        return Err(format!(
            "dt has {} gaps for {} members",
            dt.len(),
            members.len()
        ));
    }
    let max = crate::json::MAX_SAFE_INTEGER as i64;
    if seq0 + members.len() as u64 - 1 > max as u64 {
        return Err("member seqs exceed the safe integer range".into());
    }
    if times.iter().any(|t| t.abs() > max) {
        return Err("member times exceed the safe integer range".into());
    }
    Ok(PackedRow {
        seq0,
        times,
        kind,
        turn,
        step,
        index,
        id,
        name,
        payload: members,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(line: &str) -> Result<(u64, Vec<i64>, Vec<String>), String> {
        let json = Json::parse(line).expect("test lines are JSON");
        let row = packed_row(json).expect("a packed tag")?;
        let members = (0..row.len()).map(|k| row.member_json(k)).collect();
        Ok((row.seq0, row.times.clone(), members))
    }

    #[test]
    fn a_row_expands_to_its_member_events() {
        let (seq0, times, members) = read(
            r#"{"type":"tool-call-chunks","seq0":7,"time0":100,"data":{"turn":1,"step":2,"index":0,"dt":[5,0],"id":"c1","name":"sh","args":["{","\"a\"","}"]}}"#,
        )
        .unwrap();
        assert_eq!((seq0, times), (7, vec![100, 105, 105]));
        assert_eq!(
            members[1],
            r#"{"type":"assistant/chunk","seq":8,"time":105,"data":{"turn":1,"step":2,"chunk":{"type":"tool-call-delta","index":0,"id":"c1","name":"sh","argumentsDelta":"\"a\""}}}"#
        );
        // Keys in another order, repeated (last wins), or escaped read the same.
        let (_, times, members) = read(
            r#"{"data":{"texts":["x","y"],"dt":[1],"index":3,"step":2,"turn":1,"turn":9},"time0":5,"seq0":0,"t\u0079pe":"text-chunks","type":"text-chunks"}"#,
        )
        .unwrap();
        assert_eq!(times, vec![5, 6]);
        assert_eq!(
            members[0],
            r#"{"type":"assistant/chunk","seq":0,"time":5,"data":{"turn":9,"step":2,"chunk":{"type":"text-delta","index":3,"text":"x"}}}"#
        );
    }

    #[test]
    fn each_invalid_row_says_what_is_wrong() {
        let text =
            |data: &str| format!(r#"{{"type":"text-chunks","seq0":0,"time0":0,"data":{data}}}"#);
        let ok = r#"{"turn":1,"step":1,"index":0,"dt":[1],"texts":["a","b"]}"#;
        assert!(read(&text(ok)).is_ok());
        for (line, want) in [
            (
                r#"{"type":"text-chunks","seq0":0,"data":{}}"#.to_owned(),
                "envelope keys must be exactly type, seq0, time0, data",
            ),
            (
                r#"{"type":"text-chunks","seq0":-1,"time0":0,"data":{}}"#.to_owned(),
                "seq0 must be a non-negative safe integer",
            ),
            (
                r#"{"type":"text-chunks","seq0":0,"time0":0.5,"data":{}}"#.to_owned(),
                "time0 must be a safe integer",
            ),
            (text("[]"), "data must be an object"),
            (
                text(r#"{"turn":1,"step":1,"index":0,"dt":[1]}"#),
                "data keys must be exactly turn, step, index, dt, texts",
            ),
            (
                r#"{"type":"tool-call-chunks","seq0":0,"time0":0,"data":{"turn":1,"step":1,"index":0,"dt":[],"args":["a"],"name":"n"}}"#.to_owned(),
                "data keys must be exactly turn, step, index, dt, id, name, args",
            ),
            (
                r#"{"type":"tool-call-chunks","seq0":0,"time0":0,"data":{"turn":1,"step":1,"index":0,"dt":[],"args":["a"]}}"#.to_owned(),
                "data keys must be exactly turn, step, index, dt, id, args",
            ),
            (
                text(r#"{"turn":1,"step":"1","index":"0","dt":[1],"texts":["a","b"]}"#),
                "step must be a number",
            ),
            (
                r#"{"type":"tool-call-chunks","seq0":0,"time0":0,"data":{"turn":1,"step":1,"index":0,"dt":[],"args":["a"],"id":1}}"#.to_owned(),
                "id must be a string",
            ),
            (
                r#"{"type":"tool-call-chunks","seq0":0,"time0":0,"data":{"turn":1,"step":1,"index":0,"dt":[],"args":["a"],"id":"c","name":null}}"#.to_owned(),
                "name must be a string",
            ),
            (
                text(r#"{"turn":1,"step":1,"index":0,"dt":[1],"texts":"ab"}"#),
                "texts must be an array of strings",
            ),
            (
                text(r#"{"turn":1,"step":1,"index":0,"dt":[],"texts":[]}"#),
                "texts must be a non-empty array of strings",
            ),
            (
                text(r#"{"turn":1,"step":1,"index":0,"dt":{},"texts":["a"]}"#),
                "dt must be an array",
            ),
            (
                text(r#"{"turn":1,"step":1,"index":0,"dt":[1,"2"],"texts":["a"]}"#),
                "dt must hold safe integers",
            ),
            (
                text(r#"{"turn":1,"step":1,"index":0,"dt":[1,2],"texts":["a","b"]}"#),
                "dt has 2 gaps for 2 members",
            ),
            (
                r#"{"type":"text-chunks","seq0":9007199254740991,"time0":0,"data":{"turn":1,"step":1,"index":0,"dt":[1],"texts":["a","b"]}}"#.to_owned(),
                "member seqs exceed the safe integer range",
            ),
            (
                r#"{"type":"text-chunks","seq0":0,"time0":9007199254740990,"data":{"turn":1,"step":1,"index":0,"dt":[2],"texts":["a","b"]}}"#.to_owned(),
                "member times exceed the safe integer range",
            ),
        ] {
            assert_eq!(read(&line).unwrap_err(), want, "{line}");
        }
    }
}
