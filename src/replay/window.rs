//! A window on the derived history (FORMAT.md §4): the messages of a seq range, cut to a
//! size, never parting a tool call from its results.
//!
//! A reader that pages through a long session (`dsh-session mcp`'s `messages` tool) asks
//! for the messages whose seqs lie in a range and gets at most about `max_bytes` of them,
//! plus the range to ask for next. Two things shape the cut:
//!
//! - A tool call and its results stay together: a range that would hold one without the
//!   other is widened to hold both (a provider refuses a result without its call, and a
//!   call without its result reads as unanswered), and a cut falls only between such groups.
//! - The surface is not in seq order: a replace takes the place of the first entry it
//!   shadowed, so a compaction's summary (a high seq) comes before the older entries it
//!   kept. A cut falls only where every message before it has a lower seq than every
//!   message after it, so that "from the seq after the last one shown" is exactly the rest.
//!
//! Pure: it sees seqs, sizes and call ids, never the texts.

use std::collections::HashMap;

/// One message of the derived history as a window sees it, in surface order.
#[derive(Debug, Clone, Copy)]
pub struct Item<'a> {
    /// The event's seq.
    pub seq: u64,
    /// Bytes of the derived message (its JSON text).
    pub bytes: usize,
    /// Tool-call ids the message announces (assistant `tool-call` blocks).
    pub calls: &'a [String],
    /// Tool-call ids the message answers (`tool-result` blocks).
    pub results: &'a [String],
}

/// What a window holds ([`window`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// Indices into the items, in surface order: the messages to show.
    pub take: Vec<usize>,
    /// The first seq of the range shown (the request's, or lower when widened).
    pub from_seq: u64,
    /// The last seq of the range shown: the request's end (or higher when widened, or the
    /// last seq there is when it asked for more), or the last seq shown when cut.
    pub to_seq: u64,
    /// The range asked for when it was widened to keep tool calls with their results.
    pub widened_from: Option<(u64, u64)>,
    /// The range after widening, its end no later than the last seq there is.
    pub range: (u64, u64),
    /// The range holding the rest, when the window was cut at `max_bytes`.
    pub next: Option<(u64, u64)>,
    /// Bytes of the messages shown.
    pub bytes: usize,
    /// True when even the first group of messages that can be shown alone (a message, or a
    /// tool call with its results) is over `max_bytes`: it is shown whole all the same.
    pub over_cap: bool,
}

