//! Writes SQLite stores from JSONL logs exactly as FORMAT.md §8 describes, so tests can
//! compare the two backends: schema 17 (TEXT or zstd BLOB `data` at the 4,096-byte
//! threshold, varint `source_event_seqs`, packed rows with `ignorable = 0`) and the June
//! 2026 schema 4 (JSON text columns, no packing).

use std::path::Path;

use rusqlite::{Connection, params};
use serde_json::Value;
use serde_json::value::RawValue;

pub const SCHEMA_17: [&str; 3] = [
    "CREATE TABLE persistence_state (\n  singleton INTEGER PRIMARY KEY CHECK (singleton = 1),\n  store_id  TEXT NOT NULL\n) STRICT",
    "CREATE TABLE sessions (\n  id               TEXT PRIMARY KEY,\n  version          INTEGER NOT NULL,\n  created_at       INTEGER NOT NULL,\n  cwd              TEXT,\n  parent_session   TEXT,\n  seed_length      INTEGER,\n  origin           TEXT,\n  delegation_depth INTEGER,\n  agent_preset     TEXT,\n  incarnation      TEXT NOT NULL,\n  revision         INTEGER NOT NULL\n) STRICT",
    "CREATE TABLE events (\n  session_id        TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,\n  seq               INTEGER NOT NULL,\n  type              TEXT NOT NULL,\n  time              INTEGER NOT NULL,\n  data              ANY NOT NULL,\n  source_event_seqs ANY,\n  surface_op        TEXT,\n  ignorable         INTEGER CHECK (ignorable IS NULL OR ignorable IN (0, 1)),\n  PRIMARY KEY (session_id, seq)\n) STRICT",
];

pub const SCHEMA_4: [&str; 2] = [
    "CREATE TABLE IF NOT EXISTS sessions (\n    id             TEXT PRIMARY KEY,\n    version        INTEGER NOT NULL,\n    created_at     INTEGER NOT NULL,\n    cwd            TEXT,\n    parent_session TEXT,\n    seed_length    INTEGER\n  ) STRICT",
    "CREATE TABLE IF NOT EXISTS events (\n    session_id        TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,\n    seq               INTEGER NOT NULL,\n    type              TEXT NOT NULL,\n    time              INTEGER NOT NULL,\n    data              TEXT NOT NULL,\n    source_event_seqs TEXT,\n    surface_op        TEXT,\n    PRIMARY KEY (session_id, seq)\n  ) STRICT",
];

const PACKED_TAGS: [&str; 3] = ["text-chunks", "reasoning-chunks", "tool-call-chunks"];

/// Creates an empty store of `schema` (17 or 4) at `db`.
pub fn create_store(db: &Path, schema: u32) -> Connection {
    let conn = Connection::open(db).expect("create store");
    if schema == 17 {
        for ddl in SCHEMA_17 {
            conn.execute_batch(ddl).unwrap();
        }
        conn.execute(
            "INSERT INTO persistence_state VALUES (1, 'bbf1938d-3b32-4931-8011-a1f03334693f')",
            [],
        )
        .unwrap();
        conn.pragma_update(None, "application_id", 1_146_308_688)
            .unwrap();
        conn.pragma_update(None, "user_version", 17).unwrap();
    } else {
        conn.pragma_update(None, "user_version", 4).unwrap();
        for ddl in SCHEMA_4 {
            conn.execute_batch(ddl).unwrap();
        }
    }
    conn
}

/// Varint-delta encoding of `source_event_seqs` (§8.3).
pub fn encode_seqs(seqs: &[u64]) -> Vec<u8> {
    dsh_session::load::sqlite::encode_source_seqs(seqs)
}

fn data_column(conn_schema: u32, text: &str) -> rusqlite::types::Value {
    if conn_schema == 17 && text.len() >= 4096 {
        let compressed = zstd::bulk::compress(text.as_bytes(), 3).unwrap();
        if compressed.len() < text.len() {
            return rusqlite::types::Value::Blob(compressed);
        }
    }
    rusqlite::types::Value::Text(text.to_owned())
}

/// Appends the session of the JSONL log at `jsonl` to the store behind `conn`.
pub fn add_session(conn: &Connection, schema: u32, jsonl: &Path) {
    conn.execute_batch("BEGIN").unwrap();
    add_session_rows(conn, schema, jsonl);
    conn.execute_batch("COMMIT").unwrap();
}

