//! Workspace-level tests and examples of metric-handles.
//!
//! This package exists to own the workspace's `tests/` (trybuild suites, end-to-end tests) and
//! `examples/` (the serving-frontend demo). Its library is where helpers those share live.

/// The README's code blocks, compiled and run as doc tests so the front-page example cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
