//! `hooks install|uninstall` (docs/HOOKS.md#setting-each-host-up): each agent host's settings file (by scope)
//! merged without clobbering,
//! git hooks that chain a foreign hook, and the continuity fetch refspec. All idempotent.
//! Must not touch: another tool's entries or a foreign git hook's body, another command or a query.

use std::path::PathBuf;

use serde_json::{Map, Value};

use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::model::providers::{self, Provider};
use crate::services::remotes::{fetch_refspec, valid_remote};
use crate::store::atomic::{guard, read_opt};

majordomus_core::vocabulary! {
    /// Which of a host's settings files (docs/HOOKS.md).
    pub enum Scope {
        /// The project's file, shared with the team.
        Project = "project",
        /// This checkout's untracked file.
        Local = "local",
        /// The user's file under `$HOME`.
        User = "user",
    }
}

/// What to (un)install; Claude Code at project scope, the git hooks and the refspec when none
/// is chosen.
#[derive(Debug, Clone, Default)]
pub struct Targets {
    /// Agent hosts' settings, each with its scope.
    pub agents: Vec<(&'static Provider, Scope)>,
    /// `pre-push`, `post-checkout` and `post-rewrite`.
    pub git: bool,
    /// The fetch refspec; `Some(None)` = every configured remote.
    pub fetch_refspec: Option<Option<String>>,
}

impl Targets {
    /// Today's set when nothing was chosen.
    pub fn or_all(self) -> Targets {
        if self.agents.is_empty() && !self.git && self.fetch_refspec.is_none() {
            let claude = providers::find("claude-code").map(|p| (p, Scope::Project));
            Targets { agents: claude.into_iter().collect(), git: true, fetch_refspec: Some(None) }
        } else {
            self
        }
    }
}

pub use crate::model::providers::hook_command;
use crate::model::providers::{command_of, edit_settings, handlers, settings_entries, SettingsEdit};

/// The git hooks and what ours do.
const GIT_HOOKS: &[&str] = &["pre-push", "post-checkout", "post-rewrite"];

/// The line that marks a hook file as ours.
const MARKER: &str = "# git-majordomus hook: installed by `git majordomus hooks install`, removed by `hooks uninstall`";

/// One line of the report per change (or per thing already in place).
pub type Report = Vec<String>;

/// Installs.
pub fn install(ctx: &Ctx, t: Targets) -> Result<Report> {
    apply(ctx, t, true)
}

/// Uninstalls.
pub fn uninstall(ctx: &Ctx, t: Targets) -> Result<Report> {
    apply(ctx, t, false)
}

fn apply(ctx: &Ctx, t: Targets, add: bool) -> Result<Report> {
    ctx.require_layer()?;
    let t = t.or_all();
    let mut r = Vec::new();
    for (p, scope) in &t.agents {
        r.extend(agent(ctx, p, *scope, add)?);
        if *scope == Scope::Project {
            r.extend(handover_command(ctx, p, add)?);
        }
    }
    if t.git {
        r.extend(git_hooks(ctx, add)?);
    }
    if let Some(remote) = t.fetch_refspec {
        r.extend(refspec(ctx, remote, add)?);
    }
    Ok(r)
}

/// `hooks status`: what is installed where, for every host and scope, git hook and remote.
#[derive(Debug, Clone, serde::Serialize)]
pub struct StatusReport {
    /// One row per host and scope it has.
    pub hosts: Vec<HostStatus>,
    /// One row per git hook of ours.
    pub git_hooks: Vec<GitHookStatus>,
    /// One row per configured remote.
    pub fetch_refspecs: Vec<RefspecStatus>,
}

/// One host's settings file of one scope.
#[derive(Debug, Clone, serde::Serialize)]
pub struct HostStatus {
    /// The provider.
    pub provider: String,
    /// `project`, `local` or `user`.
    pub scope: String,
    /// The file, repository-relative or under `~`.
    pub path: String,
    /// `installed` (every entry), `partial`, `absent` (none of ours), `unreadable`.
    pub state: String,
    /// Our entries found, of `expected`.
    pub entries: usize,
    /// The entries an install writes.
    pub expected: usize,
}

/// One git hook.
#[derive(Debug, Clone, serde::Serialize)]
pub struct GitHookStatus {
    /// Its name.
    pub hook: String,
    /// `installed`, `installed, chaining yours`, `foreign` (someone else's), `absent`.
    pub state: String,
}

/// One remote's fetch refspec.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RefspecStatus {
    /// The remote.
    pub remote: String,
    /// Whether the continuity refspec is configured.
    pub present: bool,
}

