//! How costs and counts are written, the same way by `stats`, `show`, `export` and
//! `statusline`: numbers with thousands separators in text (plain numbers in JSON), a cost
//! per currency (never converted) split into cache hit, cache miss, cache write and output,
//! and the models without a price listed rather than guessed.

use std::collections::BTreeMap;

use super::{Cost, PriceTable, amount};
use serde_json::{Map, Value, json};

/// `n` with a comma every three digits: `12,548,352`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// An amount in 10⁻¹² of a currency as text, rounded half up to 4 decimals, with thousands
/// separators: `1,234.5678`.
pub fn money(units: u128) -> String {
    let tenths_of_millis = (units + 50_000_000) / 100_000_000;
    let whole = u64::try_from(tenths_of_millis / 10_000).unwrap_or(u64::MAX);
    format!("{}.{:04}", thousands(whole), tenths_of_millis % 10_000)
}

/// An amount as a JSON number of the currency (exact to the nearest `f64`).
pub fn money_json(units: u128) -> Value {
    serde_json::Number::from_f64(amount(units)).map_or(Value::Null, Value::Number)
}

/// The costs of a row as JSON: per currency, `total`, `cache_hit`, `cache_miss`,
/// `cache_write` and `output`, each a number of the currency.
pub fn cost_json(cost: &BTreeMap<String, Cost>) -> Value {
    let map: Map<String, Value> = cost
        .iter()
        .map(|(currency, c)| {
            (
                currency.clone(),
                json!({
                    "total": money_json(c.total()),
                    "cache_hit": money_json(c.cache_hit),
                    "cache_miss": money_json(c.cache_miss),
                    "cache_write": money_json(c.cache_write),
                    "output": money_json(c.output),
                }),
            )
        })
        .collect();
    Value::Object(map)
}

/// A row's cost in one currency as a text cell: the amount; `*` after it when models of
/// the row have no price (the amount is the known part); `-` when the row has tokens but
/// none priced.
pub fn cost_cell(units: Option<u128>, partial: bool) -> String {
    match (units, partial) {
        (Some(u), false) => money(u),
        (Some(u), true) => format!("{}*", money(u)),
        (None, true) => "-".to_owned(),
        (None, false) => money(0),
    }
}

/// The table's sources as one line: `prices: SOURCE (checked DATE); …`.
pub fn sources_line(table: &PriceTable) -> String {
    let sources: Vec<String> = table
        .sources
        .iter()
        .map(|(source, checked)| match checked {
            Some(date) => format!("{source} (checked {date})"),
            None => source.clone(),
        })
        .collect();
    format!("prices: {}", sources.join("; "))
}

/// The table's sources as JSON: `[{"source", "checked"}]`.
pub fn sources_json(table: &PriceTable) -> Value {
    Value::Array(
        table
            .sources
            .iter()
            .map(|(source, checked)| json!({"source": source, "checked": checked}))
            .collect(),
    )
}

/// A session's cost as one text line: the cost per currency with its parts, then the
/// models without a price: `0.0033 CNY (cache hit 0.0001, cache miss 0.0030, output
/// 0.0002)`.
pub fn cost_text(c: &crate::view::usage::Counts) -> String {
    let mut parts: Vec<String> = c
        .cost
        .iter()
        .map(|(currency, c)| {
            let mut text = format!(
                "{} {currency} (cache hit {}, cache miss {}",
                money(c.total()),
                money(c.cache_hit),
                money(c.cache_miss)
            );
            if c.cache_write > 0 {
                text.push_str(&format!(", cache write {}", money(c.cache_write)));
            }
            text.push_str(&format!(", output {})", money(c.output)));
            text
        })
        .collect();
    if !c.unpriced.is_empty() {
        let names: Vec<String> = c
            .unpriced
            .iter()
            .map(|(m, why)| match why.as_str() {
                "no price" => m.clone(),
                _ => format!("{m} ({why})"),
            })
            .collect();
        parts.push(format!("no price: {}", names.join(", ")));
    }
    if parts.is_empty() {
        "-".to_owned()
    } else {
        parts.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separators_and_rounding() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(12_548_352), "12,548,352");
        assert_eq!(money(0), "0.0000");
        assert_eq!(money(1_234_567_850_000_000), "1,234.5679");
        assert_eq!(money(49_999_999), "0.0000");
        assert_eq!(money(50_000_000), "0.0001");
        assert_eq!(cost_cell(Some(10_000_000_000), true), "0.0100*");
        assert_eq!(cost_cell(None, true), "-");
    }
}
