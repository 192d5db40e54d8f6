//! The tool calls the migrated log's check ([`crate::edge::relationships`]) holds open:
//! advertised by an `assistant/message`, started by `tool/call`, resolved by
//! `tool/result`, released at a step or turn boundary (GENERATIONS §7).

/// The tool calls advertised and not yet resolved, in the order advertised. Their texts
/// are kept in one buffer, emptied whenever no call is open, so keeping them allocates
/// nothing per event once the buffer has grown to a step's calls.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Tools {
    texts: String,
    calls: Vec<Tool>,
}

/// One advertised call: its `id`, `name` and `arguments` (strings as the check decodes
/// them: lone surrogates as U+FFFD) as byte ranges of [`Tools::texts`].
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct Tool {
    id: (usize, usize),
    name: Option<(usize, usize)>,
    arguments: Option<(usize, usize)>,
    started: bool,
}

impl Tools {
    /// Releases every open call.
    pub fn clear(&mut self) {
        self.texts.clear();
        self.calls.clear();
    }

    fn text(&self, (start, end): (usize, usize)) -> &str {
        &self.texts[start..end]
    }

    fn keep(&mut self, text: &str) -> (usize, usize) {
        let start = self.texts.len();
        self.texts.push_str(text);
        (start, self.texts.len())
    }

    /// The id of the first call advertised and still open.
    pub fn first_id(&self) -> Option<&str> {
        self.calls.first().map(|t| self.text(t.id))
    }

    /// The index of the open call with this id (the first, should ids repeat).
    pub fn position(&self, id: &str) -> Option<usize> {
        self.calls.iter().position(|t| self.text(t.id) == id)
    }

    /// Opens an advertised call, not started.
    pub fn push(&mut self, id: &str, name: Option<&str>, arguments: Option<&str>) {
        let tool = Tool {
            id: self.keep(id),
            name: name.map(|n| self.keep(n)),
            arguments: arguments.map(|a| self.keep(a)),
            started: false,
        };
        self.calls.push(tool);
    }

    /// True when the call at `index` has not started and was advertised with this `name`
    /// and these `arguments` (compared as decoded strings, absent equal only to absent).
    pub fn matches_unstarted(
        &self,
        index: usize,
        name: Option<&str>,
        arguments: Option<&str>,
    ) -> bool {
        let tool = &self.calls[index];
        !tool.started
            && tool.name.map(|n| self.text(n)) == name
            && tool.arguments.map(|a| self.text(a)) == arguments
    }

    /// True when the call at `index` has started (a `tool/call` matched it).
    pub fn started(&self, index: usize) -> bool {
        self.calls[index].started
    }

    /// Marks the call at `index` started.
    pub fn start(&mut self, index: usize) {
        self.calls[index].started = true;
    }

    /// Resolves the call at `index`; the texts go once no call is open, so that a long
    /// turn holds the texts of its open calls, not of every call it made.
    pub fn resolve(&mut self, index: usize) {
        self.calls.remove(index);
        if self.calls.is_empty() {
            self.texts.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_found_matched_and_resolved_by_their_texts() {
        let mut tools = Tools::default();
        tools.push("a", Some("read"), Some("{}"));
        tools.push("b", None, Some("{\"x\":1}"));
        assert_eq!(tools.first_id(), Some("a"));
        assert_eq!(tools.position("b"), Some(1));
        assert_eq!(tools.position("c"), None);
        assert!(tools.matches_unstarted(1, None, Some("{\"x\":1}")));
        assert!(!tools.matches_unstarted(1, Some(""), Some("{\"x\":1}")));
        assert!(!tools.matches_unstarted(0, Some("read"), None));
        tools.start(0);
        assert!(tools.started(0));
        assert!(!tools.matches_unstarted(0, Some("read"), Some("{}")));
        tools.resolve(0);
        assert_eq!(tools.first_id(), Some("b"));
        assert!(!tools.texts.is_empty());
        tools.resolve(0);
        assert_eq!(tools.first_id(), None);
        assert!(tools.texts.is_empty(), "no open call holds its texts");
        tools.push("c", Some("write"), None);
        assert_eq!(tools.position("c"), Some(0));
        assert!(tools.matches_unstarted(0, Some("write"), None));
    }
}
