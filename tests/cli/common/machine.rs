//! One machine of the cross-machine tests: a checkout with its own `HOME` and `XDG_STATE_HOME`
//! (its own device key), and the plumbing its tests share.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::json;
use super::{Output, Repo, TestEnv};

/// The continuity store's ref.
const REF: &str = "refs/majordomus/continuity";

/// One machine: a clone with its own `HOME` and `XDG_STATE_HOME`.
pub struct Machine<'a> {
    pub env: &'a TestEnv,
    pub name: String,
    pub repo: Repo<'a>,
    pub home: PathBuf,
    pub xdg: PathBuf,
}

/// What the continuity commands must never move.
#[derive(Debug, PartialEq, Eq)]
pub struct Snap {
    pub head: String,
    pub status: String,
    pub branches: String,
    pub index: String,
}

impl<'a> Machine<'a> {
    /// A machine whose checkout is `root` (which must exist).
    pub fn at(env: &'a TestEnv, name: &str, root: PathBuf) -> Machine<'a> {
        let home = env.path().join(format!("{name}-home"));
        let xdg = env.path().join(format!("{name}-state"));
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&xdg).unwrap();
        let root = std::fs::canonicalize(root).unwrap();
        Machine { env, name: name.into(), repo: Repo { env, root }, home, xdg }
    }

