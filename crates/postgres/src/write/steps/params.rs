//! The step statement's parameters: one array per column, the batch's steps side by
//! side (and their reasoning, messages and calls, each keyed by its conversation), bound
//! in the order the statement numbers them.

use smallebot_core::entities::AnswerCut;
use sqlx::Postgres;
use sqlx::postgres::PgArguments;
use sqlx::query::Query;

use crate::prepared_step::PreparedStep;

/// The statement's query type.
type StepQuery<'q> = Query<'q, Postgres, PgArguments>;

/// One column: `pick` applied to each of `items`.
fn column<'a, T, U>(items: &'a [T], pick: impl Fn(&'a T) -> U) -> Vec<U> {
    items.iter().map(pick).collect()
}

/// Each step's rows of one kind (`rows` of a step), with the step's conversation key.
fn keyed<'a, T: 'a, I>(
    steps: &'a [PreparedStep],
    keys: &'a [String],
    rows: impl Fn(&'a PreparedStep) -> I,
) -> Vec<(&'a str, &'a T)>
where
    I: IntoIterator<Item = &'a T>,
{
    steps
        .iter()
        .zip(keys)
        .flat_map(|(step, key)| rows(step).into_iter().map(move |row| (key.as_str(), row)))
        .collect()
}

/// `query` with every parameter of the steps of `steps` (`keys`: their conversation ids).
pub(super) fn bind<'q>(
    query: StepQuery<'q>,
    steps: &'q [PreparedStep],
    keys: &'q [String],
) -> StepQuery<'q> {
    let thinks = keyed(steps, keys, |s| s.think.iter());
    let messages = keyed(steps, keys, |s| s.message.iter());
    let calls = keyed(steps, keys, |s| s.calls.iter());
    query
        // The steps.
        .bind(column(steps, |s| s.at))
        .bind(keys)
        .bind(column(steps, |s| s.turn_id.to_string()))
        .bind(column(steps, |s| {
            i64::try_from(s.count()).unwrap_or(i64::MAX)
        }))
        .bind(column(steps, |s| s.end.as_ref().map(|e| e.status.as_str())))
        .bind(column(steps, |s| {
            s.end.as_ref().and_then(|e| e.error.as_deref())
        }))
        // Their reasoning.
        .bind(column(&thinks, |(c, _)| *c))
        .bind(column(&thinks, |(_, t)| t.id.to_string()))
        .bind(column(&thinks, |(_, t)| t.seq))
        .bind(column(&thinks, |(_, t)| t.content.as_str()))
        // Their messages.
        .bind(column(&messages, |(c, _)| *c))
        .bind(column(&messages, |(_, m)| m.id.to_string()))
        .bind(column(&messages, |(_, m)| m.seq))
        .bind(column(&messages, |(_, m)| m.content.as_str()))
        .bind(column(&messages, |(_, m)| m.token_count))
        // Their tool calls.
        .bind(column(&calls, |(c, _)| *c))
        .bind(column(&calls, |(_, c)| c.id.to_string()))
        .bind(column(&calls, |(_, c)| c.seq))
        .bind(column(&calls, |(_, c)| c.call_id.as_str()))
        .bind(column(&calls, |(_, c)| c.tool_name.as_str()))
        .bind(column(&calls, |(_, c)| c.arguments.as_str()))
        .bind(column(&calls, |(_, c)| c.token_count))
        // Added later, numbered after the calls.
        .bind(column(&messages, |(_, m)| m.role.as_str()))
        .bind(column(steps, PreparedStep::tokens))
        .bind(column(steps, |s| {
            s.end.as_ref().and_then(|e| e.cut).map(AnswerCut::as_str)
        }))
}
