//! Tests of `checkpoint`: docs/REFERENCE.md#store "checkpoint" scenario and docs/REFERENCE.md#front-matter items 8–11.

use std::os::unix::fs::PermissionsExt;

use crate::common::TestEnv;

#[test]
fn checkpoint_scenario() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    // outside a task
    let rel = r.mj_in(&["checkpoint"], "no task yet\n").ok().stdout.trim().to_string();
    assert!(r.read(&rel).contains("task_id: none\n"));
    let ev = r.ledger().pop().unwrap();
    assert_eq!(ev["event"], "task.checkpoint");
    assert!(ev.get("task_id").is_none());
    assert_eq!(ev["checkpoint_path"], rel.as_str());

    let id = r.start("t");
    // empty body
    env.set_now("2026-09-03T20:07:00Z");
    let out = r.mj_in(&["checkpoint"], "").ok();
    assert!(out.stdout.contains("no body"), "{}", out.stdout);
    assert!(r.read(".ai/local/state/current.yaml").contains("checkpoint_at: 2026-09-03T20:07:00Z"));
    assert_eq!(r.records("checkpoints").len(), 1);
    let ev = r.ledger().pop().unwrap();
    assert_eq!(ev["event"], "task.checkpoint");
    assert_eq!(ev["task_id"], id.as_str());
    assert!(ev.get("checkpoint_path").is_none());

    // identity refusal
    let out = r.mj_in(&["checkpoint"], "fine\nhead: abc\n").code(10);
    assert!(out.stderr.contains("computed"));

    // cap 3, 5 lines
    r.write(".ai/repo/policy.yaml", &r.read(".ai/repo/policy.yaml").replace("max_body_lines: 40", "max_body_lines: 3"));
    let out = r.mj_in(&["checkpoint"], "1\n2\n3\n4\n5\n").code(10);
    assert!(out.stderr.contains("is 5 lines, cap 3"), "{}", out.stderr);
    assert!(out.stderr.contains("handover instead"));
    assert_eq!(r.records("checkpoints").len(), 1);

    // success
    let rel = r.mj_in(&["checkpoint"], "progress\n").ok().stdout.trim().to_string();
    assert_eq!(std::fs::metadata(r.root.join(&rel)).unwrap().permissions().mode() & 0o777, 0o600);
    let text = r.read(&rel);
    assert!(text.starts_with(&format!("---\nschema_version: 1\ncreated_at: 2026-09-03T20:07:00Z\ntask_id: {id}\nprofile: implementation\nowner: \"tester\"\nrepository_id: {}/.git\nworktree: {}\nbranch: main\nhead: {}\n", r.root.display(), r.root.display(), r.head())), "{text}");
    assert_eq!(r.git(&["diff", "--cached", "--name-only"]), "");
    assert_eq!(r.ledger().pop().unwrap()["checkpoint_path"], rel.as_str());

    // --show exact then advanced
    let out = r.mj(&["checkpoint", "--show"]).ok();
    assert!(
        out.stdout.starts_with(&format!(
            "Checkpoint: {rel}\nCreated: 2026-09-03T20:07:00Z (0m ago)\nGit state: exact\nOrigin: authored\n---\n"
        )),
        "{}",
        out.stdout
    );
    assert!(out.stdout.ends_with("progress\n"));
    r.commit_file("lib/x", "x\n");
    assert!(r.mj(&["checkpoint", "--show"]).ok().stdout.contains("Git state: advanced"));
    assert_eq!(r.mj(&["checkpoint", "--show", "--path"]).ok().stdout.trim(), rel);

    // --list counts every record
    let list = r.mj(&["checkpoint", "--list"]).ok();
    assert_eq!(list.stdout.lines().count(), 2, "{}", list.stdout);
    assert!(list.stdout.lines().next().unwrap().contains(&rel), "newest first");

    // handed-over task still allows a checkpoint; a new task has none of its own
    r.mj_in(&["handover", "--close"], crate::common::HANDOVER).ok();
    let out = r.mj_in(&["checkpoint"], "after handover\n").ok();
    assert!(r.read(out.stdout.trim()).contains(&format!("task_id: {id}")));
    let id2 = r.start("t2");
    assert_eq!(r.mj(&["checkpoint", "--show"]).ok().stdout, format!("No checkpoint for {id2}.\n"));
}