    /// A machine that clones `remote` into `<tmp>/<name>` (on `main`).
    pub fn clone_of(env: &'a TestEnv, remote: &Path, name: &str) -> Machine<'a> {
        env.git_in(env.path(), &["clone", "-q", remote.to_str().unwrap(), name]);
        let m = Machine::at(env, name, env.path().join(name));
        m.git(&["symbolic-ref", "HEAD", "refs/heads/main"]);
        m
    }

    pub fn root(&self) -> &Path {
        &self.repo.root
    }

    /// `git-majordomus <args>` on this machine.
    #[must_use]
    pub fn run(&self, args: &[&str], stdin: &str) -> Output {
        self.run_env(args, stdin, &[])
    }

    /// `git-majordomus <args>` on this machine with extra environment.
    #[must_use]
    pub fn run_env(&self, args: &[&str], stdin: &str, extra: &[(&str, &str)]) -> Output {
        let (h, x) = (self.home.to_str().unwrap().to_string(), self.xdg.to_str().unwrap().to_string());
        let mut e: Vec<(&str, &str)> = vec![("HOME", &h), ("XDG_STATE_HOME", &x)];
        e.extend_from_slice(extra);
        self.repo.mj_env(args, stdin, &e)
    }

    /// `git-majordomus continuity <args>` (text).
    #[must_use]
    pub fn c(&self, args: &[&str]) -> Output {
        let mut v = vec!["continuity"];
        v.extend_from_slice(args);
        self.run(&v, "")
    }

    /// `git-majordomus --json continuity <args>`: asserts the exit code, reads stdout, valid
    /// under the command's schema ([`schema_of`]).
    #[track_caller]
    pub fn cj(&self, args: &[&str], code: i32) -> Value {
        self.cj_env(args, code, &[])
    }

    #[track_caller]
    pub fn cj_env(&self, args: &[&str], code: i32, extra: &[(&str, &str)]) -> Value {
        let mut v = vec!["continuity"];
        v.extend_from_slice(args);
        self.j_env(&v, code, extra)
    }

    /// Real git in this checkout (panics on failure).
    pub fn git(&self, args: &[&str]) -> String {
        self.env.git_in(self.root(), args)
    }

    /// `continuity device --label <label>`; returns the public key (`RW...`).
    pub fn device(&self, label: &str) -> String {
        let v = self.cj(&["device", "--label", label], 0);
        assert_eq!(v["device"]["label"], label);
        json::text(&v, "/public_key").to_string()
    }

    pub fn node(&self) -> String {
        json::text(&self.cj(&["device"], 0), "/device/node").to_string()
    }

    pub fn node_json(&self) -> PathBuf {
        self.xdg.join("majordomus/node.json")
    }

    pub fn state(&self, rel: &str) -> PathBuf {
        self.repo.state(rel)
    }

    /// Writes a handover (`handover [--no-task]` with `body`); returns its file name.
    pub fn handover(&self, no_task: bool, body: &str) -> String {
        let args: &[&str] = if no_task { &["handover", "--no-task"] } else { &["handover"] };
        let out = self.run(args, body).ok();
        let path = out.stdout.lines().next().unwrap().trim().to_string();
        assert!(path.starts_with(".ai/local/state/handovers/"), "{}", out.stdout);
        path.rsplit('/').next().unwrap().to_string()
    }

    /// `continuity publish [extra]` (JSON, exit 0, written); returns the record id.
    pub fn publish(&self, extra: &[&str]) -> String {
        let mut args = vec!["publish"];
        args.extend_from_slice(extra);
        let v = self.cj(&args, 0);
        assert_eq!(v["written"], true, "{v:#}");
        json::text(&v, "/record/id").to_string()
    }

    /// `continuity sync` (JSON, exit 0).
    pub fn sync(&self) -> Value {
        self.cj(&["sync"], 0)
    }

    pub fn snap(&self) -> Snap {
        Snap {
            head: self.git(&["rev-parse", "HEAD"]),
            status: self.git(&["status", "--porcelain", "--untracked-files=all"]),
            branches: self.git(&["for-each-ref", "refs/heads"]),
            index: self.git(&["ls-files", "--stage"]),
        }
    }

    /// The tip of the local store (`None` when the ref does not exist).
    pub fn tip(&self) -> Option<String> {
        let s = self.git(&["for-each-ref", "--format=%(objectname)", REF]);
        (!s.is_empty()).then_some(s)
    }

    /// Every file of the store at `reference`: (path, text).
    pub fn store_files(&self, reference: &str) -> Vec<(String, String)> {
        store_files(self.env, self.root(), reference)
    }

    /// The `*--continuity--*.md` handovers of this checkout.
    pub fn arrived(&self) -> Vec<String> {
        self.repo.records("handovers").into_iter().filter(|n| n.contains("--continuity--")).collect()
    }

    /// Adds (or replaces) `path` in the local store with `bytes`, as a new commit on the ref,
    /// with plumbing only (a temporary index; no branch, index or HEAD of the checkout moves).
    pub fn store_put(&self, path: &str, bytes: &str) {
        let tmp = self.env.path().join(format!("{}-plumbing", self.name));
        std::fs::create_dir_all(&tmp).unwrap();
        let idx = tmp.join("index");
        let _ = std::fs::remove_file(&idx);
        let file = tmp.join("blob");
        std::fs::write(&file, bytes).unwrap();
        let idx_s = idx.to_str().unwrap();
        let with_index = [("GIT_INDEX_FILE", idx_s)];
        let old = self.git(&["rev-parse", REF]);
        git_env(self.env, self.root(), &["read-tree", REF], &with_index);
        let blob = self.git(&["hash-object", "-w", file.to_str().unwrap()]);
        git_env(
            self.env,
            self.root(),
            &["update-index", "--add", "--cacheinfo", &format!("100644,{blob},{path}")],
            &with_index,
        );
        let tree = git_env(self.env, self.root(), &["write-tree"], &with_index);
        let commit = self.git(&["commit-tree", &tree, "-p", &old, "-m", "test: store edited with plumbing"]);
        self.git(&["update-ref", REF, &commit, &old]);
        let _ = std::fs::remove_file(&idx);
    }

    /// The environment that makes this machine: its `HOME` and `XDG_STATE_HOME`.
    pub fn vars(&self) -> Vec<(String, String)> {
        vec![
            ("HOME".into(), self.home.to_str().unwrap().into()),
            ("XDG_STATE_HOME".into(), self.xdg.to_str().unwrap().into()),
        ]
    }

    /// `git-majordomus --json <args>`: asserts the exit code, reads stdout, valid under the
    /// command's schema ([`schema_of`]).
    #[track_caller]
    pub fn j(&self, args: &[&str], code: i32) -> Value {
        self.j_env(args, code, &[])
    }

    #[track_caller]
    pub fn j_env(&self, args: &[&str], code: i32, extra: &[(&str, &str)]) -> Value {
        let mut v = vec!["--json"];
        v.extend_from_slice(args);
        printed(args, &self.run_env(&v, "", extra).code(code).stdout)
    }

    /// The device key's minisign key id, read from the key itself (`minisign public key <id>`).
    pub fn key_id(&self) -> String {
        let key = majordomus::continuity::signing::load(&self.node_json()).unwrap().unwrap();
        let file = key.public_key_file();
        let id = file.lines().next().unwrap().rsplit(' ').next().unwrap().to_string();
        assert_eq!(id.len(), 16, "{file}");
        id
    }

    /// The start hook's briefing (Claude Code's payload).
    pub fn briefing(&self, sid: &str) -> String {
        let p = format!(r#"{{"session_id":"{sid}","hook_event_name":"SessionStart","source":"startup"}}"#);
        self.run(&["hook", "claude-code", "start"], &p).ok().stdout
    }

    /// Every file under `.ai/local/` (path relative to the root) with its bytes.
    pub fn local_files(&self) -> Vec<(String, Vec<u8>)> {
        let mut out = Vec::new();
        walk(self.root(), &self.root().join(".ai/local"), &mut out);
        out.sort();
        out
    }
}

/// The schema under `schemas/` of what `git-majordomus --json <args>` prints (`--json` itself
/// may lead `args`); panics for a command without one, so that no document goes unvalidated.
pub fn schema_of(args: &[&str]) -> &'static str {
    let words: Vec<&str> = args.iter().copied().filter(|a| *a != "--json").collect();
    match words.as_slice() {
        ["continuity", "device", "rotate", ..] => "continuity-rotate.schema.json",
        ["continuity", "device", ..] => "continuity-device.schema.json",
        ["continuity", "publish", ..] => "continuity-publish.schema.json",
        ["continuity", "supersede", ..] => "continuity-supersede.schema.json",
        ["continuity", "snapshot", ..] => "continuity-snapshot.schema.json",
        ["continuity", "sync", ..] if !words.contains(&"--pre-push") => "continuity-sync.schema.json",
        ["continuity", "status", ..] => "continuity-status.schema.json",
        ["continuity", "records", ..] => "continuity-records.schema.json",
        ["continuity", "plan", ..] => "continuity-plan.schema.json",
        ["continuity", "resume", ..] => "continuity-resume.schema.json",
        ["continuity", "verify", ..] => "continuity-verify.schema.json",
        ["continuity", "trust", "list", ..] => "continuity-trust-list.schema.json",
        ["continuity", "trust", "add" | "revoke", ..] => "continuity-trust-change.schema.json",
        ["state", ..] => "continuity-state.schema.json",
        ["explain", ..] => "continuity-explain.schema.json",
        ["lifecycle", "episodes"] => "lifecycle-episodes.schema.json",
        ["lifecycle", "recovery"] => "lifecycle-recovery.schema.json",
        ["lifecycle", "runtime"] => "lifecycle-runtime.schema.json",
        ["lifecycle", "providers"] => "lifecycle-providers.schema.json",
        ["lifecycle", "closed"] => "lifecycle-closed.schema.json",
        _ => panic!("no schema for the JSON of {args:?}"),
    }
}

/// What `git-majordomus --json <args>` printed (`text`), valid under [`schema_of`]`(args)`.
#[track_caller]
pub fn printed(args: &[&str], text: &str) -> Value {
    json::read(schema_of(args), text)
}

/// The members `keys` of the JSON object `v` (`null` for an absent one), as an object: one
/// assertion of several members (`assert_eq!(pick(&s, &["fetched", "outcome"]), json!({..}))`).
pub fn pick(v: &Value, keys: &[&str]) -> Value {
    keys.iter().map(|k| (k.to_string(), v.get(*k).cloned().unwrap_or(Value::Null))).collect()
}

/// The strings of the JSON array `v`, in order (failing the test on anything else).
#[track_caller]
pub fn strings(v: &Value) -> Vec<String> {
    let items = v.as_array().unwrap_or_else(|| panic!("not an array: {v}"));
    items.iter().map(|s| s.as_str().unwrap_or_else(|| panic!("not a string: {s}")).to_string()).collect()
}

pub fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        let ft = e.file_type().unwrap();
        if ft.is_dir() {
            walk(root, &p, out);
        } else if ft.is_file() {
            out.push((p.strip_prefix(root).unwrap().display().to_string(), std::fs::read(&p).unwrap()));
        } else if ft.is_symlink() {
            out.push((
                p.strip_prefix(root).unwrap().display().to_string(),
                std::fs::read_link(&p).unwrap().display().to_string().into_bytes(),
            ));
        }
    }
}

