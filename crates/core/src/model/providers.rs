//! The providers whose agent hooks drive episodes (docs/HOOKS.md): a small registry.
//! Must not touch: files (`hooks install` writes the settings), stdout, the lifecycle steps
//! (`ops::hook`).

use crate::model::vocabulary::vocabulary;

vocabulary! {
    /// An event a provider's agent hooks deliver (`hook <provider> <event>`, docs/HOOKS.md), as
    /// written on the command line and in the ledger; `ALL` in the order help texts list them.
    pub enum HookEvent {
        /// A session starts (or resumes): open an episode, print the briefing.
        Start = "start",
        /// The provider compacts its context: a derived checkpoint, knowledge.
        Compact = "compact",
        /// The session ends: final checkpoint, derived handover, close the episode.
        End = "end",
    }
}

/// How a host wants the start briefing on stdout (docs/HOOKS.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// Plain text; it must not look like JSON (Codex fails a hook whose stdout does and does
    /// not parse).
    Plain,
    /// One JSON object `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":…}}`
    /// and nothing else on stdout (Gemini CLI).
    HookSpecific,
    /// One JSON object `{"additional_context":…}` (Cursor).
    SnakeContext,
    /// One JSON object `{"additionalContext":…}` (Copilot CLI).
    CamelContext,
}

/// How much hook output a host shows its model, and in what unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cap {
    /// Unicode characters.
    Chars(usize),
    /// Bytes of UTF-8.
    Bytes(usize),
}

/// How a host's settings file holds hook entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// `hooks.<Event>: [{"hooks": [{"type": "command", "command": …, <timeout_key>: …}]}]`
    /// (Claude Code's nesting; Codex and Gemini CLI use it too).
    Nested {
        /// The entry's timeout key.
        timeout_key: &'static str,
    },
    /// `{"version": 1, "hooks": {<event>: [{<command_key>: …}]}}` (Cursor, Copilot CLI).
    Flat {
        /// The key holding the command (`command`, or Copilot's `bash`).
        command_key: &'static str,
        /// Whether entries carry `"type": "command"`.
        typed: bool,
        /// The entry's timeout key, when the host has one.
        timeout_key: Option<&'static str>,
    },
}

/// Where a host reads its hook settings, and how (docs/HOOKS.md, `hooks install`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// The project file, relative to the checkout's root (shared with the team).
    pub project: &'static str,
    /// The checkout's own untracked file, when the host has one.
    pub local: Option<&'static str>,
    /// The user's file, relative to `$HOME`, when the host has one.
    pub user: Option<&'static str>,
    /// How entries are written.
    pub shape: Shape,
    /// The timeout declared on compact and end entries, in the host's unit (seconds, or
    /// milliseconds for Gemini CLI).
    pub end_timeout: Option<u64>,
    /// What the host needs before it runs the hooks, said after an install (measured on the real
    /// CLIs, docs/HOOKS.md "Trust").
    pub after_install: Option<&'static str>,
    /// Whether the project file is ours alone (uninstall then removes it when empty).
    pub own_file: bool,
}

/// One agent host: everything its hooks differ in, as data (docs/HOOKS.md). The lifecycle is one
/// implementation (`ops::hook`); a host is a row of this table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Provider {
    /// Name used on the command line (`hook <name> <event>`, `context --for <name>`).
    pub name: &'static str,
    /// What people call it.
    pub title: &'static str,
    /// Events its hooks deliver, each with the host's own name for it.
    pub events: &'static [(HookEvent, &'static str)],
    /// Payload keys holding the session id, in order of preference.
    pub session_keys: &'static [&'static str],
    /// Payload keys holding the start source (`startup`, `resume`, `clear`, `compact`, `fork`).
    pub source_keys: &'static [&'static str],
    /// Payload keys holding the end reason.
    pub reason_keys: &'static [&'static str],
    /// Payload keys holding the session's working directory (a string, or a list whose first
    /// entry is it).
    pub cwd_keys: &'static [&'static str],
    /// End reasons that close an episode as `closed`; any other is `interrupted`.
    pub closing_reasons: &'static [&'static str],
    /// The environment variable carrying its session id, when it sets one.
    pub session_env: &'static str,
    /// The instructions file it always loads.
    pub always_loaded: &'static str,
    /// The shape of the start briefing on stdout.
    pub output: Output,
    /// The most hook output the host passes whole to its model.
    pub cap: Cap,
    /// How long the host waits for an end hook by default, in milliseconds (`None`: it does
    /// not wait).
    pub end_budget_ms: Option<u32>,
    /// The events whose stderr the host shows its user as a message of its own: their hooks
    /// print nothing on stderr (docs/HOOKS.md; the receipts are in the ledger).
    pub silent: &'static [HookEvent],
    /// The host HTML-escapes `<` and `>` in the context it passes (the model would read
    /// `Vec&lt;String&gt;`): the briefing writes them as `‹` and `›`, which read the same.
    pub escapes_angles: bool,
    /// Its settings files.
    pub settings: Settings,
}

