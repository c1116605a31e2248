//! `lifecycle.*` (docs/REFERENCE.md#surfaces): the operator's reading of the episode store, not the worker's —
//! every open episode, what needs recovering, the served versus the live git state, the
//! providers and their wired hooks, and the closed records a clone receives.
//!
//! Owns: the five lifecycle read models. Must not touch: writes of any kind, the clock's
//! thresholds (nothing here decides that a record is old).

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use crate::ctx::Ctx;
use crate::error::Result;
use crate::model::labels::{freshness, Anchor, FreshnessLabel, WorkingTree};
use crate::model::providers::PROVIDERS;
use crate::queries::sessions::{self, ClosedView};
use crate::store::ledger;
use crate::store::sessions::{list_open, pointer_key};

majordomus_core::vocabulary! {
    /// Where an open episode file stands.
    pub enum Standing {
        /// The pointer resolves to it.
        Current = "current",
        /// This worktree's, not pointed at.
        Open = "open",
        /// Another worktree's.
        Foreign = "foreign",
        /// Its worktree is gone.
        Stranded = "stranded",
    }
}

/// One open episode file and where it stands.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct Episode {
    /// The episode's id.
    pub session_id: String,
    /// The file key (`sessions-open/<key>.yaml`).
    pub key: String,
    /// `current` (the pointer resolves to it), `open` (this worktree, not pointed at),
    /// `foreign` (another worktree) or `stranded` (its worktree is gone).
    // The schema keeps `string`, as before the enum (the JSON is the same).
    #[cfg_attr(feature = "mcp", schemars(with = "String"))]
    pub standing: Standing,
    /// The worktree it opened in.
    pub worktree: String,
    /// The branch it opened on.
    pub branch: String,
    /// When it opened.
    pub started_at: String,
    /// The provider whose event opened it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// That provider's session identity.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider_session: Option<String>,
    /// Ledger lines stamped with its id.
    pub events: u64,
    /// The timestamp of its newest ledger line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_activity: Option<String>,
    /// The event of its newest ledger line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_event: Option<String>,
    /// The tasks its ledger lines name.
    pub tasks: Vec<String>,
    /// One sentence on what its standing means.
    pub note: String,
    /// Minutes since it opened, when `started_at` reads.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open_minutes: Option<i64>,
    /// Open longer than a fresh record lives (`session.freshness.fresh_minutes`): a session
    /// that ended without its end hook, most likely.
    pub long_open: bool,
}

/// `lifecycle.episodes`.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct Episodes {
    /// Every open episode file, newest first by `started_at`.
    pub episodes: Vec<Episode>,
    /// Episode files that do not parse, with why.
    pub unreadable: Vec<String>,
}

/// What the ledger says of each episode id: (lines, last ts, last event, tasks).
type Activity = BTreeMap<String, (u64, Option<String>, Option<String>, Vec<String>)>;

struct LedgerFacts {
    activity: Activity,
    started: u64,
    closed: u64,
}

/// Streams the ledger one line at a time (docs/PERFORMANCE.md#what-keeps-costs-flat-as-records-grow: a whole-ledger scan holds a bounded number
/// of lines), numbered from 1 with blank lines counted but skipped (`ledger::forward`).
pub fn for_each_ledger_line(ctx: &Ctx, mut f: impl FnMut(ledger::Line)) -> Result<()> {
    for l in ledger::forward(&ctx.layout.ledger())?.into_iter().flatten() {
        f(l?);
    }
    Ok(())
}

fn ledger_facts(ctx: &Ctx) -> Result<LedgerFacts> {
    let mut f = LedgerFacts { activity: BTreeMap::new(), started: 0, closed: 0 };
    for_each_ledger_line(ctx, |l| {
        let Some(p) = &l.pairs else { return };
        match l.event() {
            Some("session.started") => f.started += 1,
            Some("session.closed") => f.closed += 1,
            _ => {}
        }
        let Some(sid) = p.str("session") else { return };
        let e = f.activity.entry(sid.to_string()).or_default();
        e.0 += 1;
        e.1 = l.ts().map(str::to_string);
        e.2 = l.event().map(str::to_string);
        if let Some(t) = p.str("task_id").filter(|t| !t.is_empty() && *t != "none") {
            if !e.3.iter().any(|x| x == t) {
                e.3.push(t.to_string());
            }
        }
    })?;
    Ok(f)
}

/// `lifecycle.episodes`.
pub fn episodes(ctx: &Ctx) -> Result<Episodes> {
    ctx.require_layer()?;
    let facts = ledger_facts(ctx)?;
    episodes_with(ctx, &facts)
}

