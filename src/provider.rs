//! Provider readiness: will a model provider accept the derived history (FORMAT.md §4) as
//! DSH's adapters send it? (`../shared/PROVIDERS.md`)
//!
//! DSH turns the derived messages into a provider request message by message
//! (PROVIDERS.md §1, §2); the providers then refuse a few shapes of that request with HTTP
//! 400 on every later request of the session. Each shape is a rule `P1`…`P7`, checked on
//! the *wire* the adapter builds, not on the harness list: a user message with text and
//! tool results sends its text first, then one tool message per result; v4 tool-role
//! results are tool messages; the request header's system prompt is message 0.
//!
//! Sources for what each provider refuses (cited per rule below):
//! * DeepSeek, OpenAI-compatible chat: <https://api-docs.deepseek.com/guides/thinking_mode>
//!   (thinking mode; tool calls), <https://api-docs.deepseek.com/api/create-chat-completion>.
//!   Thinking mode: "between two user messages, if the model performed a tool call, the
//!   intermediate assistant's reasoning_content must participate in the context
//!   concatenation and must be passed back to the API in all subsequent user interaction
//!   turns"; a request that does not is refused with HTTP 400. What is passed back is the
//!   reasoning the model produced: a step whose model produced none (`reasoningTokens: 0`,
//!   no reasoning block) has none to pass back, and DSH's DeepSeek serializer then omits
//!   `reasoning_content` (`packages/llm/llm-deepseek/src/serialize.ts`, `serializeAssistant`,
//!   tenyi/deepseek-harness@77afa3438160c9b45d81277b1fa64e9edcd9416d). A user's v0 log of
//!   deepseek-v4-flash in thinking mode holds such tool steps, each followed by more than a
//!   hundred steps DeepSeek answered with exactly that history (issue 24): so P4 fires only
//!   where reasoning is known to have existed (see [`check`]).
//! * OpenAI chat completions: <https://platform.openai.com/docs/api-reference/chat/create>
//!   (`messages[].tool_call_id`: "Tool call that this message is responding to"), and the
//!   function-calling guide <https://platform.openai.com/docs/guides/function-calling>.
//! * Anthropic Messages: <https://docs.anthropic.com/en/docs/build-with-claude/tool-use/implement-tool-use>
//!   ("tool result blocks must immediately follow their corresponding tool use blocks"; "each
//!   `tool_use` block must have a corresponding `tool_result` block in the next message") and
//!   <https://docs.anthropic.com/en/api/messages> (text content blocks must be non-empty).
//! * Any provider: a request body is JSON text in UTF-8 (RFC 8259 §8.1, §8.2); an unpaired
//!   UTF-16 surrogate has no UTF-8 encoding, so the body cannot be sent as valid JSON.

use crate::json::Json;
use crate::rules::{Finding, ProviderDetail, Rule};

mod thinking;

use thinking::ThinkingModels;
pub use thinking::{source_model, usage_reports_reasoning};

/// A provider profile: which P-rules a provider enforces (`validate --provider NAME`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Provider {
    /// Anthropic Messages API (through DSH's pi-ai adapter).
    Anthropic,
    /// OpenAI chat completions and other OpenAI-compatible gateways.
    Openai,
    /// DeepSeek (OpenAI-compatible, plus its thinking-mode rule); DSH's default provider.
    Deepseek,
}

impl Provider {
    /// Every profile, in the order `rules` lists them.
    pub const ALL: [Provider; 3] = [Provider::Anthropic, Provider::Openai, Provider::Deepseek];