/// `hooks status` (text and `--json`).
pub fn status(ctx: &Ctx) -> Result<StatusReport> {
    ctx.require_layer()?;
    let mut hosts = Vec::new();
    for p in providers::PROVIDERS {
        for scope in [Scope::Project, Scope::Local, Scope::User] {
            let Some(path) = settings_path(ctx, p, scope) else { continue };
            let expected = p.events.len();
            let (state, entries) = match entries_in(p, &path) {
                Some(n) if n == expected => ("installed", n),
                Some(0) => ("absent", 0),
                Some(n) => ("partial", n),
                None => ("unreadable", 0),
            };
            hosts.push(HostStatus {
                provider: p.name.into(),
                scope: scope.as_str().into(),
                path: shown_path(ctx, &path, scope),
                state: state.into(),
                entries,
                expected,
            });
        }
    }
    let dir = ctx.git.hooks_dir();
    let git_hooks = GIT_HOOKS
        .iter()
        .map(|h| {
            let text = std::fs::read_to_string(dir.join(h)).ok();
            let chained = dir.join(format!("{h}.majordomus-chained")).exists();
            let state = match text {
                None => "absent",
                Some(t) if t.contains(MARKER) && chained => "installed, chaining yours",
                Some(t) if t.contains(MARKER) => "installed",
                Some(_) => "foreign",
            };
            GitHookStatus { hook: h.to_string(), state: state.into() }
        })
        .collect();
    let fetch_refspecs = ctx
        .git
        .remote_names()
        .into_iter()
        .map(|r| {
            let present = ctx.git.config_strings(&format!("remote.{r}.fetch")).contains(&fetch_refspec(&r));
            RefspecStatus { remote: r, present }
        })
        .collect();
    Ok(StatusReport { hosts, git_hooks, fetch_refspecs })
}

/// How many of our hook entries the settings file `path` of host `p` holds (0 when absent);
/// `None` when it cannot be read or parsed.
fn entries_in(p: &Provider, path: &std::path::Path) -> Option<usize> {
    let Some(t) = read_opt(path).ok()? else { return Some(0) };
    let v = serde_json::from_str::<Value>(&t).ok()?;
    let n = p
        .events
        .iter()
        .filter(|(e, name)| {
            let cmd = hook_command(p, *e);
            let mut list = v["hooks"][*name].as_array().cloned().unwrap_or_default();
            handlers(p, &mut list).iter().any(|hs| hs.iter().any(|h| command_of(p, h) == Some(cmd.as_str())))
        })
        .count();
    Some(n)
}

/// Our hook entries in host `p`'s settings file of `scope` (0 when none or unreadable).
fn our_entries(ctx: &Ctx, p: &Provider, scope: Scope) -> usize {
    settings_path(ctx, p, scope).and_then(|path| entries_in(p, &path)).unwrap_or(0)
}

/// Where a host's settings file of `scope` is; `None` when the host has no such scope.
pub fn settings_path(ctx: &Ctx, p: &Provider, scope: Scope) -> Option<PathBuf> {
    match scope {
        Scope::Project => Some(ctx.layout.root().join(p.settings.project)),
        Scope::Local => p.settings.local.map(|l| ctx.layout.root().join(l)),
        Scope::User => {
            let home = ctx.env.home.as_deref()?;
            p.settings.user.map(|u| PathBuf::from(home).join(u))
        }
    }
}

