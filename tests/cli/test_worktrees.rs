//! Records outlive their worktree; identity survives a move (issue 41 item 1,
//! docs/REFERENCE.md#identity, docs/REFERENCE.md#kept-records): a removed worktree's records are
//! listed and adopted elsewhere, a moved checkout resumes its task.

use std::path::{Path, PathBuf};

use crate::common::{Repo, TestEnv, HANDOVER};

fn start_payload(sid: &str) -> String {
    format!(r#"{{"session_id":"{sid}","source":"startup","hook_event_name":"SessionStart"}}"#)
}

/// A checkout at `root` of the same test world.
fn at<'a>(env: &'a TestEnv, root: &Path) -> Repo<'a> {
    Repo { env, root: std::fs::canonicalize(root).unwrap() }
}

/// Every kept file (relative path, bytes) under `dir`, locks, dotfiles and the pointer aside.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    fn walk(base: &Path, d: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        for e in std::fs::read_dir(d).unwrap().flatten() {
            let p = e.path();
            let rel = p.strip_prefix(base).unwrap().display().to_string();
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') || rel.starts_with("state/locks") || rel == "state/session-current.yaml" {
                continue;
            }
            if e.file_type().unwrap().is_dir() {
                walk(base, &p, out);
            } else {
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    let mut v = Vec::new();
    walk(dir, dir, &mut v);
    v.sort();
    v
}

fn kept_dir(main: &Repo<'_>, git_dir: &Path) -> PathBuf {
    let id = std::fs::read_to_string(git_dir.join("majordomus/worktree-id")).unwrap();
    main.root.join(".git/majordomus/worktrees").join(id.trim()).join("local")
}

#[test]
fn every_write_under_ai_local_is_kept_under_the_common_git_dir() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    // Records written before the first copy are copied whole at the first write.
    r.start("kept");
    r.mj_in(&["checkpoint"], "first note\n").ok();
    r.mj(&["decision", "add", "Keep it", "--why", "because"]).ok();
    r.mj(&["question", "add", "Is it kept?"]).ok();
    r.mj_in(&["hook", "claude-code", "start"], &start_payload("k1")).ok();
    r.mj_in(&["handover"], HANDOVER).ok();
    r.mj_in(&["hook", "claude-code", "end"], &start_payload("k1")).ok();
    let kept = kept_dir(&r, &r.root.join(".git"));
    let (theirs, ours) = (files(&kept), files(&r.root.join(".ai/local")));
    let names = |v: &[(String, Vec<u8>)]| v.iter().map(|f| f.0.clone()).collect::<Vec<_>>();
    assert_eq!(names(&theirs), names(&ours));
    for ((name, a), (_, b)) in theirs.iter().zip(&ours) {
        assert!(a == b, "{name} differs:\n{}\n---\n{}", String::from_utf8_lossy(a), String::from_utf8_lossy(b));
    }
    // Private like .ai/local/.
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(kept.join("state/current.yaml")).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
}

