//! Tests of concurrency.