/// How a settings file is named in messages: repository-relative, or under `~`.
fn shown_path(ctx: &Ctx, path: &std::path::Path, scope: Scope) -> String {
    match (scope, ctx.env.home.as_deref()) {
        (Scope::User, Some(h)) => {
            path.strip_prefix(h).map(|r| format!("~/{}", r.display())).unwrap_or_else(|_| path.display().to_string())
        }
        _ => ctx.rel(path),
    }
}

/// Merges (or removes) our entries in a host's settings file of `scope`, keeping everything
/// else and the file's mode; a file left empty stays (as `{}`), except a file that is ours
/// alone (Copilot CLI's `.github/hooks/majordomus.json`).
fn agent(ctx: &Ctx, p: &Provider, scope: Scope, add: bool) -> Result<Vec<String>> {
    let Some(path) = settings_path(ctx, p, scope) else {
        return Err(Error::usage(format!("{} has no {} settings file", p.title, scope.as_str()))
            .hint("choose project, or a scope the host has (docs/HOOKS.md)"));
    };
    let shown = shown_path(ctx, &path, scope);
    if scope != Scope::User {
        guard(ctx.layout.root(), &path)?;
    }
    let text = read_opt(&path)?;
    let mut root: Map<String, Value> = match text.as_deref().map(str::trim) {
        None | Some("") => Map::new(),
        Some(t) => match serde_json::from_str::<Value>(t) {
            Ok(Value::Object(m)) => m,
            _ => {
                return Err(Error::conflict(format!(
                    "{shown} does not parse as a JSON object; nothing was changed. Add under \"hooks\": {}",
                    settings_entries(p)
                ))
                .hint(format!("fix the file, then run git majordomus hooks install again ({})", p.name)));
            }
        },
    };
    let changed = match edit_settings(p, &mut root, add, text.is_some()) {
        Ok(n) => n,
        Err(SettingsEdit::HooksNotAnObject) => {
            return Err(Error::conflict(format!("{shown}: \"hooks\" is not an object; nothing was changed")))
        }
        Err(SettingsEdit::EventNotAnArray(name)) => {
            return Err(Error::conflict(format!("{shown}: hooks.{name} is not an array; nothing was changed")))
        }
    };
    let mut out = vec![];
    if changed == 0 {
        out.push(format!("{shown}: already {}", if add { "installed" } else { "without our entries" }));
        return Ok(out);
    }
    if root.is_empty() && !add && p.settings.own_file && scope == Scope::Project {
        std::fs::remove_file(&path).map_err(|e| Error::io_at(&path, e))?;
    } else {
        write_keeping_mode(&path, &root)?;
    }
    out.push(format!(
        "{shown}: {} {changed} hook entr{}",
        if add { "added" } else { "removed" },
        if changed == 1 { "y" } else { "ies" }
    ));
    if add {
        if let Some(note) = p.settings.after_install {
            out.push(format!("{}: {note}", p.name));
        }
    }
    Ok(out)
}

/// Adds (or removes) the host's `/handover` command (`providers::handover_command`): written
/// when absent, removed only while it is exactly ours; a file of that name with other text is the
/// user's and is left alone.
fn handover_command(ctx: &Ctx, p: &Provider, add: bool) -> Result<Vec<String>> {
    let Some((rel, text)) = providers::handover_command(p) else { return Ok(Vec::new()) };
    let path = ctx.layout.root().join(rel);
    guard(ctx.layout.root(), &path)?;
    let current = read_opt(&path)?;
    let what = if rel.ends_with("SKILL.md") { "the handover skill" } else { "the /handover command" };
    let line = match (add, current.as_deref()) {
        (true, None) => {
            crate::store::atomic::ensure_dir(path.parent().unwrap_or(ctx.layout.root()))?;
            crate::store::atomic::create_if_absent(&path, text.as_bytes())?;
            format!("{rel}: added {what}")
        }
        (true, Some(t)) if t == text => format!("{rel}: {what} already installed"),
        (false, Some(t)) if t == text => {
            // A file two hosts share (the skill) stays while the other host's hooks are in.
            let sharer = providers::PROVIDERS.iter().find(|o| {
                o.name != p.name
                    && providers::handover_command(o).is_some_and(|(r, _)| r == rel)
                    && our_entries(ctx, o, Scope::Project) > 0
            });
            if let Some(o) = sharer {
                format!("{rel}: kept for {}", o.title)
            } else {
                crate::store::atomic::remove(&path)?;
                format!("{rel}: removed {what}")
            }
        }
        (_, Some(_)) => format!("{rel}: a file of yours is there ({what} not written); left as it is"),
        (false, None) => return Ok(Vec::new()),
    };
    Ok(vec![line])
}