    /// The profile's name on the command line (`anthropic`, `openai`, `deepseek`).
    pub fn name(self) -> &'static str {
        match self {
            Provider::Anthropic => "anthropic",
            Provider::Openai => "openai",
            Provider::Deepseek => "deepseek",
        }
    }

    /// Looks a profile up by name.
    pub fn from_name(name: &str) -> Option<Provider> {
        Provider::ALL.into_iter().find(|p| p.name() == name)
    }

    /// True when this profile refuses a history that breaks `rule`.
    pub fn enforces(self, rule: Rule) -> bool {
        providers_of(rule).contains(&self)
    }

    /// What this provider answers when `rule` is broken (HTTP 400), as users report it,
    /// with its placeholder `N` (`messages.N`, `message index N`) unfilled; `None` when it
    /// does not enforce the rule. [`Provider::answer`] fills it.
    pub fn error_text(self, rule: Rule) -> Option<&'static str> {
        use Provider::{Anthropic, Deepseek, Openai};
        if !self.enforces(rule) {
            return None;
        }
        Some(match (rule, self) {
            (Rule::P1, Anthropic) | (Rule::P3, Anthropic) => {
                "messages.N: `tool_use` ids were found without `tool_result` blocks immediately after"
            }
            (Rule::P1, _) | (Rule::P3, _) => {
                "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. (insufficient tool messages following tool_calls message)"
            }
            (Rule::P2, Anthropic) => "unexpected `tool_use_id` found in `tool_result` blocks",
            (Rule::P2, Openai | Deepseek) => {
                "Messages with role 'tool' must be a response to a preceding message with 'tool_calls'"
            }
            (Rule::P4, _) => {
                "Missing `reasoning_content` field in the assistant message at message index N"
            }
            (Rule::P5, _) => "HTTP 400: the request body is not valid UTF-8 JSON",
            (Rule::P6, _) => "messages.N: `tool_use` ids must be unique",
            (Rule::P7, _) => "messages.N: text content blocks must be non-empty",
            _ => return None,
        })
    }
}

impl Provider {
    /// Of a finding's two wire indexes ([`ProviderDetail`]), the one this provider counts:
    /// Anthropic's `messages.N` counts the Anthropic messages array, DeepSeek's and
    /// OpenAI's "message index N" the OpenAI-compatible one.
    pub fn counted_index(self, message_index: u64, anthropic_index: u64) -> u64 {
        match self {
            Provider::Anthropic => anthropic_index,
            Provider::Openai | Provider::Deepseek => message_index,
        }
    }

    /// How this provider names the message at `index` of its own count: `messages.3` for
    /// Anthropic, `message index 3` for the OpenAI-compatible ones.
    pub fn index_words(self, index: u64) -> String {
        match self {
            Provider::Anthropic => format!("messages.{index}"),
            Provider::Openai | Provider::Deepseek => format!("message index {index}"),
        }
    }

    /// What this provider answers for `rule` about the message at `index` (its own count,
    /// [`Provider::counted_index`]): its [`Provider::error_text`] with the placeholder
    /// filled; `None` when it does not enforce the rule.
    pub fn answer(self, rule: Rule, index: Option<u64>) -> Option<String> {
        let text = self.error_text(rule)?;
        Some(match index {
            Some(i) => text
                .replace("messages.N", &format!("messages.{i}"))
                .replace("message index N", &format!("message index {i}")),
            None => text.to_owned(),
        })
    }
}

/// The profiles that refuse a history breaking `rule` (empty for a non-P rule).
pub fn providers_of(rule: Rule) -> &'static [Provider] {
    use Provider::{Anthropic, Deepseek, Openai};
    match rule {
        // Every provider pairs calls and results (Anthropic tool-use guide; OpenAI
        // function-calling guide; DeepSeek's OpenAI-compatible chat completion).
        Rule::P1 | Rule::P2 | Rule::P3 | Rule::P5 => &[Anthropic, Openai, Deepseek],
        // DeepSeek thinking mode: "for turns that do perform tool calls, the
        // reasoning_content must be fully passed back to the API in all subsequent
        // requests", else HTTP 400 (api-docs.deepseek.com/guides/thinking_mode).
        Rule::P4 => &[Deepseek],
        // Anthropic Messages: tool_use ids unique within a request, and text blocks
        // non-empty (docs.anthropic.com/en/api/messages). DSH's DeepSeek adapter joins
        // text blocks into one string, so empty ones vanish there.
        Rule::P6 | Rule::P7 => &[Anthropic],
        _ => &[],
    }
}

/// What a provider needs to know about one derived message, worked out once when the
/// event joins the surface (PROVIDERS.md §1): its wire role and the parts the P-rules
/// read. Tool-call ids and result ids live beside it on the surface entry.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Shape {
    /// The message's role as the adapter sends it.
    pub role: WireRole,
    /// At least one `text` block with text: a user message is sent before its results.
    pub has_text: bool,
    /// `text` blocks whose text is empty.
    pub empty_text_blocks: u32,
    /// At least one `reasoning` block with text (DeepSeek `reasoning_content`).
    pub has_reasoning: bool,
    /// An assistant message whose step is known to have produced reasoning that the
    /// message does not carry: its `usage.reasoningTokens` is above 0 and it has no
    /// reasoning text (FORMAT.md §2.3, §2.4.4). What DSH sends of it then lacks reasoning the
    /// provider returned ([`check`], P4).
    pub reasoning_lost: bool,
    /// The model that wrote an assistant message (`source.provider` / `source.model`), as
    /// a key the history names ([`History::model_name`]); 0 when unknown.
    pub model: u16,
    /// An unpaired UTF-16 surrogate escape (`\ud800`) anywhere in the message.
    pub lone_surrogate: bool,
}

