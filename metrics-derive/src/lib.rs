//! Placeholder until the derive lands.
use proc_macro::TokenStream;

#[proc_macro_derive(MetricHandles, attributes(metric_handles, metric))]
pub fn derive_metric_handles(_input: TokenStream) -> TokenStream {
    TokenStream::new()
}
#[proc_macro_derive(LabelSet, attributes(label))]
pub fn derive_label_set(_input: TokenStream) -> TokenStream {
    TokenStream::new()
}
#[proc_macro_derive(LabelEnum, attributes(label))]
pub fn derive_label_enum(_input: TokenStream) -> TokenStream {
    TokenStream::new()
}
