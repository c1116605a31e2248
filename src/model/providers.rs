//! The providers whose agent hooks drive episodes (SPEC §9.1): a small registry.

/// One provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Provider {
    /// Name used on the command line (`hook <name> <event>`, `context --for <name>`).
    pub name: &'static str,
    /// Events its hooks deliver.
    pub events: &'static [&'static str],
    /// The environment variable carrying its session id, when it sets one.
    pub session_env: &'static str,
    /// The instructions file it always loads.
    pub always_loaded: &'static str,
}

/// Every provider this build knows.
pub const PROVIDERS: &[Provider] = &[
    Provider {
        name: "claude-code",
        events: &["start", "compact", "end"],
        session_env: "CLAUDE_CODE_SESSION_ID",
        always_loaded: "CLAUDE.md",
    },
    Provider { name: "codex", events: &["start", "end"], session_env: "CODEX_SESSION_ID", always_loaded: "AGENTS.md" },
];

/// Looks a provider up by name.
pub fn find(name: &str) -> Option<&'static Provider> {
    PROVIDERS.iter().find(|p| p.name == name)
}

/// Sanitises a payload value: `[A-Za-z0-9._:@/-]` only, at most 64 characters.
pub fn sanitise(v: &str) -> String {
    v.chars().filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ':' | '@' | '/' | '-')).take(64).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn sanitising() {
        assert_eq!(super::sanitise("ab c;$(rm -rf)/x"), "abcrm-rf/x");
        assert_eq!(super::sanitise(&"x".repeat(100)).len(), 64);
        assert!(super::find("claude-code").is_some() && super::find("nope").is_none());
    }
}