/// Roles of harness messages (FORMAT.md §2.4.1, GENERATIONS §7).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum WireRole {
    /// `system` (v3/v4 `system/message`).
    System,
    /// `developer` (v4 `developer/message`).
    Developer,
    /// `user`, including v0–v3 tool results (`tool-result` blocks).
    #[default]
    User,
    /// `assistant`.
    Assistant,
    /// v4 tool-role result.
    Tool,
}

impl WireRole {
    fn of(role: &str) -> WireRole {
        match role {
            "system" => WireRole::System,
            "developer" => WireRole::Developer,
            "assistant" => WireRole::Assistant,
            "tool" => WireRole::Tool,
            _ => WireRole::User,
        }
    }
}

/// What the P-rules read of one derived message, in one pass over its content blocks:
/// the tool-call ids it announces (`tool-call` blocks) and answers (`tool-result` blocks,
/// or a v4 tool-role message's `toolCallId`, GENERATIONS §7), and its [`Shape`]. `role` as
/// derived (June-era messages carry none in the JSON).
pub fn read_message(message: Json<'_>, role: Option<&str>) -> (Vec<String>, Vec<String>, Shape) {
    let mut calls = Vec::new();
    let mut results = Vec::new();
    let mut shape = Shape {
        role: WireRole::of(role.unwrap_or("user")),
        lone_surrogate: has_lone_surrogate(message.raw()),
        ..Shape::default()
    };
    let owned = |v: Option<Json<'_>>| v.and_then(Json::as_str).map(|s| s.into_owned());
    let [stored_role, tool_call_id, content] = message.lookup(["role", "toolCallId", "content"]);
    if stored_role.is_some_and(|r| r.str_eq("tool")) {
        results.extend(owned(tool_call_id));
    }
    for block in content.into_iter().flat_map(Json::elements) {
        let [ty, id, tool_call_id, text] = block.lookup(["type", "id", "toolCallId", "text"]);
        let Some(ty) = ty else { continue };
        let nonempty = text.is_some_and(Json::is_nonempty_string);
        if ty.str_eq("tool-call") {
            calls.extend(owned(id));
        } else if ty.str_eq("tool-result") {
            results.extend(owned(tool_call_id));
        } else if ty.str_eq("text") {
            if nonempty {
                shape.has_text = true;
            } else {
                shape.empty_text_blocks += 1;
            }
        } else if ty.str_eq("reasoning") && nonempty {
            shape.has_reasoning = true;
        }
    }
    (calls, results, shape)
}

/// True when the JSON text holds a `\uD800`–`\uDBFF` escape not immediately followed by a
/// `\uDC00`–`\uDFFF` escape, or a low one not preceded by a high one: a code unit no UTF-8
/// text can hold. Raw UTF-8 cannot encode surrogates, so only `\u` escapes are looked at;
/// the scan jumps from one `\u` to the next (most text escapes are `\n` and `\"`).
pub fn has_lone_surrogate(raw: &str) -> bool {
    lone_surrogate_escapes(raw).next().is_some()
}

/// The byte offsets of the unpaired surrogate escapes in a JSON text, in order: each is a
/// six-byte `\uXXXX` escape (see [`has_lone_surrogate`]).
pub fn lone_surrogate_escapes(raw: &str) -> impl Iterator<Item = usize> + '_ {
    let bytes = raw.as_bytes();
    let mut escapes = memchr::memmem::find_iter(bytes, b"\\u");
    // A high surrogate escape waiting for its low half, and a lone escape found while
    // deciding it (yielded next).
    let mut high: Option<usize> = None;
    let mut queued: Option<usize> = None;
    std::iter::from_fn(move || {
        if let Some(at) = queued.take() {
            return Some(at);
        }
        loop {
            let Some(i) = escapes.next() else {
                return high.take();
            };
            // An escape only when an even number of backslashes stands before this one
            // (`\\u` is an escaped backslash and a letter u).
            let run = bytes[..i].iter().rev().take_while(|&&b| b == b'\\').count();
            if run % 2 == 1 {
                continue;
            }
            let unit = bytes
                .get(i + 2..i + 6)
                .and_then(|hex| std::str::from_utf8(hex).ok())
                .and_then(|hex| u16::from_str_radix(hex, 16).ok());
            // What this escape is on its own: the start of a pair, or lone.
            let fresh = |high: &mut Option<usize>| match unit {
                Some(0xD800..=0xDBFF) => {
                    *high = Some(i);
                    None
                }
                Some(0xDC00..=0xDFFF) => Some(i),
                _ => None,
            };
            match high.take() {
                // The escape right after a high surrogate is its low half: a pair.
                Some(h) if h + 6 == i && matches!(unit, Some(0xDC00..=0xDFFF)) => {}
                Some(h) => {
                    queued = fresh(&mut high);
                    return Some(h);
                }
                None => {
                    if let Some(lone) = fresh(&mut high) {
                        return Some(lone);
                    }
                }
            }
        }
    })
}

