//! Sync over real remotes (issue 10, docs/SYNC.md#outcomes-and-what-to-do, docs/SYNC.md#the-ci-step, docs/HOOKS.md, docs/REFERENCE.md#sync): our push skips the user's
//! pre-push hooks and pushes only our ref; refused pushes are classified (a race is fetched,
//! merged and pushed again; a remote hook's rejection is quoted and exits 10; an unreachable
//! remote is a partial sync; a failure on this side exits 13); the pre-push hook costs nothing
//! when no record is pending; fetch refspecs on every remote; the fresh-clone hint; the same
//! two-clone exchange over `file://`, `git daemon` and smart HTTP; and the shipped CI script.
//!
//! Every remote is bare with `receive.denyNonFastForwards` and `receive.fsckObjects` on, and every
//! scenario ends with `git fsck --strict` clean where nothing was damaged on purpose.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::json;
use crate::common::machine::{pick, printed};
use crate::common::remotes::{self, REFUSE_MAJORDOMUS};
use crate::common::{Output, Repo, TestEnv};

const REF: &str = "refs/majordomus/continuity";

/// A clone with its own device key (`XDG_STATE_HOME`).
struct Node<'a> {
    env: &'a TestEnv,
    repo: Repo<'a>,
    xdg: PathBuf,
}

impl<'a> Node<'a> {
    /// Clones `url` into `<tmp>/<name>`.
    fn clone_of(env: &'a TestEnv, url: &str, name: &str) -> Node<'a> {
        env.git_in(env.path(), &["clone", "-q", url, name]);
        let root = std::fs::canonicalize(env.path().join(name)).unwrap();
        let xdg = env.path().join(format!("{name}-state"));
        std::fs::create_dir_all(&xdg).unwrap();
        let n = Node { env, repo: Repo { env, root }, xdg };
        n.git(&["symbolic-ref", "HEAD", "refs/heads/main"]);
        n
    }

    fn root(&self) -> &Path {
        &self.repo.root
    }

    fn xdg(&self) -> String {
        self.xdg.to_str().unwrap().to_string()
    }

    #[must_use]
    fn mj(&self, args: &[&str]) -> Output {
        self.repo.mj_env(args, "", &[("XDG_STATE_HOME", &self.xdg())])
    }

    /// `--json continuity <args>`: asserts the exit code, reads stdout, valid under the
    /// command's schema.
    #[track_caller]
    fn cj(&self, args: &[&str], code: i32) -> Value {
        let mut v = vec!["--json", "continuity"];
        v.extend_from_slice(args);
        printed(&v, &self.mj(&v).code(code).stdout)
    }

    /// `continuity sync --json`, exiting `code`.
    #[track_caller]
    fn sync(&self, code: i32) -> Value {
        self.cj(&["sync"], code)
    }

    /// `continuity status --json`.
    #[track_caller]
    fn status(&self) -> Value {
        self.cj(&["status"], 0)
    }

    /// Writes a handover with `objective` and publishes it; returns the record id.
    fn publish(&self, objective: &str) -> String {
        let body = format!("# Objective\n{objective}\n\n# Current State\nDone.\n\n# Next Action\nGo on.\n");
        self.repo.mj_env(&["handover", "--no-task"], &body, &[("XDG_STATE_HOME", &self.xdg())]).ok();
        json::text(&self.cj(&["publish"], 0), "/record/id").to_string()
    }

    fn git(&self, args: &[&str]) -> String {
        self.env.git_in(self.root(), args)
    }

    /// `sh -c <script>` in the checkout with this node's key (`git push` and friends: hooks run).
    #[must_use]
    fn sh(&self, script: &str) -> Output {
        self.env.sh(self.root(), script, b"", &[("XDG_STATE_HOME", &self.xdg())])
    }

    fn tip(&self, reference: &str) -> Option<String> {
        let s = self.git(&["for-each-ref", "--format=%(objectname)", reference]);
        (!s.is_empty()).then_some(s)
    }

    /// The record ids of a store reference.
    fn ids(&self, reference: &str) -> Vec<String> {
        ids_in(self.env, self.root(), reference)
    }
}

fn ids_in(env: &TestEnv, dir: &Path, reference: &str) -> Vec<String> {
    if env.git_in(dir, &["for-each-ref", reference]).is_empty() {
        return Vec::new();
    }
    let mut v: Vec<String> = env
        .git_in(dir, &["ls-tree", "-r", "--name-only", reference])
        .lines()
        .filter_map(|p| p.rsplit('/').next()?.strip_suffix(".json").map(str::to_string))
        .collect();
    v.sort();
    v
}

/// The message of the diagnostic with this code.
fn message(d: &Value, code: &str) -> String {
    let found = d.as_array().and_then(|d| d.iter().find(|d| d["code"] == code));
    json::text(found.unwrap_or_else(|| panic!("no {code} in {d}")), "/message").to_string()
}

/// `git fsck --strict` is clean in each directory.
fn fsck(env: &TestEnv, dirs: &[&Path]) {
    for dir in dirs {
        let out = env.command("git").current_dir(dir).args(["fsck", "--strict", "--no-progress"]).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success() && !err.contains("error"), "git fsck --strict in {}: {err}", dir.display());
    }
}

/// A bare remote under `<tmp>/srv/remote.git` and machine `a`, cloned from `url(remote)`, that
/// commits the layer and pushes `main`.
fn world<'a>(env: &'a TestEnv, url: impl Fn(&Path) -> String) -> (PathBuf, Node<'a>) {
    let remote = remotes::bare(env, &env.path().join("srv/remote.git"));
    let a = Node::clone_of(env, &url(&remote), "a");
    a.mj(&["init"]).ok();
    a.repo.write("README.md", "hello\n");
    a.git(&["add", "-A"]);
    a.git(&["commit", "-q", "-m", "layer"]);
    a.git(&["push", "-q", "-u", "origin", "main"]);
    (remote, a)
}

