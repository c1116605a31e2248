//! `hooks install|uninstall` (SPEC §9.1): Claude Code settings merged without clobbering,
//! git hooks that chain a foreign hook, and the continuity fetch refspec. All idempotent.

use std::path::PathBuf;

use serde_json::{json, Map, Value};

use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::model::labels::Anchor;
use crate::store::atomic::{guard, read_opt, replace};

/// What to (un)install; all three when none is chosen.
#[derive(Debug, Clone, Default)]
pub struct Targets {
    /// `.claude/settings.json` entries.
    pub claude_code: bool,
    /// `pre-push`, `post-checkout` and `post-rewrite`.
    pub git: bool,
    /// The fetch refspec; `Some(None)` = every configured remote.
    pub fetch_refspec: Option<Option<String>>,
}

impl Targets {
    /// All three (the refspec on every remote) when nothing was chosen.
    pub fn or_all(self) -> Targets {
        if !self.claude_code && !self.git && self.fetch_refspec.is_none() {
            Targets { claude_code: true, git: true, fetch_refspec: Some(None) }
        } else {
            self
        }
    }
}

/// The Claude Code events, the hook command for each, and the `timeout` (seconds) its entry
/// declares: SessionEnd hooks otherwise share a 1.5 s budget and PreCompact's writes would race
/// it (SPEC §A.25; the end hook on a large store takes about a second).
pub const CLAUDE_EVENTS: &[(&str, &str, Option<u64>)] = &[
    ("SessionStart", "git majordomus hook claude-code start", None),
    ("PreCompact", "git majordomus hook claude-code compact", Some(CLAUDE_END_TIMEOUT_S)),
    ("SessionEnd", "git majordomus hook claude-code end", Some(CLAUDE_END_TIMEOUT_S)),
];

/// The `timeout` declared on Claude Code's PreCompact and SessionEnd entries (its most for
/// SessionEnd is 60 s).
pub const CLAUDE_END_TIMEOUT_S: u64 = 30;

/// Our entry for one Claude Code event.
fn claude_entry(cmd: &str, timeout: Option<u64>) -> Value {
    let mut h = json!({"type": "command", "command": cmd});
    if let Some(t) = timeout {
        h["timeout"] = Value::from(t);
    }
    h
}

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
    if t.claude_code {
        r.push(claude(ctx, add)?);
    }
    if t.git {
        r.extend(git_hooks(ctx, add)?);
    }
    if let Some(remote) = t.fetch_refspec {
        r.extend(refspec(ctx, remote, add)?);
    }
    Ok(r)
}

