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

impl PackedRow<'_> {
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
    let tag = json.get("type")?;
    let delta = PACKED_TAGS.into_iter().find(|t| tag.str_eq(t))?;
    Some(parse_packed(json, delta))
}

fn parse_packed<'a>(row: Json<'a>, tag: &str) -> Result<PackedRow<'a>, String> {
    if !row.has_exactly_keys(&["type", "seq0", "time0", "data"]) {
        return Err("envelope keys must be exactly type, seq0, time0, data".into());
    }
    let seq0 = row
        .get("seq0")
        .and_then(Json::as_seq)
        .ok_or("seq0 must be a non-negative safe integer")?;
    let time0 = row
        .get("time0")
        .and_then(Json::as_safe_integer)
        .ok_or("time0 must be a safe integer")?;
    let data = row
        .get("data")
        .filter(|d| d.is_object())
        .ok_or("data must be an object")?;
    let tool = tag == "tool-call-chunks";
    let payload_key = if tool { "args" } else { "texts" };
    let want: &[&str] = if tool {
        if data.has("name") {
            &["turn", "step", "index", "dt", "id", "name", "args"]
        } else {
            &["turn", "step", "index", "dt", "id", "args"]
        }
    } else {
        &["turn", "step", "index", "dt", "texts"]
    };
    if !data.has_exactly_keys(want) {
        return Err(format!("data keys must be exactly {}", want.join(", ")));
    }
    let number = |k| {
        data.get(k)
            .filter(|v| v.kind() == Kind::Number)
            .ok_or(format!("{k} must be a number"))
    };
    let (turn, step, index) = (number("turn")?, number("step")?, number("index")?);
    let id = if tool {
        Some(
            data.get("id")
                .filter(|v| v.kind() == Kind::String)
                .ok_or("id must be a string")?,
        )
    } else {
        None
    };
    let name = data.get("name");
    if name.is_some_and(|n| n.kind() != Kind::String) {
        return Err("name must be a string".into());
    }
    let payload = data
        .get(payload_key)
        .filter(|p| p.is_array())
        .ok_or(format!("{payload_key} must be an array of strings"))?;
    let members: Vec<Json<'_>> = payload.elements().collect();
    if members.is_empty() || members.iter().any(|m| m.kind() != Kind::String) {
        return Err(format!(
            "{payload_key} must be a non-empty array of strings"
        ));
    }
    let dt = data
        .get("dt")
        .filter(|d| d.is_array())
        .ok_or("dt must be an array")?;
    let gaps: Vec<i64> = dt
        .elements()
        .map(Json::as_safe_integer)
        .collect::<Option<_>>()
        .ok_or("dt must hold safe integers")?;
    if gaps.len() != members.len() - 1 {
        return Err(format!(
            "dt has {} gaps for {} members",
            gaps.len(),
            members.len()
        ));
    }
    let max = crate::json::MAX_SAFE_INTEGER as i64;
    if seq0 + members.len() as u64 - 1 > max as u64 {
        return Err("member seqs exceed the safe integer range".into());
    }
    let kind = match tag {
        "text-chunks" => "text-delta",
        "reasoning-chunks" => "reasoning-delta",
        _ => "tool-call-delta",
    };
    let mut times = Vec::with_capacity(members.len());
    let mut time = time0;
    for k in 0..members.len() {
        if k > 0 {
            time += gaps[k - 1];
            if time.abs() > max {
                return Err("member times exceed the safe integer range".into());
            }
        }
        times.push(time);
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