/// The lines our hooks print among git's in the output of a `git push … 2>&1`.
fn ours(out: &Output) -> String {
    out.stdout.lines().filter(|l| l.starts_with("majordomus:")).collect::<Vec<_>>().join("\n")
}

fn path_url(p: &Path) -> String {
    p.to_str().unwrap().to_string()
}

// ---------------------------------------------------------------------------------------------
// Our push is ours (docs/SYNC.md#outcomes-and-what-to-do)

#[test]
fn a_failing_user_pre_push_hook_gates_code_pushes_but_never_our_sync() {
    let env = TestEnv::new();
    let (remote, a) = world(&env, path_url);
    // The user's own pre-push hook (a lint, a test run) fails, and says that it ran.
    let ran = env.path().join("user-hook-ran");
    let user_hook = format!("#!/bin/sh\necho ran >> {}\necho 'lint failed' >&2\nexit 1\n", ran.display());
    remotes::script(&a.root().join(".git/hooks/pre-push"), &user_hook);
    let id = a.publish("First.");
    let s = a.sync(0);
    assert_eq!(pick(&s, &["published", "outcome"]), serde_json::json!({"published": 1, "outcome": "ok"}), "{s:#}");
    assert!(!ran.exists(), "our push must not run the user's pre-push hook");
    assert_eq!(ids_in(&env, &remote, REF), vec![id.clone()]);
    assert_eq!(ids_in(&env, &remote, "refs/heads/main"), Vec::<String>::new(), "only our ref travels");
    let heads = env.git_in(&remote, &["for-each-ref", "--format=%(refname)"]);
    assert_eq!(heads, format!("refs/heads/main\n{REF}"));
    // A plain code push is still gated by the user's hook.
    a.repo.commit_file("lib/a.rs", "fn a() {}\n");
    let out = a.sh("git push -q origin main 2>&1");
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert!(out.stdout.lines().any(|l| l == "lint failed"), "{}", out.stdout);
    assert!(ran.exists());
    assert_ne!(env.git_in(&remote, &["rev-parse", "main"]), a.repo.head());
    // With our hook installed (chaining the user's): the code push is still refused, our records
    // still travel, with one line saying so.
    a.mj(&["hooks", "install", "--git"]).ok();
    let id2 = a.publish("Second.");
    let out = a.sh("git push -q origin main 2>&1");
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert!(out.stdout.lines().any(|l| l == "lint failed"), "{}", out.stdout);
    assert_eq!(ours(&out), "majordomus: continuity synced with origin: 1 record(s) published", "{}", out.stdout);
    let mut want = vec![id, id2];
    want.sort();
    assert_eq!(ids_in(&env, &remote, REF), want);
    assert_ne!(env.git_in(&remote, &["rev-parse", "main"]), a.repo.head());
    fsck(&env, &[&remote, a.root()]);
}

