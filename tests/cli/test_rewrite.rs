//! Labels through amend, rebase, cherry-pick and squash merge, each with its proof (
//! docs/REFERENCE.md#rewrites; issue 22): real git rewrites a record's commit, and every reader says which commit
//! the word was judged on and why — or `diverged` when nothing proves it.

use std::path::Path;

use proptest::prelude::*;
use serde_json::Value;

use crate::common::{Repo, TestEnv, HANDOVER};

/// Real git with the binary under test on `PATH`, so the installed hooks run it.
fn git_hooked(r: &Repo, args: &[&str], env: &[(&str, &str)]) -> String {
    let out = r.env.command("git").current_dir(&r.root).args(args).envs(env.iter().copied()).output().unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A repository on branch `feat` with one commit of its own and a handover written there.
fn feature_with_handover(env: &TestEnv) -> (Repo<'_>, String) {
    let r = env.ready_repo("r");
    r.git(&["switch", "-q", "-c", "feat"]);
    r.start("Rewrite the parser");
    let x = r.commit_file("lib/a.rs", "one\n");
    r.mj_in(&["handover"], HANDOVER).ok();
    (r, x)
}

/// `state --json`'s handover.
fn state_handover(r: &Repo) -> Value {
    let out = r.mj(&["state", "--json"]).ok();
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    v["handover"].clone()
}

fn git_state_line(r: &Repo) -> String {
    let out = r.mj(&["handover", "--resolve"]).ok();
    out.stdout.lines().find(|l| l.starts_with("Git state:")).unwrap_or_default().to_string()
}

fn short(id: &str) -> &str {
    &id[..7]
}

/// `text` with the short form of commit `id` shown as `name` (before the snapshot's own
/// `[HEX]` filter), so a snapshot still says which commit a line names.
fn naming(text: &str, id: &str, name: &str) -> String {
    text.replace(short(id), name)
}

#[test]
fn an_amend_keeping_the_tree_is_exact_with_the_reflog_as_proof() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let (r, x) = feature_with_handover(&env);
    r.git(&["commit", "-q", "--amend", "-m", "a better message"]);
    let now = r.head();
    assert_ne!(now, x);
    assert_eq!(git_state_line(&r), format!("Git state: exact (rewritten from {} by amend — reflog)", short(&x)));
    let h = state_handover(&r);
    assert_eq!(h["divergence"], "exact");
    assert_eq!(h["head"], x.as_str(), "the recorded head is still shown");
    assert_eq!(h["rewrite"]["from"], x.as_str());
    assert_eq!(h["rewrite"]["to"], now.as_str());
    assert_eq!(h["rewrite"]["by"], "amend");
    assert_eq!(h["rewrite"]["proof"]["kind"], "reflog");
    assert_eq!(h["rewrite"]["proof"]["value"], "refs/heads/feat@{0}: commit (amend)");
    let state = r.mj(&["state", "--json"]).ok().stdout;
    assert!(!state.contains("not trustworthy"), "{state}");
    // The briefing says nothing about a commit missing from history.
    let brief = r.mj_in(&["hook", "claude-code", "start"], r#"{"session_id":"s1","source":"startup"}"#).ok();
    insta::assert_snapshot!(naming(&brief.stdout, &x, "[X]"), @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on feat at [HEX], working tree clean.
    Task t-[ID] (active, profile implementation): Rewrite the parser
    Scope: lib
    Handover .ai/local/state/handovers/20260903T200000Z--feat--[X]--[HEX].md (same_worktree_same_branch, exact (rewritten from [X] by amend — reflog), 0m ago, authored).
    Its Next Action:
      Write the regression test.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    ");
    // The listing says the same.
    let list = r.mj(&["handover", "--list"]).ok().stdout;
    insta::assert_snapshot!(naming(&list, &x, "[X]"), @"2026-09-03T20:00:00Z  t-[ID]    exact (rewritten from [X] by amend — reflog) .ai/local/state/handovers/20260903T200000Z--feat--[X]--[HEX].md");
    // With the reflog gone, the same tree still proves it, by content only.
    r.git(&["reflog", "expire", "--expire=now", "--all"]);
    let h = state_handover(&r);
    assert_eq!(h["divergence"], "exact");
    assert_eq!(h["rewrite"]["by"], "unknown");
    assert_eq!(h["rewrite"]["proof"]["kind"], "tree");
    assert_eq!(h["rewrite"]["proof"]["value"], r.git(&["rev-parse", "HEAD^{tree}"]).as_str());
}

#[test]
fn an_amend_changing_the_tree_is_proven_by_the_reflog_then_by_the_post_rewrite_pair() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let (r, x) = feature_with_handover(&env);
    r.mj(&["hooks", "install", "--git"]).ok();
    r.write("lib/a.rs", "one, amended\n");
    git_hooked(&r, &["commit", "-q", "-a", "--amend", "--no-edit"], &[]);
    let now = r.head();
    let h = state_handover(&r);
    assert_eq!((h["divergence"].as_str(), h["rewrite"]["proof"]["kind"].as_str()), (Some("exact"), Some("reflog")));
    // The hook kept the pair under the git common dir.
    let pairs = std::fs::read_to_string(r.root.join(".git/majordomus/rewritten")).unwrap();
    assert_eq!(pairs, format!("amend {x} {now}\n"));
    r.git(&["reflog", "expire", "--expire=now", "--all"]);
    let h = state_handover(&r);
    assert_eq!(h["divergence"], "exact");
    assert_eq!(h["rewrite"]["by"], "amend");
    assert_eq!(h["rewrite"]["proof"]["kind"], "post-rewrite");
    assert_eq!(h["rewrite"]["proof"]["value"], format!("amend {} {}", short(&x), short(&now)).as_str());
    // Without the pair nothing is left: the content differs.
    std::fs::remove_file(r.root.join(".git/majordomus/rewritten")).unwrap();
    let h = state_handover(&r);
    assert_eq!(h["divergence"], "diverged");
    assert!(h.get("rewrite").is_none(), "{h}");
}

#[test]
fn a_new_commit_after_an_amend_is_advanced_and_the_chain_of_amends_is_followed() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let (r, x) = feature_with_handover(&env);
    r.write("lib/a.rs", "v2\n");
    r.git(&["commit", "-q", "-a", "--amend", "--no-edit"]);
    r.write("lib/a.rs", "v3\n");
    r.git(&["commit", "-q", "-a", "--amend", "--no-edit"]);
    let amended = r.head();
    r.commit_file("lib/b.rs", "b\n");
    let h = state_handover(&r);
    assert_eq!(h["divergence"], "advanced");
    assert_eq!(h["rewrite"]["from"], x.as_str());
    assert_eq!(h["rewrite"]["to"], amended.as_str());
    assert_eq!(
        h["rewrite"]["proof"]["value"],
        "refs/heads/feat@{2}: commit (amend); refs/heads/feat@{1}: commit (amend)"
    );
}

