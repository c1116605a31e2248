//! The data files `init` writes, embedded in the binary.
//! Must not touch: files or anything beyond the embedded text (`init` writes it).

/// The default policy (every key of docs/REFERENCE.md#policy at its default).
pub const POLICY: &str = include_str!("../assets/policy.yaml");

/// The four profiles, by name.
pub const PROFILES: &[(&str, &str)] = &[
    ("routine", include_str!("../assets/profiles/routine.yaml")),
    ("implementation", include_str!("../assets/profiles/implementation.yaml")),
    ("debugging", include_str!("../assets/profiles/debugging.yaml")),
    ("deep-work", include_str!("../assets/profiles/deep-work.yaml")),
];

/// The template `decisions.md` is seeded from.
pub const DECISIONS_TEMPLATE: &str = include_str!("../assets/templates/decisions.md");

/// The template `open-questions.md` is seeded from.
pub const QUESTIONS_TEMPLATE: &str = include_str!("../assets/templates/open-questions.md");

/// The `handover` prompt (`.ai/repo/prompts/handover.md`, `context --prompt handover`): how to
/// hand over; also the body of the hosts' `/handover` command.
pub const HANDOVER_PROMPT: &str = include_str!("../assets/prompts/handover.md");