#[test]
fn a_pre_receive_policy_rejection_is_quoted_never_retried_and_exits_10() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let (remote, a) = world(&env, path_url);
    let count = env.path().join("pre-receive-runs");
    let hook = REFUSE_MAJORDOMUS.replacen(
        "status=0\n",
        &format!(
            "status=0\necho run >> {}\necho 'see https://example.com/policy; token ghp_abcdefghijklmnopqrstuvwxyz0123456789' >&2\n",
            count.display()
        ),
        1,
    );
    remotes::script(&remote.join("hooks/pre-receive"), &hook);
    let id = a.publish("Held back.");
    let before = a.tip(REF);
    let s = a.sync(10);
    assert_eq!(
        pick(&s, &["published", "outcome", "push_attempts"]),
        serde_json::json!({"published": 0, "outcome": "partial", "push_attempts": 1}),
        "{s:#}"
    );
    assert_eq!(
        json::each(&s, "/diagnostics", "code")
            .into_iter()
            .filter(|c| c.starts_with("continuity.push") || c.contains("unreachable"))
            .collect::<Vec<_>>(),
        ["continuity.push_rejected"]
    );
    // The message quotes git's and the hook's words.
    let m = message(&s["diagnostics"], "continuity.push_rejected");
    insta::assert_snapshot!(m, @r#"origin rejected the push of refs/majordomus/continuity ([remote rejected] (pre-receive hook declined)); it said: "(a line withheld: it looks like a credential)" / "majordomus: updates to refs/majordomus/continuity are not accepted here". Its hook or policy does not accept this ref: nothing is retried and the records stay pending (docs/SYNC.md)"#);
    assert_eq!(std::fs::read_to_string(&count).unwrap().lines().count(), 1, "a policy rejection is not retried");
    // Nothing lost locally; the remote unchanged; status shows the attempt.
    assert_eq!(a.tip(REF), before);
    assert_eq!(a.ids(REF), vec![id]);
    assert_eq!(env.git_in(&remote, &["for-each-ref", REF]), "");
    let st = a.status();
    let last = json::at(&st, "/last_sync");
    assert_eq!(last["outcome"], "partial");
    insta::assert_snapshot!(json::text(last, "/detail"), @"push rejected: [remote rejected] (pre-receive hook declined)");
    // The text form quotes it too, on stdout, with exit 10.
    let out = a.mj(&["continuity", "sync"]).code(10);
    insta::assert_snapshot!(out.shown(), @r#"
    Sync        none with origin
    moved       0 fetched, 0 published
    store       never_synced
    line        [HEX]  local_only
    ERROR   continuity.push_rejected: origin rejected the push of refs/majordomus/continuity ([remote rejected] (pre-receive hook declined)); it said: "(a line withheld: it looks like a credential)" / "majordomus: updates to refs/majordomus/continuity are not accepted here". Its hook or policy does not accept this ref: nothing is retried and the records stay pending (docs/SYNC.md)
    --- stderr
    --- exit 10
    "#);
    // Through the installed pre-push hook: the code push goes through, one line says why the
    // records did not.
    a.mj(&["hooks", "install", "--git"]).ok();
    a.repo.commit_file("lib/b.rs", "b\n");
    let out = a.sh("git push -q origin main 2>&1").ok();
    insta::assert_snapshot!(ours(&out), @r#"majordomus: continuity not published (continuity.push_rejected): origin rejected the push of refs/majordomus/continuity ([remote rejected] (pre-receive hook declined)); it said: "(a line withheld: it looks like a credential)" / "majordomus: updates to refs/majordomus/continuity are not accepted here". Its hook or policy does not accept this ref: nothing is retried and the records stay pending (docs/SYNC.md)"#);
    assert_eq!(env.git_in(&remote, &["rev-parse", "main"]), a.repo.head());
    fsck(&env, &[&remote, a.root()]);
}

/// The remote's `pre-receive` moves our ref to `racer` (another machine's store pushed as a
/// branch) just before receive-pack updates it: git ≥ 2.47 reports the crossed push as
/// `[remote rejected] (failed to update ref)` / "cannot lock ref".
fn racing_hook(remote: &Path, always: bool) {
    let once = if always { "" } else { "[ -e raced ] && exit 0\ntouch raced\n" };
    let text = format!(
        "#!/bin/sh\n{once}unset GIT_QUARANTINE_PATH GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES\n\
         echo race >> races\n\
         tree=$(git rev-parse refs/heads/racer^{{tree}})\n\
         cur=$(git rev-parse -q --verify {REF})\n\
         new=$(GIT_AUTHOR_NAME=r GIT_AUTHOR_EMAIL=r@x GIT_COMMITTER_NAME=r GIT_COMMITTER_EMAIL=r@x git commit-tree ${{cur:+-p $cur}} -m race $tree)\n\
         git update-ref {REF} $new >/dev/null 2>&1\nexit 0\n"
    );
    remotes::script(&remote.join("hooks/pre-receive"), &text);
}

#[test]
fn a_crossed_push_is_fetched_merged_and_pushed_again() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let (remote, a) = world(&env, path_url);
    let b = Node::clone_of(&env, remote.to_str().unwrap(), "b");
    let theirs = b.publish("From B.");
    b.git(&["push", "-q", "origin", &format!("{REF}:refs/heads/racer")]);
    racing_hook(&remote, false);
    let ours = a.publish("From A.");
    let s = a.sync(0);
    assert_eq!(s["push_attempts"], 2, "{s:#}");
    assert_eq!(
        pick(&s, &["fetched", "published", "outcome"]),
        serde_json::json!({"fetched": 1, "published": 1, "outcome": "ok"}),
        "{s:#}"
    );
    assert_eq!(s["store"]["sync"], "in_sync", "{s:#}");
    let mut both = vec![ours.clone(), theirs.clone()];
    both.sort();
    assert_eq!(ids_in(&env, &remote, REF), both);
    assert_eq!(a.ids(REF), both);
    fsck(&env, &[&remote, a.root()]);

    // A remote that moves under every push: three attempts in all, then push_refused (exit 0,
    // partial), nothing lost.
    racing_hook(&remote, true);
    std::fs::remove_file(remote.join("races")).unwrap();
    let third = a.publish("Again from A.");
    let s = a.sync(0);
    assert_eq!(s["push_attempts"], 3, "{s:#}");
    assert_eq!(pick(&s, &["published", "outcome"]), serde_json::json!({"published": 0, "outcome": "partial"}), "{s:#}");
    insta::assert_compact_debug_snapshot!(json::each(&s, "/diagnostics", "code"), @r#"["continuity.push_refused"]"#);
    assert_eq!(std::fs::read_to_string(remote.join("races")).unwrap().lines().count(), 3);
    let mut all = vec![ours, theirs, third];
    all.sort();
    assert_eq!(a.ids(REF), all);
    std::fs::remove_file(remote.join("hooks/pre-receive")).unwrap();
    let s = a.sync(0);
    assert_eq!([&s["outcome"], &s["store"]["sync"]], ["ok", "in_sync"], "{s:#}");
    assert_eq!(ids_in(&env, &remote, REF), all);
    fsck(&env, &[&remote, a.root()]);
}

#[test]
fn a_remote_that_vanishes_mid_sync_leaves_the_records_pending() {
    let env = TestEnv::new();
    let (remote, a) = world(&env, path_url);
    a.publish("Published.");
    a.sync(0);
    let pending = a.publish("Pending.");
    // upload-pack serves the ls-remote and the fetch, then the repository is gone before the push.
    let count = env.path().join("uploads");
    let gone = env.path().join("srv/gone.git");
    let wrapper = env.path().join("vanish.sh");
    remotes::script(
        &wrapper,
        &format!(
            "#!/bin/sh\ngit-upload-pack \"$@\"\nst=$?\necho x >> {c}\n[ $(wc -l < {c}) -ge 2 ] && mv {r} {g}\nexit $st\n",
            c = count.display(),
            r = remote.display(),
            g = gone.display()
        ),
    );
    a.git(&["config", "remote.origin.uploadpack", wrapper.to_str().unwrap()]);
    let before = a.tip(REF);
    let s = a.sync(0);
    assert!(!remote.exists(), "the remote vanished during the sync");
    assert_eq!(pick(&s, &["published", "outcome"]), serde_json::json!({"published": 0, "outcome": "partial"}), "{s:#}");
    assert!(
        message(&s["diagnostics"], "continuity.remote_unreachable").contains("could not be reached for the push"),
        "{s:#}"
    );
    assert_eq!(a.tip(REF), before);
    assert!(a.ids(REF).contains(&pending));
    assert_eq!(a.status()["store"]["sync"], "pending");
    // Gone for good: the next sync cannot even fetch (unreachable, exit 10), nothing lost.
    let s = a.sync(10);
    assert_eq!(s["action"], "unreachable");
    assert_eq!(a.tip(REF), before);
    fsck(&env, &[&gone, a.root()]);
}

#[test]
fn a_failure_on_this_side_is_an_error_13_not_unreachable() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let (remote, a) = world(&env, path_url);
    a.publish("One.");
    a.publish("Two.");
    // The store's first commit is lost from this object database: the push cannot pack it.
    let first = a.git(&["rev-parse", &format!("{REF}~1")]);
    let loose = a.root().join(".git/objects").join(&first[..2]).join(&first[2..]);
    assert!(loose.exists(), "the store's commits are loose objects");
    std::fs::remove_file(&loose).unwrap();
    let out = a.mj(&["continuity", "sync"]).code(13);
    let said: Vec<&str> = out.stderr.lines().filter(|l| !l.starts_with("caused by: ")).collect();
    insta::assert_snapshot!(said.join("\n"), @"
    error: continuity sync: the push to origin failed on this side
    hint: git fsck --strict shows what is damaged; the remote was not changed
    ");
    assert!(!out.stderr.contains("could not be reached"), "{}", out.stderr);
    assert_eq!(env.git_in(&remote, &["for-each-ref", REF]), "", "the remote was not changed");
}

// ---------------------------------------------------------------------------------------------
// The pre-push hook costs nothing when nothing is pending

/// Issue 24 item 3: a failure on this side — `git` that cannot be started, a write cut by a
/// file-size limit, an object directory that is not one — is an error (13) naming its cause in
/// `caused by:` lines, never "unreachable", and `last_sync` keeps the remote's true standing.
/// None of these depends on file permissions, so it holds as root.
#[test]
fn faults_on_this_side_end_in_13_and_never_touch_the_last_sync() {
    let env = TestEnv::new();
    let (remote, a) = world(&env, path_url);
    a.publish("One.");
    a.sync(0);
    let b = Node::clone_of(&env, &path_url(&remote), "b");
    b.sync(0);
    // A record whose object is larger than the 4 KiB file-size limit below, even compressed.
    let mut rng = crate::common::store::Rng(0x9e37_79b9_7f4a_7c15);
    let noise: String = (0..16_000).map(|_| char::from(b"0123456789abcdef"[rng.below(16) as usize])).collect();
    let body = format!("# Objective\nBig.\n\n# Current State\n{noise}\n\n# Next Action\nGo on.\n");
    a.repo.mj_env(&["handover", "--no-task"], &body, &[("XDG_STATE_HOME", &a.xdg())]).ok();
    a.cj(&["publish"], 0);
    a.sync(0);
    let state = b.root().join(".ai/local/state/continuity.json");
    let before = std::fs::read(&state).unwrap();
    let tip = b.tip(REF);
    let bin = env!("CARGO_BIN_EXE_git-majordomus");
    let faults = [
        ("git off PATH", format!("PATH=/nonexistent exec {bin} continuity sync"), "cannot run git"),
        ("a file-size limit", format!("ulimit -f 4 && exec {bin} continuity sync"), "unpack-objects"),
        (
            ".git/objects a plain file",
            format!("mv .git/objects .git/objects.away && : > .git/objects && {bin} continuity sync; rc=$?; rm .git/objects && mv .git/objects.away .git/objects; exit $rc"),
            "Expected an objects directory",
        ),
    ];
    for (fault, script, cause) in faults {
        let out = b.sh(&script);
        assert_eq!(out.code, 13, "{fault}: {}", out.all());
        assert!(out.stderr.starts_with("error: "), "{fault}: {}", out.stderr);
        assert!(
            out.stderr.lines().any(|l| l.starts_with("caused by: ") && l.contains(cause)),
            "{fault}: {}",
            out.stderr
        );
        assert!(out.stderr.lines().any(|l| l.starts_with("hint: ")), "{fault}: {}", out.stderr);
        assert!(
            !out.all().contains("unreachable") && !out.all().contains("could not be reached"),
            "{fault}: {}",
            out.all()
        );
        assert_eq!(std::fs::read(&state).unwrap(), before, "{fault}: last_sync untouched");
        assert_eq!(b.tip(REF), tip, "{fault}: the local store untouched");
    }
    // Nothing was damaged: the same sync, unhindered, takes the record in.
    assert_eq!(b.sync(0)["fetched"], 1);
    fsck(&env, &[b.root()]);
}

#[test]
fn the_pre_push_hook_touches_the_network_only_for_pending_records() {
    let env = TestEnv::new();
    let (remote, a) = world(&env, path_url);
    a.mj(&["hooks", "install"]).ok();
    // Count every upload-pack (ls-remote, fetch) and receive-pack (push) the remote serves.
    let log = env.path().join("served");
    for (key, prog) in [("uploadpack", "git-upload-pack"), ("receivepack", "git-receive-pack")] {
        let w = env.path().join(format!("{prog}.sh"));
        remotes::script(&w, &format!("#!/bin/sh\necho {prog} >> {}\nexec {prog} \"$@\"\n", log.display()));
        a.git(&["config", &format!("remote.origin.{key}"), w.to_str().unwrap()]);
    }
    let served = || {
        let t = std::fs::read_to_string(&log).unwrap_or_default();
        std::fs::remove_file(&log).ok();
        t
    };
    // Nothing published: the code push is the only conversation, and the hook prints nothing.
    a.repo.commit_file("lib/a", "a\n");
    let out = a.sh("git push -q origin main 2>&1").ok();
    assert_eq!(ours(&out), "");
    assert_eq!(served(), "git-receive-pack\n");
    // A record pending: one more push (ours), no ls-remote, no fetch.
    let id = a.publish("Pending.");
    a.repo.commit_file("lib/b", "b\n");
    let out = a.sh("git push -q origin main 2>&1").ok();
    assert_eq!(ours(&out), "majordomus: continuity synced with origin: 1 record(s) published");
    assert_eq!(served(), "git-receive-pack\ngit-receive-pack\n");
    assert_eq!(ids_in(&env, &remote, REF), vec![id]);
    assert_eq!(a.status()["store"]["sync"], "in_sync");
    // Published already: nothing pending again.
    a.repo.commit_file("lib/c", "c\n");
    let out = a.sh("git push -q origin main 2>&1").ok();
    assert_eq!(out.stdout, "");
    assert_eq!(served(), "git-receive-pack\n");
    // Records fetched by the refspec (local behind the remote-tracking ref) are not pending.
    let b = Node::clone_of(&env, remote.to_str().unwrap(), "b");
    b.sync(0);
    b.publish("From B.");
    b.sync(0);
    a.git(&["config", "--unset", "remote.origin.uploadpack"]);
    a.git(&["fetch", "-q", "origin"]);
    assert_eq!(a.status()["store"]["sync"], "behind");
    a.repo.commit_file("lib/d", "d\n");
    let out = a.sh("git push -q origin main 2>&1").ok();
    assert_eq!(out.stdout, "");
    assert_eq!(served(), "git-receive-pack\n");
    fsck(&env, &[&remote, a.root()]);
}

#[test]
fn the_pre_push_hook_never_prompts_and_never_fails_the_push() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let srv_root = env.path().join("srv");
    let (remote, a) = world(&env, path_url);
    let mut http = remotes::http(&env, &srv_root);
    // A second remote that asks for a password: with an askpass program and a terminal prompt
    // configured, nothing may be asked (the askpass program records being called).
    let asked = env.path().join("asked");
    let askpass = env.path().join("askpass.sh");
    remotes::script(&askpass, &format!("#!/bin/sh\necho called >> {}\necho secret\n", asked.display()));
    a.git(&["remote", "add", "private", &format!("{}private/remote.git", http.base)]);
    a.publish("Pending.");
    let out = a.repo.mj_env(
        &["--json", "continuity", "sync", "--remote", "private"],
        "",
        &[
            ("XDG_STATE_HOME", &a.xdg()),
            ("GIT_ASKPASS", askpass.to_str().unwrap()),
            ("SSH_ASKPASS", askpass.to_str().unwrap()),
            ("GIT_TERMINAL_PROMPT", "1"),
        ],
    );
    let s = printed(&["continuity", "sync"], &out.code(10).stdout);
    assert_eq!(s["action"], "unreachable", "{s:#}");
    assert!(!asked.exists(), "no credential prompt may run");
    // Through the hook, a push to a remote that is not a name and one whose server is gone still
    // succeed (for the code) and say one line.
    a.mj(&["hooks", "install", "--git"]).ok();
    a.repo.commit_file("lib/x", "x\n");
    let out = a.sh(&format!("git push -q {} main 2>&1", remote.display())).ok();
    insta::assert_snapshot!(ours(&out), @"majordomus: continuity not synced: [TMP]/srv/remote.git is not a configured remote name (run: git majordomus continuity sync --remote <name>)");
    a.git(&["remote", "add", "web", &format!("{}remote.git", http.base)]);
    http.stop();
    a.repo.commit_file("lib/y", "y\n");
    let out = a.sh("git push -q origin main 2>&1").ok();
    assert_eq!(ours(&out), "majordomus: continuity synced with origin: 1 record(s) published");
    fsck(&env, &[&remote, a.root()]);
}

/// docs/SYNC.md#where-records-go-one-chosen-remote, issue 24 item 4: a remote that accepts the connection and never answers ends
/// the sync inside `continuity.network_timeout`, as `continuity.remote_unreachable` naming the
/// timeout, the local store unchanged; ssh is the user's own `git -c
/// core.sshCommand=…`, in batch mode, with a connect timeout.
#[test]
fn a_remote_that_never_answers_ends_inside_the_deadline_and_ssh_gets_a_connect_timeout() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let (remote, a) = world(&env, path_url);
    // Accepts every connection, holds it, never says a word.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for c in listener.incoming() {
            held.push(c);
        }
    });
    a.git(&["remote", "add", "silent", &format!("git://127.0.0.1:{port}/remote.git")]);
    let policy = a.repo.read(".ai/repo/policy.yaml");
    a.repo.write(".ai/repo/policy.yaml", &format!("{policy}continuity:\n  network_timeout: 2\n"));
    let id = a.publish("Pending.");
    let started = std::time::Instant::now();
    let s = a.cj(&["sync", "--remote", "silent"], 10);
    let took = started.elapsed();
    assert!(took >= std::time::Duration::from_secs(2) && took < std::time::Duration::from_secs(8), "{took:?}");
    assert_eq!(s["action"], "unreachable", "{s:#}");
    let m = message(&s["diagnostics"], "continuity.remote_unreachable");
    insta::assert_snapshot!(m, @"silent could not be reached (fatal: timed out after 2 s (continuity.network_timeout)); the local store is unchanged and its records stay pending");
    assert_eq!(a.ids(REF), [id]);
    let local: serde_json::Value = serde_json::from_str(&a.repo.read(".ai/local/state/continuity.json")).unwrap();
    insta::assert_snapshot!(serde_json::to_string_pretty(&local["other_syncs"]).unwrap(), @r#"
    {
      "silent": {
        "remote": "silent",
        "at": "2026-09-03T20:00:00Z",
        "outcome": "unreachable",
        "detail": "fatal: timed out after 2 s (continuity.network_timeout)"
      }
    }
    "#);
    // ssh: the user's `git -c core.sshCommand=…` reaches git, with batch mode and the timeout.
    let log = env.path().join("ssh.log");
    let fake = env.path().join("fake-ssh");
    remotes::script(&fake, &format!("#!/bin/sh\necho \"$@\" >> {}\nexit 255\n", log.display()));
    a.git(&["remote", "add", "far", "ssh://git@far.invalid/x.git"]);
    let params = format!("'core.sshCommand'='{}'", fake.display());
    let out = a.repo.mj_env(
        &["--json", "continuity", "sync", "--remote", "far"],
        "",
        &[("XDG_STATE_HOME", &a.xdg()), ("GIT_CONFIG_PARAMETERS", &params)],
    );
    let s = printed(&["continuity", "sync"], &out.code(10).stdout);
    assert_eq!(s["action"], "unreachable", "{s:#}");
    let called = std::fs::read_to_string(&log).expect("the user's ssh command ran");
    // How git calls ssh (its probe with -G, its options) is git's, by version: a fragment.
    assert!(called.contains("-o BatchMode=yes -o ConnectTimeout=2 "), "{called}");
    fsck(&env, &[&remote, a.root()]);
}