fn add_session_rows(conn: &Connection, schema: u32, jsonl: &Path) {
    let text = std::fs::read_to_string(jsonl).unwrap();
    let mut lines = text.lines();
    let header: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    let id = header["id"].as_str().unwrap().to_owned();
    let opt_i = |k: &str| header.get(k).and_then(Value::as_i64);
    let opt_s = |k: &str| header.get(k).and_then(Value::as_str).map(str::to_owned);
    if schema == 17 {
        conn.execute(
            "INSERT INTO sessions VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 'd08845e5-0174-4947-a2f9-b99c83d51c14', 1)",
            params![id, header["version"].as_i64(), header["createdAt"].as_i64(), opt_s("cwd"), opt_s("parentSession"), opt_i("seedLength"), opt_s("origin"), opt_i("delegationDepth"), opt_s("agentPreset")],
        )
        .unwrap();
    } else {
        conn.execute(
            "INSERT INTO sessions VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                id,
                header["version"].as_i64(),
                header["createdAt"].as_i64(),
                opt_s("cwd"),
                opt_s("parentSession"),
                opt_i("seedLength")
            ],
        )
        .unwrap();
    }
    for line in lines {
        #[derive(serde::Deserialize)]
        struct Row<'a> {
            #[serde(rename = "type")]
            ty: String,
            seq: Option<i64>,
            time: Option<i64>,
            seq0: Option<i64>,
            time0: Option<i64>,
            #[serde(borrow)]
            data: &'a RawValue,
            #[serde(rename = "sourceEventSeqs")]
            sources: Option<Vec<u64>>,
            #[serde(rename = "surfaceOp", borrow)]
            surface_op: Option<&'a RawValue>,
            ignorable: Option<bool>,
        }
        let row: Row<'_> = serde_json::from_str(line).unwrap();
        if PACKED_TAGS.contains(&row.ty.as_str()) {
            let data: Value = serde_json::from_str(row.data.get()).unwrap();
            let members = data
                .get("texts")
                .or(data.get("args"))
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            if schema == 17 && (3..=1024).contains(&members) {
                conn.execute(
                    "INSERT INTO events VALUES (?1, ?2, ?3, ?4, ?5, NULL, NULL, 0)",
                    params![
                        id,
                        row.seq0,
                        row.ty,
                        row.time0,
                        data_column(17, row.data.get())
                    ],
                )
                .unwrap();
            } else {
                // Schema 4 has no packed rows: store the members as scalar chunk events.
                let mut time = row.time0.unwrap();
                let dt = data["dt"].as_array().unwrap();
                for k in 0..members {
                    if k > 0 {
                        time += dt[k - 1].as_i64().unwrap();
                    }
                    let chunk = match row.ty.as_str() {
                        "tool-call-chunks" => {
                            let mut c = serde_json::Map::new();
                            c.insert("type".into(), "tool-call-delta".into());
                            c.insert("index".into(), data["index"].clone());
                            c.insert("id".into(), data["id"].clone());
                            if let Some(name) = data.get("name") {
                                c.insert("name".into(), name.clone());
                            }
                            c.insert("argumentsDelta".into(), data["args"][k].clone());
                            Value::Object(c)
                        }
                        tag => {
                            serde_json::json!({"type": if tag == "text-chunks" {"text-delta"} else {"reasoning-delta"}, "index": data["index"], "text": data["texts"][k]})
                        }
                    };
                    let member = serde_json::json!({"turn": data["turn"], "step": data["step"], "chunk": chunk});
                    conn.execute(
                        "INSERT INTO events (session_id, seq, type, time, data) VALUES (?1, ?2, 'assistant/chunk', ?3, ?4)",
                        params![id, row.seq0.unwrap() + k as i64, time, serde_json::to_string(&member).unwrap()],
                    )
                    .unwrap();
                }
            }
            continue;
        }
        let sources: Option<rusqlite::types::Value> = row.sources.map(|s| {
            if schema == 17 {
                rusqlite::types::Value::Blob(encode_seqs(&s))
            } else {
                rusqlite::types::Value::Text(serde_json::to_string(&s).unwrap())
            }
        });
        let op = row.surface_op.map(|o| o.get().to_owned());
        if schema == 17 {
            conn.execute(
                "INSERT INTO events VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                params![
                    id,
                    row.seq,
                    row.ty,
                    row.time,
                    data_column(17, row.data.get()),
                    sources,
                    op,
                    row.ignorable.map(|_| 1)
                ],
            )
            .unwrap();
        } else {
            conn.execute(
                "INSERT INTO events VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![id, row.seq, row.ty, row.time, row.data.get(), sources, op],
            )
            .unwrap();
        }
    }
}

/// A store of `schema` at `db` holding the session of `jsonl`.
pub fn store_from_jsonl(jsonl: &Path, db: &Path, schema: u32) {
    let conn = create_store(db, schema);
    add_session(&conn, schema, jsonl);
}

/// One stored row: seq, type, data bytes, source_event_seqs, surface_op.
pub type Row = (i64, String, Vec<u8>, Option<Vec<u8>>, Option<String>);

/// Every row of a store's events table, in seq order, as stored.
pub fn rows(db: &Path) -> Vec<Row> {
    let conn = Connection::open(db).unwrap();
    let mut stmt = conn
        .prepare("SELECT seq, type, CAST(data AS BLOB), source_event_seqs, surface_op FROM events ORDER BY seq")
        .unwrap();
    stmt.query_map([], |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}
