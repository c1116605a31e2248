//! The context every use case runs in: the checkout, the clock, the environment snapshot,
//! the policy, and the one function that appends to the ledger.
//!
//! Owns: reading the process environment (once, at the edge), lazy git identity, warnings.
//! Must not touch: stdout/stderr (warnings are collected and printed by the CLI).

use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::clock::Clock;
use crate::error::{Error, Result};
use crate::git::{Changes, Git, Identity};
use crate::model::events::Event;
use crate::model::labels::{Anchor, Divergence, Label, Landed, WorkingTree};
use crate::model::policy::{Policy, Profile};
use crate::model::record::bounded;
use crate::store::atomic::{guard, read_opt};
use crate::store::keep::{self, Here, Place};
use crate::store::{ledger, sessions, Layout};
use crate::text::first_line;

/// What the process environment says, read once.
#[derive(Debug, Clone, Default)]
pub struct Env {
    /// `MAJORDOMUS_NOW`.
    pub now: Option<String>,
    /// `$USER` (else `$LOGNAME`).
    pub user: Option<String>,
    /// `MAJORDOMUS_SESSION_KEY` (strict episode key, set by hooks).
    pub session_key: Option<String>,
    /// `MAJORDOMUS_PROVIDER_SESSION`, then each provider's own variable.
    pub provider_sessions: Vec<String>,
    /// `MAJORDOMUS_SESSION_DRY_RUN=1`: hooks report without writing.
    pub dry_run: bool,
    /// `$XDG_STATE_HOME`.
    pub xdg_state_home: Option<String>,
    /// `$HOME`.
    pub home: Option<String>,
    /// `CLAUDE_PROJECT_DIR`, which Claude Code sets for its hook commands: where a hook run
    /// outside any repository finds the checkout last (docs/REFERENCE.md#hook-events).
    pub claude_project_dir: Option<String>,
    /// The whole environment, for the publish-time secret scan (values never printed).
    pub vars: Vec<(String, String)>,
}

impl Env {
    /// Reads the process environment.
    pub fn from_process() -> Env {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        Env {
            dry_run: var("MAJORDOMUS_SESSION_DRY_RUN").is_some_and(|v| v == "1"),
            xdg_state_home: var("XDG_STATE_HOME"),
            home: var("HOME"),
            claude_project_dir: var("CLAUDE_PROJECT_DIR"),
            vars: std::env::vars().collect(),
            now: var("MAJORDOMUS_NOW"),
            user: var("USER").or_else(|| var("LOGNAME")),
            session_key: var("MAJORDOMUS_SESSION_KEY"),
            provider_sessions: std::iter::once("MAJORDOMUS_PROVIDER_SESSION")
                .chain(crate::model::providers::PROVIDERS.iter().map(|p| p.session_env))
                .filter_map(var)
                .collect(),
        }
    }
}

/// The checkout and everything a use case reads from the outside world.
pub struct Ctx {
    /// The pinned clock.
    pub clock: Clock,
    /// The environment snapshot.
    pub env: Env,
    /// Git access.
    pub git: Git,
    /// Layer paths.
    pub layout: Layout,
    identity: OnceCell<Identity>,
    here: OnceCell<Here>,
    changes: OnceCell<Changes>,
    changed: OnceCell<Vec<String>>,
    policy: OnceCell<Policy>,
    warnings: Warnings,
    labels: RefCell<HashMap<AnchorKey, Divergence>>,
    rewrites: RefCell<RewriteCache>,
    session_override: RefCell<Option<Option<String>>>,
}

impl Ctx {
    /// Opens the checkout at `repo` (or the current directory); a bare repository is a usage
    /// error (2).
    pub fn open(repo: Option<&Path>, env: Env) -> Result<Ctx> {
        Ctx::open_with(repo, env, false)
    }