#[test]
fn rebase_squash_and_fixup_are_squash_by_the_reflog() {
    for verb in ["squash", "fixup"] {
        let env = TestEnv::new();
        let _snap = env.snapshots();
        let (r, _) = feature_with_handover(&env);
        let b = r.commit_file("lib/b.rs", "b\n");
        r.mj_in(&["handover"], HANDOVER).ok();
        let script = format!("sed -i '2s/^pick/{verb}/'");
        git_hooked(&r, &["rebase", "-q", "-i", "HEAD~2"], &[("GIT_SEQUENCE_EDITOR", &script), ("GIT_EDITOR", "true")]);
        let h = state_handover(&r);
        assert_eq!(h["head"], b.as_str());
        assert_eq!(h["divergence"], "exact", "{verb}: {h}");
        assert_eq!(h["rewrite"]["by"], "squash", "{verb}");
        assert_eq!(h["rewrite"]["proof"]["value"], "refs/heads/feat@{0}: rebase (finish)", "{verb}");
    }
}

#[test]
fn pull_rebase_over_new_upstream_work_is_a_rebase() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let a = env.ready_repo("a");
    let bare = env.path().join("remote.git");
    env.git_in(env.path(), &["init", "-q", "--bare", "-b", "main", bare.to_str().unwrap()]);
    a.git(&["remote", "add", "origin", bare.to_str().unwrap()]);
    a.git(&["push", "-q", "-u", "origin", "main"]);
    let other = env.path().join("other");
    env.git_in(env.path(), &["clone", "-q", bare.to_str().unwrap(), other.to_str().unwrap()]);
    std::fs::write(other.join("upstream.txt"), "u\n").unwrap();
    env.git_in(&other, &["add", "upstream.txt"]);
    env.git_in(&other, &["commit", "-q", "-m", "upstream work"]);
    env.git_in(&other, &["push", "-q", "origin", "main"]);
    a.start("Local work");
    let x = a.commit_file("lib/a.rs", "mine\n");
    a.mj_in(&["handover"], HANDOVER).ok();
    a.git(&["pull", "-q", "--rebase"]);
    let h = state_handover(&a);
    assert_eq!(h["divergence"], "exact", "{h}");
    assert_eq!(h["rewrite"]["from"], x.as_str());
    assert_eq!(h["rewrite"]["by"], "rebase");
    assert_eq!(h["rewrite"]["proof"]["value"], "refs/heads/main@{0}: pull -q --rebase (finish)");
}

