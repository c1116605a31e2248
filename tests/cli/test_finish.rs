//! Tests of `finish`: the contract, the open-question gate (docs/REFERENCE.md#front-matter items 13–14), every outcome.

use crate::common::snap::has_line;
use crate::common::{TestEnv, HANDOVER};

/// Whether `text` has `line` as one whole line.
fn note(r: &crate::common::Repo<'_>, name: &str, body: &str) -> String {
    r.write(name, body);
    r.root.join(name).display().to_string()
}

#[test]
fn item_13_open_question_refuses_completed_and_blocked_is_accepted() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let id = r.start("t");
    r.mj(&["question", "add", "Which callback URL?"]).ok();
    let out = r.mj(&["finish", "--outcome", "completed", "--verify-command", "true"]).code(10);
    insta::assert_snapshot!(out.shown(), @"
    OK contract scope_respected — pass: 0 touched file(s), all inside lib  [reproduce: git majordomus finish --check --outcome completed]
    OK contract verification_ran — pass: `true` exited 0 in [N] s  [reproduce: git majordomus finish --check --outcome completed]
    OK contract state_updated — pass: task record is exact  [reproduce: git majordomus finish --check --outcome completed]
    FAIL contract no_open_blockers — fail: 1 unresolved question(s) refuse completion: Which callback URL?  [reproduce: git majordomus finish --check --outcome completed]
    INFO contract note_present — skipped: no --note given (completed needs none)  [reproduce: git majordomus finish --check --outcome completed]
    --- stderr
    error: finish: refused, 1 unmet
    hint: resolve what the FAIL lines name, or finish with an honest outcome (partial, blocked, no_match, failed)
    --- exit 10
    ");
    assert!(has_line(&r.read(".ai/local/state/current.yaml"), "outcome: active"));
    let n = note(&r, "../note.md", "# Next Action\nAsk ops for the URL.\n");
    let out = r.mj(&["finish", "--outcome", "blocked", "--note", &n]).ok();
    assert!(has_line(&out.stdout, &format!("finished {id}: blocked")), "{}", out.stdout);
    insta::assert_snapshot!(out.shown(), @"
    OK contract scope_respected — pass: 0 touched file(s), all inside lib  [reproduce: git majordomus finish --check --outcome blocked]
    INFO contract verification_ran — skipped: outcome blocked skips verification  [reproduce: git majordomus finish --check --outcome blocked]
    OK contract state_updated — pass: task record is exact  [reproduce: git majordomus finish --check --outcome blocked]
    INFO contract no_open_blockers — skipped: only completed is gated by open questions (1 unresolved)  [reproduce: git majordomus finish --check --outcome blocked]
    OK contract note_present — pass: the note carries Next Action  [reproduce: git majordomus finish --check --outcome blocked]
    finished t-[ID]: blocked
    --- stderr
    --- exit 0
    ");
    assert!(has_line(&r.read(".ai/local/state/current.yaml"), "outcome: blocked"));
    assert_eq!(r.read(&format!(".ai/local/state/completed/{id}.md")), "# Next Action\nAsk ops for the URL.\n");
    let ev = r.ledger().pop().unwrap();
    assert_eq!(ev["event"], "task.finished");
    assert_eq!(ev["outcome"], "blocked");
    assert_eq!(ev["contract"]["no_open_blockers"], "skipped");
    // already finished → 15
    r.mj(&["finish", "--outcome", "failed"]).code(15);
}

#[test]
fn item_14_question_of_task_a_blocks_completion_of_task_b() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("a");
    r.mj(&["question", "add", "Open for A?"]).ok();
    r.mj_in(&["handover", "--close"], HANDOVER).ok();
    r.git(&["checkout", "-q", "-b", "other-branch"]);
    r.start("b");
    insta::assert_snapshot!(r.mj(&["finish", "--outcome", "completed", "--verify-command", "true"]).code(10).shown(), @"
    OK contract scope_respected — pass: 0 touched file(s), all inside lib  [reproduce: git majordomus finish --check --outcome completed]
    OK contract verification_ran — pass: `true` exited 0 in [N] s  [reproduce: git majordomus finish --check --outcome completed]
    OK contract state_updated — pass: task record is exact  [reproduce: git majordomus finish --check --outcome completed]
    FAIL contract no_open_blockers — fail: 1 unresolved question(s) refuse completion: Open for A?  [reproduce: git majordomus finish --check --outcome completed]
    INFO contract note_present — skipped: no --note given (completed needs none)  [reproduce: git majordomus finish --check --outcome completed]
    --- stderr
    error: finish: refused, 1 unmet
    hint: resolve what the FAIL lines name, or finish with an honest outcome (partial, blocked, no_match, failed)
    --- exit 10
    ");
    r.mj(&["question", "resolve", "1", "--answer", "yes"]).ok();
    r.mj(&["finish", "--outcome", "completed", "--verify-command", "true"]).ok();
}

#[test]
fn verify_command_runs_and_its_exit_and_seconds_are_recorded() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("t");
    // the verify command's output goes to stderr
    let out = r.mj(&["finish", "--outcome", "completed", "--verify-command", "echo verifying; exit 3"]).code(10);
    insta::assert_snapshot!(out.shown(), @"
    OK contract scope_respected — pass: 0 touched file(s), all inside lib  [reproduce: git majordomus finish --check --outcome completed]
    FAIL contract verification_ran — fail: `echo verifying; exit 3` exited 3 in [N] s  [reproduce: git majordomus finish --check --outcome completed]
    OK contract state_updated — pass: task record is exact  [reproduce: git majordomus finish --check --outcome completed]
    OK contract no_open_blockers — pass: no unresolved question  [reproduce: git majordomus finish --check --outcome completed]
    INFO contract note_present — skipped: no --note given (completed needs none)  [reproduce: git majordomus finish --check --outcome completed]
    --- stderr
    verifying
    error: finish: refused, 1 unmet
    hint: resolve what the FAIL lines name, or finish with an honest outcome (partial, blocked, no_match, failed)
    --- exit 10
    ");
    let out = r.mj(&["finish", "--outcome", "completed", "--verify-command", "test -f README.md && sleep 1"]).ok();
    insta::assert_snapshot!(out.shown(), @"
    OK contract scope_respected — pass: 0 touched file(s), all inside lib  [reproduce: git majordomus finish --check --outcome completed]
    OK contract verification_ran — pass: `test -f README.md && sleep 1` exited 0 in [N] s  [reproduce: git majordomus finish --check --outcome completed]
    OK contract state_updated — pass: task record is exact  [reproduce: git majordomus finish --check --outcome completed]
    OK contract no_open_blockers — pass: no unresolved question  [reproduce: git majordomus finish --check --outcome completed]
    INFO contract note_present — skipped: no --note given (completed needs none)  [reproduce: git majordomus finish --check --outcome completed]
    finished t-[ID]: completed
    --- stderr
    --- exit 0
    ");
    let ev = r.ledger().pop().unwrap();
    assert_eq!(ev["verify"]["command"], "test -f README.md && sleep 1");
    assert_eq!(ev["verify"]["exit"], 0);
    assert!(ev["verify"]["seconds"].as_u64().unwrap() >= 1, "{ev}");
    for k in ["scope_respected", "verification_ran", "state_updated", "no_open_blockers", "note_present"] {
        assert!(ev["contract"].get(k).is_some(), "{k} missing in {ev}");
    }
    assert_eq!(ev["checkpoints"], 0);
}

#[test]
fn completed_without_verify_command_fails_when_the_profile_requires_one() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("t");
    insta::assert_snapshot!(r.mj(&["finish", "--outcome", "completed"]).code(10).shown(), @"
    OK contract scope_respected — pass: 0 touched file(s), all inside lib  [reproduce: git majordomus finish --check --outcome completed]
    FAIL contract verification_ran — fail: no --verify-command given; profile implementation requires one (true)  [reproduce: git majordomus finish --check --outcome completed]
    OK contract state_updated — pass: task record is exact  [reproduce: git majordomus finish --check --outcome completed]
    OK contract no_open_blockers — pass: no unresolved question  [reproduce: git majordomus finish --check --outcome completed]
    INFO contract note_present — skipped: no --note given (completed needs none)  [reproduce: git majordomus finish --check --outcome completed]
    --- stderr
    error: finish: refused, 1 unmet
    hint: resolve what the FAIL lines name, or finish with an honest outcome (partial, blocked, no_match, failed)
    --- exit 10
    ");
}

#[test]
fn scope_is_enforced_from_touched_files() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("t");
    r.commit_file("elsewhere/x.rs", "x\n");
    insta::assert_snapshot!(r.mj(&["finish", "--outcome", "completed", "--verify-command", "true"]).code(10).shown(), @"
    FAIL contract scope_respected — fail: 1 file(s) outside scope: elsewhere/x.rs  [reproduce: git majordomus finish --check --outcome completed]
    OK contract verification_ran — pass: `true` exited 0 in [N] s  [reproduce: git majordomus finish --check --outcome completed]
    OK contract state_updated — pass: task record is advanced  [reproduce: git majordomus finish --check --outcome completed]
    OK contract no_open_blockers — pass: no unresolved question  [reproduce: git majordomus finish --check --outcome completed]
    INFO contract note_present — skipped: no --note given (completed needs none)  [reproduce: git majordomus finish --check --outcome completed]
    --- stderr
    error: finish: refused, 1 unmet
    hint: resolve what the FAIL lines name, or finish with an honest outcome (partial, blocked, no_match, failed)
    --- exit 10
    ");
}

/// The `.ai/local/` line `init` adds to `.gitignore` is the tool's, not the task's —
/// left uncommitted, or committed after `start` — while any other change to `.gitignore` is
/// still outside the scope.
#[test]
fn the_ignore_line_init_adds_is_not_outside_the_scope() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let finish = |r: &crate::common::Repo<'_>| {
        r.mj(&["finish", "--check", "--outcome", "completed", "--verify-command", "true"])
    };
    // Only `.ai/repo` committed, as a reader who skipped the `next:` line would.
    let r = env.repo("left");
    r.write(".gitignore", "target/\n");
    r.git(&["add", "-A"]);
    r.git(&["commit", "-q", "-m", "first"]);
    r.mj(&["init"]).ok();
    r.git(&["add", ".ai/repo"]);
    r.git(&["commit", "-q", "-m", "layer"]);
    r.start("t");
    r.commit_file("lib/a.rs", "a\n");
    let scope = |out: crate::common::Output| {
        out.stdout.lines().find(|l| l.contains(" scope_respected ")).unwrap_or_default().to_string()
    };
    insta::assert_snapshot!(scope(finish(&r).ok()), @"OK contract scope_respected — pass: 1 touched file(s), all inside lib  [reproduce: git majordomus finish --check --outcome completed]");
    // Committed after the task started: still the tool's line.
    r.git(&["add", ".gitignore"]);
    r.git(&["commit", "-q", "-m", "ignore"]);
    insta::assert_snapshot!(scope(finish(&r).ok()), @"OK contract scope_respected — pass: 1 touched file(s), all inside lib  [reproduce: git majordomus finish --check --outcome completed]");
    // Any other line is the task's change.
    r.write(".gitignore", "target/\n.ai/local/\n*.log\n");
    insta::assert_snapshot!(scope(finish(&r).code(10)), @"FAIL contract scope_respected — fail: 1 file(s) outside scope: .gitignore  [reproduce: git majordomus finish --check --outcome completed]");
}

