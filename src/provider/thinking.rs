//! P4, DeepSeek thinking mode (PROVIDERS.md §1, §3): which tool-call messages lack reasoning
//! DeepSeek wants passed back. Only reasoning known to have existed counts: the step's
//! usage reports reasoning tokens its message does not carry, or another model wrote the
//! message in a session whose messages carry reasoning (see [`super::check`] and the
//! sources cited at the top of [`super`]).

use super::{History, Shape, WireRole, positions};
use crate::json::Json;

/// True when an `assistant/message`'s `data.usage.reasoningTokens` (FORMAT.md §2.4.4) is a
/// number above 0: the model produced reasoning in that step. Absent usage (the provider
/// reported none) and 0 say nothing was produced, or nothing is known.
pub fn usage_reports_reasoning(data: Option<Json<'_>>) -> bool {
    data.and_then(|d| d.get("usage"))
        .and_then(|u| u.get("reasoningTokens"))
        .and_then(Json::as_f64)
        .is_some_and(|n| n > 0.0)
}

/// `provider/model` of an assistant message's `source` (FORMAT.md §2.4.2, kind `model`),
/// when both are non-empty strings.
pub fn source_model(message: Json<'_>) -> Option<String> {
    let source = message.get("source")?;
    let [provider, model] = source.lookup(["provider", "model"]);
    let (provider, model) = (provider?.as_str()?, model?.as_str()?);
    (!provider.is_empty() && !model.is_empty()).then(|| format!("{provider}/{model}"))
}

/// The models whose assistant messages carry reasoning in a history: the session's thinking
/// models (P4, DeepSeek thinking mode). A handful per session, kept as [`Shape::model`] keys.
pub(super) struct ThinkingModels {
    /// Some assistant message carries reasoning.
    any: bool,
    /// The known models among them, without repeats.
    keys: Vec<u16>,
}

impl ThinkingModels {
    pub(super) fn of<H: History + ?Sized>(history: &H) -> Self {
        let mut models = ThinkingModels {
            any: false,
            keys: Vec::new(),
        };
        for at in positions(history, history.first()) {
            let shape = history.message(at).shape;
            if shape.role == WireRole::Assistant && shape.has_reasoning {
                models.any = true;
                if shape.model != 0 && !models.keys.contains(&shape.model) {
                    models.keys.push(shape.model);
                }
            }
        }
        models
    }

    /// Why the tool-call message `shape` lacks reasoning DeepSeek wants passed back, or
    /// `None` when it does not: its own step recorded reasoning it does not carry, or it
    /// came from a model that is not one of the session's thinking models. A message of a
    /// thinking model without reasoning (that step produced none), or of an unknown model,
    /// is sent as DSH sends it and accepted.
    pub(super) fn missing_reasoning<H: History + ?Sized>(
        &self,
        history: &H,
        shape: &Shape,
    ) -> Option<String> {
        if shape.has_reasoning {
            return None;
        }
        if shape.reasoning_lost {
            return Some(
                "assistant message with tool calls has no reasoning, although its usage reports reasoning tokens: the reasoning the model returned is not in the history DSH sends back".to_owned(),
            );
        }
        if !self.any || shape.model == 0 || self.keys.is_empty() || self.keys.contains(&shape.model)
        {
            return None;
        }
        let name = |key: u16| {
            history
                .model_name(key)
                .unwrap_or("another model")
                .to_owned()
        };
        let thinking: Vec<String> = self.keys.iter().map(|k| name(*k)).collect();
        Some(format!(
            "assistant message with tool calls came from {}, which recorded no reasoning, in a session in thinking mode ({} messages carry reasoning)",
            name(shape.model),
            thinking.join(", ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{CallIds, HistoryMessage, check};
    use super::*;
    use crate::rules::Rule;

    /// P4 only where reasoning is known to have existed: a thinking session (model 1's
    /// first message carries reasoning) with tool calls by the same model without
    /// reasoning, by an unknown model, by a model whose step reported reasoning tokens,
    /// and by another model (2).
    #[test]
    fn p4_needs_reasoning_that_existed() {
        let c: [[String; 1]; 5] = std::array::from_fn(|i| [format!("c{i}")]);
        let assistant = |seq: u64, i: usize, reasoning, lost, model| HistoryMessage {
            seq,
            line: None,
            shape: Shape {
                role: WireRole::Assistant,
                has_reasoning: reasoning,
                reasoning_lost: lost,
                model,
                ..Shape::default()
            },
            calls: CallIds::List(&c[i]),
            results: CallIds::List(&[]),
        };
        let result = |seq: u64, i: usize| HistoryMessage {
            seq,
            line: None,
            shape: Shape {
                role: WireRole::Tool,
                ..Shape::default()
            },
            calls: CallIds::List(&[]),
            results: CallIds::List(&c[i]),
        };
        let history = [
            assistant(0, 0, true, false, 1),
            result(1, 0),
            assistant(2, 1, false, false, 1),
            result(3, 1),
            assistant(4, 2, false, false, 0),
            result(5, 2),
            assistant(6, 3, false, true, 1),
            result(7, 3),
            assistant(8, 4, false, false, 2),
            result(9, 4),
        ];
        let found: Vec<(Rule, u64)> = check(&history[..], false)
            .iter()
            .map(|f| (f.rule, f.seq.unwrap_or_default()))
            .collect();
        assert_eq!(found, [(Rule::P4, 6), (Rule::P4, 8)]);
        // Without any reasoning in the history, another model's call is no finding.
        let plain = [
            assistant(0, 0, false, false, 1),
            result(1, 0),
            assistant(2, 1, false, false, 2),
            result(3, 1),
        ];
        assert!(check(&plain[..], false).is_empty());
    }
}
