//! Tests of basics.
