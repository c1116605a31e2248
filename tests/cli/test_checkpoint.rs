//! Tests of `checkpoint`: docs/REFERENCE.md#store "checkpoint" scenario and docs/REFERENCE.md#front-matter items 8–11.

use std::os::unix::fs::PermissionsExt;

use crate::common::TestEnv;

#[test]
fn checkpoint_scenario() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    // outside a task
    let rel = r.mj_in(&["checkpoint"], "no task yet\n").ok().stdout.trim().to_string();
    assert!(r.read(&rel).lines().any(|l| l == "task_id: none"), "{}", r.read(&rel));
    let ev = r.ledger().pop().unwrap();
    assert_eq!(ev["event"], "task.checkpoint");
    assert!(ev.get("task_id").is_none());
    assert_eq!(ev["checkpoint_path"], rel.as_str());

    let id = r.start("t");
    // empty body
    env.set_now("2026-09-03T20:07:00Z");
    insta::assert_snapshot!(r.mj_in(&["checkpoint"], "").ok().shown(), @"
    checkpoint: no body; checkpoint_at of t-[ID] updated
    --- stderr
    --- exit 0
    ");
    assert!(r.read(".ai/local/state/current.yaml").lines().any(|l| l == "checkpoint_at: 2026-09-03T20:07:00Z"));
    assert_eq!(r.records("checkpoints").len(), 1);
    let ev = r.ledger().pop().unwrap();
    assert_eq!(ev["event"], "task.checkpoint");
    assert_eq!(ev["task_id"], id.as_str());
    assert!(ev.get("checkpoint_path").is_none());

    // identity refusal
    insta::assert_snapshot!(r.mj_in(&["checkpoint"], "fine\nhead: abc\n").code(10).shown(), @"
    --- stderr
    error: checkpoint: the body sets `head:`, a field computed from git and the clock at write time
    hint: remove the `head:` line; identity fields are never authored
    --- exit 10
    ");

    // cap 3, 5 lines
    r.write(".ai/repo/policy.yaml", &r.read(".ai/repo/policy.yaml").replace("max_body_lines: 40", "max_body_lines: 3"));
    insta::assert_snapshot!(r.mj_in(&["checkpoint"], "1\n2\n3\n4\n5\n").code(10).shown(), @"
    --- stderr
    error: checkpoint: body is 5 lines, cap 3 (checkpoint.max_body_lines); write a handover instead
    hint: a checkpoint is a short progress note; git majordomus handover takes the longer package
    --- exit 10
    ");
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
    insta::assert_snapshot!(r.mj(&["checkpoint", "--show"]).ok().stdout, @"
    Checkpoint: .ai/local/state/checkpoints/20260903T200700Z--main--[HEX]--[HEX].md
    Created: 2026-09-03T20:07:00Z (0m ago)
    Git state: advanced
    Origin: authored
    ---
    progress
    ");
    assert_eq!(r.mj(&["checkpoint", "--show", "--path"]).ok().stdout.trim(), rel);

    // --list counts every record
    let list = r.mj(&["checkpoint", "--list"]).ok();
    assert_eq!(list.stdout.lines().count(), 2, "{}", list.stdout);
    assert!(list.first_line().ends_with(&format!("  {rel}")), "newest first: {}", list.stdout);
    insta::assert_snapshot!(list.stdout, @"
    2026-09-03T20:07:00Z  t-[ID]    advanced           .ai/local/state/checkpoints/20260903T200700Z--main--[HEX]--[HEX].md
    2026-09-03T20:00:00Z  none                     advanced           .ai/local/state/checkpoints/20260903T200000Z--main--[HEX]--[HEX].md
    ");

    // handed-over task still allows a checkpoint; a new task has none of its own
    r.mj_in(&["handover", "--close"], crate::common::HANDOVER).ok();
    let out = r.mj_in(&["checkpoint"], "after handover\n").ok();
    assert!(r.read(out.stdout.trim()).lines().any(|l| l == format!("task_id: {id}")));
    let id2 = r.start("t2");
    assert_eq!(r.mj(&["checkpoint", "--show"]).ok().stdout, format!("No checkpoint for {id2}.\n"));
}

#[test]
fn item_8_cap_counts_a_final_line_without_newline() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let forty: String = (1..=40).map(|i| format!("line {i}\n")).collect();
    r.mj_in(&["checkpoint"], &forty).ok();
    let forty_one = format!("{forty}line 41");
    insta::assert_snapshot!(r.mj_in(&["checkpoint"], &forty_one).code(10).shown(), @"
    --- stderr
    error: checkpoint: body is 41 lines, cap 40 (checkpoint.max_body_lines); write a handover instead
    hint: a checkpoint is a short progress note; git majordomus handover takes the longer package
    --- exit 10
    ");
    let forty_no_nl = forty.trim_end().to_string();
    r.mj_in(&["checkpoint"], &forty_no_nl).ok();
    assert_eq!(r.records("checkpoints").len(), 2);
}

#[test]
fn derived_checkpoint_without_task_exits_0() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let rel = r.mj(&["checkpoint", "--derive"]).ok().stdout.trim().to_string();
    let text = r.read(&rel);
    assert!(text.contains(&format!("At {} on main, ", &r.head()[..7])), "{text}");
    insta::assert_snapshot!(text, @r#"
    ---
    schema_version: 1
    created_at: 2026-09-03T20:00:00Z
    task_id: none
    profile: none
    owner: "tester"
    repository_id: [TMP]/r/.git
    worktree: [TMP]/r
    branch: main
    head: [HEX]
    working_tree: clean
    changed_files: []
    changed_total: 0
    origin: derived
    session: none
    ---

    At [HEX] on main, working tree clean; no active task.
    Open questions: 0 unresolved.
    Derived by git-majordomus from its records and git; no model wrote it.
    "#);
    r.start("t");
    r.commit_file("lib/a", "a\n");
    let rel = r.mj(&["checkpoint", "--derive"]).ok().stdout.trim().to_string();
    insta::assert_snapshot!(r.read(&rel), @r#"
    ---
    schema_version: 1
    created_at: 2026-09-03T20:00:00Z
    task_id: t-[ID]
    profile: implementation
    owner: "tester"
    repository_id: [TMP]/r/.git
    worktree: [TMP]/r
    branch: main
    head: [HEX]
    working_tree: clean
    changed_files: []
    changed_total: 0
    origin: derived
    session: none
    ---

    At [HEX] on main, working tree clean; 1 file(s) changed since the task started.
    - [HEX] change lib/a
    Open questions: 0 unresolved.
    Derived by git-majordomus from its records and git; no model wrote it.
    "#);
}

#[test]
fn no_checkpoint_without_task_says_so() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    assert_eq!(r.mj(&["checkpoint", "--show"]).ok().stdout, "No checkpoint for this worktree and branch.\n");
    assert_eq!(r.mj(&["checkpoint", "--list"]).ok().stdout, "no checkpoint records for this worktree\n");
}

#[test]
fn derived_checkpoint_over_an_unreadable_history_is_an_io_error_not_an_empty_list() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("t");
    let middle = r.commit_file("lib/a", "a\n");
    r.commit_file("lib/b", "b\n");
    // The local object database loses a commit between the task's start and HEAD.
    std::fs::remove_file(r.root.join(".git/objects").join(&middle[..2]).join(&middle[2..])).unwrap();
    insta::assert_snapshot!(r.mj(&["checkpoint", "--derive"]).code(13).shown(), @"
    --- stderr
    error: git: An object with id [HEX] could not be found
    --- exit 13
    ");
    assert!(r.records("checkpoints").is_empty(), "nothing half-written");
}

/// A task's records are written after its `start` (the file name carries the write's stamp), so
/// the task-filtered resolution never reads a file of the branch named more than an hour before
/// the task started — a task without a record of its own used to read every record of the
/// branch (docs/PERFORMANCE.md#what-keeps-costs-flat-as-records-grow). A file named after the start is still read (and warned about).
#[test]
fn the_task_filter_reads_no_file_named_before_the_task_started() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let bad = "---\nschema_version: 1\nhead: [\n---\nbody\n";
    r.write(".ai/local/state/checkpoints/20260903T100000Z--main--NONE--0123456789abcdef.md", bad);
    env.set_now("2026-09-03T12:00:00Z");
    r.start("Fix it");
    insta::assert_snapshot!(r.mj(&["checkpoint", "--show"]).ok().shown(), @"
    No checkpoint for t-[ID].
    --- stderr
    --- exit 0
    ");
    // The explain trace says why the old file was not read.
    let explain = r.mj(&["--json", "explain"]).ok().stdout;
    assert!(explain.contains("written before task"), "{explain}");
    // Within the hour before the start (a clock set back) and after it, files are read.
    let mut said = String::new();
    for stamp in ["20260903T113000Z", "20260903T120001Z"] {
        r.write(&format!(".ai/local/state/checkpoints/{stamp}--main--NONE--0123456789abcdef.md"), bad);
        said.push_str(&r.mj(&["checkpoint", "--show"]).shown());
    }
    insta::assert_snapshot!(said, @"
    No checkpoint for t-[ID].
    --- stderr
    warning: skipped .ai/local/state/checkpoints/20260903T113000Z--main--NONE--[HEX].md: malformed front matter
    --- exit 0
    No checkpoint for t-[ID].
    --- stderr
    warning: skipped .ai/local/state/checkpoints/20260903T120001Z--main--NONE--[HEX].md: malformed front matter
    warning: skipped .ai/local/state/checkpoints/20260903T113000Z--main--NONE--[HEX].md: malformed front matter
    --- exit 0
    ");
}
