//! The providers whose agent hooks drive episodes (SPEC §9.1): a small registry.

/// An event a provider's agent hooks deliver (`hook <provider> <event>`, SPEC §9.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookEvent {
    /// A session starts (or resumes): open an episode, print the briefing.
    Start,
    /// The provider compacts its context: a derived checkpoint, knowledge.
    Compact,
    /// The session ends: final checkpoint, derived handover, close the episode.
    End,
}

impl HookEvent {
    /// Every event, in the order help texts list them.
    pub const ALL: [HookEvent; 3] = [HookEvent::Start, HookEvent::Compact, HookEvent::End];

    /// The event as written on the command line and in the ledger.
    pub fn as_str(self) -> &'static str {
        match self {
            HookEvent::Start => "start",
            HookEvent::Compact => "compact",
            HookEvent::End => "end",
        }
    }

    /// Reads an event name; `None` for anything else.
    pub fn parse(name: &str) -> Option<HookEvent> {
        HookEvent::ALL.into_iter().find(|e| e.as_str() == name)
    }
}

impl std::fmt::Display for HookEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Provider {
    /// Name used on the command line (`hook <name> <event>`, `context --for <name>`).
    pub name: &'static str,
    /// Events its hooks deliver.
    pub events: &'static [HookEvent],
    /// The environment variable carrying its session id, when it sets one.
    pub session_env: &'static str,
    /// The instructions file it always loads.
    pub always_loaded: &'static str,
}

/// Every provider this build knows.
pub const PROVIDERS: &[Provider] = &[
    Provider {
        name: "claude-code",
        events: &HookEvent::ALL,
        session_env: "CLAUDE_CODE_SESSION_ID",
        always_loaded: "CLAUDE.md",
    },
    Provider {
        name: "codex",
        events: &[HookEvent::Start, HookEvent::End],
        session_env: "CODEX_SESSION_ID",
        always_loaded: "AGENTS.md",
    },
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

    #[test]
    fn hook_events_read_back_their_names() {
        use super::HookEvent;
        for e in HookEvent::ALL {
            assert_eq!(HookEvent::parse(e.as_str()), Some(e));
        }
        assert_eq!(HookEvent::parse("Start"), None);
        assert_eq!(HookEvent::parse("stop"), None);
    }
}
