//! Tests of handover.