/// Merges (or removes) our entries in `.claude/settings.json`.
fn claude(ctx: &Ctx, add: bool) -> Result<String> {
    let path = ctx.layout.root().join(".claude/settings.json");
    guard(ctx.layout.root(), &path)?;
    let text = read_opt(&path)?;
    let mut root: Map<String, Value> = match text.as_deref().map(str::trim) {
        None | Some("") => Map::new(),
        Some(t) => match serde_json::from_str::<Value>(t) {
            Ok(Value::Object(m)) => m,
            _ => {
                let wanted: Map<String, Value> = CLAUDE_EVENTS
                    .iter()
                    .map(|(e, c, t)| (e.to_string(), json!([{"hooks": [claude_entry(c, *t)]}])))
                    .collect();
                return Err(Error::conflict(format!(".claude/settings.json does not parse as a JSON object; nothing was changed. Add under \"hooks\": {}", Value::Object(wanted)))
                    .hint("fix the file, then run git majordomus hooks install --claude-code again"));
            }
        },
    };
    let mut changed = 0;
    {
        let hooks = root.entry("hooks").or_insert_with(|| Value::Object(Map::new()));
        let Some(hooks) = hooks.as_object_mut() else {
            return Err(Error::conflict(".claude/settings.json: \"hooks\" is not an object; nothing was changed"));
        };
        for (event, cmd, timeout) in CLAUDE_EVENTS {
            if add {
                let list = hooks.entry(event.to_string()).or_insert_with(|| Value::Array(Vec::new()));
                let Some(list) = list.as_array_mut() else {
                    return Err(Error::conflict(format!(
                        ".claude/settings.json: hooks.{event} is not an array; nothing was changed"
                    )));
                };
                let entry = claude_entry(cmd, *timeout);
                let ours = list
                    .iter_mut()
                    .filter_map(|g| g.get_mut("hooks").and_then(Value::as_array_mut))
                    .flat_map(|hs| hs.iter_mut())
                    .find(|h| h.get("command").and_then(Value::as_str) == Some(*cmd));
                match ours {
                    // An entry an older install wrote gets the timeout it now declares.
                    Some(h) if h.get("timeout") != entry.get("timeout") => {
                        match (h.as_object_mut(), timeout) {
                            (Some(o), Some(t)) => o.insert("timeout".into(), Value::from(*t)),
                            (Some(o), None) => o.remove("timeout"),
                            _ => None,
                        };
                        changed += 1;
                    }
                    Some(_) => {}
                    None => {
                        list.push(json!({"hooks": [entry]}));
                        changed += 1;
                    }
                }
            } else if let Some(list) = hooks.get_mut(*event).and_then(Value::as_array_mut) {
                for g in list.iter_mut() {
                    if let Some(hs) = g.get_mut("hooks").and_then(Value::as_array_mut) {
                        let before = hs.len();
                        hs.retain(|h| h.get("command").and_then(Value::as_str) != Some(*cmd));
                        changed += before - hs.len();
                    }
                }
                list.retain(|g| g.get("hooks").and_then(Value::as_array).is_none_or(|hs| !hs.is_empty()));
                if list.is_empty() {
                    hooks.remove(*event);
                }
            }
        }
        if hooks.is_empty() && !add {
            root.remove("hooks");
        }
    }
    if changed == 0 {
        return Ok(format!(".claude/settings.json: already {}", if add { "installed" } else { "without our entries" }));
    }
    let mut out = serde_json::to_string_pretty(&Value::Object(root)).map_err(|e| Error::io(e.to_string()))?;
    out.push('\n');
    replace(&path, out.as_bytes())?;
    Ok(format!(
        ".claude/settings.json: {} {changed} hook entr{}",
        if add { "added" } else { "removed" },
        if changed == 1 { "y" } else { "ies" }
    ))
}

/// The directory git runs hooks from (`core.hooksPath`, else `<common dir>/hooks`).
pub fn hooks_dir(ctx: &Ctx) -> PathBuf {
    match ctx.git.config_string("core.hooksPath") {
        Some(p) if PathBuf::from(&p).is_absolute() => PathBuf::from(p),
        Some(p) => ctx.layout.root().join(p),
        None => ctx.git.common_dir().join("hooks"),
    }
}

fn script(hook: &str) -> String {
    // `${0%/*}`, not `$(dirname "$0")`: no process for a hook that runs on every push.
    let chained = format!("${{0%/*}}/{hook}.majordomus-chained");
    let body = match hook {
        "pre-push" => concat!(
            "# Publish pending continuity records to the remote being pushed to (SPEC §9.1, §A.19):\n",
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
            "# Keep the <old> <new> pairs of an amend or a rebase (SPEC §A.24): a handover written\n",
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
    use std::os::unix::fs::PermissionsExt;
    let dir = hooks_dir(ctx);
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
                replace(&path, text.as_bytes())?;
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
                    .map_err(|e| Error::io_at(&path, e))?;
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

/// The default remote: the current branch's, else `origin`, else the first.
pub fn default_remote(ctx: &Ctx) -> Result<Option<String>> {
    let branch = ctx.identity()?.branch_text().to_string();
    let names = ctx.git.remote_names();
    if let Some(r) = ctx.git.config_string(&format!("branch.{branch}.remote")).filter(|r| r != "." && names.contains(r))
    {
        return Ok(Some(r));
    }
    if names.iter().any(|n| n == "origin") {
        return Ok(Some("origin".into()));
    }
    Ok(names.first().cloned())
}

/// Whether a remote name is acceptable (SPEC §10.6).
pub fn valid_remote(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name != ".."
        && !name.starts_with('-')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
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

/// The fetch refspec that brings `remote`'s store into its remote-tracking ref (SPEC §9.1); the
/// glob keeps a plain `git fetch` at exit 0 while the remote has no store.
pub fn fetch_refspec(remote: &str) -> String {
    format!("+refs/majordomus/continuity*:refs/majordomus/remotes/{remote}/continuity*")
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