fn episodes_with(ctx: &Ctx, facts: &LedgerFacts) -> Result<Episodes> {
    let here = ctx.here();
    let pointed = pointer_key(&ctx.layout);
    let mut out = Episodes { episodes: Vec::new(), unreadable: Vec::new() };
    let thresholds = ctx.policy().map(|p| p.thresholds()).unwrap_or_default();
    for (key, parsed) in list_open(&ctx.layout)? {
        let s = match parsed {
            Ok(s) => s,
            Err(reason) => {
                out.unreadable.push(format!(".ai/local/state/sessions-open/{key}.yaml: {reason}"));
                continue;
            }
        };
        let (standing, note) = if !here.is_worktree(&s.worktree) && !Path::new(&s.worktree).is_dir() {
            (Standing::Stranded, "its worktree is gone from disk; nothing can compose its closed record".to_string())
        } else if !here.is_worktree(&s.worktree) {
            (Standing::Foreign, format!("it belongs to another checkout ({}); close it from there", s.worktree))
        } else if pointed.as_deref() == Some(key.as_str()) {
            (Standing::Current, "session-current.yaml resolves to it".to_string())
        } else {
            (Standing::Open, "open in this worktree but the pointer names another episode".to_string())
        };
        let (events, last_activity, last_event, tasks) = facts.activity.get(&s.session_id).cloned().unwrap_or_default();
        let open = freshness(&s.started_at, ctx.clock.now(), thresholds);
        out.episodes.push(Episode {
            open_minutes: open.age_minutes,
            long_open: matches!(open.label, FreshnessLabel::Aging | FreshnessLabel::Stale),
            standing,
            note,
            events,
            last_activity,
            last_event,
            tasks,
            provider: s.provider.filter(|p| !p.is_empty()),
            provider_session: s.provider_session.filter(|p| !p.is_empty()),
            worktree: s.worktree,
            branch: s.branch,
            started_at: s.started_at,
            session_id: s.session_id,
            key,
        });
    }
    out.episodes.sort_by(|a, b| (&b.started_at, &b.key).cmp(&(&a.started_at, &a.key)));
    Ok(out)
}

/// The pointer `session-current.yaml`.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct Pointer {
    /// `pointer` (a symlink), `inline` (a copy where symlinks failed) or `absent`.
    pub layout: String,
    /// Whether it resolves to an open episode file.
    pub resolves: bool,
    /// What it names.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// One sentence.
    pub note: String,
}

/// A stranded episode and what to do about it.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct Stranded {
    /// The episode's id.
    pub session_id: String,
    /// Its file.
    pub path: String,
    /// Its vanished worktree.
    pub worktree: String,
    /// What to do.
    pub remedy: String,
}

/// A temporary file a killed close left in the sessions section.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct Orphan {
    /// Repository-relative path.
    pub path: String,
    /// Its size in bytes.
    pub bytes: u64,
}

/// Whether every episode the ledger saw start is accounted for.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct Balance {
    /// `session.started` ledger lines.
    pub started: u64,
    /// `session.closed` ledger lines.
    pub closed: u64,
    /// Open episode files.
    pub open: u64,
    /// `started − closed − open`.
    pub unaccounted: i64,
    /// Whether `unaccounted` is zero.
    pub agrees: bool,
    /// One sentence.
    pub note: String,
}

/// `lifecycle.recovery`.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct Recovery {
    /// The pointer.
    pub pointer: Pointer,
    /// Episodes that can no longer close themselves.
    pub stranded: Vec<Stranded>,
    /// Temporary files in `.ai/repo/sessions/`.
    pub orphans: Vec<Orphan>,
    /// The started/closed/open balance.
    pub balance: Balance,
}

/// `lifecycle.recovery`.
pub fn recovery(ctx: &Ctx) -> Result<Recovery> {
    ctx.require_layer()?;
    let facts = ledger_facts(ctx)?;
    let eps = episodes_with(ctx, &facts)?;
    let p = ctx.layout.pointer();
    let pointer = match std::fs::symlink_metadata(&p) {
        Err(_) => Pointer {
            layout: "absent".into(),
            resolves: false,
            target: None,
            note: "no pointer: no episode is current in this worktree".into(),
        },
        Ok(m) if m.file_type().is_symlink() => {
            let target = std::fs::read_link(&p).ok().map(|t| t.display().to_string());
            let resolves = p.is_file();
            let note = if resolves {
                "a symlink to the current episode file".to_string()
            } else {
                "a dangling symlink: the episode it names is gone; the next session start re-aims it".to_string()
            };
            Pointer { layout: "pointer".into(), resolves, target, note }
        }
        Ok(_) => Pointer {
            layout: "inline".into(),
            resolves: true,
            target: None,
            note: "a copy, not a symlink (this filesystem refused a symlink)".into(),
        },
    };
    let stranded = eps
        .episodes
        .iter()
        .filter(|e| e.standing == Standing::Stranded)
        .map(|e| Stranded {
            session_id: e.session_id.clone(),
            path: format!(".ai/local/state/sessions-open/{}.yaml", e.key),
            worktree: e.worktree.clone(),
            remedy: format!(
                "remove .ai/local/state/sessions-open/{}.yaml after reading it; its worktree cannot close it",
                e.key
            ),
        })
        .collect();
    let mut orphans = Vec::new();
    if let Ok(rd) = std::fs::read_dir(ctx.layout.sessions()) {
        for e in rd.filter_map(|e| e.ok()) {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') && name != ".gitkeep" {
                let bytes = e.metadata().map(|m| m.len()).unwrap_or(0);
                orphans.push(Orphan { path: ctx.rel(&e.path()), bytes });
            }
        }
    }
    orphans.sort_by(|a, b| a.path.cmp(&b.path));
    let open = eps.episodes.len() as u64;
    let unaccounted = facts.started as i64 - facts.closed as i64 - open as i64;
    let note = match unaccounted {
        0 => "every episode the ledger saw start is closed or still open".to_string(),
        n if n > 0 => {
            format!("{n} episode(s) started and neither closed nor open: an episode file was removed by hand")
        }
        n => format!("{} more episode(s) closed or open than the ledger saw start (a ledger rotated or trimmed)", -n),
    };
    Ok(Recovery {
        pointer,
        stranded,
        orphans,
        balance: Balance {
            started: facts.started,
            closed: facts.closed,
            open,
            unaccounted,
            agrees: unaccounted == 0,
            note,
        },
    })
}

