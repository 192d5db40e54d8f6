//! Token prices the user gives `stats --prices FILE`: a map of `provider/model` to prices per
//! million tokens, in JSON or TOML. There is no built-in price list: prices change, and a
//! stale list would print wrong costs with confidence.
//!
//! ```json
//! {"deepseek/deepseek-chat": {"input": 0.27, "output": 1.10, "cache_read": 0.07, "cache_write": 0.27}}
//! ```
//!
//! ```toml
//! ["deepseek/deepseek-chat"]
//! input = 0.27
//! output = 1.10
//! cache_read = 0.07
//! cache_write = 0.27
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::view::stats::Usage;

/// The prices of one model, per million tokens (any currency; the cost is in the same one).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    /// Per million `inputTokens` (uncached input).
    pub input: f64,
    /// Per million `outputTokens`. Reasoning tokens are part of them (see [`cost`]).
    pub output: f64,
    /// Per million `cacheReadTokens`; may be left out for a model that reports none.
    pub cache_read: Option<f64>,
    /// Per million `cacheWriteTokens`; may be left out for a model that reports none.
    pub cache_write: Option<f64>,
}

/// Prices by `provider/model` (the provider and model ids as the assistant messages'
/// `source` names them, FORMAT.md §2.4.2).
pub type Prices = BTreeMap<String, Price>;

/// Why a prices file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum PricesError {
    /// The file cannot be read.
    #[error("cannot read the prices: {0}")]
    Io(#[from] std::io::Error),
    /// Not a JSON object of price objects.
    #[error(
        "prices are not valid JSON of the form {{\"provider/model\": {{\"input\": n, \"output\": n, \"cache_read\"?: n, \"cache_write\"?: n}}}}: {0}"
    )]
    Json(#[from] serde_json::Error),
    /// Not a TOML table of price tables.
    #[error(
        "prices are not valid TOML of the form [\"provider/model\"] input = n, output = n, cache_read = n, cache_write = n: {0}"
    )]
    Toml(#[from] toml::de::Error),
    /// A price is negative, not finite, or a key is not `provider/model`.
    #[error("{0}")]
    Invalid(String),
}

/// Reads a prices file: TOML when its name ends in `.toml`, JSON when it ends in `.json`,
/// otherwise JSON when its first non-blank character is `{`, else TOML.
///
/// # Errors
/// [`PricesError`] when the file cannot be read or parsed, a price is negative or not
/// finite, or a key has no `/` between provider and model.
pub fn read(path: &Path) -> Result<Prices, PricesError> {
    let text = std::fs::read_to_string(path)?;
    let name = path.to_string_lossy();
    let toml = name.ends_with(".toml")
        || (!name.ends_with(".json") && !text.trim_start().starts_with('{'));
    let prices: Prices = if toml {
        toml::from_str(&text)?
    } else {
        serde_json::from_str(&text)?
    };
    for (key, price) in &prices {
        if !key.contains('/') {
            return Err(PricesError::Invalid(format!(
                "price key {key:?} is not provider/model (for example \"deepseek/deepseek-chat\")"
            )));
        }
        let all = [
            ("input", Some(price.input)),
            ("output", Some(price.output)),
            ("cache_read", price.cache_read),
            ("cache_write", price.cache_write),
        ];
        for (what, value) in all {
            if let Some(v) = value
                && !(v.is_finite() && v >= 0.0)
            {
                return Err(PricesError::Invalid(format!(
                    "price {what} of {key:?} is {v}: a price is a finite number >= 0"
                )));
            }
        }
    }
    Ok(prices)
}

/// The cost of `usage` at `price`: input, output, cache read and cache write tokens, each
/// times its price per million. Reasoning tokens are not added: DSH records the provider's
/// output count, which includes them (DeepSeek and OpenAI report reasoning as a part of the
/// completion tokens; every sample with `reasoningTokens` has at most as many as
/// `outputTokens`), so `reasoningTokens` is a breakdown, already paid as output.
///
/// # Errors
/// The name of a price the file leaves out (`cache_read`, `cache_write`) while `usage` has
/// tokens of that kind: the cost is then unknown, not guessed.
pub fn cost(usage: &Usage, price: &Price) -> Result<f64, &'static str> {
    let part =
        |tokens: u64, per_million: Option<f64>, name: &'static str| match (tokens, per_million) {
            (0, _) => Ok(0.0),
            (n, Some(p)) => Ok(n as f64 * p / 1e6),
            (_, None) => Err(name),
        };
    Ok(part(usage.input, Some(price.input), "input")?
        + part(usage.output, Some(price.output), "output")?
        + part(usage.cache_read, price.cache_read, "cache_read")?
        + part(usage.cache_write, price.cache_write, "cache_write")?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cost_per_million_and_missing_cache_prices() {
        let price = Price {
            input: 0.27,
            output: 1.10,
            cache_read: Some(0.07),
            cache_write: None,
        };
        let usage = Usage {
            input: 2_000_000,
            output: 1_000_000,
            cache_read: 4_000_000,
            cache_write: 0,
            reasoning: 500_000,
            ..Usage::default()
        };
        let c = cost(&usage, &price).expect("priced");
        assert!((c - (0.54 + 1.10 + 0.28)).abs() < 1e-9, "{c}");
        let with_writes = Usage {
            cache_write: 1,
            ..usage
        };
        assert_eq!(cost(&with_writes, &price), Err("cache_write"));
    }
}