#[test]
fn a_conflict_resolved_in_a_rebase_is_proven_only_by_the_reflog() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.commit_file("lib/a.rs", "base\n");
    r.git(&["switch", "-q", "-c", "feat"]);
    r.start("Conflicting work");
    r.commit_file("lib/a.rs", "feature\n");
    r.mj_in(&["handover"], HANDOVER).ok();
    r.git(&["switch", "-q", "main"]);
    r.commit_file("lib/a.rs", "main\n");
    r.git(&["switch", "-q", "feat"]);
    let out = r.env.command("git").current_dir(&r.root).args(["rebase", "-q", "main"]).output().unwrap();
    assert!(!out.status.success(), "the rebase stops at the conflict");
    r.write("lib/a.rs", "main and feature, resolved\n");
    r.git(&["add", "lib/a.rs"]);
    git_hooked(&r, &["-c", "core.editor=true", "rebase", "--continue"], &[]);
    let h = state_handover(&r);
    assert_eq!((h["divergence"].as_str(), h["rewrite"]["by"].as_str()), (Some("exact"), Some("rebase")), "{h}");
    r.git(&["reflog", "expire", "--expire=now", "--all"]);
    let h = state_handover(&r);
    assert_eq!(h["divergence"], "diverged", "content differs and nothing else proves it: {h}");
}

#[test]
fn a_true_divergence_stays_diverged() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let (r, _) = feature_with_handover(&env);
    r.git(&["reset", "-q", "--hard", "HEAD~1"]);
    r.commit_file("lib/other.rs", "something else\n");
    let h = state_handover(&r);
    assert_eq!(h["divergence"], "diverged");
    assert!(h.get("rewrite").is_none());
    let state = r.mj(&["state", "--json"]).ok().stdout;
    assert!(state.contains("not trustworthy"), "{state}");
    assert_eq!(git_state_line(&r), "Git state: diverged");
}