/// A git state: head, branch, working tree.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct GitState {
    /// The commit, or `NONE` on an unborn branch.
    pub head: String,
    /// The branch, or `DETACHED`.
    pub branch: String,
    /// `clean` or `dirty`.
    // The schema keeps `string`, as before the enum (the JSON is the same).
    #[cfg_attr(feature = "mcp", schemars(with = "String"))]
    pub working_tree: WorkingTree,
}

/// `lifecycle.runtime`.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct Runtime {
    /// The git state this process answers about (a server's, as of its start).
    pub served: GitState,
    /// The git state of the repository read on this call.
    pub repository: GitState,
    /// Whether the two agree.
    pub agree: bool,
}

/// The git state of the checkout now.
pub fn git_state(ctx: &Ctx) -> Result<GitState> {
    let id = ctx.identity()?;
    Ok(GitState { head: id.head_text().into(), branch: id.branch_text().into(), working_tree: ctx.working_tree()? })
}

/// `lifecycle.runtime`: `served` is the state a long-running server recorded at its start (the
/// live state for a one-shot command).
pub fn runtime(ctx: &Ctx, served: Option<&GitState>) -> Result<Runtime> {
    ctx.require_layer()?;
    let repository = git_state(ctx)?;
    let served = served.cloned().unwrap_or_else(|| repository.clone());
    Ok(Runtime { agree: served == repository, served, repository })
}

/// One provider's declared events and wired hooks.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct ProviderView {
    /// The provider's name.
    pub name: String,
    /// The lifecycle events its adapter declares.
    pub events: Vec<String>,
    /// Where its hook entries were found wired (`.claude/settings.json <Event>`).
    pub wired: Vec<String>,
}

/// `lifecycle.providers`.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct Providers {
    /// Every provider this build knows.
    pub providers: Vec<ProviderView>,
    /// Our git hooks found in the hooks directory (`pre-push`, `post-checkout`).
    pub git_hooks: Vec<String>,
}

/// `lifecycle.providers`.
pub fn providers(ctx: &Ctx) -> Result<Providers> {
    ctx.require_layer()?;
    let settings = std::fs::read_to_string(ctx.layout.root().join(".claude/settings.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok());
    let providers = PROVIDERS
        .iter()
        .map(|p| {
            let mut wired = Vec::new();
            if let Some(hooks) = settings.as_ref().and_then(|s| s.get("hooks")).and_then(|h| h.as_object()) {
                for (event, groups) in hooks {
                    let needle = format!("majordomus hook {}", p.name);
                    if groups.to_string().contains(&needle) {
                        wired.push(format!(".claude/settings.json {event}"));
                    }
                }
            }
            ProviderView {
                name: p.name.into(),
                events: p.events.iter().map(|(e, _)| e.as_str().to_string()).collect(),
                wired,
            }
        })
        .collect();
    let hooks_dir = ctx.git.hooks_dir();
    let git_hooks = ["pre-push", "post-checkout"]
        .iter()
        .filter(|h| std::fs::read_to_string(hooks_dir.join(h)).is_ok_and(|t| t.contains("majordomus")))
        .map(|h| format!(".git/hooks/{h}"))
        .collect();
    Ok(Providers { providers, git_hooks })
}

/// `lifecycle.closed`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct Closed {
    /// Closed session records in `.ai/repo/sessions/`.
    pub total: u64,
    /// Of those, the ones about this repository and branch.
    pub on_this_branch: u64,
    /// The newest 20, newest first.
    pub newest: Vec<ClosedView>,
}

/// `lifecycle.closed`.
pub fn closed(ctx: &Ctx) -> Result<Closed> {
    let (all, _) = sessions::list(ctx, true)?;
    let (here, _) = sessions::list(ctx, false)?;
    Ok(Closed {
        total: all.len() as u64,
        on_this_branch: here.len() as u64,
        newest: all.into_iter().take(20).collect(),
    })
}