/// The window of `items` (the derived history in surface order) for the seqs
/// `from_seq..=to_seq`, holding at most `max_bytes` of messages (each counted as its bytes
/// plus one for the separator) unless one group alone is larger.
pub fn window(items: &[Item<'_>], from_seq: u64, to_seq: u64, max_bytes: usize) -> Window {
    let group = groups(items);
    let last_seq = items.iter().map(|i| i.seq).max().unwrap_or(0);
    let asked = (from_seq, to_seq);
    let (mut lo, mut hi) = (from_seq, to_seq.min(last_seq.max(from_seq)));
    // Each group's lowest and highest seq.
    let mut bounds: HashMap<usize, (u64, u64)> = HashMap::new();
    for (i, item) in items.iter().enumerate() {
        let b = bounds.entry(group[i]).or_insert((item.seq, item.seq));
        *b = (b.0.min(item.seq), b.1.max(item.seq));
    }
    // Widen until every group that has a message in the range lies wholly inside it; each
    // pass only widens, so this ends after at most one pass per group.
    loop {
        let (mut new_lo, mut new_hi) = (lo, hi);
        for (i, item) in items.iter().enumerate() {
            if (lo..=hi).contains(&item.seq) {
                let (g_lo, g_hi) = bounds[&group[i]];
                new_lo = new_lo.min(g_lo);
                new_hi = new_hi.max(g_hi);
            }
        }
        if (new_lo, new_hi) == (lo, hi) {
            break;
        }
        (lo, hi) = (new_lo, new_hi);
    }
    let widened_from = (lo < asked.0 || hi > asked.1.min(last_seq.max(asked.0))).then_some(asked);
    let selected: Vec<usize> = (0..items.len())
        .filter(|&i| (lo..=hi).contains(&items[i].seq))
        .collect();
    let n = selected.len();
    let cuts = cut_points(items, &selected, &group);
    let mut bytes = 0usize;
    let mut take = n;
    let mut over_cap = false;
    let mut last_fitting = None;
    for k in 1..=n {
        bytes += items[selected[k - 1]].bytes + 1;
        if bytes > max_bytes {
            break;
        }
        if cuts[k] {
            last_fitting = Some(k);
        }
    }
    if bytes > max_bytes {
        take = match last_fitting {
            Some(k) => k,
            None => {
                over_cap = true;
                (1..=n).find(|&k| cuts[k]).unwrap_or(n)
            }
        };
    }
    let shown = &selected[..take];
    let bytes = shown.iter().map(|&i| items[i].bytes + 1).sum();
    let shown_max = shown.iter().map(|&i| items[i].seq).max();
    let (to_seq, next) = match shown_max {
        Some(max) if take < n => (max, Some((max + 1, hi))),
        _ => (hi, None),
    };
    Window {
        take: shown.to_vec(),
        from_seq: lo,
        to_seq,
        widened_from,
        range: (lo, hi),
        next,
        bytes,
        over_cap,
    }
}

/// For each item, the group it belongs to: messages joined by a tool-call id (the call and
/// every result answering it) share one; any other message is a group of its own.
fn groups(items: &[Item<'_>]) -> Vec<usize> {
    let mut parent: Vec<usize> = (0..items.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let mut first_with_id: HashMap<&str, usize> = HashMap::new();
    for (i, item) in items.iter().enumerate() {
        for id in item.calls.iter().chain(item.results) {
            let other = *first_with_id.entry(id.as_str()).or_insert(i);
            let (a, b) = (root(&mut parent, other), root(&mut parent, i));
            parent[a] = b;
        }
    }
    (0..items.len()).map(|i| root(&mut parent, i)).collect()
}

/// `cuts[k]` (k in `0..=selected.len()`): whether the window may end after the first `k`
/// selected items: no group has messages on both sides, and every seq before the cut is
/// lower than every seq after it. Ending after all of them is always allowed.
fn cut_points(items: &[Item<'_>], selected: &[usize], group: &[usize]) -> Vec<bool> {
    let n = selected.len();
    let mut cuts = vec![true; n + 1];
    cuts[0] = false;
    // A group spanning positions first..=last forbids the cuts first+1..=last.
    let mut span: HashMap<usize, (usize, usize)> = HashMap::new();
    for (pos, &i) in selected.iter().enumerate() {
        span.entry(group[i])
            .and_modify(|s| s.1 = pos)
            .or_insert((pos, pos));
    }
    let mut open = vec![0i64; n + 2];
    for &(first, last) in span.values() {
        open[first + 1] += 1;
        open[last + 1] -= 1;
    }
    let mut inside = 0;
    let mut prefix_max = 0u64;
    let mut suffix_min = vec![u64::MAX; n + 1];
    for pos in (0..n).rev() {
        suffix_min[pos] = suffix_min[pos + 1].min(items[selected[pos]].seq);
    }
    for k in 1..n {
        inside += open[k];
        prefix_max = prefix_max.max(items[selected[k - 1]].seq);
        cuts[k] = inside == 0 && prefix_max < suffix_min[k];
    }
    cuts
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A message: seq, bytes, calls announced, results given.
    type M = (u64, usize, &'static [&'static str], &'static [&'static str]);

    fn run(history: &[M], from: u64, to: u64, max: usize) -> Window {
        let owned: Vec<(Vec<String>, Vec<String>)> = history
            .iter()
            .map(|(_, _, c, r)| {
                (
                    c.iter().map(|s| s.to_string()).collect(),
                    r.iter().map(|s| s.to_string()).collect(),
                )
            })
            .collect();
        let items: Vec<Item<'_>> = history
            .iter()
            .zip(&owned)
            .map(|((seq, bytes, _, _), (calls, results))| Item {
                seq: *seq,
                bytes: *bytes,
                calls,
                results,
            })
            .collect();
        window(&items, from, to, max)
    }

    fn seqs(history: &[M], w: &Window) -> Vec<u64> {
        w.take.iter().map(|&i| history[i].0).collect()
    }

    const NONE: &[&str] = &[];

    /// user 1, assistant 2 calling a and b, results 3 (a) and 4 (b), assistant 5.
    const TURN: [M; 5] = [
        (1, 10, NONE, NONE),
        (2, 10, &["a", "b"], NONE),
        (3, 10, NONE, &["a"]),
        (4, 10, NONE, &["b"]),
        (5, 10, NONE, NONE),
    ];

    #[test]
    fn a_range_within_the_cap_is_shown_whole() {
        let w = run(&TURN, 0, u64::MAX, 1000);
        assert_eq!(seqs(&TURN, &w), [1, 2, 3, 4, 5]);
        assert_eq!(
            (w.from_seq, w.to_seq, w.next, w.widened_from),
            (0, 5, None, None)
        );
        assert_eq!((w.bytes, w.over_cap), (55, false));
    }

    #[test]
    fn the_cap_falls_before_a_call_not_between_it_and_its_results() {
        // 22 bytes would hold seqs 1 and 2, but 2's results are 3 and 4: cut after 1.
        let w = run(&TURN, 0, u64::MAX, 22);
        assert_eq!(seqs(&TURN, &w), [1]);
        assert_eq!((w.to_seq, w.next, w.over_cap), (1, Some((2, 5)), false));
        // The next window starts with the call and holds its results.
        let w = run(&TURN, 2, 5, 33);
        assert_eq!(seqs(&TURN, &w), [2, 3, 4]);
        assert_eq!((w.from_seq, w.to_seq, w.next), (2, 4, Some((5, 5))));
    }

    #[test]
    fn a_group_over_the_cap_is_shown_whole_and_said() {
        let w = run(&TURN, 2, 5, 15);
        assert_eq!(seqs(&TURN, &w), [2, 3, 4]);
        assert_eq!((w.over_cap, w.bytes, w.next), (true, 33, Some((5, 5))));
    }

    #[test]
    fn a_range_that_splits_a_call_from_its_results_is_widened() {
        // Asked for the call only: its results join.
        let w = run(&TURN, 1, 2, 1000);
        assert_eq!(seqs(&TURN, &w), [1, 2, 3, 4]);
        assert_eq!((w.from_seq, w.to_seq, w.widened_from), (1, 4, Some((1, 2))));
        // Asked for one result: its call joins, and with the call its other result.
        let w = run(&TURN, 4, 5, 1000);
        assert_eq!(seqs(&TURN, &w), [2, 3, 4, 5]);
        assert_eq!((w.from_seq, w.to_seq, w.widened_from), (2, 5, Some((4, 5))));
    }

    #[test]
    fn a_compaction_summary_is_never_cut_from_the_entries_it_kept_before_it() {
        // A compaction at seq 9 replaced 1..=5 and kept 6..=8 after it: the surface is
        // 9, 6, 7, 8, then 10. Cutting after 9 would make "from seq 10" skip 6..=8.
        let history: [M; 5] = [
            (9, 10, NONE, NONE),
            (6, 10, NONE, NONE),
            (7, 10, NONE, NONE),
            (8, 10, NONE, NONE),
            (10, 10, NONE, NONE),
        ];
        let w = run(&history, 0, u64::MAX, 25);
        assert_eq!(seqs(&history, &w), [9, 6, 7, 8]);
        assert_eq!((w.to_seq, w.next, w.over_cap), (9, Some((10, 10)), true));
        // A range of the kept entries alone is in seq order and cut as usual.
        let w = run(&history, 6, 8, 25);
        assert_eq!(seqs(&history, &w), [6, 7]);
        assert_eq!(w.next, Some((8, 8)));
    }

    #[test]
    fn paging_by_next_shows_every_message_once() {
        // Ten turns of four messages: user, a call, its result, the answer.
        let ids: Vec<Vec<String>> = (0..10).map(|t| vec![format!("c{t}")]).collect();
        let none = Vec::new();
        let items: Vec<Item<'_>> = (1..=40u64)
            .map(|seq| {
                let id = &ids[((seq - 1) / 4) as usize];
                let (bytes, calls, results) = match seq % 4 {
                    1 => (7, &none, &none),
                    2 => (13, id, &none),
                    3 => (5, &none, id),
                    _ => (11, &none, &none),
                };
                Item {
                    seq,
                    bytes,
                    calls,
                    results,
                }
            })
            .collect();
        let mut seen = Vec::new();
        let (mut from, mut to) = (0, u64::MAX);
        for _ in 0..100 {
            let w = window(&items, from, to, 30);
            assert!(!w.take.is_empty());
            for &i in &w.take {
                seen.push(items[i].seq);
                // A call's result is always in the same window.
                if items[i].seq % 4 == 2 {
                    assert!(w.take.iter().any(|&j| items[j].seq == items[i].seq + 1));
                }
            }
            match w.next {
                Some((f, t)) => (from, to) = (f, t),
                None => break,
            }
        }
        assert_eq!(seen, (1..=40).collect::<Vec<u64>>());
    }

    #[test]
    fn an_empty_range_is_an_empty_window() {
        let w = run(&TURN, 7, 9, 100);
        assert!(w.take.is_empty());
        assert_eq!((w.next, w.widened_from, w.bytes), (None, None, 0));
        let w = run(&[], 0, u64::MAX, 100);
        assert!(w.take.is_empty());
    }
}
