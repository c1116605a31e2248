//! Tests of finish.
