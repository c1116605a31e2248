//! Tests of history.
