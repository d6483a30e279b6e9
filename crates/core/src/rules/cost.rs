//! What a model request costs: prices per million tokens (models.json `pricing`),
//! amounts in picos (10⁻¹² of the currency unit) so that sums are exact.
//!
//! A price of `p` per million tokens is `p × 10⁶` picos per token, so every price with
//! at most six decimals is held exactly. A model without prices has no cost: tokens
//! only, never a made-up figure.

use serde::{Deserialize, Serialize};

use crate::entities::TokenCounts;

/// Picos (10⁻¹² of a currency unit) in one unit.
pub const PICOS_PER_UNIT: i64 = 1_000_000_000_000;

/// A model's prices, each in picos per token (= millionths of the currency unit per
/// million tokens).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pricing {
    /// A prompt token the server computed.
    pub input: i64,
    /// A prompt token the server took from its cache.
    pub cached_input: i64,
    /// A completion token (reasoning tokens are completion tokens).
    pub output: i64,
    /// The currency the prices are in (`USD`).
    pub currency: String,
}

/// A price per million tokens as written in models.json, in picos per token; `None`
/// for a negative, non-finite or absurd (over a million units per million tokens)
/// price.
#[must_use]
pub fn price_per_token(per_million: f64) -> Option<i64> {
    (per_million.is_finite() && (0.0..=1_000_000.0).contains(&per_million))
        .then(|| (per_million * 1_000_000.0).round() as i64)
}

/// An amount in currency units (agent.json's budgets) in picos; `None` for a
/// negative, non-finite or absurd (over a million units) amount.
#[must_use]
pub fn amount_in_picos(units: f64) -> Option<i64> {
    (units.is_finite() && (0.0..=1_000_000.0).contains(&units))
        .then(|| (units * PICOS_PER_UNIT as f64).round() as i64)
}

/// What `tokens` cost at `pricing`: the prompt tokens the server computed at the input
/// price, the cached ones at the cached price, the completion at the output price.
/// Cached tokens beyond the prompt (a server that miscounts) count as the prompt.
#[must_use]
pub fn cost(pricing: &Pricing, tokens: &TokenCounts) -> i64 {
    let cached = tokens.cached_prompt.min(tokens.prompt);
    let computed = tokens.prompt - cached;
    let each = |count: u64, price: i64| {
        i64::try_from(count)
            .unwrap_or(i64::MAX)
            .saturating_mul(price)
    };
    each(computed, pricing.input)
        .saturating_add(each(cached, pricing.cached_input))
        .saturating_add(each(tokens.completion, pricing.output))
}

/// The most a request can cost before it is sent: its whole prompt at the input price
/// (none of it assumed cached) and `max_tokens` at the output price.
#[must_use]
pub fn projected_cost(pricing: &Pricing, prompt_tokens: u64, max_tokens: u64) -> i64 {
    cost(
        pricing,
        &TokenCounts {
            prompt: prompt_tokens,
            completion: max_tokens,
            ..TokenCounts::default()
        },
    )
}

/// An amount for people: six decimals and the currency (`0.001250 USD`); amounts below
/// a millionth show as more decimals rather than as zero.
#[must_use]
pub fn format_amount(picos: i64, currency: &str) -> String {
    let sign = if picos < 0 { "-" } else { "" };
    let picos = picos.unsigned_abs();
    let per_unit = PICOS_PER_UNIT.unsigned_abs();
    let (units, rest) = (picos / per_unit, picos % per_unit);
    let fraction = format!("{rest:012}");
    let kept = if rest != 0 && rest < 1_000_000 {
        fraction.trim_end_matches('0')
    } else {
        &fraction[..6]
    };
    format!("{sign}{units}.{kept} {currency}")
}

/// An amount in currency units, for JSON (exact to the pico for any sum below about
/// nine thousand units; the picos are given beside it).
#[must_use]
pub fn in_units(picos: i64) -> f64 {
    picos as f64 / PICOS_PER_UNIT as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usd(input: f64, cached: f64, output: f64) -> Pricing {
        Pricing {
            input: price_per_token(input).unwrap(),
            cached_input: price_per_token(cached).unwrap(),
            output: price_per_token(output).unwrap(),
            currency: "USD".into(),
        }
    }

    fn tokens(prompt: u64, cached_prompt: u64, completion: u64) -> TokenCounts {
        TokenCounts {
            prompt,
            cached_prompt,
            completion,
            reasoning: 0,
        }
    }

    #[test]
    fn prices_per_million_tokens_become_picos_per_token() {
        let cases = [
            (0.15, Some(150_000)),
            (2.5, Some(2_500_000)),
            (0.0375, Some(37_500)),
            (0.0, Some(0)),
            (-1.0, None),
            (f64::NAN, None),
            (f64::INFINITY, None),
            (2_000_000.0, None),
        ];
        for (price, expected) in cases {
            assert_eq!(price_per_token(price), expected, "{price}");
        }
    }

    #[test]
    fn cached_tokens_at_the_cached_price() {
        let p = usd(2.0, 0.5, 8.0);
        let cases = [
            // 1000 prompt tokens at $2/M = $0.002; 100 completion at $8/M = $0.0008.
            (tokens(1000, 0, 100), 2_000_000_000 + 800_000_000),
            // 600 of them cached: 400 × 2 + 600 × 0.5 per M.
            (
                tokens(1000, 600, 100),
                800_000_000 + 300_000_000 + 800_000_000,
            ),
            // More cached than prompt: all cached, none computed.
            (tokens(10, 50, 0), 5_000_000),
            (tokens(0, 0, 0), 0),
        ];
        for (t, expected) in cases {
            assert_eq!(cost(&p, &t), expected, "{t:?}");
        }
    }

    #[test]
    fn the_projection_takes_no_cache_and_the_whole_bound() {
        let p = usd(2.0, 0.5, 8.0);
        assert_eq!(
            projected_cost(&p, 1000, 4096),
            2_000_000_000 + 4096 * 8_000_000
        );
    }

    #[test]
    fn amounts_for_people() {
        let cases = [
            (0, "0.000000 USD"),
            (1_250_000_000, "0.001250 USD"),
            (PICOS_PER_UNIT * 3 + 500_000_000_000, "3.500000 USD"),
            (150_000, "0.00000015 USD"),
            (-1_250_000_000, "-0.001250 USD"),
        ];
        for (picos, expected) in cases {
            assert_eq!(format_amount(picos, "USD"), expected, "{picos}");
        }
        assert_eq!(amount_in_picos(0.5), Some(500_000_000_000));
        assert_eq!(amount_in_picos(-0.5), None);
    }
}