    /// Opens the repository at `repo` (or the current directory), a bare one included: for the
    /// readers of the continuity store that need no working tree (`continuity verify`,
    /// `continuity records`). In a bare repository the layer is not required and the committed
    /// one is read from HEAD's tree.
    pub fn open_bare_ok(repo: Option<&Path>, env: Env) -> Result<Ctx> {
        Ctx::open_with(repo, env, true)
    }

    fn open_with(repo: Option<&Path>, env: Env, bare_ok: bool) -> Result<Ctx> {
        let clock = Clock::new(env.now.as_deref())?;
        let start: PathBuf = match repo {
            Some(p) => {
                if !p.exists() {
                    return Err(Error::usage(format!("--repo {}: no such directory", p.display())));
                }
                // Absolute: gix's discovery of a bare repository by a relative path (`../x.git`)
                // misreads it (`--repo ../x.git` failed where an absolute path worked).
                std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
            }
            None => std::env::current_dir().map_err(|e| Error::io(format!("current directory: {e}")))?,
        };
        let git = if bare_ok { Git::discover_bare_ok(&start)? } else { Git::discover(&start)? };
        let layout = Layout::new(git.root());
        if !git.is_bare() {
            keep::register(Ctx::place_of(&git));
        }
        Ok(Ctx {
            clock,
            env,
            git,
            layout,
            identity: OnceCell::new(),
            here: OnceCell::new(),
            changes: OnceCell::new(),
            changed: OnceCell::new(),
            policy: OnceCell::new(),
            warnings: Warnings::default(),
            labels: RefCell::new(HashMap::new()),
            rewrites: RefCell::new(RewriteCache::default()),
            session_override: RefCell::new(None),
        })
    }

    /// Fails with exit 12 unless the layer exists (a bare repository has none to require).
    pub fn require_layer(&self) -> Result<()> {
        if self.layout.exists() || self.git.is_bare() {
            Ok(())
        } else {
            Err(Error::no_layer())
        }
    }

    /// Records a warning for stderr (`warning: <text>`).
    pub fn warn(&self, text: impl Into<String>) {
        // A warning said once per command, however many steps find it.
        let text = text.into();
        let mut w = self.warnings.borrow_mut();
        if !w.contains(&text) {
            w.push(text);
        }
    }

    /// Takes the collected warnings.
    pub fn take_warnings(&self) -> Vec<String> {
        std::mem::take(&mut self.warnings.borrow_mut())
    }

    /// A handle that adds to this context's warnings, for what outlives a borrow of it (a
    /// loaded store that finds its cache damaged when a record is shown).
    pub fn warnings(&self) -> Warnings {
        self.warnings.clone()
    }

    /// Repository id, worktree, branch and head, computed once.
    pub fn identity(&self) -> Result<&Identity> {
        if let Some(i) = self.identity.get() {
            return Ok(i);
        }
        let i = self.git.identity()?;
        Ok(self.identity.get_or_init(|| i))
    }

    /// The paths by which records name this checkout and its repository: today's, and every
    /// one the kept copy's `checkout.json` lists (a moved checkout, an adopted one; D60).
    pub fn here(&self) -> &Here {
        self.here.get_or_init(|| Ctx::place_of(&self.git).here())
    }

    /// Where this checkout is: its toplevel, git dir and common dir.
    pub fn place(&self) -> Place {
        Ctx::place_of(&self.git)
    }

    fn place_of(git: &Git) -> Place {
        Place {
            root: git.root().to_path_buf(),
            git_dir: git.git_dir().to_path_buf(),
            common_dir: git.common_dir().to_path_buf(),
        }
    }

    /// The change list as `git status --porcelain=v1` shows it (untracked directories
    /// collapsed to `dir/`, nothing under `.ai/`), computed once (docs/REFERENCE.md#identity).
    pub fn changes(&self) -> Result<&Changes> {
        if let Some(c) = self.changes.get() {
            return Ok(c);
        }
        let c = self.git.changes()?;
        let ours = self.tools_own_host_files(&c)?;
        let c = if ours.is_empty() { c } else { c.without(&ours) };
        Ok(self.changes.get_or_init(|| c))
    }