/// The JSON text with every unpaired surrogate escape replaced by U+FFFD, written raw as
/// `JSON.stringify` writes non-ASCII text (the heal of P5); borrowed when there is none.
pub fn replace_lone_surrogates(raw: &str) -> std::borrow::Cow<'_, str> {
    let mut out = String::new();
    let mut from = 0;
    for at in lone_surrogate_escapes(raw) {
        out.push_str(&raw[from..at]);
        out.push('\u{FFFD}');
        from = at + 6;
    }
    if out.is_empty() {
        return std::borrow::Cow::Borrowed(raw);
    }
    out.push_str(&raw[from..]);
    std::borrow::Cow::Owned(out)
}

/// The byte-by-byte reading of [`has_lone_surrogate`], kept to test the fast one against.
#[cfg(test)]
fn has_lone_surrogate_slow(raw: &str) -> bool {
    let units: Vec<u16> = {
        // Decode every escape of the JSON text into UTF-16 code units, other bytes as is.
        let bytes = raw.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b'\\' && i + 1 < bytes.len() {
                if bytes[i + 1] == b'u'
                    && let Some(u) = bytes
                        .get(i + 2..i + 6)
                        .and_then(|h| std::str::from_utf8(h).ok())
                        .and_then(|h| u16::from_str_radix(h, 16).ok())
                {
                    out.push(u);
                    i += 6;
                    continue;
                }
                out.push(u16::from(bytes[i + 1]));
                i += 2;
                continue;
            }
            out.push(u16::from(bytes[i]));
            i += 1;
        }
        out
    };
    char::decode_utf16(units).any(|r| r.is_err())
}

/// Tool-call ids of one message, in block order: a list of owned ids, or ids packed as
/// [`crate::varint`] byte strings (the fold's compact surface records, issue 19).
#[derive(Debug, Clone, Copy)]
pub enum CallIds<'a> {
    /// Owned ids.
    List(&'a [String]),
    /// `count` ids, each a [`crate::varint::write_bytes`] string of UTF-8 in `bytes`.
    Packed {
        /// Number of ids.
        count: usize,
        /// The packed ids, back to back.
        bytes: &'a [u8],
    },
}

impl Default for CallIds<'_> {
    fn default() -> Self {
        CallIds::List(&[])
    }
}

impl<'a> CallIds<'a> {
    /// Number of ids.
    pub fn len(self) -> usize {
        match self {
            CallIds::List(ids) => ids.len(),
            CallIds::Packed { count, .. } => count,
        }
    }

    /// True when there is no id.
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// The ids in order (a packed id that is not UTF-8, which [`pack_ids`] never writes,
    /// reads as empty).
    pub fn iter(self) -> impl Iterator<Item = &'a str> + 'a {
        self.keyed().map(|(_, id)| id)
    }

    /// The ids in order, each with a key that [`CallIds::by_key`] reads it back by in O(1):
    /// its index in a list, the byte offset of its entry when packed.
    pub fn keyed(self) -> impl Iterator<Item = (usize, &'a str)> + 'a {
        let mut pos = 0;
        (0..self.len()).map(move |i| match self {
            CallIds::List(ids) => (i, ids[i].as_str()),
            CallIds::Packed { bytes, .. } => {
                let at = pos;
                (at, crate::varint::read_str(bytes, &mut pos))
            }
        })
    }

    /// The id with `key` ([`CallIds::keyed`]); empty for a key it did not give.
    pub fn by_key(self, key: usize) -> &'a str {
        match self {
            CallIds::List(ids) => ids.get(key).map_or("", String::as_str),
            CallIds::Packed { bytes, .. } => {
                let mut pos = key;
                crate::varint::read_str(bytes, &mut pos)
            }
        }
    }

