//! Tests of `finish`: the contract, the open-question gate (docs/REFERENCE.md#front-matter items 13–14), every outcome.

use crate::common::{TestEnv, HANDOVER};

fn note(r: &crate::common::Repo<'_>, name: &str, body: &str) -> String {
    r.write(name, body);
    r.root.join(name).display().to_string()
}

#[test]
fn item_13_open_question_refuses_completed_and_blocked_is_accepted() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    let id = r.start("t");
    r.mj(&["question", "add", "Which callback URL?"]).ok();
    let out = r.mj(&["finish", "--outcome", "completed", "--verify-command", "true"]).code(10);
    assert!(out.stdout.contains("FAIL contract no_open_blockers"), "{}", out.stdout);
    assert!(out.stderr.contains("finish: refused, 1 unmet"), "{}", out.stderr);
    assert!(r.read(".ai/local/state/current.yaml").contains("outcome: active"));
    let n = note(&r, "../note.md", "# Next Action\nAsk ops for the URL.\n");
    let out = r.mj(&["finish", "--outcome", "blocked", "--note", &n]).ok();
    assert!(out.stdout.contains(&format!("finished {id}: blocked")), "{}", out.stdout);
    assert!(r.read(".ai/local/state/current.yaml").contains("outcome: blocked"));
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
    let r = env.ready_repo("r");
    r.start("a");
    r.mj(&["question", "add", "Open for A?"]).ok();
    r.mj_in(&["handover", "--close"], HANDOVER).ok();
    r.git(&["checkout", "-q", "-b", "other-branch"]);
    r.start("b");
    let out = r.mj(&["finish", "--outcome", "completed", "--verify-command", "true"]).code(10);
    assert!(out.stdout.contains("Open for A?"), "{}", out.stdout);
    r.mj(&["question", "resolve", "1", "--answer", "yes"]).ok();
    r.mj(&["finish", "--outcome", "completed", "--verify-command", "true"]).ok();
}

#[test]
fn verify_command_runs_and_its_exit_and_seconds_are_recorded() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    r.start("t");
    let out = r.mj(&["finish", "--outcome", "completed", "--verify-command", "echo verifying; exit 3"]).code(10);
    assert!(
        out.stdout.contains("FAIL contract verification_ran — fail: `echo verifying; exit 3` exited 3"),
        "{}",
        out.stdout
    );
    assert!(out.stderr.contains("verifying"), "verify output goes to stderr: {}", out.stderr);
    assert!(!out.stdout.contains("verifying\n"));
    let out = r.mj(&["finish", "--outcome", "completed", "--verify-command", "test -f README.md && sleep 1"]).ok();
    assert!(out.stdout.contains("OK contract verification_ran"));
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
    let r = env.ready_repo("r");
    r.start("t");
    let out = r.mj(&["finish", "--outcome", "completed"]).code(10);
    assert!(out.stdout.contains("no --verify-command given; profile implementation requires one"), "{}", out.stdout);
}

#[test]
fn scope_is_enforced_from_touched_files() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    r.start("t");
    r.commit_file("elsewhere/x.rs", "x\n");
    let out = r.mj(&["finish", "--outcome", "completed", "--verify-command", "true"]).code(10);
    assert!(
        out.stdout.contains("FAIL contract scope_respected — fail: 1 file(s) outside scope: elsewhere/x.rs"),
        "{}",
        out.stdout
    );
}

/// TRIAL #12: the `.ai/local/` line `init` adds to `.gitignore` is the tool's, not the task's —
/// left uncommitted, or committed after `start` — while any other change to `.gitignore` is
/// still outside the scope.
#[test]
fn the_ignore_line_init_adds_is_not_outside_the_scope() {
    let env = TestEnv::new();
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
    let out = finish(&r).ok();
    assert!(
        out.stdout.contains("OK contract scope_respected — pass: 1 touched file(s), all inside lib"),
        "{}",
        out.stdout
    );
    // Committed after the task started: still the tool's line.
    r.git(&["add", ".gitignore"]);
    r.git(&["commit", "-q", "-m", "ignore"]);
    assert!(finish(&r).ok().stdout.contains("OK contract scope_respected"));
    // Any other line is the task's change.
    r.write(".gitignore", "target/\n.ai/local/\n*.log\n");
    let out = finish(&r).code(10);
    assert!(
        out.stdout.contains("FAIL contract scope_respected — fail: 1 file(s) outside scope: .gitignore"),
        "{}",
        out.stdout
    );
}

#[test]
fn partial_needs_next_action_from_note_or_handover_and_reason_for_failed() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    r.start("t");
    let out = r.mj(&["finish", "--outcome", "partial"]).code(10);
    assert!(out.stdout.contains("FAIL contract note_present"), "{}", out.stdout);
    r.mj_in(&["handover"], HANDOVER).ok();
    r.mj(&["finish", "--outcome", "partial"]).ok();
    let env = TestEnv::new();
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
    let r = env.ready_repo("r");
    r.start("t");
    r.mj_in(&["handover", "--close"], HANDOVER).ok();
    let before = std::fs::read_to_string(r.state("ledger.jsonl")).unwrap();
    let out = r.mj(&["finish", "--check", "--outcome", "completed", "--verify-command", "true"]).ok();
    assert!(out.stdout.contains("would be accepted as completed"), "{}", out.stdout);
    r.mj(&["question", "add", "q?"]).code(12); // no active task: the task is handed_over
    let out = r.mj(&["finish", "--check", "--outcome", "completed"]).code(10);
    assert!(out.stdout.contains("unmet"));
    assert_eq!(std::fs::read_to_string(r.state("ledger.jsonl")).unwrap(), before, "--check writes nothing");
    assert!(r.read(".ai/local/state/current.yaml").contains("outcome: handed_over"));
    r.mj(&["finish", "--outcome", "completed", "--verify-command", "true"]).ok();
    assert!(r.read(".ai/local/state/current.yaml").contains("outcome: completed"));
}

#[test]
fn finish_without_task() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    r.mj(&["finish", "--outcome", "completed"]).code(12);
    assert_eq!(r.mj(&["finish", "--check", "--outcome", "completed"]).ok().stdout, "no active task\n");
    r.mj(&["finish", "--outcome", "bogus"]).code(2);
    r.start("t");
    r.mj(&["finish", "--outcome", "partial", "--note", "/no/such/note.md"]).code(12);
}