/// Real git with extra environment; panics on failure; trimmed stdout.
pub fn git_env(env: &TestEnv, dir: &Path, args: &[&str], extra: &[(&str, &str)]) -> String {
    let out = env.command("git").current_dir(dir).args(args).envs(extra.iter().copied()).output().unwrap();
    assert!(out.status.success(), "git {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Real git that may fail: (success, stdout).
pub fn git_try(env: &TestEnv, dir: &Path, args: &[&str]) -> (bool, String) {
    let out = env.command("git").current_dir(dir).args(args).output().unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stdout).trim().to_string())
}

pub fn store_files(env: &TestEnv, dir: &Path, reference: &str) -> Vec<(String, String)> {
    let (ok, list) = git_try(env, dir, &["ls-tree", "-r", "--name-only", reference]);
    if !ok {
        return Vec::new();
    }
    // The blob's bytes exactly (a stored record ends with a newline, docs/REFERENCE.md#continuity-record).
    let blob = |p: &str| {
        let out = env.command("git").current_dir(dir).args(["cat-file", "blob", &format!("{reference}:{p}")]).output();
        String::from_utf8(out.unwrap().stdout).unwrap()
    };
    list.lines().map(|p| (p.to_string(), blob(p))).collect()
}

/// Two machines on one bare remote (`receive.denyNonFastForwards` and `receive.fsckObjects`
/// on): A initialises the layer, commits and pushes; B clones; A gets the device label
/// `macbook-pro`, B `b_label`. Returns the remote, A, B and both public keys.
pub fn two_clones<'a>(env: &'a TestEnv, b_label: &str) -> (PathBuf, Machine<'a>, Machine<'a>, String, String) {
    let remote = env.path().join("remote.git");
    env.git_in(env.path(), &["init", "--bare", "-q", "-b", "main", remote.to_str().unwrap()]);
    env.git_in(&remote, &["config", "receive.denyNonFastForwards", "true"]);
    env.git_in(&remote, &["config", "receive.fsckObjects", "true"]);
    let remote = std::fs::canonicalize(remote).unwrap();
    let a = Machine::clone_of(env, &remote, "a");
    a.run(&["init"], "").ok();
    a.repo.write("README.md", "hello\n");
    a.git(&["add", "-A"]);
    a.git(&["commit", "-q", "-m", "layer"]);
    a.git(&["push", "-q", "-u", "origin", "main"]);
    let b = Machine::clone_of(env, &remote, "b");
    let ka = a.device("macbook-pro");
    let kb = b.device(b_label);
    (remote, a, b, ka, kb)
}

/// A commits and pushes `yaml` as the mesh declaration `.ai/repo/mesh/home.yaml`; B pulls it.
pub fn declare_mesh(a: &Machine<'_>, b: &Machine<'_>, yaml: &str) {
    a.repo.write(".ai/repo/mesh/home.yaml", yaml);
    a.git(&["add", "-A"]);
    a.git(&["commit", "-q", "-m", "mesh"]);
    a.git(&["push", "-q", "origin", "main"]);
    b.git(&["pull", "-q", "--ff-only", "origin", "main"]);
}