#[test]
fn a_removed_worktrees_records_are_listed_from_another_checkout_and_adopted() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let main = env.ready_repo("repo");
    main.git(&["worktree", "add", "-q", "-b", "tmp/wt4", "../wt4"]);
    let wt = at(&env, &env.path().join("wt4"));
    let id = wt.start("feature x");
    wt.mj(&["decision", "add", "Use a hashmap", "--why", "O(1)"]).ok();
    wt.mj(&["question", "add", "Which hash?"]).ok();
    let hv = wt.mj_in(&["handover"], HANDOVER).ok().first_line();
    let hv_name = Path::new(&hv).file_name().unwrap().to_string_lossy().into_owned();
    main.git(&["worktree", "remove", "../wt4"]);
    assert!(!env.path().join("wt4").exists());

    // Listed from the other checkout, labelled with the worktree they came from; resolved nowhere.
    let wt4 = main.root.parent().unwrap().join("wt4");
    let list = main.mj(&["worktree", "list"]).ok().stdout;
    insta::assert_snapshot!(list.replace(&id, "[TASK]"), @"
    removed  [TMP]/wt4 (wt4)  [[HEX]]
             [TASK] ('feature x'); 1 handover(s), 0 checkpoint(s), 1 decision(s), 1 open question(s)
             adopt: git majordomus worktree adopt wt4
    ");
    let state = main.mj(&["state"]).ok().stdout;
    insta::assert_snapshot!(state.replace(&id, "[TASK]"), @"
    Checkout [TMP]/repo on main at [HEX], working tree clean
    Episode: none open here
    Task: none
    Handover: none for this worktree and branch
    Checkpoint: none for this worktree and branch
    Blockers: 0 open question(s)
    - The records of the removed worktree [TMP]/wt4 are kept (task [TASK] 'feature x', 1 handover(s), 1 decision(s), 1 open question(s)); adopt them here with git majordomus worktree adopt wt4.
    (git majordomus state --json: the whole value, as MCP and HTTP return it)
    ");
    let listed = main.mj(&["handover", "--list"]).ok().stdout;
    insta::assert_snapshot!(listed.replace(&hv_name, "[HANDOVER]"), @"
    no handover records for this worktree
    kept from the removed worktree [TMP]/wt4 (git majordomus worktree adopt wt4):
    2026-09-03T20:00:00Z  t-[ID]    different_context  [HANDOVER]
    ");
    let brief = main.mj_in(&["hook", "claude-code", "start"], &start_payload("s1")).ok().stdout;
    insta::assert_snapshot!(brief, @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on main at [HEX], working tree clean.
    No task record: checkpoints and handovers are still written for this episode.
    The records of the removed worktree [TMP]/wt4 are kept (task t-[ID] 'feature x', 1 handover(s), 1 decision(s), 1 open question(s)); adopt them here with git majordomus worktree adopt wt4.
    No relevant handover for this worktree and branch; absence is the answer, not a stale match.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    ");
    main.mj_in(&["hook", "claude-code", "end"], &start_payload("s1")).ok();
    assert_eq!(main.mj(&["decision", "list"]).ok().stdout.trim(), "(none)");

    // Unknown: 12; adopted: its task is active here, its decisions and questions merged.
    main.mj(&["worktree", "adopt", "nowhere"]).code(12);
    let out = main.mj(&["worktree", "adopt", "wt4"]).ok().stdout;
    assert_eq!(
        out.trim(),
        format!("adopted the records of {}: 1 file(s), 1 decision(s), 1 question(s); task {id} is this checkout's active task", wt4.display())
    );
    insta::assert_snapshot!(main.mj(&["decision", "list"]).ok().stdout, @"2026-09-03  t-[ID]    Use a hashmap");
    insta::assert_snapshot!(main.mj(&["question", "list"]).ok().stdout, @"1  [unresolved] t-[ID] — Which hash? (2026-09-03)");
    let state = main.mj(&["state"]).ok().stdout;
    insta::assert_snapshot!(state.replace(&id, "[TASK]"), @r#"
    Checkout [TMP]/repo on main at [HEX], working tree clean
    Episode: none open here
    Task: [TASK] "feature x" (active, implementation)
    Handover: none for this worktree and branch
    Checkpoint: none for this worktree and branch
    Blockers: 1 open question(s)
    - 1 unresolved question(s) refuse finish --outcome completed until each is resolved.
    (git majordomus state --json: the whole value, as MCP and HTTP return it)
    "#);
    // Its open question gates finish here; on its branch its handover resolves as this checkout's.
    main.mj(&["finish", "--outcome", "completed"]).code(10);
    main.git(&["checkout", "-q", "tmp/wt4"]);
    let resolved = main.mj(&["handover", "--resolve"]).ok().stdout;
    insta::assert_snapshot!(resolved.replace(&hv_name, "[HANDOVER]"), @"
    Handover: .ai/local/state/handovers/[HANDOVER]
    Match: same_worktree_same_branch
    Git state: exact
    Created: 2026-09-03T20:00:00Z (0m ago)
    Task: t-[ID]
    Freshness: fresh — 0m old, under session.freshness.fresh_minutes (720 min)
    Origin: authored
    ---
    # Objective
    Fix the callback.

    # Current State
    Reproduced.

    # Next Action
    Write the regression test.
    ");
    insta::assert_snapshot!(main.mj(&["worktree", "list"]).ok().stdout, @"
    this     [TMP]/repo  [[HEX]]
    adopted  [TMP]/wt4 (wt4)  [[HEX]]
    ");
    assert!(main.ledger().iter().any(|l| l["event"] == "worktree.adopted" && l["task_id"] == id.as_str()));
    // Adopted once: a second adoption finds nothing.
    main.mj(&["worktree", "adopt", "wt4"]).code(12);
}

#[test]
fn a_moved_checkout_keeps_its_task_and_its_handover() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("uni");
    let id = r.start("feature y");
    r.mj_in(&["handover", "--close"], HANDOVER).ok();
    std::fs::rename(&r.root, env.path().join("uni-moved")).unwrap();
    let moved = at(&env, &env.path().join("uni-moved"));
    let brief = moved.mj_in(&["hook", "claude-code", "start"], &start_payload("mv-1")).ok().stdout;
    insta::assert_snapshot!(brief.replace(&id, "[TASK]"), @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on main at [HEX], working tree clean.
    Task [TASK] (handed_over, profile implementation): feature y
    Scope: lib
    Handover .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md (same_worktree_same_branch, exact, 0m ago, authored).
    Its Next Action:
      Write the regression test.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    ");
    moved.mj_in(&["hook", "claude-code", "end"], &start_payload("mv-1")).ok();
    // The task is resumable in the moved checkout.
    moved.mj(&["start", "--resume", &id]).ok();
    let state = moved.mj(&["state"]).ok().stdout;
    insta::assert_snapshot!(state.replace(&id, "[TASK]"), @r#"
    Checkout [TMP]/uni-moved on main at [HEX], working tree clean
    Episode: none open here
    Task: [TASK] "feature y" (active, implementation)
    Handover: .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md — exact, fresh (0m old, under session.freshness.fresh_minutes (720 min)), authored
      Next Action: Write the regression test.
    Checkpoint: none for this worktree and branch
    Blockers: 0 open question(s)
    (git majordomus state --json: the whole value, as MCP and HTTP return it)
    "#);

    // A linked worktree moved by git keeps its task too.
    moved.git(&["worktree", "add", "-q", "-b", "w2", "../w2"]);
    let w2 = at(&env, &env.path().join("w2"));
    let id2 = w2.start("in w2");
    moved.git(&["worktree", "move", "../w2", "../w2-moved"]);
    let w2 = at(&env, &env.path().join("w2-moved"));
    let state = w2.mj(&["state"]).ok().stdout;
    insta::assert_snapshot!(state.replace(&id2, "[TASK]"), @r#"
    Checkout [TMP]/w2-moved on w2 at [HEX], working tree clean
    Episode: none open here
    Task: [TASK] "in w2" (active, implementation)
    Handover: none for this worktree and branch
    Checkpoint: none for this worktree and branch
    Blockers: 0 open question(s)
    (git majordomus state --json: the whole value, as MCP and HTTP return it)
    "#);
    w2.mj_in(&["handover"], HANDOVER).ok();
    let resolved = w2.mj(&["handover", "--resolve"]).ok().stdout;
    assert_eq!(resolved.lines().nth(1), Some("Match: same_worktree_same_branch"), "{resolved}");
    // Nothing is listed as removed: both checkouts live.
    insta::assert_snapshot!(w2.mj(&["worktree", "list"]).ok().stdout, @"
    live     [TMP]/uni-moved  [[HEX]]
    this     [TMP]/w2-moved (w2)  [[HEX]]
    ");
}