impl Provider {
    /// Whether the host delivers `event`.
    pub fn has(&self, event: HookEvent) -> bool {
        self.events.iter().any(|(e, _)| *e == event)
    }

    /// The host's name for `event`.
    pub fn event_name(&self, event: HookEvent) -> Option<&'static str> {
        self.events.iter().find(|(e, _)| *e == event).map(|(_, n)| *n)
    }
}

const CLAUDE_EVENTS: &[(HookEvent, &str)] =
    &[(HookEvent::Start, "SessionStart"), (HookEvent::Compact, "PreCompact"), (HookEvent::End, "SessionEnd")];

/// Every provider this build knows. Sources for each row: `docs/HOOKS.md`.
pub const PROVIDERS: &[Provider] = &[
    Provider {
        name: "claude-code",
        title: "Claude Code",
        events: CLAUDE_EVENTS,
        session_keys: &["session_id"],
        source_keys: &["source"],
        reason_keys: &["reason"],
        cwd_keys: &["cwd"],
        closing_reasons: &["clear", "logout", "prompt_input_exit"],
        session_env: "CLAUDE_CODE_SESSION_ID",
        always_loaded: "CLAUDE.md",
        output: Output::Plain,
        cap: Cap::Chars(10_000),
        end_budget_ms: Some(1_500),
        silent: &[],
        escapes_angles: false,
        settings: Settings {
            project: ".claude/settings.json",
            local: Some(".claude/settings.local.json"),
            user: Some(".claude/settings.json"),
            shape: Shape::Nested { timeout_key: "timeout" },
            end_timeout: Some(30),
            after_install: None,
            own_file: false,
        },
    },
    Provider {
        name: "codex",
        title: "Codex",
        events: CLAUDE_EVENTS,
        session_keys: &["session_id"],
        source_keys: &["source"],
        reason_keys: &["reason"],
        cwd_keys: &["cwd"],
        // Codex's SessionEnd reason is always "other": it says nothing of how the session ended.
        closing_reasons: &[],
        session_env: "CODEX_THREAD_ID",
        always_loaded: "AGENTS.md",
        output: Output::Plain,
        cap: Cap::Bytes(10_000),
        end_budget_ms: Some(1_000),
        silent: &[],
        escapes_angles: false,
        settings: Settings {
            project: ".codex/hooks.json",
            local: None,
            user: Some(".codex/hooks.json"),
            shape: Shape::Nested { timeout_key: "timeout" },
            end_timeout: Some(3),
            after_install: Some("pending trust: Codex runs a project's hooks only in a trusted project and only once each hook is trusted — open /hooks in Codex (an edited entry needs trusting again); `codex exec` skips untrusted hooks silently (automation: --dangerously-bypass-hook-trust)"),
            own_file: false,
        },
    },
    Provider {
        name: "gemini-cli",
        title: "Gemini CLI",
        events: &[
            (HookEvent::Start, "SessionStart"),
            (HookEvent::Compact, "PreCompress"),
            (HookEvent::End, "SessionEnd"),
        ],
        session_keys: &["session_id"],
        source_keys: &["source"],
        reason_keys: &["reason"],
        cwd_keys: &["cwd"],
        closing_reasons: &["exit", "clear", "logout", "prompt_input_exit"],
        session_env: "GEMINI_SESSION_ID",
        always_loaded: "GEMINI.md",
        output: Output::HookSpecific,
        cap: Cap::Chars(10_000),
        end_budget_ms: None,
        silent: &[HookEvent::Compact, HookEvent::End],
        escapes_angles: true,
        settings: Settings {
            project: ".gemini/settings.json",
            local: None,
            user: Some(".gemini/settings.json"),
            shape: Shape::Nested { timeout_key: "timeout" },
            end_timeout: Some(30_000),
            after_install: Some("Gemini CLI runs hooks only in a trusted folder — trust this folder when it asks (`gemini -p` exits 55 in an untrusted one)"),
            own_file: false,
        },
    },
    Provider {
        name: "cursor",
        title: "Cursor",
        events: &[(HookEvent::Start, "sessionStart"), (HookEvent::End, "sessionEnd")],
        // sessionStart names the conversation, sessionEnd the session: the same id is looked
        // for under both names, the conversation's first.
        session_keys: &["conversation_id", "session_id"],
        source_keys: &["source"],
        reason_keys: &["reason"],
        cwd_keys: &["workspace_roots", "cwd"],
        closing_reasons: &[],
        session_env: "CURSOR_SESSION_ID",
        always_loaded: "AGENTS.md",
        output: Output::SnakeContext,
        cap: Cap::Chars(10_000),
        end_budget_ms: None,
        silent: &[],
        escapes_angles: false,
        settings: Settings {
            project: ".cursor/hooks.json",
            local: None,
            user: Some(".cursor/hooks.json"),
            shape: Shape::Flat { command_key: "command", typed: false, timeout_key: None },
            end_timeout: None,
            after_install: None,
            own_file: false,
        },
    },
    Provider {
        name: "copilot-cli",
        title: "GitHub Copilot CLI",
        events: &[(HookEvent::Start, "sessionStart"), (HookEvent::End, "sessionEnd")],
        session_keys: &["sessionId", "session_id"],
        source_keys: &["source"],
        reason_keys: &["reason"],
        cwd_keys: &["cwd"],
        // A normal exit of `copilot -p` ends with `complete` (measured, docs/HOOKS.md).
        closing_reasons: &["complete"],
        session_env: "COPILOT_AGENT_SESSION_ID",
        always_loaded: "AGENTS.md",
        output: Output::CamelContext,
        cap: Cap::Chars(10_000),
        end_budget_ms: Some(30_000),
        silent: &[],
        escapes_angles: false,
        settings: Settings {
            project: ".github/hooks/majordomus.json",
            local: None,
            user: None,
            shape: Shape::Flat { command_key: "bash", typed: true, timeout_key: Some("timeoutSec") },
            end_timeout: Some(30),
            after_install: Some("Copilot CLI runs repository hooks only in a trusted folder — trust it when Copilot asks; `copilot -p` silently runs none otherwise (automation: --trust-folder or GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true)"),
            own_file: true,
        },
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
        for &e in HookEvent::ALL {
            assert_eq!(HookEvent::parse(e.as_str()), Some(e));
        }
        assert_eq!(HookEvent::parse("Start"), None);
        assert_eq!(HookEvent::parse("stop"), None);
    }
}