/// Writes a settings file atomically; an existing file keeps its mode, a new one is created with
/// the umask (it is shared configuration, not a secret: docs/REFERENCE.md#modes).
fn write_keeping_mode(path: &std::path::Path, root: &Map<String, Value>) -> Result<()> {
    let mut out = serde_json::to_string_pretty(&Value::Object(root.clone())).map_err(|e| Error::io(e.to_string()))?;
    out.push('\n');
    if let Some(dir) = path.parent() {
        crate::store::atomic::ensure_dir(dir)?;
    }
    Ok(crate::store::atomic::replace(path, out.as_bytes())?)
}

fn script(hook: &str) -> String {
    // `${0%/*}`, not `$(dirname "$0")`: no process for a hook that runs on every push.
    let chained = format!("${{0%/*}}/{hook}.majordomus-chained");
    let body = match hook {
        "pre-push" => concat!(
            "# Publish pending continuity records to the remote being pushed to (docs/SYNC.md#the-pre-push-hook):\n",
            "# no network and nothing done when none is pending (the fetch refspec does the fetching),\n",
            "# bounded in time, never prompting, never failing the push, printing at most one line,\n",
            "# and not recursing (its own push runs with --no-verify and MAJORDOMUS_HOOK=1).\n",
            "# The time bound (30 s for the network steps) is the binary's own, so it holds where\n",
            "# timeout(1) is missing and costs no process when nothing is pending.\n",
            "if [ \"${MAJORDOMUS_HOOK:-}\" != 1 ] && [ -n \"${1:-}\" ]; then\n",
            "  MAJORDOMUS_HOOK=1 GIT_TERMINAL_PROMPT=0 git-majordomus continuity sync --pre-push --remote \"$1\" </dev/null >&2 2>/dev/null ||\n",
            "    echo \"majordomus: continuity not synced with $1 (run: git majordomus continuity sync --remote $1)\" >&2\n",
            "fi\n"
        )
        .to_string(),
        "post-rewrite" => concat!(
            "# Keep the <old> <new> pairs of an amend or a rebase (docs/REFERENCE.md#rewrites): a handover written\n",
            "# at the old commit is then labelled by the new one, with this as its proof.\n",
            "if [ \"${MAJORDOMUS_HOOK:-}\" != 1 ]; then\n",
            "  printf '%s\\n' \"${majordomus_input-$(cat)}\" | MAJORDOMUS_HOOK=1 git-majordomus hook git post-rewrite \"${1:-}\" >/dev/null 2>&1 || true\n",
            "fi\n"
        )
        .to_string(),
        _ => "if [ \"${MAJORDOMUS_HOOK:-}\" != 1 ] && [ \"${3:-}\" = 1 ]; then\n  p=$(MAJORDOMUS_HOOK=1 git majordomus handover --resolve --path 2>/dev/null | head -n 1)\n  case \"$p\" in\n    \"\"|\"No relevant handover.\") ;;\n    *) echo \"majordomus: handover $p resolves on this branch (git majordomus handover --resolve)\" ;;\n  esac\nfi\n".to_string(),
    };
    let run_chained = if hook == "pre-push" || hook == "post-rewrite" {
        // pre-push and post-rewrite read their stdin: keep it for the chained hook.
        format!("if [ -x \"{chained}\" ]; then\n  majordomus_input=$(cat)\n  printf '%s' \"$majordomus_input\" | \"{chained}\" \"$@\"\n  status=$?\nfi\n")
    } else {
        format!("if [ -x \"{chained}\" ]; then\n  \"{chained}\" \"$@\"\n  status=$?\nfi\n")
    };
    format!("#!/bin/sh\n{MARKER}\nstatus=0\n{run_chained}{body}exit $status\n")
}