#[test]
fn partial_needs_next_action_from_note_or_handover_and_reason_for_failed() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("t");
    insta::assert_snapshot!(r.mj(&["finish", "--outcome", "partial"]).code(10).shown(), @"
    OK contract scope_respected — pass: 0 touched file(s), all inside lib  [reproduce: git majordomus finish --check --outcome partial]
    INFO contract verification_ran — skipped: outcome partial skips verification  [reproduce: git majordomus finish --check --outcome partial]
    OK contract state_updated — pass: task record is exact  [reproduce: git majordomus finish --check --outcome partial]
    INFO contract no_open_blockers — skipped: only completed is gated by open questions (0 unresolved)  [reproduce: git majordomus finish --check --outcome partial]
    FAIL contract note_present — fail: outcome partial needs a --note with # Next Action (or a handover naming the task that has it)  [reproduce: git majordomus finish --check --outcome partial]
    --- stderr
    error: finish: refused, 1 unmet
    hint: resolve what the FAIL lines name, or finish with an honest outcome (partial, blocked, no_match, failed)
    --- exit 10
    ");
    r.mj_in(&["handover"], HANDOVER).ok();
    r.mj(&["finish", "--outcome", "partial"]).ok();
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("t");
    let bad = note(&r, "../n1.md", "# Next Action\nnope\n");
    r.mj(&["finish", "--outcome", "failed", "--note", &bad]).code(10);
    let good = note(&r, "../n2.md", "# Reason\nThe API does not exist.\n");
    r.mj(&["finish", "--outcome", "no_match", "--note", &good]).ok();
}

