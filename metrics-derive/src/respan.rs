//! Moving generated tokens to a user's span, so a type error in generated code is reported
//! at the user's field or attribute instead of at `#[derive(MetricHandles)]`.

use proc_macro2::{Group, Span, TokenStream, TokenTree};

/// `tokens` with every span *located at* `target` (`Span::located_at`): the position changes,
/// name resolution does not, so identifiers the macro introduced still resolve as before
/// (even when the user's tokens come from a `macro_rules!` expansion).
pub fn respan(tokens: TokenStream, target: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|tree| match tree {
            TokenTree::Group(group) => {
                let mut respanned = Group::new(group.delimiter(), respan(group.stream(), target));
                respanned.set_span(group.span().located_at(target));
                TokenTree::Group(respanned)
            }
            mut other => {
                other.set_span(other.span().located_at(target));
                other
            }
        })
        .collect()
}