// ---- The hosts' settings files, as `hooks install` edits them (pure: no file is read here) ----

use serde_json::{json, Map, Value};

/// The command a host's settings run for `event`.
pub fn hook_command(p: &Provider, event: HookEvent) -> String {
    format!("git majordomus hook {} {event}", p.name)
}

/// Our entry for one event in a host's settings shape.
pub fn entry(p: &Provider, event: HookEvent) -> Value {
    let cmd = hook_command(p, event);
    let timeout = p.settings.end_timeout.filter(|_| event != HookEvent::Start);
    match p.settings.shape {
        Shape::Nested { timeout_key } => {
            let mut h = json!({"type": "command", "command": cmd});
            if let Some(t) = timeout {
                h[timeout_key] = Value::from(t);
            }
            h
        }
        Shape::Flat { command_key, typed, timeout_key } => {
            let mut h = Map::new();
            if typed {
                h.insert("type".into(), Value::from("command"));
            }
            h.insert(command_key.into(), Value::from(cmd));
            if let (Some(k), Some(t)) = (timeout_key, timeout) {
                h.insert(k.into(), Value::from(t));
            }
            Value::Object(h)
        }
    }
}

/// The command an entry of a host's shape runs.
pub fn command_of<'v>(p: &Provider, h: &'v Value) -> Option<&'v str> {
    let key = match p.settings.shape {
        Shape::Nested { .. } => "command",
        Shape::Flat { command_key, .. } => command_key,
    };
    h.get(key).and_then(Value::as_str)
}

