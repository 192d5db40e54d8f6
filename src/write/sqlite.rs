//! Repairing a session in a SQLite store: one `BEGIN IMMEDIATE` transaction
//! (FORMAT.md §5.4, §8).

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};

use crate::json::Json;
use crate::load::sqlite::{
    APPLICATION_ID, Schema, encode_source_seqs, is_schema_17, row_set, user_objects,
};
use crate::write::durable::{CRASH_EXIT, CRASH_HOOK};
use crate::write::plan::{Plan, WriteError};

/// Makes a planned repair durable in one `BEGIN IMMEDIATE` transaction (FORMAT.md §5.4):
/// re-check the schema (D8) and the session's row set, delete the torn rows, check that the
/// first closer continues the stored seqs, insert the closers as scalar rows, bump
/// `revision` (schema 17), commit.
///
/// # Errors
/// SQLite errors; a changed store is an error and rolls back.
pub fn apply_repair(plan: &Plan) -> Result<(), WriteError> {
    let session = plan.session.as_deref().unwrap_or_default();
    let mut conn = Connection::open_with_flags(
        &plan.path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(std::time::Duration::from_millis(5000))?;
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let stale = |what: String| WriteError::Changed(format!("repair is stale: {what}"));
    let user_version: i64 = tx.pragma_query_value(None, "user_version", |r| r.get(0))?;
    let application_id: i64 = tx.pragma_query_value(None, "application_id", |r| r.get(0))?;
    let schema = match (user_version, application_id) {
        (17, APPLICATION_ID) => Schema::V17,
        (4, 0) => Schema::V4,
        _ => {
            return Err(stale(format!(
                "schema changed before mutation (user_version {user_version}, application_id {application_id})"
            )));
        }
    };
    if schema == Schema::V17 {
        // D8: the schema objects are checked again inside the transaction (§6.4).
        if !is_schema_17(&user_objects(&tx)?) {
            return Err(stale(
                "the store does not contain the required schema objects".into(),
            ));
        }
    }
    let exists: i64 = tx.query_row(
        "SELECT count(*) FROM sessions WHERE id = ?1",
        [session],
        |r| r.get(0),
    )?;
    if exists != 1 {
        return Err(stale(format!("session {session:?} no longer exists")));
    }
    if Some(row_set(&tx, session)?) != plan.row_set {
        return Err(stale("the session's rows changed since the scan".into()));
    }
    if let Some(at) = plan.cut_at {
        tx.execute(
            "DELETE FROM events WHERE session_id = ?1 AND seq >= ?2",
            rusqlite::params![session, at as i64],
        )?;
    }
    if let Some(first) = plan.appended().next() {
        let first_seq = Json::parse(first)
            .ok()
            .and_then(|j| j.get("seq"))
            .and_then(Json::as_seq);
        let next = stored_next_seq(&tx, schema, session)?;
        if first_seq != Some(next) {
            return Err(stale(format!(
                "the stored next seq is {next}, the first closer has {first_seq:?}"
            )));
        }
    }
    for closer in plan.appended() {
        insert_closer(&tx, schema, session, closer)?;
    }
    if schema == Schema::V17 {
        tx.execute(
            "UPDATE sessions SET revision = revision + 1 WHERE id = ?1",
            [session],
        )?;
    }
    if std::env::var(CRASH_HOOK).is_ok_and(|v| v == "transaction") {
        std::process::exit(CRASH_EXIT);
    }
    tx.commit()?;
    Ok(())
}

/// The seq after the last stored event (a packed row covers several seqs).
fn stored_next_seq(conn: &Connection, schema: Schema, session: &str) -> rusqlite::Result<u64> {
    let sql = match schema {
        Schema::V4 => {
            "SELECT seq, NULL, data FROM events WHERE session_id = ?1 ORDER BY seq DESC LIMIT 1"
        }
        _ => {
            "SELECT seq, ignorable, data FROM events WHERE session_id = ?1 ORDER BY seq DESC LIMIT 1"
        }
    };
    let mut stmt = conn.prepare(sql)?;
    let mut rows = stmt.query([session])?;
    let Some(row) = rows.next()? else {
        return Ok(0);
    };
    let seq: i64 = row.get(0)?;
    let packed = matches!(row.get_ref(1)?, ValueRef::Integer(0));
    let members = if packed {
        let text = match row.get_ref(2)? {
            ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
            ValueRef::Blob(b) => zstd::stream::decode_all(b)
                .map(|v| String::from_utf8_lossy(&v).into_owned())
                .unwrap_or_default(),
            _ => String::new(),
        };
        Json::parse(&text)
            .ok()
            .and_then(|d| d.get("texts").or(d.get("args")))
            .map_or(1, |p| p.len() as u64)
    } else {
        1
    };
    Ok(seq as u64 + members)
}

/// Inserts one closer as a scalar row, encoded for the schema (§8.3, §8.5).
fn insert_closer(
    conn: &Connection,
    schema: Schema,
    session: &str,
    closer: &str,
) -> rusqlite::Result<()> {
    let Ok(json) = Json::parse(closer) else {
        return Err(rusqlite::Error::InvalidQuery);
    };
    let field = |k| json.get(k);
    let ty = field("type")
        .and_then(Json::as_str)
        .unwrap_or_default()
        .into_owned();
    let seq = field("seq").and_then(Json::as_seq).unwrap_or_default() as i64;
    let time = field("time")
        .and_then(Json::as_safe_integer)
        .unwrap_or_default();
    let data = field("data").map_or("null", Json::raw);
    let op = field("surfaceOp").map(|o| o.raw().to_owned());
    let sources: Option<Vec<u64>> =
        field("sourceEventSeqs").map(|s| s.elements().filter_map(Json::as_seq).collect());
    if schema == Schema::V4 {
        let sources = sources.map(|s| {
            format!(
                "[{}]",
                s.iter().map(u64::to_string).collect::<Vec<_>>().join(",")
            )
        });
        conn.execute(
            "INSERT INTO events (session_id, seq, type, time, data, source_event_seqs, surface_op) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            rusqlite::params![session, seq, ty, time, data, sources, op],
        )?;
        return Ok(());
    }
    let data_value = if data.len() >= 4096 {
        match zstd::bulk::compress(data.as_bytes(), 3) {
            Ok(c) if c.len() < data.len() => rusqlite::types::Value::Blob(c),
            _ => rusqlite::types::Value::Text(data.to_owned()),
        }
    } else {
        rusqlite::types::Value::Text(data.to_owned())
    };
    let sources = sources.map(|s: Vec<u64>| encode_source_seqs(&s));
    conn.execute(
        "INSERT INTO events (session_id, seq, type, time, data, source_event_seqs, surface_op, ignorable) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, NULL)",
        rusqlite::params![session, seq, ty, time, data_value, sources, op],
    )?;
    Ok(())
}