/// Writes (or removes) our git hooks, chaining any foreign hook found in place.
fn git_hooks(ctx: &Ctx, add: bool) -> Result<Report> {
    let dir = ctx.git.hooks_dir();
    let mut r = Vec::new();
    for hook in GIT_HOOKS {
        let path = dir.join(hook);
        let chained = dir.join(format!("{hook}.majordomus-chained"));
        let existing = std::fs::read_to_string(&path).ok();
        let ours = existing.as_deref().is_some_and(|t| t.contains(MARKER));
        if add {
            if existing.is_some() && !ours {
                if chained.exists() {
                    return Err(Error::conflict(format!(
                        "{} and {} both exist; nothing was changed",
                        path.display(),
                        chained.display()
                    ))
                    .hint("merge them by hand, then install again"));
                }
                std::fs::rename(&path, &chained).map_err(|e| Error::io_at(&path, e))?;
                r.push(format!("{hook}: your hook moved to {hook}.majordomus-chained and runs first"));
            }
            let text = script(hook);
            if existing.as_deref() != Some(text.as_str()) {
                // Executable as git's own sample hooks are: 0777 less the umask.
                crate::store::atomic::replace_mode(&path, text.as_bytes(), 0o777)?;
                r.push(format!("{hook}: installed in {}", ctx.rel(&dir)));
            } else {
                r.push(format!("{hook}: already installed"));
            }
        } else if ours {
            std::fs::remove_file(&path).map_err(|e| Error::io_at(&path, e))?;
            if chained.exists() {
                std::fs::rename(&chained, &path).map_err(|e| Error::io_at(&chained, e))?;
                r.push(format!("{hook}: removed; your hook is back in place"));
            } else {
                r.push(format!("{hook}: removed"));
            }
        } else {
            r.push(format!("{hook}: not ours; left alone"));
        }
    }
    Ok(r)
}

/// Adds (or removes) the continuity fetch refspec of `remote`, or of every configured remote when
/// none is named (so that running `hooks install` again covers remotes added since).
fn refspec(ctx: &Ctx, remote: Option<String>, add: bool) -> Result<Report> {
    let names = ctx.git.remote_names();
    let remotes = match remote {
        Some(r) => {
            if !valid_remote(&r) {
                return Err(Error::refused(format!("{r:?} is not a remote name")));
            }
            if !names.contains(&r) {
                return Err(Error::not_found(format!("no remote named {r}")).hint("git remote -v lists them"));
            }
            vec![r]
        }
        None if names.is_empty() => return Ok(vec!["fetch refspec: no remote configured; skipped".into()]),
        None => names.into_iter().filter(|r| valid_remote(r)).collect(),
    };
    remotes.iter().map(|r| refspec_of(ctx, r, add)).collect()
}

fn refspec_of(ctx: &Ctx, remote: &str, add: bool) -> Result<String> {
    let spec = fetch_refspec(remote);
    let key = format!("remote.{remote}.fetch");
    let present = ctx.git.config_strings(&key).contains(&spec);
    let args: Vec<&str> = match (add, present) {
        (true, true) => return Ok(format!("fetch refspec: already on {remote}")),
        (false, false) => return Ok(format!("fetch refspec: not on {remote}")),
        (true, false) => vec!["config", "--add", &key, &spec],
        (false, true) => vec!["config", "--fixed-value", "--unset", &key, &spec],
    };
    let out = ctx.git.git_binary(&args)?;
    if !out.status.success() {
        return Err(Error::io(format!("git config {key}: {}", String::from_utf8_lossy(&out.stderr).trim())));
    }
    Ok(format!("fetch refspec: {} {remote}: {spec}", if add { "added to" } else { "removed from" }))
}