    /// True when `id` is one of the ids.
    pub fn contains(self, id: &str) -> bool {
        self.iter().any(|x| x == id)
    }

    /// The ids, owned.
    pub fn to_vec(self) -> Vec<String> {
        self.iter().map(str::to_owned).collect()
    }
}

/// Appends `ids` to `out` in the layout [`CallIds::Packed`] reads.
pub fn pack_ids<'a>(out: &mut Vec<u8>, ids: impl IntoIterator<Item = &'a str>) {
    for id in ids {
        crate::varint::write_bytes(out, id.as_bytes());
    }
}

/// One derived message as the P-rules see it: where it is in the log, its [`Shape`], and
/// the tool-call ids it announces and answers.
#[derive(Debug, Clone, Copy)]
pub struct HistoryMessage<'a> {
    /// The surface event's seq.
    pub seq: u64,
    /// Its 1-based line (header = line 1); for SQLite, the row's seq.
    pub line: Option<u64>,
    /// What the adapter sends of it.
    pub shape: Shape,
    /// Tool-call ids it announces (assistant `tool-call` blocks), in block order.
    pub calls: CallIds<'a>,
    /// Tool-call ids it answers (`tool-result` blocks or a v4 tool-role message).
    pub results: CallIds<'a>,
}

/// A derived history the P-rules can read message by message: a slice of
/// [`HistoryMessage`]s, or the fold's surface read in place ([`crate::replay::Replay`]),
/// so that checking it needs no copy of the messages. A message is named by a position
/// the history chooses (an index, a slot); positions need not be contiguous.
pub trait History {
    /// The position of the first message, if any.
    fn first(&self) -> Option<usize>;
    /// The position of the message after the one at `at`, if any.
    fn after(&self, at: usize) -> Option<usize>;
    /// The message at position `at` (one [`History::first`] or [`History::after`] gave).
    fn message(&self, at: usize) -> HistoryMessage<'_>;
    /// `provider/model` of a [`Shape::model`] key; `None` for 0 or a key it did not give.
    fn model_name(&self, _key: u16) -> Option<&str> {
        None
    }
}

impl History for [HistoryMessage<'_>] {
    fn first(&self) -> Option<usize> {
        (!self.is_empty()).then_some(0)
    }
    fn after(&self, at: usize) -> Option<usize> {
        (at + 1 < self.len()).then_some(at + 1)
    }
    fn message(&self, at: usize) -> HistoryMessage<'_> {
        self[at]
    }
}

/// The positions of the messages from `from` on.
fn positions<H: History + ?Sized>(
    history: &H,
    from: Option<usize>,
) -> impl Iterator<Item = usize> + '_ {
    std::iter::successors(from, |&at| history.after(at))
}

/// The call ids announced so far, as the position of the announcing message and the id's
/// key among its calls ([`CallIds::keyed`]): 8 bytes each, the id itself read back from
/// the history (an exact comparison; the hash only finds candidates).
struct Announced<'h, H: History + ?Sized> {
    history: &'h H,
    hasher: std::hash::RandomState,
    table: hashbrown::HashTable<u64>,
}

impl<'h, H: History + ?Sized> Announced<'h, H> {
    /// Room for every call of the history, so the table never grows while in use.
    fn new(history: &'h H) -> Self {
        let calls = positions(history, history.first())
            .map(|at| history.message(at).calls.len())
            .sum();
        Announced {
            history,
            hasher: std::hash::RandomState::new(),
            table: hashbrown::HashTable::with_capacity(calls),
        }
    }

    fn id(&self, entry: u64) -> &'h str {
        entry_id(self.history, entry)
    }

    fn contains(&self, id: &str) -> bool {
        let hash = std::hash::BuildHasher::hash_one(&self.hasher, id);
        self.table.find(hash, |&e| self.id(e) == id).is_some()
    }

    /// Adds the call with `key` of the message at `at`; false when its id was announced
    /// before.
    fn insert(&mut self, at: usize, key: usize, id: &str) -> bool {
        let hash = std::hash::BuildHasher::hash_one(&self.hasher, id);
        if self.table.find(hash, |&e| self.id(e) == id).is_some() {
            return false;
        }
        let entry = (at as u64) << 32 | key as u64;
        let (history, hasher) = (self.history, &self.hasher);
        self.table.insert_unique(hash, entry, |&e| {
            std::hash::BuildHasher::hash_one(hasher, entry_id(history, e))
        });
        true
    }
}