#[test]
fn handed_over_task_can_be_finished_and_check_writes_nothing() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("t");
    r.mj_in(&["handover", "--close"], HANDOVER).ok();
    let before = std::fs::read_to_string(r.state("ledger.jsonl")).unwrap();
    let out = r.mj(&["finish", "--check", "--outcome", "completed", "--verify-command", "true"]).ok();
    insta::assert_snapshot!(out.shown(), @"
    OK contract scope_respected — pass: 0 touched file(s), all inside lib  [reproduce: git majordomus finish --check --outcome completed]
    OK contract verification_ran — pass: `true` exited 0 in [N] s  [reproduce: git majordomus finish --check --outcome completed]
    OK contract state_updated — pass: task record is exact  [reproduce: git majordomus finish --check --outcome completed]
    OK contract no_open_blockers — pass: no unresolved question  [reproduce: git majordomus finish --check --outcome completed]
    INFO contract note_present — skipped: no --note given (completed needs none)  [reproduce: git majordomus finish --check --outcome completed]
    finish --check: t-[ID] would be accepted as completed
    --- stderr
    --- exit 0
    ");
    r.mj(&["question", "add", "q?"]).code(12); // no active task: the task is handed_over
    insta::assert_snapshot!(r.mj(&["finish", "--check", "--outcome", "completed"]).code(10).shown(), @"
    OK contract scope_respected — pass: 0 touched file(s), all inside lib  [reproduce: git majordomus finish --check --outcome completed]
    FAIL contract verification_ran — fail: no --verify-command given; profile implementation requires one (true)  [reproduce: git majordomus finish --check --outcome completed]
    OK contract state_updated — pass: task record is exact  [reproduce: git majordomus finish --check --outcome completed]
    OK contract no_open_blockers — pass: no unresolved question  [reproduce: git majordomus finish --check --outcome completed]
    INFO contract note_present — skipped: no --note given (completed needs none)  [reproduce: git majordomus finish --check --outcome completed]
    finish --check: 1 unmet
    --- stderr
    --- exit 10
    ");
    assert_eq!(std::fs::read_to_string(r.state("ledger.jsonl")).unwrap(), before, "--check writes nothing");
    assert!(has_line(&r.read(".ai/local/state/current.yaml"), "outcome: handed_over"));
    r.mj(&["finish", "--outcome", "completed", "--verify-command", "true"]).ok();
    assert!(has_line(&r.read(".ai/local/state/current.yaml"), "outcome: completed"));
}

#[test]
fn finish_without_task() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.mj(&["finish", "--outcome", "completed"]).code(12);
    assert_eq!(r.mj(&["finish", "--check", "--outcome", "completed"]).ok().stdout, "no active task\n");
    r.mj(&["finish", "--outcome", "bogus"]).code(2);
    r.start("t");
    r.mj(&["finish", "--outcome", "partial", "--note", "/no/such/note.md"]).code(12);
}
