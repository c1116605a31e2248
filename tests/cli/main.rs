//! End-to-end tests: the real binary against real git repositories in temporary directories.
#![allow(clippy::unwrap_used)]

mod common;

mod test_attacks;
mod test_basics;
mod test_check;
mod test_checkpoint;
mod test_ci;
mod test_citations;
mod test_concurrency;
mod test_context;
mod test_continuity;
mod test_crash;
mod test_day;
mod test_decision_question;
mod test_dist;
mod test_finish;
mod test_fresh_clone;
mod test_handover;
mod test_history;
mod test_hooks;
mod test_hosts;
mod test_knowledge;
mod test_large_tree;
mod test_markdown;
mod test_peer_format;
mod test_peer_output;
mod test_peer_trust;
mod test_peer_upstream;
mod test_real_hosts;
mod test_remotes;
mod test_resume;
mod test_rewrite;
mod test_search;
mod test_secrets;
mod test_session;
mod test_snapshots;
mod test_soak;
mod test_start;
mod test_surfaces;
mod test_team;
mod test_tour;
mod test_two_machines;
mod test_week;
mod test_worktrees;