#[test]
fn item_8_cap_counts_a_final_line_without_newline() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    let forty: String = (1..=40).map(|i| format!("line {i}\n")).collect();
    r.mj_in(&["checkpoint"], &forty).ok();
    let forty_one = format!("{forty}line 41");
    let out = r.mj_in(&["checkpoint"], &forty_one).code(10);
    assert!(out.stderr.contains("cap 40"), "{}", out.stderr);
    assert!(out.stderr.contains("handover"));
    let forty_no_nl = forty.trim_end().to_string();
    r.mj_in(&["checkpoint"], &forty_no_nl).ok();
    assert_eq!(r.records("checkpoints").len(), 2);
}

#[test]
fn derived_checkpoint_without_task_exits_0() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    let rel = r.mj(&["checkpoint", "--derive"]).ok().stdout.trim().to_string();
    let text = r.read(&rel);
    assert!(text.contains(&format!("At {} on main, working tree clean; no active task.", &r.head()[..7])), "{text}");
    r.start("t");
    r.commit_file("lib/a", "a\n");
    let rel = r.mj(&["checkpoint", "--derive"]).ok().stdout.trim().to_string();
    let text = r.read(&rel);
    assert!(text.contains("1 file(s) changed since the task started."), "{text}");
    assert!(text.contains("change lib/a"), "{text}");
}

#[test]
fn no_checkpoint_without_task_says_so() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    assert_eq!(r.mj(&["checkpoint", "--show"]).ok().stdout, "No checkpoint for this worktree and branch.\n");
    assert_eq!(r.mj(&["checkpoint", "--list"]).ok().stdout, "no checkpoint records for this worktree\n");
}

#[test]
fn derived_checkpoint_over_an_unreadable_history_is_an_io_error_not_an_empty_list() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    r.start("t");
    let middle = r.commit_file("lib/a", "a\n");
    r.commit_file("lib/b", "b\n");
    // The local object database loses a commit between the task's start and HEAD.
    std::fs::remove_file(r.root.join(".git/objects").join(&middle[..2]).join(&middle[2..])).unwrap();
    let out = r.mj(&["checkpoint", "--derive"]).code(13);
    assert!(out.stdout.is_empty(), "{}", out.stdout);
    assert!(out.stderr.starts_with("error: git: "), "{}", out.stderr);
    assert!(r.records("checkpoints").is_empty(), "nothing half-written");
}

/// A task's records are written after its `start` (the file name carries the write's stamp), so
/// the task-filtered resolution never reads a file of the branch named more than an hour before
/// the task started — a task without a record of its own used to read every record of the
/// branch (docs/PERFORMANCE.md#what-keeps-costs-flat-as-records-grow). A file named after the start is still read (and warned about).
#[test]
fn the_task_filter_reads_no_file_named_before_the_task_started() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    let bad = "---\nschema_version: 1\nhead: [\n---\nbody\n";
    r.write(".ai/local/state/checkpoints/20260903T100000Z--main--NONE--0123456789abcdef.md", bad);
    env.set_now("2026-09-03T12:00:00Z");
    r.start("Fix it");
    let show = r.mj(&["checkpoint", "--show"]);
    assert!(!show.stderr.contains("20260903T100000Z"), "{}", show.stderr);
    // The explain trace says why the old file was not read.
    let explain = r.mj(&["--json", "explain"]).ok().stdout;
    assert!(explain.contains("written before task"), "{explain}");
    // Within the hour before the start (a clock set back) and after it, files are read.
    for stamp in ["20260903T113000Z", "20260903T120001Z"] {
        r.write(&format!(".ai/local/state/checkpoints/{stamp}--main--NONE--0123456789abcdef.md"), bad);
        let show = r.mj(&["checkpoint", "--show"]);
        assert!(show.stderr.contains(&format!("skipped .ai/local/state/checkpoints/{stamp}")), "{}", show.stderr);
    }
}
