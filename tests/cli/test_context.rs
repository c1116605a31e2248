//! Tests of context.