/// The handler lists of one event's value: the groups' `hooks` arrays (nested), or the value
/// itself (flat).
pub fn handlers<'v>(p: &Provider, list: &'v mut Vec<Value>) -> Vec<&'v mut Vec<Value>> {
    match p.settings.shape {
        Shape::Nested { .. } => {
            list.iter_mut().filter_map(|g| g.get_mut("hooks").and_then(Value::as_array_mut)).collect()
        }
        Shape::Flat { .. } => vec![list],
    }
}

/// Every hook entry of ours for `p`, as its settings file holds them under `"hooks"`.
pub fn settings_entries(p: &Provider) -> Value {
    let hooks: Map<String, Value> = p
        .events
        .iter()
        .map(|(e, name)| {
            let v = match p.settings.shape {
                Shape::Nested { .. } => json!([{"hooks": [entry(p, *e)]}]),
                Shape::Flat { .. } => json!([entry(p, *e)]),
            };
            (name.to_string(), v)
        })
        .collect();
    Value::Object(hooks)
}

/// Why a settings file could not be edited.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettingsEdit {
    /// `"hooks"` is not an object.
    HooksNotAnObject,
    /// `hooks.<event>` is not an array.
    EventNotAnArray(String),
}

/// Adds (`add`) or removes our entries in a host's settings `root`, keeping everything else; how
/// many entries changed. `existed`: the file existed (a removal then drops a `version: 1` left
/// alone). The one edit `hooks install|uninstall` makes, and what tells a settings file that
/// holds only our entries ([`only_ours`]).
pub fn edit_settings(
    p: &Provider,
    root: &mut Map<String, Value>,
    add: bool,
    existed: bool,
) -> Result<usize, SettingsEdit> {
    if add && matches!(p.settings.shape, Shape::Flat { .. }) && !root.contains_key("version") {
        root.insert("version".into(), Value::from(1));
    }
    let mut changed = 0;
    {
        let hooks = root.entry("hooks").or_insert_with(|| Value::Object(Map::new()));
        let Some(hooks) = hooks.as_object_mut() else { return Err(SettingsEdit::HooksNotAnObject) };
        for (event, name) in p.events {
            let want = entry(p, *event);
            let cmd = hook_command(p, *event);
            if add {
                let list = hooks.entry(name.to_string()).or_insert_with(|| Value::Array(Vec::new()));
                let Some(list) = list.as_array_mut() else {
                    return Err(SettingsEdit::EventNotAnArray(name.to_string()));
                };
                let mut found = false;
                for hs in handlers(p, list) {
                    for h in hs.iter_mut().filter(|h| command_of(p, h) == Some(cmd.as_str())) {
                        found = true;
                        // An entry an older install wrote gets what this one declares (a timeout).
                        if *h != want {
                            *h = want.clone();
                            changed += 1;
                        }
                    }
                }
                if !found {
                    list.push(match p.settings.shape {
                        Shape::Nested { .. } => json!({"hooks": [want]}),
                        Shape::Flat { .. } => want,
                    });
                    changed += 1;
                }
            } else if let Some(list) = hooks.get_mut(*name).and_then(Value::as_array_mut) {
                for hs in handlers(p, list) {
                    let before = hs.len();
                    hs.retain(|h| command_of(p, h) != Some(cmd.as_str()));
                    changed += before - hs.len();
                }
                if matches!(p.settings.shape, Shape::Nested { .. }) {
                    list.retain(|g| g.get("hooks").and_then(Value::as_array).is_none_or(|hs| !hs.is_empty()));
                }
                if list.is_empty() {
                    hooks.remove(*name);
                }
            }
        }
        if hooks.is_empty() && !add {
            root.remove("hooks");
        }
    }
    if !add && root.len() == 1 && root.get("version").is_some_and(|v| v == 1) && existed {
        root.remove("version");
    }
    Ok(changed)
}