    /// The entries of `c` that are the tool's own host files (docs/REFERENCE.md#identity):
    /// a host's project settings file whose difference from HEAD is exactly our hook entries
    /// (`hooks install` wrote them), and an untracked directory that holds only such files. Like
    /// `.ai/`, they are not the user's work: left out of the working-tree judgement, the change
    /// lists and the scope rule. Read only when an entry names one.
    fn tools_own_host_files(&self, c: &Changes) -> Result<Vec<String>> {
        use crate::model::providers::{tools_own, PROVIDERS};
        let root = self.layout.root();
        let touches =
            |rel: &str| c.entries().iter().any(|e| e == rel || (e.ends_with('/') && rel.starts_with(e.as_str())));
        let mut ours: Vec<String> = Vec::new();
        let files = PROVIDERS.iter().flat_map(|p| {
            let command = crate::model::providers::handover_command(p).map(|(rel, _)| rel);
            std::iter::once(p.settings.project).chain(command).map(move |rel| (p, rel))
        });
        for (p, rel) in files {
            if !touches(rel) {
                continue;
            }
            let Some(current) = crate::store::atomic::read_opt(&root.join(rel)).ok().flatten() else { continue };
            let head = self.git.head().ok().flatten();
            let at_head = self.git.file_at(head, rel).ok().flatten().map(|b| String::from_utf8_lossy(&b).into_owned());
            if tools_own(p, rel, &current, at_head.as_deref()) {
                ours.push(rel.to_string());
            }
        }
        if ours.is_empty() {
            return Ok(ours);
        }
        // An untracked directory (`.claude/`) is the tool's when every file in it is.
        let mut drop = ours.clone();
        for dir in c.entries().iter().filter(|e| e.ends_with('/')) {
            let mut files = Vec::new();
            collect_files(&root.join(dir), dir, &mut files);
            if !files.is_empty() && files.iter().all(|f| ours.contains(f)) {
                drop.push(dir.clone());
            }
        }
        Ok(drop)
    }

    /// Every changed file outside `.ai/`, collapsed directories expanded into their files,
    /// computed once: what the scope rule and the fingerprint judge (docs/REFERENCE.md#fingerprint).
    pub fn changed_files(&self) -> Result<&[String]> {
        if let Some(c) = self.changed.get() {
            return Ok(c);
        }
        let c = self.git.changed_files(self.changes()?)?;
        Ok(self.changed.get_or_init(|| c))
    }

    /// The change list a record's front matter and a derived body carry (docs/REFERENCE.md#front-matter): the first
    /// `context.max_list_items` entries of [`Ctx::changes`] that `keep` accepts, and how many it
    /// accepts in all (`changed_total`).
    pub fn changed_list(&self, keep: impl Fn(&str) -> bool) -> Result<(Vec<String>, usize)> {
        let kept = self.changes()?.entries().iter().filter(|e| keep(e));
        Ok(bounded(kept, self.max_list_items()))
    }

    /// `context.max_list_items` of the policy, or of the embedded defaults when the policy
    /// cannot be read (a closing episode still bounds its lists).
    pub fn max_list_items(&self) -> usize {
        self.policy().map(|p| p.context.max_list_items).unwrap_or_else(|_| Policy::defaults().context.max_list_items)
    }

    /// `clean` iff [`Ctx::changes`] is empty: nothing outside `.ai/` (docs/REFERENCE.md#identity).
    pub fn working_tree(&self) -> Result<WorkingTree> {
        Ok(if self.changes()?.is_clean() { WorkingTree::Clean } else { WorkingTree::Dirty })
    }

