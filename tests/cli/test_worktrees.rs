//! Records outlive their worktree; identity survives a move (issue 41 item 1, SPEC §A.28,
//! docs/REFERENCE.md#kept-records; TRIAL #1 and #6).

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
    assert!(list.contains(&format!("removed  {} (wt4)", wt4.display())), "{list}");
    assert!(
        list.contains(&format!(
            "{id} ('feature x'); 1 handover(s), 0 checkpoint(s), 1 decision(s), 1 open question(s)"
        )),
        "{list}"
    );
    let state = main.mj(&["state"]).ok().stdout;
    assert!(state.contains(&format!("- The records of the removed worktree {} are kept (task {id} 'feature x', 1 handover(s), 1 decision(s), 1 open question(s)); adopt them here with git majordomus worktree adopt wt4.", wt4.display())), "{state}");
    assert!(state.contains("Task: none"), "{state}");
    let listed = main.mj(&["handover", "--list"]).ok().stdout;
    assert!(
        listed.contains(&format!(
            "kept from the removed worktree {} (git majordomus worktree adopt wt4):",
            wt4.display()
        )),
        "{listed}"
    );
    assert!(listed.contains(&hv_name), "{listed}");
    let brief = main.mj_in(&["hook", "claude-code", "start"], &start_payload("s1")).ok().stdout;
    assert!(brief.contains("adopt them here with git majordomus worktree adopt wt4."), "{brief}");
    main.mj_in(&["hook", "claude-code", "end"], &start_payload("s1")).ok();
    assert_eq!(main.mj(&["decision", "list"]).ok().stdout.trim(), "(none)");

    // Unknown: 12; adopted: its task is active here, its decisions and questions merged.
    main.mj(&["worktree", "adopt", "nowhere"]).code(12);
    let out = main.mj(&["worktree", "adopt", "wt4"]).ok().stdout;
    assert_eq!(
        out.trim(),
        format!("adopted the records of {}: 1 file(s), 1 decision(s), 1 question(s); task {id} is this checkout's active task", wt4.display())
    );
    assert!(main.mj(&["decision", "list"]).ok().stdout.contains("Use a hashmap"));
    assert!(main.mj(&["question", "list"]).ok().stdout.contains("Which hash?"));
    let state = main.mj(&["state"]).ok().stdout;
    assert!(state.contains(&format!("Task: {id} \"feature x\" (active")), "{state}");
    assert!(!state.contains("removed worktree"), "{state}");
    // Its open question gates finish here; on its branch its handover resolves as this checkout's.
    main.mj(&["finish", "--outcome", "completed"]).code(10);
    main.git(&["checkout", "-q", "tmp/wt4"]);
    let resolved = main.mj(&["handover", "--resolve"]).ok().stdout;
    assert!(resolved.contains("Match: same_worktree_same_branch"), "{resolved}");
    assert!(resolved.contains(&hv_name), "{resolved}");
    assert!(main.mj(&["worktree", "list"]).ok().stdout.contains("adopted  "));
    assert!(main.ledger().iter().any(|l| l["event"] == "worktree.adopted" && l["task_id"] == id.as_str()));
    // Adopted once: a second adoption finds nothing.
    main.mj(&["worktree", "adopt", "wt4"]).code(12);
}

#[test]
fn a_moved_checkout_keeps_its_task_and_its_handover() {
    let env = TestEnv::new();
    let r = env.ready_repo("uni");
    let id = r.start("feature y");
    r.mj_in(&["handover", "--close"], HANDOVER).ok();
    std::fs::rename(&r.root, env.path().join("uni-moved")).unwrap();
    let moved = at(&env, &env.path().join("uni-moved"));
    let brief = moved.mj_in(&["hook", "claude-code", "start"], &start_payload("mv-1")).ok().stdout;
    assert!(!brief.contains("names another checkout"), "{brief}");
    assert!(brief.contains(&format!("Task {id} (handed_over")), "{brief}");
    assert!(brief.contains("Write the regression test."), "{brief}");
    moved.mj_in(&["hook", "claude-code", "end"], &start_payload("mv-1")).ok();
    // TRIAL #6: resumable in the moved checkout.
    moved.mj(&["start", "--resume", &id]).ok();
    assert!(moved.mj(&["state"]).ok().stdout.contains(&format!("Task: {id} \"feature y\" (active")));

    // A linked worktree moved by git keeps its task too.
    moved.git(&["worktree", "add", "-q", "-b", "w2", "../w2"]);
    let w2 = at(&env, &env.path().join("w2"));
    let id2 = w2.start("in w2");
    moved.git(&["worktree", "move", "../w2", "../w2-moved"]);
    let w2 = at(&env, &env.path().join("w2-moved"));
    let state = w2.mj(&["state"]).ok().stdout;
    assert!(state.contains(&format!("Task: {id2} \"in w2\" (active")), "{state}");
    w2.mj_in(&["handover"], HANDOVER).ok();
    assert!(w2.mj(&["handover", "--resolve"]).ok().stdout.contains("Match: same_worktree_same_branch"));
    // Nothing is listed as removed: both checkouts live.
    assert!(!w2.mj(&["worktree", "list"]).ok().stdout.contains("removed"));
}
