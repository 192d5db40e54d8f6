//! `provenance`, `replacements` and `surface --all` on a log with two compactions, a
//! tool-result prune and chained provenance (FORMAT.md §1.2, §3).

mod common;

use common::store::store_from_jsonl;
use common::{dsh, fixture};

const LOG: &str = "compaction-and-prune.jsonl";

fn run(args: &[&str]) -> std::process::Output {
    dsh().args(args).output().expect("runs")
}

fn stdout(args: &[&str]) -> String {
    let out = run(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn log() -> String {
    fixture(LOG).to_str().unwrap().to_owned()
}

#[test]
fn a_compaction_summary_that_was_itself_compacted() {
    assert_eq!(
        stdout(&["provenance", &log(), "15"]),
        "event:  15 user/message  Summary: the user listed two files.
status: shadowed by seq 20 (user/message replace 15..12, replace generation 3)
replaces: 2, 7, 9 (user/message replace 2..9, replace generation 1)

ancestors (what it was built from, via sourceEventSeqs):
15 user/message  Summary: the user listed two files.
├── 13 compaction/start t1  {\"compactionId\":\"cmp-1\",\"turn\":1}
├── 14 compaction/summary  {\"compactionId\":\"cmp-1\",\"summary\":[{\"type\":\"text\",\"text\":\"T…
├── 2 user/message  list the files
├── 7 assistant/message t1/s1  Let me look.
│   ├── 3 assistant/chunk t1/s1  block-start
│   ├── 4 assistant/chunk t1/s1  text-delta Let me
│   ├── 5 assistant/chunk t1/s1  text-delta look
│   └── 6 assistant/chunk t1/s1  text-delta .
└── 9 tool/result t1/s1  a.txt b.txt
    └── 8 tool/call t1/s1  bash({\"command\":\"ls\"})

descendants (what cites it, and what shadowed it):
15 user/message  Summary: the user listed two files.
└── [cited and shadowed by] 20 user/message  Summary: two files; a.txt says hello.
"
    );
}

#[test]
fn a_chunk_reaches_the_final_summary_through_two_compactions() {
    assert_eq!(
        stdout(&["provenance", &log(), "4"]),
        "event:  4 assistant/chunk t1/s1  text-delta Let me
status: not a surface event (log only)

ancestors (what it was built from, via sourceEventSeqs):
4 assistant/chunk t1/s1  text-delta Let me

descendants (what cites it, and what shadowed it):
4 assistant/chunk t1/s1  text-delta Let me
└── 7 assistant/message t1/s1  Let me look.
    └── [cited and shadowed by] 15 user/message  Summary: the user listed two files.
        └── [cited and shadowed by] 20 user/message  Summary: two files; a.txt says hello.
"
    );
    // --depth cuts both trees.
    let cut = stdout(&["provenance", &log(), "4", "--depth", "1"]);
    assert!(cut.ends_with("4 assistant/chunk t1/s1  text-delta Let me\n└── 7 assistant/message t1/s1  Let me look. …\n"), "{cut}");
}

#[test]
fn a_pruned_tool_result_in_json() {
    let v: serde_json::Value =
        serde_json::from_str(&stdout(&["provenance", &log(), "19", "--format", "json"])).unwrap();
    let node = |seq: u64,
                ty: &str,
                preview: &str,
                edge: serde_json::Value,
                children: serde_json::Value| {
        serde_json::json!({"seq": seq, "type": ty, "turn": 1, "step": 1, "preview": preview, "edge": edge, "children": children})
    };
    assert_eq!(
        v,
        serde_json::json!({
            "schema_version": 1,
            "seq": 19,
            "event": {"seq": 19, "type": "tool/result", "turn": 1, "step": 1, "preview": "[output pruned]"},
            "status": {"kind": "on-surface", "position": 1},
            "replaces": {"shadowed": [17], "type": "tool/result", "start": 17, "end": 17, "generation": 2},
            "heal": null,
            "ancestors": node(19, "tool/result", "[output pruned]", serde_json::Value::Null, serde_json::json!([
                node(17, "tool/result", "hello from a", "cited".into(), serde_json::json!([
                    node(16, "tool/call", "bash({\"command\":\"cat a.txt\"})", "cited".into(), serde_json::json!([])),
                ])),
            ])),
            "descendants": node(19, "tool/result", "[output pruned]", serde_json::Value::Null, serde_json::json!([])),
        })
    );
    // The pruned original: shadowed by the prune, generation 2.
    let v: serde_json::Value =
        serde_json::from_str(&stdout(&["provenance", &log(), "17", "--format", "json"])).unwrap();
    assert_eq!(
        v["status"],
        serde_json::json!({"kind": "shadowed", "by": 19, "type": "tool/result", "start": 17, "end": 17, "generation": 2})
    );
    assert_eq!(
        v["descendants"]["children"][0]["edge"],
        "cited and shadowed by"
    );
}

#[test]
fn dot_neighbourhood() {
    assert_eq!(
        stdout(&["provenance", &log(), "9", "--format", "dot"]),
        "digraph provenance {
  rankdir=LR;
  node [shape=box, fontname=\"monospace\"];
  \"8\" [label=\"8 tool/call\"];
  \"9\" [label=\"9 tool/result\", style=bold];
  \"15\" [label=\"15 user/message\"];
  \"20\" [label=\"20 user/message\"];
  \"8\" -> \"9\";
  \"9\" -> \"15\";
  \"9\" -> \"15\" [style=dashed];
  \"15\" -> \"20\";
  \"15\" -> \"20\" [style=dashed];
}
"
    );
}

#[test]
fn a_seq_past_the_end_is_a_clear_error() {
    let out = run(&["--dsh", "0.1.1", "provenance", &log(), "24"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        format!(
            "dsh-session: {}: seq 24 is beyond the log: its last seq is 23\n",
            log()
        )
    );
}

#[test]
fn replacements_in_log_order() {
    assert_eq!(
        stdout(&["replacements", &log()]),
        " gen   seq   type           range    shadowed   surface
----- ----- -------------- -------- ---------- ---------
 1     15    user/message   2..9     2,7,9      4 -> 2
 2     19    tool/result    17..17   17         3 -> 3
 3     20    user/message   15..12   15,12      3 -> 2
"
    );
    let v: serde_json::Value =
        serde_json::from_str(&stdout(&["replacements", &log(), "--format", "json"])).unwrap();
    assert_eq!(
        v[2],
        serde_json::json!({"schema_version": 1, "generation": 3, "seq": 20, "type": "user/message", "start": 15, "end": 12, "shadowed": [15, 12], "surface_len_before": 3, "surface_len_after": 2})
    );
    // The history agrees with `show`'s count and with the surface op of each replace.
    let surface: serde_json::Value =
        serde_json::from_str(&stdout(&["surface", "--all", "--format", "json", &log()])).unwrap();
    for r in v.as_array().unwrap() {
        let entry = surface
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["seq"] == r["seq"])
            .unwrap();
        assert_eq!(
            (entry["op"].as_str(), &entry["start"], &entry["end"]),
            (Some("replace"), &r["start"], &r["end"])
        );
        assert_eq!(
            entry["shadowed_count"],
            r["shadowed"].as_array().unwrap().len()
        );
        for s in r["shadowed"].as_array().unwrap() {
            let gone = surface
                .as_array()
                .unwrap()
                .iter()
                .find(|e| &e["seq"] == s)
                .unwrap();
            assert_eq!(gone["shadowed_by"], r["seq"]);
        }
    }
}

#[test]
fn surface_all_shows_the_whole_history() {
    assert_eq!(
        stdout(&["surface", "--all", &log()]),
        " status           seq   type                op               shadowed   role        preview
---------------- ----- ------------------- ---------------- ---------- ----------- ---------------------------------------
 shadowed by 15   2     user/message        append           0          user        list the files
 shadowed by 15   7     assistant/message   append           0          assistant   Let me look.
 shadowed by 15   9     tool/result         append           0          user        a.txt b.txt
 shadowed by 20   12    assistant/message   append           0          assistant   Two files.
 shadowed by 20   15    user/message        replace 2..9     3          user        Summary: the user listed two files.
 shadowed by 19   17    tool/result         append           0          user        hello from a
 pos 1            19    tool/result         replace 17..17   1          user        [output pruned]
 pos 0            20    user/message        replace 15..12   2          user        Summary: two files; a.txt says hello.
"
    );
}

#[test]
fn provenance_is_the_same_from_a_sqlite_store() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    store_from_jsonl(&fixture(LOG), &db, 17);
    let db = db.to_str().unwrap();
    for seq in ["3", "9", "15", "19"] {
        for format in ["tree", "json", "dot"] {
            let a = stdout(&["provenance", &log(), seq, "--format", format]);
            let b = stdout(&["provenance", db, seq, "--format", format]);
            assert_eq!(a, b, "{seq} {format}");
        }
    }
    assert_eq!(
        stdout(&["replacements", &log()]),
        stdout(&["replacements", db])
    );
    assert_eq!(
        stdout(&["surface", "--all", &log()]),
        stdout(&["surface", "--all", db])
    );
}