/// The id an [`Announced`] entry stands for: message position in the high 32 bits, the
/// id's key among its calls in the low 32.
fn entry_id<H: History + ?Sized>(history: &H, entry: u64) -> &str {
    let (at, key) = ((entry >> 32) as usize, (entry & 0xffff_ffff) as usize);
    history.message(at).calls.by_key(key)
}

/// The P-findings of a derived history, in history order (one per class and call id, or
/// per message). P4 (DeepSeek thinking mode) fires only for a tool-call message whose
/// reasoning is known to have existed and is not sent: its step recorded reasoning the
/// message lost ([`Shape::reasoning_lost`]), or another model wrote it in a session whose
/// messages carry reasoning; never for a step whose model produced none. `system_prompt`: the request header in force has a system prompt, which
/// the OpenAI-compatible adapters send as message 0.
///
/// Findings carry the seq and line of the message concerned, its wire indexes and the call
/// id in [`Finding::provider`]; their class is a warning (a profile makes them fail the
/// gate, see [`Provider::enforces`]). Memory: 8 bytes per tool call (and the findings); the
/// history is read in place.
pub fn check<H: History + ?Sized>(history: &H, system_prompt: bool) -> Vec<Finding> {
    let thinking = ThinkingModels::of(history);
    let mut wire = WireIndexes::new(system_prompt);
    let mut out: Vec<(usize, Finding)> = Vec::new();
    let mut announced = Announced::new(history);
    for (i, at) in positions(history, history.first()).enumerate() {
        let m = history.message(at);
        let (message_index, anthropic_index) = wire.next(&m);
        let mut push = |rule: Rule, call: Option<&str>, answer_seq, message: String| {
            let mut f = Finding::new(rule, Some(m.seq), m.line, message);
            f.provider = Some(Box::new(ProviderDetail {
                message_index,
                anthropic_index,
                call_id: call.map(str::to_owned),
                answer_seq,
            }));
            out.push((i, f));
        };
        if m.shape.lone_surrogate {
            push(
                Rule::P5,
                None,
                None,
                format!(
                    "{} message holds an unpaired UTF-16 surrogate escape; the request body cannot be encoded as UTF-8",
                    role_name(m.shape.role)
                ),
            );
        }
        if m.shape.empty_text_blocks > 0 {
            push(
                Rule::P7,
                None,
                None,
                format!(
                    "{} message has {}",
                    role_name(m.shape.role),
                    crate::wording::count(u64::from(m.shape.empty_text_blocks), "empty text block")
                ),
            );
        }
        for id in m.results.iter() {
            if !announced.contains(id) {
                push(
                    Rule::P2,
                    Some(id),
                    None,
                    format!("tool result for call {id:?} answers no tool call before it"),
                );
            }
        }
        if m.shape.role == WireRole::Assistant {
            if !m.calls.is_empty()
                && let Some(why) = thinking.missing_reasoning(history, &m.shape)
            {
                push(Rule::P4, None, None, why);
            }
            // The results sent right after this message: the run of tool messages.
            let run: std::collections::HashSet<&str> = if m.calls.is_empty() {
                std::collections::HashSet::new()
            } else {
                run_results(history, at).collect()
            };
            for (key, id) in m.calls.keyed() {
                if !announced.insert(at, key, id) {
                    push(
                        Rule::P6,
                        Some(id),
                        None,
                        format!("tool call id {id:?} is announced a second time"),
                    );
                    continue;
                }
                if run.contains(id) {
                    continue;
                }
                match later_result(history, at, id) {
                    Some(answer) => {
                        let between = positions(history, history.after(at))
                            .map(|k| history.message(k))
                            .take_while(|k| k.seq != answer.seq)
                            .find(|k| !continues_results(k))
                            .map(|k| k.seq);
                        let why = match between {
                            Some(seq) => format!("the message at seq {seq} comes between"),
                            None => "the text of its user message is sent before it".to_owned(),
                        };
                        push(
                            Rule::P3,
                            Some(id),
                            Some(answer.seq),
                            format!(
                                "tool call {id:?} is answered at seq {}, not right after the call: {why}",
                                answer.seq
                            ),
                        );
                    }
                    None => push(
                        Rule::P1,
                        Some(id),
                        None,
                        format!("tool call {id:?} has no tool result after it"),
                    ),
                }
            }
        }
    }
    out.sort_by_key(|(at, f)| (*at, f.rule));
    out.into_iter().map(|(_, f)| f).collect()
}

