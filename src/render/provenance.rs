//! `provenance`'s output: one event's [`Trace`] as text (status, then the two trees), one
//! JSON object, or a Graphviz graph (README "provenance").

use std::collections::{BTreeSet, HashMap};
use std::io::Write;

use anyhow::Result;
use dsh_session::heal;
use dsh_session::provenance::trace::Trace;
use dsh_session::provenance::{self, Status, TreeNode};
use dsh_session::rules::Rule;
use dsh_session::view::nodes::NodeInfo;
use dsh_session::view::provenance_index::ProvenanceIndex;
use serde_json::{Value, json};

use crate::cli::ProvenanceFormat;
use crate::render::salvage::{self, Salvaged, Shape};

/// Writes the trace `t` in `format`; `salvaged` is `Some` with `--salvage` (the defect a
/// salvaged read stopped at, `None` for a healthy log).
///
/// # Errors
/// Writing to `out` failed.
pub fn write(
    out: &mut dyn Write,
    t: &Trace,
    format: ProvenanceFormat,
    salvaged: Option<Option<&Salvaged>>,
) -> Result<()> {
    let (seq, nodes) = (t.seq, &t.nodes);
    if let Some(salvaged) = salvaged {
        let shape = match format {
            ProvenanceFormat::Dot => Shape::Dot,
            _ => Shape::Text,
        };
        if format != ProvenanceFormat::Json {
            salvage::head(out, shape, salvaged)?;
        }
    }
    match format {
        ProvenanceFormat::Text => {
            writeln!(out, "event:  {}", describe(seq, nodes))?;
            writeln!(out, "status: {}", status_text(&t.status))?;
            if let Some(r) = &t.replaced {
                writeln!(
                    out,
                    "replaces: {} ({} replace {}..{}, replace generation {})",
                    r.shadowed
                        .iter()
                        .map(u64::to_string)
                        .collect::<Vec<_>>()
                        .join(", "),
                    r.ty,
                    r.start,
                    r.end,
                    r.generation
                )?;
            }
            if let Some((id, rules)) = &t.heal {
                writeln!(out, "heal:   {}", heal_text(id, rules))?;
            }
            write_trees(out, &t.up, &t.down, nodes)?;
        }
        ProvenanceFormat::Json => {
            let mut value = json!({
                "schema_version": 1,
                "seq": seq,
                "event": node_json(seq, nodes),
                "status": status_json(&t.status),
                "replaces": t.replaced.as_ref().map(|r| json!({
                    "shadowed": r.shadowed,
                    "type": r.ty,
                    "start": r.start,
                    "end": r.end,
                    "generation": r.generation,
                })),
                "heal": t.heal.as_ref().map(|(id, rules)| json!({
                    "message_id": id,
                    "rules": rules.iter().map(|r| r.id()).collect::<Vec<_>>(),
                    "why": heal_text(id, rules),
                })),
                "ancestors": tree_json(&t.up, nodes),
                "descendants": tree_json(&t.down, nodes),
            });
            if let Some(salvaged) = salvaged {
                value["salvaged"] = salvaged.map_or(Value::Null, |s| s.json());
            }
            serde_json::to_writer_pretty(&mut *out, &value)?;
            writeln!(out)?;
        }
        ProvenanceFormat::Dot => write_dot(out, seq, &t.index, &t.seqs, nodes)?,
    }
    Ok(())
}

fn status_text(status: &Status) -> String {
    match status {
        Status::OnSurface { position } => format!("on the surface at position {position}"),
        Status::Shadowed { replacement: r } => format!(
            "shadowed by seq {} ({} replace {}..{}, replace generation {})",
            r.seq, r.ty, r.start, r.end, r.generation
        ),
        Status::LogOnly => "not a surface event (log only)".into(),
    }
}

fn status_json(status: &Status) -> Value {
    match status {
        Status::OnSurface { position } => json!({"kind": "on-surface", "position": position}),
        Status::Shadowed { replacement: r } => json!({
            "kind": "shadowed", "by": r.seq, "type": r.ty, "start": r.start, "end": r.end, "generation": r.generation,
        }),
        Status::LogOnly => json!({"kind": "log-only"}),
    }
}