/// docs/SYNC.md#where-records-go-one-chosen-remote, issue 24 item 5: records go to one chosen remote. A push of code to another
/// remote carries no `refs/majordomus/*` and says where records go; `sync` defaults to the chosen
/// remote, `--remote` overrides it, and a sync with another remote is kept apart from the
/// chosen one's standing; `continuity.remote` chooses; several remotes and none chosen: `sync`
/// needs `--remote`.
#[test]
fn records_go_to_the_chosen_remote_and_nowhere_else() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let (remote, a) = world(&env, path_url);
    let fork = remotes::bare(&env, &env.path().join("srv/fork.git"));
    a.git(&["remote", "add", "fork", fork.to_str().unwrap()]);
    a.mj(&["hooks", "install", "--git"]).ok();
    let id = a.publish("Pending.");
    a.repo.commit_file("lib/x", "x\n");
    let out = a.sh("git push -q fork main 2>&1").ok();
    insta::assert_snapshot!(ours(&out), @"majordomus: records go to origin, not fork: continuity.remote");
    assert_eq!(env.git_in(&fork, &["for-each-ref", "refs/majordomus/"]), "", "the fork got no record");
    assert_eq!(env.git_in(&fork, &["rev-parse", "main"]), a.git(&["rev-parse", "main"]), "the code went");
    assert!(ids_in(&env, &remote, REF).is_empty());
    let out = a.sh("git push -q origin main 2>&1").ok();
    assert_eq!(ours(&out), "majordomus: continuity synced with origin: 1 record(s) published");
    assert_eq!(ids_in(&env, &remote, REF), std::slice::from_ref(&id));
    // An explicit sync with the fork that fails is the fork's standing, never origin's.
    a.sync(0);
    let gone = env.path().join("srv/fork.gone");
    std::fs::rename(&fork, &gone).unwrap();
    assert_eq!(a.cj(&["sync", "--remote", "fork"], 10)["action"], "unreachable");
    let st = a.status();
    assert_eq!(st["store"]["remote"], "origin");
    assert_eq!(st["store"]["sync"], "in_sync");
    let last = json::at(&st, "/last_sync");
    assert_eq!(pick(last, &["remote", "outcome"]), serde_json::json!({"remote": "origin", "outcome": "ok"}));
    assert_eq!(st["other_syncs"].as_array().unwrap().len(), 1);
    assert_eq!(
        pick(&st["other_syncs"][0], &["remote", "outcome"]),
        serde_json::json!({"remote": "fork", "outcome": "unreachable"})
    );
    let text = a.mj(&["continuity", "status"]).ok().stdout;
    insta::assert_snapshot!(text.replace(&id, "[ID]").replace(&id[..12], "[ID]"), @"
    repository  [HEX]
    device      [HEX] ([HEX])
    branch      main @ [HEX]  clean
    continues   [ID] (published here)
    store       1 record(s), 0 refused; in sync with origin
    last sync   ok with origin at 2026-09-03T20:00:00Z
    other remote fork: unreachable at 2026-09-03T20:00:00Z (records go to origin)
    resumable   none
    ");
    // Choosing the fork: sync and the hook go there.
    std::fs::rename(&gone, &fork).unwrap();
    // An explicit sync with the fork says what it published there and how to delete it
    // (issue 40 item 6); the command it names does.
    let out = a.mj(&["continuity", "sync", "--remote", "fork"]).ok().stdout;
    insta::assert_snapshot!(out.replace(&id, "[ID]").replace(&id[..12], "[ID]"), @"
    Sync        published with fork
    moved       0 fetched, 1 published
    elsewhere   1 record(s) published to fork, which is not where records go: records go to origin (continuity.remote)
    to delete   git push fork :refs/majordomus/continuity
    store       in_sync
    line        [ID]  local_only
    ");
    assert_eq!(ids_in(&env, &fork, REF), std::slice::from_ref(&id));
    a.git(&["push", "-q", "fork", ":refs/majordomus/continuity"]);
    assert!(ids_in(&env, &fork, REF).is_empty());
    assert!(a.cj(&["sync"], 0).get("elsewhere").is_none(), "the chosen remote is not elsewhere");
    let policy = a.repo.read(".ai/repo/policy.yaml");
    a.repo.write(".ai/repo/policy.yaml", &format!("{policy}continuity:\n  remote: fork\n"));
    let s = a.sync(0);
    assert_eq!(s["remote"], "fork");
    assert_eq!(ids_in(&env, &fork, REF), std::slice::from_ref(&id));
    let id2 = a.publish("Second.");
    a.repo.commit_file("lib/y", "y\n");
    let out = a.sh("git push -q origin main 2>&1").ok();
    insta::assert_snapshot!(ours(&out), @"majordomus: records go to fork, not origin: continuity.remote");
    assert_eq!(ids_in(&env, &remote, REF), std::slice::from_ref(&id));
    // A policy naming no remote: refused, saying which key to fix.
    a.repo.write(".ai/repo/policy.yaml", &format!("{policy}continuity:\n  remote: nowhere\n"));
    let out = a.mj(&["continuity", "sync"]).code(10);
    insta::assert_snapshot!(out.shown(), @r#"
    --- stderr
    error: continuity.remote is "nowhere", which is not a remote of this repository
    hint: git remote -v lists them; fix continuity.remote in .ai/repo/policy.yaml
    --- exit 10
    "#);
    // Two remotes, neither `origin`, none chosen: `sync` needs `--remote`; the hook publishes nowhere.
    a.repo.write(".ai/repo/policy.yaml", &policy);
    a.git(&["remote", "rename", "origin", "upstream"]);
    let out = a.mj(&["continuity", "sync"]).code(2);
    insta::assert_snapshot!(out.shown(), @"
    --- stderr
    error: continuity sync: 2 remotes (fork, upstream) and none chosen for the records
    hint: set continuity.remote in .ai/repo/policy.yaml, or pass --remote <name>
    --- exit 2
    ");
    a.repo.commit_file("lib/z", "z\n");
    let out = a.sh("git push -q upstream main 2>&1").ok();
    insta::assert_snapshot!(ours(&out), @"majordomus: records go to no remote, not upstream: several remotes and none chosen (set continuity.remote in .ai/repo/policy.yaml)");
    assert_eq!(ids_in(&env, &remote, REF), std::slice::from_ref(&id), "not {id2}");
    fsck(&env, &[&remote, &fork, a.root()]);
}

// ---------------------------------------------------------------------------------------------
// Fetch that just works

#[test]
fn fetch_refspecs_on_every_remote_idempotent_and_removable_and_the_fresh_clone_hint() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let (remote, a) = world(&env, path_url);
    let id = a.publish("Shared.");
    a.sync(0);
    // A fresh clone never gets the custom ref; the first continuity read says how, once.
    let c = Node::clone_of(&env, remote.to_str().unwrap(), "c");
    assert_eq!(c.tip("refs/majordomus/"), None);
    let out = c.mj(&["continuity", "status"]).ok();
    insta::assert_snapshot!(out.stderr, @"hint: this clone has no continuity records yet (git clone does not bring refs/majordomus/continuity): run git majordomus continuity sync, and git majordomus hooks install --fetch-refspec so that git fetch brings them");
    // Told once.
    let out = c.mj(&["continuity", "status"]).ok();
    assert_eq!(out.stderr, "");
    // hooks install: the refspec on every remote; a plain fetch and pull bring the records.
    let mirror = remotes::bare(&env, &env.path().join("srv/mirror.git"));
    c.git(&["remote", "add", "mirror", mirror.to_str().unwrap()]);
    let out = c.mj(&["hooks", "install", "--fetch-refspec"]).ok();
    insta::assert_snapshot!(out.shown(), @"
    fetch refspec: added to mirror: +refs/majordomus/continuity*:refs/majordomus/remotes/mirror/continuity*
    fetch refspec: added to origin: +refs/majordomus/continuity*:refs/majordomus/remotes/origin/continuity*
    --- stderr
    --- exit 0
    ");
    c.git(&["pull", "-q", "--ff-only"]);
    assert_eq!(c.ids("refs/majordomus/remotes/origin/continuity"), vec![id.clone()]);
    assert_eq!(c.status()["store"]["sync"], "behind");
    c.git(&["fetch", "-q", "--all"]);
    // A remote added later: install again adds only what is missing.
    let later = remotes::bare(&env, &env.path().join("srv/later.git"));
    c.git(&["remote", "add", "later", later.to_str().unwrap()]);
    let out = c.mj(&["hooks", "install"]).ok();
    insta::assert_snapshot!(out.shown(), @"
    .claude/settings.json: added 3 hook entries
    .claude/commands/handover.md: added the /handover command
    pre-push: installed in .git/hooks
    post-checkout: installed in .git/hooks
    post-rewrite: installed in .git/hooks
    fetch refspec: added to later: +refs/majordomus/continuity*:refs/majordomus/remotes/later/continuity*
    fetch refspec: already on mirror
    fetch refspec: already on origin
    --- stderr
    --- exit 0
    ");
    for r in ["origin", "mirror", "later"] {
        let specs = c.git(&["config", "--get-all", &format!("remote.{r}.fetch")]);
        assert_eq!(specs.matches("+refs/majordomus/continuity*:").count(), 1, "{r}: {specs}");
    }
    // Uninstall removes exactly what install added.
    c.mj(&["hooks", "uninstall", "--fetch-refspec"]).ok();
    for r in ["origin", "mirror", "later"] {
        let specs = c.git(&["config", "--get-all", &format!("remote.{r}.fetch")]);
        assert_eq!(specs, format!("+refs/heads/*:refs/remotes/{r}/*"), "{r}");
    }
    fsck(&env, &[&remote, c.root()]);
}

// ---------------------------------------------------------------------------------------------
// Real transports

/// A publishes and syncs, B syncs and gets the record, B publishes and syncs, A gets it; then a
/// pre-receive policy rejects our ref over the same transport (push_rejected, exit 10).
fn exchange_over(env: &TestEnv, base: &str, remote: &Path, a: &Node<'_>) {
    let b = Node::clone_of(env, &format!("{base}remote.git"), "b");
    let r1 = a.publish("From A.");
    let s = a.sync(0);
    assert_eq!(pick(&s, &["action", "published"]), serde_json::json!({"action": "published", "published": 1}), "{s:#}");
    let s = b.sync(0);
    assert_eq!(pick(&s, &["action", "fetched"]), serde_json::json!({"action": "fetched", "fetched": 1}), "{s:#}");
    let r2 = b.publish("From B.");
    let s = b.sync(0);
    assert_eq!(s["action"], "published", "{s:#}");
    let s = a.sync(0);
    assert_eq!(s["action"], "fetched", "{s:#}");
    let mut both = vec![r1, r2];
    both.sort();
    assert_eq!(a.ids(REF), both);
    assert_eq!(ids_in(env, remote, REF), both);
    remotes::script(&remote.join("hooks/pre-receive"), REFUSE_MAJORDOMUS);
    let r3 = a.publish("Refused.");
    let s = a.sync(10);
    // The hook's words, quoted among git's.
    assert!(message(&s["diagnostics"], "continuity.push_rejected").contains("not accepted here"), "{s:#}");
    let mut all = [both.clone(), vec![r3]].concat();
    all.sort();
    assert_eq!(a.ids(REF), all);
    assert_eq!(ids_in(env, remote, REF), both);
    std::fs::remove_file(remote.join("hooks/pre-receive")).unwrap();
    fsck(env, &[remote, a.root(), b.root()]);
}

#[test]
fn two_clones_exchange_over_git_daemon() {
    let env = TestEnv::new();
    let srv = env.path().join("srv");
    std::fs::create_dir_all(&srv).unwrap();
    let mut daemon = remotes::daemon(&env, &srv);
    let base = daemon.base.clone();
    let (remote, a) = world(&env, |_| format!("{base}remote.git"));
    exchange_over(&env, &base, &remote, &a);
    // The daemon stops: unreachable, exit 10, nothing lost.
    daemon.stop();
    let before = a.tip(REF);
    let s = a.sync(10);
    assert_eq!(s["action"], "unreachable", "{s:#}");
    assert_eq!(a.tip(REF), before);
}

#[test]
fn two_clones_exchange_over_smart_http() {
    let env = TestEnv::new();
    let srv = env.path().join("srv");
    std::fs::create_dir_all(&srv).unwrap();
    let mut http = remotes::http(&env, &srv);
    let base = http.base.clone();
    let (remote, a) = world(&env, |_| format!("{base}remote.git"));
    exchange_over(&env, &base, &remote, &a);
    http.stop();
    let s = a.sync(10);
    assert_eq!(s["action"], "unreachable", "{s:#}");
    assert!(message(&s["diagnostics"], "continuity.remote_unreachable").contains("could not be reached"), "{s:#}");
}

#[test]
fn the_pre_push_hook_never_waits_for_another_continuity_writer() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let (remote, a) = world(&env, path_url);
    a.mj(&["hooks", "install", "--git"]).ok();
    let id = a.publish("Pending.");
    a.repo.commit_file("lib/a", "a\n");
    // Another writer holds the writers' lock for 20 s (flock -o: only flock holds it, so killing
    // flock releases it); the push must not wait for it.
    let lock = a.root().join(".git/majordomus/continuity.lock");
    let held = env.path().join("held");
    let started = std::time::Instant::now();
    let out = a.sh(&format!(
        "flock -o {} sh -c 'touch {h}; exec sleep 20' >/dev/null 2>&1 & pid=$!\n\
         while [ ! -e {h} ]; do sleep 0.05; done\n\
         git push -q origin main 2>&1; st=$?\nkill $pid\nexit $st",
        lock.display(),
        h = held.display()
    ));
    let out = out.ok();
    assert!(started.elapsed() < std::time::Duration::from_secs(15), "{:?}", started.elapsed());
    insta::assert_snapshot!(ours(&out), @"majordomus: continuity not synced with origin: another continuity sync or publish is running; run: git majordomus continuity sync --remote origin");
    assert_eq!(env.git_in(&remote, &["rev-parse", "main"]), a.repo.head(), "the code push went through");
    assert_eq!(ids_in(&env, &remote, REF), Vec::<String>::new());
    // Once the writer is done, the next push carries the record.
    a.repo.commit_file("lib/b", "b\n");
    let out = a.sh("git push -q origin main 2>&1").ok();
    assert_eq!(ours(&out), "majordomus: continuity synced with origin: 1 record(s) published");
    assert_eq!(ids_in(&env, &remote, REF), vec![id]);
    fsck(&env, &[&remote, a.root()]);
}

/// `continuity sync --help` names the default the code uses: the policy's `continuity.remote`,
/// else `origin`, else the only remote — not "the branch's remote", as it once said.
#[test]
fn sync_help_states_the_chosen_remote_rule() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("a");
    let help = r.mj(&["continuity", "sync", "--help"]).ok().stdout;
    insta::assert_snapshot!(help, @"
    Fetch, merge and push refs/majordomus/continuity (never forced)

    Usage: git majordomus continuity sync [OPTIONS]

    Options:
          --remote <REMOTE>  The remote (default: continuity.remote, else origin, else the only one)
          --repo <PATH>      Operate on the checkout at this path
          --json             Print one JSON document on stdout
      -q, --quiet            Suppress next: lines, INFO/OK findings and success lines
      -h, --help             Print help
      -V, --version          Print version
    ");
}