/// The result ids of the run of tool messages right after the assistant message at `at`:
/// DSH's adapters send a user message's text first, so only a result-only user message (or
/// a v4 tool message) continues the run.
fn run_results<'h, H: History + ?Sized>(
    history: &'h H,
    at: usize,
) -> impl Iterator<Item = &'h str> + 'h {
    positions(history, history.after(at))
        .map(|k| history.message(k))
        .take_while(continues_results)
        .flat_map(|m| m.results.iter())
}

/// True for a message that is sent as tool messages only: a v4 tool-role result, or a
/// user message with results and no text.
fn continues_results(m: &HistoryMessage<'_>) -> bool {
    match m.shape.role {
        WireRole::Tool => true,
        WireRole::User => !m.results.is_empty() && !m.shape.has_text,
        _ => false,
    }
}

/// The first message after the one at `at` that answers `id`.
fn later_result<'h, H: History + ?Sized>(
    history: &'h H,
    at: usize,
    id: &str,
) -> Option<HistoryMessage<'h>> {
    positions(history, history.after(at))
        .map(|k| history.message(k))
        .find(|m| m.results.contains(id))
}

fn role_name(role: WireRole) -> &'static str {
    match role {
        WireRole::System => "system",
        WireRole::Developer => "developer",
        WireRole::User => "user",
        WireRole::Assistant => "assistant",
        WireRole::Tool => "tool",
    }
}

/// `(OpenAI-compatible index, Anthropic index)` of each harness message's first wire
/// message (PROVIDERS.md §1, §2), message after message.
struct WireIndexes {
    openai: u64,
    anthropic: u64,
    /// The Anthropic message last sent holds tool results (later ones join it).
    in_results: bool,
}

impl WireIndexes {
    fn new(system_prompt: bool) -> Self {
        WireIndexes {
            openai: u64::from(system_prompt),
            anthropic: 0,
            in_results: false,
        }
    }