    /// The policy when the layer exists, `None` without one (a reader whose keys all have
    /// defaults); a policy that does not parse is a refusal (exit 10).
    pub fn policy_if_layer(&self) -> Result<Option<&Policy>> {
        if self.layout.exists() {
            self.policy().map(Some)
        } else {
            Ok(None)
        }
    }

    /// The policy; a policy that does not parse is a refusal (exit 10).
    pub fn policy(&self) -> Result<&Policy> {
        if let Some(p) = self.policy.get() {
            return Ok(p);
        }
        self.require_layer()?;
        let path = self.layout.policy();
        guard(self.layout.root(), &path)?;
        let text = read_opt(&path)?.ok_or_else(Error::no_layer)?;
        let p = Policy::parse(&text).map_err(|e| {
            Error::refused(format!(".ai/repo/policy.yaml: {}", first_line(&e.to_string())))
                .hint("fix the key it names; git majordomus init writes the defaults of every key")
        })?;
        Ok(self.policy.get_or_init(|| p))
    }

    /// Loads profile `name` (exit 12 when there is none by that name, 10 when it does not parse).
    pub fn profile(&self, name: &str) -> Result<Profile> {
        let valid = !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            && !name.starts_with('.');
        let path = self.layout.profiles().join(format!("{name}.yaml"));
        if !valid || !path.is_file() {
            return Err(Error::not_found(format!("unknown profile {name:?}"))
                .hint(format!("profiles live in .ai/repo/profiles/; known: {}", self.profile_names().join(", "))));
        }
        guard(self.layout.root(), &path)?;
        let text = read_opt(&path)?.unwrap_or_default();
        Profile::parse(&text)
            .map_err(|e| Error::refused(format!(".ai/repo/profiles/{name}.yaml: {}", first_line(&e.to_string()))))
    }