/// A host's project-level `/handover` command, or a `handover` skill, where the host has a
/// project mechanism (Claude Code's `.claude/commands/`, Gemini CLI's `.gemini/commands/`; the
/// `.agents/skills/` that Codex and Copilot CLI both list, measured): its repository-relative
/// path and the text `hooks install` writes (the `handover` prompt). Codex and Copilot CLI share
/// the skill's file.
pub fn handover_command(p: &Provider) -> Option<(&'static str, String)> {
    const WHAT: &str = "Hand this task over: write the handover the next session starts from";
    let prompt = crate::assets::HANDOVER_PROMPT;
    match p.name {
        "claude-code" => {
            Some((".claude/commands/handover.md", format!("---\ndescription: \"{WHAT}\"\n---\n\n{prompt}")))
        }
        "gemini-cli" => {
            Some((".gemini/commands/handover.toml", format!("description = \"{WHAT}\"\nprompt = '''\n{prompt}'''\n")))
        }
        "codex" | "copilot-cli" => Some((
            ".agents/skills/handover/SKILL.md",
            format!("---\nname: handover\ndescription: \"{WHAT}\"\n---\n\n{prompt}"),
        )),
        _ => None,
    }
}

/// Whether the repository file `rel`, holding `current` now and `head` at HEAD (or at the task's
/// start), is one `hooks install` wrote for `p` and holds nothing of the user's: the project
/// settings file differing only by our entries ([`only_ours`]), or the `/handover` command
/// exactly as written ([`handover_command`]).
pub fn tools_own(p: &Provider, rel: &str, current: &str, head: Option<&str>) -> bool {
    if rel == p.settings.project {
        return only_ours(p, current, head);
    }
    handover_command(p).is_some_and(|(path, text)| path == rel && current == text)
}

/// Whether a host's project settings file, as it is now (`current`), differs from what HEAD
/// holds (`head`; `None`: absent) only by our entries (docs/REFERENCE.md#identity): our
/// entries removed from both, the two are the same JSON. A file that does not parse is not ours.
pub fn only_ours(p: &Provider, current: &str, head: Option<&str>) -> bool {
    let parse = |t: &str| -> Option<Map<String, Value>> {
        match t.trim() {
            "" => Some(Map::new()),
            t => match serde_json::from_str::<Value>(t) {
                Ok(Value::Object(m)) => Some(m),
                _ => None,
            },
        }
    };
    let without = |t: Option<&str>| -> Option<Map<String, Value>> {
        let mut m = match t {
            Some(t) => parse(t)?,
            None => Map::new(),
        };
        edit_settings(p, &mut m, false, true).ok()?;
        Some(m)
    };
    match (without(Some(current)), without(head)) {
        (Some(mut a), Some(b)) => {
            // `hooks install` adds `version: 1` to a flat-shaped file that lacks it.
            if matches!(p.settings.shape, Shape::Flat { .. })
                && !b.contains_key("version")
                && a.get("version") == Some(&Value::from(1))
            {
                a.remove("version");
            }
            a == b
        }
        _ => false,
    }
}

#[cfg(test)]
mod settings_tests {
    use super::*;

    #[test]
    fn only_our_entries_are_ours_and_anything_else_is_the_users() {
        for p in PROVIDERS {
            let mut mine = Map::new();
            edit_settings(p, &mut mine, true, false).unwrap();
            let ours = serde_json::to_string_pretty(&Value::Object(mine.clone())).unwrap();
            assert!(only_ours(p, &ours, None), "{}: a new file of our entries", p.name);
            // Added to a file HEAD holds with the user's own keys: still only ours.
            let theirs = r#"{"model": "x", "hooks": {"Other": [1]}}"#;
            let mut merged: Map<String, Value> = serde_json::from_str(theirs).unwrap();
            if edit_settings(p, &mut merged, true, true).is_ok() {
                let now = serde_json::to_string(&Value::Object(merged.clone())).unwrap();
                assert!(only_ours(p, &now, Some(theirs)), "{}: our entries added to the user's file", p.name);
                merged.insert("model".into(), Value::from("y"));
                let now = serde_json::to_string(&Value::Object(merged)).unwrap();
                assert!(!only_ours(p, &now, Some(theirs)), "{}: the user's change is the user's", p.name);
            }
            assert!(!only_ours(p, "not json", None));
            assert!(!only_ours(p, r#"{"model": "x"}"#, None), "{}: a key of the user's", p.name);
        }
    }
}
