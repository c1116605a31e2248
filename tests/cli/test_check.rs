//! Tests of check.