    /// Names of the profiles in `.ai/repo/profiles/`, sorted.
    pub fn profile_names(&self) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(self.layout.profiles())
            .map(|rd| {
                rd.filter_map(|e| e.ok())
                    .filter_map(|e| e.file_name().into_string().ok())
                    .filter_map(|n| n.strip_suffix(".yaml").map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    }

    /// The owner recorded by default: `$USER` (else `$LOGNAME`), else git's `user.name`, else
    /// `unknown` (`$USER` is unset under many agent hosts and containers).
    pub fn default_owner(&self) -> String {
        self.env
            .user
            .clone()
            .or_else(|| self.git.config_string("user.name").map(|n| n.trim().to_string()).filter(|n| !n.is_empty()))
            .unwrap_or_else(|| "unknown".into())
    }

    /// The episode this process belongs to (docs/REFERENCE.md#sessions), if one resolves: the id every ledger
    /// line this process appends is stamped with.
    pub fn session_id(&self) -> Option<String> {
        if let Some(o) = self.session_override.borrow().as_ref() {
            return o.clone();
        }
        sessions::own_episode(&self.layout, self.here(), self.env.session_key.as_deref(), &self.env.provider_sessions)
            .map(|(_, s, _)| s.session_id)
    }

    /// Pins the episode of this process (after `session start` opened one, or `close` removed it).
    pub fn set_session(&self, sid: Option<String>) {
        *self.session_override.borrow_mut() = Some(sid);
    }

    /// Appends one ledger line for `event` — the only way anything reaches the ledger.
    pub fn record_event(&self, event: Event, fields: &[(&str, Value)]) -> Result<()> {
        let id = self.identity()?;
        let ts = self.clock.stamp();
        let session = self.session_id();
        let line = ledger::build_line(
            &ledger::Envelope { ts: &ts, head: id.head_text(), branch: id.branch_text(), session: session.as_deref() },
            event,
            fields,
        )?;
        Ok(ledger::append_line(&self.layout, &line)?)
    }

    /// The divergence label of a record's (head, branch) against HEAD now (docs/REFERENCE.md#divergence), computed
    /// once per (head, branch) per process. `None` is an unborn head, a detached branch.
    pub fn divergence(&self, rec_head: Option<&str>, rec_branch: Option<&str>) -> Divergence {
        let key = (rec_head.map(str::to_string), rec_branch.map(str::to_string));
        if let Some(d) = self.labels.borrow().get(&key) {
            return *d;
        }
        let d = self.compute_divergence(rec_head, rec_branch);
        self.labels.borrow_mut().insert(key, d);
        d
    }

    /// What this process has learnt proving rewrites (`services::rewrite`, docs/REFERENCE.md#rewrites).
    pub fn rewrite_cache(&self) -> std::cell::RefMut<'_, RewriteCache> {
        self.rewrites.borrow_mut()
    }

    /// The plain divergence label of a record against HEAD now, without rewrite proofs: what a
    /// closed session envelope keeps (docs/REFERENCE.md#divergence); records are labelled by `services::rewrite`.
    pub fn divergence_of(&self, record: &impl Anchor) -> Divergence {
        self.divergence(record.anchor_head(), record.anchor_branch())
    }

    fn compute_divergence(&self, rec_head: Option<&str>, rec_branch: Option<&str>) -> Divergence {
        let Ok(id) = self.identity() else { return Divergence::Unknown };
        if rec_branch != id.branch.as_deref() {
            return Divergence::DifferentContext;
        }
        if rec_head == id.head.as_deref() {
            return Divergence::Exact;
        }
        let Some(rec_head) = rec_head else { return Divergence::Advanced };
        let Some(recorded) = self.git.commit_id(rec_head) else { return Divergence::Diverged };
        let Ok(Some(head)) = self.git.head() else { return Divergence::Diverged };
        match self.git.is_ancestor(recorded, head) {
            Ok(true) => Divergence::Advanced,
            Ok(false) => Divergence::Diverged,
            Err(_) => Divergence::Unknown,
        }
    }

    /// A path as printed: repository-relative.
    pub fn rel(&self, p: &Path) -> String {
        self.layout.rel(p)
    }
}

/// What one process keeps while proving rewrites (docs/REFERENCE.md#rewrites): each head's answer, HEAD's
/// first-parent window with its trees, and the patch-id cache of the git common dir (loaded once,
/// written back once when the process is done with it).
#[derive(Default)]
pub struct RewriteCache {
    /// The proven label of each recorded head judged (`None`: no proof).
    pub labels: HashMap<String, Option<Label>>,
    /// Where each head of another branch landed here (`None`: it did not).
    pub landed: HashMap<String, Option<Landed>>,
    /// HEAD's first-parent window, newest first, each commit with its tree.
    pub window: Option<Vec<(crate::git::ObjectId, Option<crate::git::ObjectId>)>>,
    /// The patch-id cache.
    pub patch_ids: Option<crate::store::rewrites::PatchIds>,
}

/// A record's (head, branch), `None` for unborn and detached.
type AnchorKey = (Option<String>, Option<String>);

/// The warnings a command collects (printed by the CLI when it ends), shared by the handles
/// [`Ctx::warnings`] gives out.
#[derive(Debug, Clone, Default)]
pub struct Warnings(std::rc::Rc<RefCell<Vec<String>>>);

impl Warnings {
    /// Adds one warning.
    pub fn warn(&self, text: impl Into<String>) {
        self.0.borrow_mut().push(text.into());
    }

    fn borrow_mut(&self) -> std::cell::RefMut<'_, Vec<String>> {
        self.0.borrow_mut()
    }
}

/// The files under `dir` (whose repository-relative name is `rel`, ending `/`), recursively.
fn collect_files(dir: &std::path::Path, rel: &str, out: &mut Vec<String>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let path = e.path();
        if path.is_dir() {
            collect_files(&path, &format!("{rel}{name}/"), out);
        } else {
            out.push(format!("{rel}{name}"));
        }
    }
}