    /// The indexes of `m`, the message after the ones already seen.
    fn next(&mut self, m: &HistoryMessage<'_>) -> (u64, u64) {
        let results = m.results.len() as u64;
        let text_first = match m.shape.role {
            WireRole::Tool => false,
            WireRole::User => m.shape.has_text || results == 0,
            _ => true,
        };
        // Anthropic: the index of this message's first wire message.
        let first_anthropic = if text_first || !self.in_results {
            self.anthropic
        } else {
            self.anthropic - 1
        };
        let at = (self.openai, first_anthropic);
        self.openai += u64::from(text_first) + results;
        if text_first {
            self.anthropic += 1;
            self.in_results = false;
        }
        if results > 0 && !self.in_results {
            self.anthropic += 1;
            self.in_results = true;
        }
        at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message<'a>(
        seq: u64,
        role: WireRole,
        text: bool,
        calls: &'a [String],
        results: &'a [String],
    ) -> HistoryMessage<'a> {
        HistoryMessage {
            seq,
            line: Some(seq + 2),
            shape: Shape {
                role,
                has_text: text,
                ..Shape::default()
            },
            calls: CallIds::List(calls),
            results: CallIds::List(results),
        }
    }

    #[test]
    fn wire_indexes_count_the_system_prompt_and_user_text_before_results() {
        let c = ["c1".to_owned(), "c2".to_owned()];
        let (r1, r2) = (["c1".to_owned()], ["c2".to_owned()]);
        let history = [
            message(0, WireRole::User, true, &[], &[]),
            message(1, WireRole::Assistant, false, &c, &[]),
            message(2, WireRole::User, false, &[], &r1),
            // v0: a user message with text and a result sends its text first.
            message(3, WireRole::User, true, &[], &r2),
        ];
        // OpenAI-compatible: system 0, user 1, assistant 2, tool 3, user text 4, tool 5.
        // Anthropic: user 0, assistant 1, results 2, user text 3, results 4.
        let mut wire = WireIndexes::new(true);
        let indexes: Vec<(u64, u64)> = history.iter().map(|m| wire.next(m)).collect();
        assert_eq!(indexes, [(1, 0), (2, 1), (3, 2), (4, 3)]);
        let found = check(&history[..], true);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].rule, Rule::P3);
        assert_eq!(
            found[0].message,
            "tool call \"c2\" is answered at seq 3, not right after the call: the text of its user message is sent before it"
        );
        let detail = found[0].provider.as_deref().expect("detail");
        assert_eq!((detail.message_index, detail.anthropic_index), (2, 1));
        assert_eq!(detail.answer_seq, Some(3));
    }

    #[test]
    fn a_result_before_its_call_is_an_orphan_and_the_call_unanswered() {
        let c = ["c1".to_owned()];
        let history = [
            message(0, WireRole::Tool, false, &[], &c),
            message(1, WireRole::Assistant, false, &c, &[]),
        ];
        let rules: Vec<Rule> = check(&history[..], false).iter().map(|f| f.rule).collect();
        assert_eq!(rules, [Rule::P2, Rule::P1]);
    }

    #[test]
    fn lone_surrogates_are_found_only_where_unpaired() {
        for (raw, lone) in [
            (r#""plain""#, false),
            (r#""\ud83d\ude00""#, false),
            (r#""\uD83D\uDE00 and \u00e9""#, false),
            (r#""\ud800""#, true),
            (r#""\ud800x""#, true),
            (r#""\udc00""#, true),
            (r#""\ud800\ud800\udc00""#, true),
            (r#""\ud800\n""#, true),
            (r#""\\ud800""#, false),
            (r#""a\\\ud800""#, true),
            (r#"{"text":"\ud83d"}"#, true),
        ] {
            assert_eq!(has_lone_surrogate(raw), lone, "{raw}");
            assert_eq!(has_lone_surrogate_slow(raw), lone, "{raw}");
        }
    }

    #[test]
    fn lone_surrogates_become_the_replacement_character() {
        assert_eq!(
            replace_lone_surrogates(r#""a\ud800b\ud83d\ude00c\udc00""#),
            "\"a\u{FFFD}b\\ud83d\\ude00c\u{FFFD}\""
        );
        assert_eq!(
            replace_lone_surrogates(r#""\ud800\ud800\udc00""#),
            "\"\u{FFFD}\\ud800\\udc00\""
        );
        assert!(matches!(
            replace_lone_surrogates(r#""\\ud800""#),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn the_escape_jump_agrees_with_decoding_every_escape() {
        // Every string of up to four pieces from a small alphabet of escapes and bytes.
        let pieces = [
            r"\ud83d",
            r"\ude00",
            r"\u00e9",
            r"\\",
            r"\n",
            "u",
            "a",
            r"\",
            "\"\\ud800",
        ];
        let mut strings = vec![String::new()];
        for _ in 0..4 {
            let mut next = Vec::new();
            for s in &strings {
                for p in pieces {
                    next.push(format!("{s}{p}"));
                }
            }
            strings.extend(next);
        }
        for s in &strings {
            assert_eq!(has_lone_surrogate(s), has_lone_surrogate_slow(s), "{s}");
            // Replacing the lone escapes leaves none, and changes nothing else.
            let fixed = replace_lone_surrogates(s);
            assert!(!has_lone_surrogate_slow(&fixed), "{s} -> {fixed}");
            assert_eq!(fixed == *s, !has_lone_surrogate_slow(s), "{s}");
        }
    }
}

#[cfg(test)]
mod call_id_tests {
    use super::*;

    #[test]
    fn packed_ids_read_back_as_listed() {
        let ids = ["call_1".to_owned(), String::new(), "toolu_é".to_owned()];
        let mut bytes = Vec::new();
        pack_ids(&mut bytes, ids.iter().map(String::as_str));
        let packed = CallIds::Packed {
            count: 3,
            bytes: &bytes,
        };
        assert_eq!(packed.to_vec(), ids);
        assert_eq!(packed.len(), 3);
        assert!(packed.contains("toolu_é"));
        assert!(!packed.contains("call_2"));
        assert!(CallIds::default().is_empty());
        for ids in [packed, CallIds::List(&ids)] {
            let keyed: Vec<(usize, &str)> = ids.keyed().collect();
            assert_eq!(
                keyed.iter().map(|(_, id)| *id).collect::<Vec<_>>(),
                ids.to_vec()
            );
            assert!(keyed.iter().all(|(key, id)| ids.by_key(*key) == *id));
        }
        assert_eq!(
            packed.keyed().map(|(k, _)| k).collect::<Vec<_>>(),
            [0, 7, 8]
        );
    }
}
