//! Stub: filled in by its own slice.
