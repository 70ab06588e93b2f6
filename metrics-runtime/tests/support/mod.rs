//! What the test binaries share: the stress level and an exposition parser written apart from
//! the encoder ([`exposition`]), the vLLM set-up and scrape reader ([`vllm`]), the rule for
//! tests that need an external tool ([`external_tool`]), and a count of the scrapes that read
//! a counter reset ([`resets`]). Each binary includes it with
//! `#[path = "../support/mod.rs"] mod support;`, and uses what it needs.
#![allow(dead_code)]

pub mod exposition;
pub mod external_tool;
pub mod resets;
#[cfg(feature = "vllm")]
pub mod vllm;