#[test]
fn a_cherry_pick_onto_another_branch_lands_there_and_resolution_keeps_its_tiers() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let (r, x) = feature_with_handover(&env);
    r.git(&["switch", "-q", "main"]);
    r.commit_file("lib/main.rs", "main moved\n");
    r.git(&["cherry-pick", &x]);
    let picked = r.head();
    let list = r.mj(&["handover", "--list"]).ok().stdout;
    insta::assert_snapshot!(naming(&list, &picked, "[PICKED]"), @"2026-09-03T20:00:00Z  t-[ID]    landed in main as [PICKED] (cherry-pick — patch-id) .ai/local/state/handovers/20260903T200000Z--feat--[HEX]--[HEX].md");
    assert_eq!(r.mj(&["handover", "--resolve"]).ok().stdout.trim(), "No relevant handover.");
}

#[test]
fn a_squash_merge_and_a_rebase_merge_land_in_main() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let (r, _) = feature_with_handover(&env);
    r.commit_file("lib/b.rs", "b\n");
    r.mj_in(&["handover"], HANDOVER).ok();
    let id = r.mj(&["state", "--json"]).ok();
    let task: Value = serde_json::from_str(&id.stdout).unwrap();
    let task = task["task"]["id"].as_str().unwrap().to_string();
    r.git(&["switch", "-q", "main"]);
    r.commit_file("lib/main.rs", "main moved\n");
    r.git(&["merge", "-q", "--squash", "feat"]);
    r.git(&["commit", "-q", "-m", "Squash and merge"]);
    let squash = r.head();
    let list = r.mj(&["handover", "--list"]).ok().stdout;
    insta::assert_snapshot!(naming(&list, &squash, "[SQUASH]"), @"
    2026-09-03T20:00:00Z  t-[ID]    landed in main as [SQUASH] (squash-merge — range-patch-id) .ai/local/state/handovers/20260903T200000Z--feat--[HEX]--[HEX].md
    2026-09-03T20:00:00Z  t-[ID]    different_context  .ai/local/state/handovers/20260903T200000Z--feat--[HEX]--[HEX].md
    ");
    // resolution never crosses branches
    let out = r.mj(&["handover", "--resolve", "--task", &task]).ok().stdout;
    insta::assert_snapshot!(naming(&out, &squash, "[SQUASH]"), @"
    No relevant handover.
    This task's newest handover, on feat, landed in main as [SQUASH] (squash-merge — range-patch-id): .ai/local/state/handovers/20260903T200000Z--feat--[HEX]--[HEX].md
    ");
    assert_eq!(r.mj(&["handover", "--resolve", "--task", &task, "--path"]).ok().stdout, "No relevant handover.\n");
    // A rebase merge: feat rebased onto main and main fast-forwarded — on feat the label is a
    // rebase by the reflog, on main the record landed by its own patch id.
    r.git(&["reset", "-q", "--hard", "HEAD~1"]);
    r.git(&["switch", "-q", "feat"]);
    r.git(&["rebase", "-q", "main"]);
    let h = state_handover(&r);
    assert_eq!((h["divergence"].as_str(), h["rewrite"]["by"].as_str()), (Some("exact"), Some("rebase")));
    let tip = r.head();
    r.git(&["switch", "-q", "main"]);
    r.git(&["merge", "-q", "--ff-only", "feat"]);
    let list = r.mj(&["handover", "--list"]).ok().stdout;
    insta::assert_snapshot!(naming(&list, &tip, "[TIP]"), @"
    2026-09-03T20:00:00Z  t-[ID]    landed in main as [TIP] (patch-id) .ai/local/state/handovers/20260903T200000Z--feat--[HEX]--[HEX].md
    2026-09-03T20:00:00Z  t-[ID]    landed in main as [HEX] (patch-id) .ai/local/state/handovers/20260903T200000Z--feat--[HEX]--[HEX].md
    ");
}

#[test]
fn the_task_record_and_checkpoints_are_labelled_through_a_rewrite_but_session_envelopes_are_not() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.git(&["switch", "-q", "-c", "feat"]);
    r.commit_file("lib/a.rs", "one\n");
    r.mj(&["session", "start"]).ok();
    r.start("Task at a commit that is amended");
    r.mj_in(&["checkpoint"], "Parser half done.\n").ok();
    r.mj(&["session", "close"]).ok();
    let x = r.head();
    r.git(&["commit", "-q", "--amend", "-m", "renamed"]);
    let label = |text: &str, prefix: &str| {
        naming(text.lines().find(|l| l.contains(prefix)).unwrap_or_else(|| panic!("{text}")), &x, "[X]")
    };
    let show = r.mj(&["checkpoint", "--show"]).ok().stdout;
    let check = r.mj(&["check"]).stdout;
    let ctx = r.mj(&["context"]).ok().stdout;
    // closed session envelopes keep the plain word
    let latest = r.mj(&["session", "latest"]).ok().stdout;
    let labels = [
        label(&show, "Git state: "),
        label(&check, "task record "),
        label(&ctx, "task_record: "),
        label(&latest, "Git state: "),
    ];
    insta::assert_snapshot!(labels.join("\n"), @"
    Git state: exact (rewritten from [X] by amend — reflog)
    OK task t-[ID] — task record exact (rewritten from [X] by amend — reflog) (recorded head [X] on feat)  [reproduce: git majordomus context]
    task_record: exact (rewritten from [X] by amend — reflog) (recorded head [X])
    Git state: diverged
    ");
}

#[test]
fn the_post_rewrite_hook_chains_a_foreign_hook_with_its_stdin() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let (r, x) = feature_with_handover(&env);
    let hooks = r.root.join(".git/hooks");
    std::fs::write(hooks.join("post-rewrite"), "#!/bin/sh\ncat > \"$(dirname \"$0\")/seen\"\n").unwrap();
    set_exec(&hooks.join("post-rewrite"));
    r.mj(&["hooks", "install", "--git"]).ok();
    git_hooked(&r, &["commit", "-q", "--amend", "-m", "again"], &[]);
    let seen = std::fs::read_to_string(hooks.join("seen")).unwrap();
    assert!(seen.starts_with(&format!("{x} {}", r.head())), "{seen}");
    let pairs = std::fs::read_to_string(r.root.join(".git/majordomus/rewritten")).unwrap();
    assert_eq!(pairs, format!("amend {x} {}\n", r.head()));
    r.mj(&["hooks", "uninstall", "--git"]).ok();
    assert_eq!(
        std::fs::read_to_string(hooks.join("post-rewrite")).unwrap(),
        "#!/bin/sh\ncat > \"$(dirname \"$0\")/seen\"\n",
        "the foreign hook is back"
    );
}

fn set_exec(p: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// One step of a random history.
#[derive(Debug, Clone, Copy)]
enum Step {
    Commit,
    AmendSameTree,
    AmendNewTree,
    SquashLastTwo,
    ResetAndCommit,
    ExpireReflog,
    Handover,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        Just(Step::Commit),
        Just(Step::AmendSameTree),
        Just(Step::AmendNewTree),
        Just(Step::SquashLastTwo),
        Just(Step::ResetAndCommit),
        Just(Step::ExpireReflog),
        Just(Step::Handover),
    ]
}

/// Re-checks a claimed rewrite with git alone: every hop of the proof is there, and the label
/// never claims more than the proof gives.
fn recheck(r: &Repo, h: &Value) {
    let head = r.head();
    let word = h["divergence"].as_str().unwrap();
    let recorded = h["head"].as_str().unwrap();
    let is_ancestor = |a: &str, b: &str| {
        r.env
            .command("git")
            .current_dir(&r.root)
            .args(["merge-base", "--is-ancestor", a, b])
            .status()
            .unwrap()
            .success()
    };
    let Some(rw) = h.get("rewrite") else {
        match word {
            "exact" => assert_eq!(recorded, head),
            "advanced" => assert!(is_ancestor(recorded, &head)),
            _ => assert!(!is_ancestor(recorded, &head) || recorded.is_empty(), "{h}"),
        }
        return;
    };
    let (from, to) = (rw["from"].as_str().unwrap(), rw["to"].as_str().unwrap());
    assert_eq!(from, recorded);
    assert!(!is_ancestor(from, &head), "a proof only runs when ancestry says no: {h}");
    assert!(is_ancestor(to, &head), "the rewritten commit is in HEAD's history: {h}");
    assert_eq!(word, if to == head { "exact" } else { "advanced" }, "{h}");
    let value = rw["proof"]["value"].as_str().unwrap();
    match rw["proof"]["kind"].as_str().unwrap() {
        "tree" => {
            assert_eq!(r.git(&["rev-parse", &format!("{from}^{{tree}}")]), value);
            assert_eq!(r.git(&["rev-parse", &format!("{to}^{{tree}}")]), value);
        }
        "patch-id" => {
            for c in [from, to] {
                let out = r.env.sh(&r.root, &format!("git diff-tree --root -p {c} | git patch-id --stable"), b"", &[]);
                assert!(out.stdout.starts_with(value), "{c}: {}", out.stdout);
            }
        }
        "reflog" => {
            // Every hop is a line of the branch's (or HEAD's) reflog file, chained from → to.
            let logs = [".git/logs/refs/heads/main", ".git/logs/HEAD"]
                .iter()
                .filter_map(|p| std::fs::read_to_string(r.root.join(p)).ok())
                .collect::<String>();
            let mut cur = from.to_string();
            for hop in value.split("; ") {
                let action = hop.split_once(": ").unwrap().1;
                let line = logs
                    .lines()
                    .find(|l| l.starts_with(&format!("{cur} ")) && l.contains(&format!("\t{action}")))
                    .unwrap_or_else(|| panic!("no reflog line from {cur} by {action}: {h}"));
                cur = line.split(' ').nth(1).unwrap().to_string();
            }
            assert_eq!(cur, to);
        }
        other => panic!("unexpected proof {other} without the hook installed: {h}"),
    }
}

fn run_steps(steps: &[Step]) {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("Random rewrites");
    r.commit_file("lib/a.rs", "0\n");
    let mut n = 0;
    let mut wrote = false;
    for s in steps {
        n += 1;
        let commits = r.git(&["rev-list", "--count", "HEAD"]).parse::<usize>().unwrap();
        match s {
            Step::Commit => {
                r.commit_file("lib/a.rs", &format!("{n}\n"));
            }
            Step::AmendSameTree => {
                r.git(&["commit", "-q", "--amend", "-m", &format!("amended {n}")]);
            }
            Step::AmendNewTree => {
                r.write("lib/a.rs", &format!("amended {n}\n"));
                r.git(&["commit", "-q", "-a", "--amend", "--no-edit"]);
            }
            Step::SquashLastTwo if commits >= 3 => {
                git_hooked(
                    &r,
                    &["rebase", "-q", "-i", "HEAD~2"],
                    &[("GIT_SEQUENCE_EDITOR", "sed -i '2s/^pick/squash/'"), ("GIT_EDITOR", "true")],
                );
            }
            Step::ResetAndCommit if commits >= 3 => {
                r.git(&["reset", "-q", "--hard", "HEAD~1"]);
                r.commit_file("lib/c.rs", &format!("{n}\n"));
            }
            Step::ExpireReflog => {
                r.git(&["reflog", "expire", "--expire=now", "--all"]);
            }
            Step::Handover => {
                r.mj_in(&["handover"], HANDOVER).ok();
                wrote = true;
            }
            _ => {}
        }
    }
    if !wrote {
        return;
    }
    let h = state_handover(&r);
    recheck(&r, &h);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]
    #[test]
    fn a_claimed_rewrite_is_always_one_git_confirms(
        before in prop::collection::vec(step(), 0..3),
        after in prop::collection::vec(step(), 1..5),
    ) {
        let steps: Vec<Step> = before.into_iter().chain(std::iter::once(Step::Handover)).chain(after).collect();
        run_steps(&steps);
    }
}
