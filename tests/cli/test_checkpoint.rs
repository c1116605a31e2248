//! Tests of checkpoint.
