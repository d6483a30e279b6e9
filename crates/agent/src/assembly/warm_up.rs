//! [`WarmUp`]: when the tokenizer's encoder is built.

/// When [`super::AgentAssembly::build`] builds the tokenizer's encoder (~150 ms of CPU).
///
/// Until it is built, the pipeline never waits for it on the way to a request: it
/// counts upper bounds (one token per byte), marks the rows so counted as provisional,
/// and builds the encoder only when a bound is too close to the compression threshold
/// to decide. Provisional counts are replaced by exact ones once the encoder is ready.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum WarmUp {
    /// In `build`: every count is exact from the first turn.
    #[default]
    Now,
    /// On a background thread started by `build`: a process that answers one turn
    /// and exits (`smallebot run`) never waits for it.
    Background,
    /// Only when exact counts are needed.
    OnDemand,
}
