//! Error accumulation: every mistake in one input is collected and reported together, so the
//! user fixes them in one round trip instead of one compile per mistake (serde's `Ctxt`).

use std::cell::RefCell;
use std::fmt::Display;

use quote::ToTokens;

/// Collects the errors of one derive input. Every context must end in [`Ctxt::check`]: a
/// context dropped without it would lose its errors (the user would get code generated from
/// an input the derive rejected), so in debug builds that drop panics.
pub struct Ctxt {
    /// `None` once `check` took the errors.
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Ctxt {
    /// An empty context.
    pub fn new() -> Self {
        Ctxt {
            errors: RefCell::new(Some(Vec::new())),
        }
    }

    /// Records an error spanned on `tokens` (the whole range of the user's tokens).
    pub fn error_spanned_by<T: ToTokens, M: Display>(&self, tokens: T, message: M) {
        self.syn_error(syn::Error::new_spanned(tokens.into_token_stream(), message));
    }

    /// Records an error syn produced (a parse error, already spanned).
    pub fn syn_error(&self, error: syn::Error) {
        if let Some(errors) = self.errors.borrow_mut().as_mut() {
            errors.push(error);
        }
    }

    /// All recorded errors, combined into one (each keeps its own span), or `Ok` if none.
    pub fn check(self) -> Result<(), syn::Error> {
        let errors = self.errors.borrow_mut().take().unwrap_or_default();
        let mut errors = errors.into_iter();
        let Some(mut combined) = errors.next() else {
            return Ok(());
        };
        for error in errors {
            combined.combine(error);
        }
        Err(combined)
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        // Not while unwinding: a second panic would abort and hide the first.
        if cfg!(debug_assertions) && !std::thread::panicking() && self.errors.get_mut().is_some() {
            panic!("metric-handles-derive: a Ctxt was dropped without checking its errors");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Ctxt;

    #[test]
    fn check_combines_every_error() {
        let cx = Ctxt::new();
        cx.error_spanned_by(quote::quote!(a), "first");
        cx.error_spanned_by(quote::quote!(b), "second");
        let messages: Vec<String> = cx
            .check()
            .expect_err("two errors")
            .into_iter()
            .map(|e| e.to_string())
            .collect();
        assert_eq!(messages, ["first", "second"]);
        assert!(Ctxt::new().check().is_ok());
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "dropped without checking its errors")]
    fn an_unchecked_context_panics_when_dropped() {
        let cx = Ctxt::new();
        cx.error_spanned_by(quote::quote!(a), "lost");
    }
}