fn describe(seq: u64, nodes: &HashMap<u64, NodeInfo>) -> String {
    let Some(n) = nodes.get(&seq) else {
        return seq.to_string();
    };
    let mut text = format!("{seq} {}", n.ty);
    match (n.turn, n.step) {
        (Some(t), Some(s)) => text.push_str(&format!(" t{t}/s{s}")),
        (Some(t), None) => text.push_str(&format!(" t{t}")),
        _ => {}
    }
    if !n.preview.is_empty() {
        text.push_str(&format!("  {}", n.preview));
    }
    text
}

/// Why a heal was written, from its message id (`dsh-session-heal-P1-13`).
fn heal_text(id: &str, rules: &[Rule]) -> String {
    format!(
        "written by `dsh-session repair --provider` (message id {id}) because the provider would refuse the history: {}",
        rules
            .iter()
            .map(|r| format!("{} {}", r.id(), heal::refusal(*r)))
            .collect::<Vec<_>>()
            .join("; ")
    )
}

fn write_trees(
    out: &mut dyn Write,
    up: &TreeNode,
    down: &TreeNode,
    nodes: &HashMap<u64, NodeInfo>,
) -> std::io::Result<()> {
    writeln!(out)?;
    writeln!(
        out,
        "ancestors (what it was built from, via sourceEventSeqs):"
    )?;
    write_node(out, up, "", "", nodes)?;
    writeln!(out)?;
    writeln!(out, "descendants (what cites it, and what shadowed it):")?;
    write_node(out, down, "", "", nodes)
}

fn write_node(
    out: &mut dyn Write,
    node: &TreeNode,
    first: &str,
    rest: &str,
    nodes: &HashMap<u64, NodeInfo>,
) -> std::io::Result<()> {
    let edge = node
        .edge
        .filter(|e| e.name() != "cited" && e.name() != "cited by")
        .map(|e| format!("[{}] ", e.name()))
        .unwrap_or_default();
    let text = if node.back_reference {
        format!("{} (see above)", node.seq)
    } else {
        describe(node.seq, nodes)
    };
    let cut = if node.cut { " …" } else { "" };
    writeln!(out, "{first}{edge}{text}{cut}")?;
    for (i, child) in node.children.iter().enumerate() {
        let last = i + 1 == node.children.len();
        let (f, r) = if last {
            ("└── ", "    ")
        } else {
            ("├── ", "│   ")
        };
        write_node(
            out,
            child,
            &format!("{rest}{f}"),
            &format!("{rest}{r}"),
            nodes,
        )?;
    }
    Ok(())
}

fn node_json(seq: u64, nodes: &HashMap<u64, NodeInfo>) -> Value {
    match nodes.get(&seq) {
        Some(n) => {
            json!({"seq": seq, "type": n.ty, "turn": n.turn, "step": n.step, "preview": n.preview})
        }
        None => json!({"seq": seq}),
    }
}

fn tree_json(node: &TreeNode, nodes: &HashMap<u64, NodeInfo>) -> Value {
    let mut v = node_json(node.seq, nodes);
    let obj = v.as_object_mut().expect("an object");
    obj.insert(
        "edge".into(),
        node.edge.map_or(Value::Null, |e| e.name().into()),
    );
    if node.back_reference {
        obj.insert("back_reference".into(), true.into());
    }
    if node.cut {
        obj.insert("cut".into(), true.into());
    }
    obj.insert(
        "children".into(),
        node.children.iter().map(|c| tree_json(c, nodes)).collect(),
    );
    v
}

fn dot_label(seq: u64, nodes: &HashMap<u64, NodeInfo>) -> String {
    let text = match nodes.get(&seq) {
        Some(n) => format!("{seq} {}", n.ty),
        None => seq.to_string(),
    };
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

fn write_dot(
    out: &mut dyn Write,
    seq: u64,
    index: &ProvenanceIndex,
    seqs: &BTreeSet<u64>,
    nodes: &HashMap<u64, NodeInfo>,
) -> std::io::Result<()> {
    writeln!(out, "digraph provenance {{")?;
    writeln!(out, "  rankdir=LR;")?;
    writeln!(out, "  node [shape=box, fontname=\"monospace\"];")?;
    for s in seqs {
        let bold = if *s == seq { ", style=bold" } else { "" };
        writeln!(out, "  \"{s}\" [label=\"{}\"{bold}];", dot_label(*s, nodes))?;
    }
    for (from, to, dashed) in provenance::dot_edges(index, seqs) {
        let style = if dashed { " [style=dashed]" } else { "" };
        writeln!(out, "  \"{from}\" -> \"{to}\"{style};")?;
    }
    writeln!(out, "}}")
}
