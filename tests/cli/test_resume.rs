//! Tests of `start --resume <task-id>` (docs/REFERENCE.md#task; TRIAL #4, #13): a
//! handed-over task, current or archived, comes back active under its own id.

use crate::common::{Output, Repo, TestEnv, HANDOVER};

const ACTIVE_HINT: &str = "hint: run git majordomus handover --close or git majordomus finish first";

/// The `task.resumed` lines of the ledger.
fn resumed(r: &Repo<'_>) -> Vec<serde_json::Value> {
    r.ledger().into_iter().filter(|l| l["event"] == "task.resumed").collect()
}

/// The `id:` and `outcome:` of `current.yaml`.
fn current(r: &Repo<'_>) -> (String, String) {
    let text = r.read(".ai/local/state/current.yaml");
    let key = |k: &str| {
        text.lines().find_map(|l| l.strip_prefix(k)).map(|v| v.trim().trim_matches('"').to_string()).unwrap_or_default()
    };
    (key("id:"), key("outcome:"))
}

#[track_caller]
fn assert_resumed(out: &Output, id: &str) {
    let first = out.first_line();
    assert!(first.starts_with(&format!("resumed {id}  profile=")), "{}", out.stdout);
    assert!(first.contains("  scope=lib"), "{first}");
    assert!(out.stdout.lines().any(|l| l.starts_with("next: ")), "{}", out.stdout);
}

#[test]
fn a_handed_over_task_comes_back_active_under_its_id_and_check_enforces_its_scope_again() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    let id = r.start("scoped work");
    r.mj_in(&["handover", "--close"], HANDOVER).ok();
    r.write("README.outside", "oops\n");
    // Handed over: the scope rule applies to active tasks only (TRIAL #4).
    r.mj(&["check"]).ok();

    let out = r.mj(&["start", "--resume", &id]).ok();
    assert_resumed(&out, &id);
    assert!(out.first_line().ends_with("was=handed_over"), "{}", out.stdout);
    assert!(out.stdout.contains("INFO handover .ai/local/state/handovers/"), "its handover is named: {}", out.stdout);
    assert_eq!(current(&r), (id.clone(), "active".into()));
    let ev = resumed(&r);
    assert_eq!(ev.len(), 1, "{ev:?}");
    assert_eq!(ev[0]["task_id"], id.as_str());
    assert_eq!(ev[0]["previous_outcome"], "handed_over");
    assert_eq!(ev[0]["from"], "current");
    assert_eq!(r.ledger().last().unwrap()["event"], "task.resumed");

    let out = r.mj(&["check"]).code(10);
    assert!(out.stdout.contains("FAIL scope README.outside"), "{}", out.stdout);
    // The ledger agrees with the record: no drift for a resumed task.
    let out = r.mj(&["watch"]).all();
    assert!(!out.contains("DRIFT"), "{out}");
    let out = r.mj(&["history", "--event", "task.resumed"]).ok();
    assert!(out.stdout.contains("was=handed_over from=current"), "{}", out.stdout);
}

#[test]
fn an_archived_task_comes_back_and_the_current_one_is_archived() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    let one = r.start("one");
    r.mj_in(&["handover", "--close"], HANDOVER).ok();
    let two = r.start("two");
    assert!(r.exists(&format!(".ai/local/state/archive/{one}.yaml")));
    // The current task must not be active.
    let out = r.mj(&["start", "--resume", &one]).code(15);
    assert!(out.stderr.contains(&format!("error: task {two} is active ('two')")), "{}", out.stderr);
    assert!(out.stderr.contains(ACTIVE_HINT), "{}", out.stderr);
    r.mj_in(&["handover", "--close"], HANDOVER).ok();

    let out = r.mj(&["start", "--resume", &one]).ok();
    assert_resumed(&out, &one);
    assert!(out.stderr.contains(&format!("archived {two} to .ai/local/state/archive/{two}.yaml")), "{}", out.stderr);
    assert_eq!(current(&r), (one.clone(), "active".into()));
    assert!(!r.exists(&format!(".ai/local/state/archive/{one}.yaml")), "the archive moved back");
    assert!(r.read(&format!(".ai/local/state/archive/{two}.yaml")).contains("outcome: handed_over"));
    let ev = resumed(&r);
    assert_eq!(ev[0]["from"], "archive");
    assert_eq!(ev[0]["task_id"], one.as_str());

    // And back again: `two` returns from the archive once `one` is handed over.
    r.mj_in(&["handover", "--close"], HANDOVER).ok();
    assert_resumed(&r.mj(&["start", "--resume", &two]).ok(), &two);
    assert_eq!(current(&r), (two, "active".into()));
    assert!(r.exists(&format!(".ai/local/state/archive/{one}.yaml")));
}

#[test]
fn refused_over_an_active_task_with_the_hint_naming_handover_close() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    let id = r.start("one");
    let out = r.mj(&["start", "--resume", &id]).code(15);
    assert!(
        out.stderr.contains(&format!("error: task {id} is already active ('one'); nothing to resume")),
        "{}",
        out.stderr
    );
    // A plain handover leaves the task active (TRIAL #13): still refused, with the hint.
    r.mj_in(&["handover"], HANDOVER).ok();
    r.mj_in(&["handover", "--close"], HANDOVER).ok();
    let other = r.start("two");
    let out = r.mj(&["start", "--resume", &id]).code(15);
    assert!(out.stderr.contains(ACTIVE_HINT), "{}", out.stderr);
    assert!(!out.stderr.contains(&id), "the refusal names the active task, not the one asked for: {}", out.stderr);
    assert!(out.stderr.contains(&other));
    assert!(resumed(&r).is_empty());
    assert_eq!(current(&r), (other, "active".into()));
}

#[test]
fn start_over_an_active_task_names_handover_close() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    let id = r.start("one");
    let out = r.mj(&["start", "two", "--scope", "lib"]).code(15);
    assert!(out.stderr.contains(&format!("error: task {id} is active ('one')\n")), "{}", out.stderr);
    assert!(out.stderr.contains(ACTIVE_HINT), "{}", out.stderr);
    // What the hint says works: a plain handover does not, --close does.
    r.mj_in(&["handover"], HANDOVER).ok();
    r.mj(&["start", "two", "--scope", "lib"]).code(15);
    r.mj_in(&["handover", "--close"], HANDOVER).ok();
    r.mj(&["start", "two", "--scope", "lib"]).ok();
}

#[test]
fn a_completed_task_is_refused_with_15() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    let id = r.start("one");
    r.mj(&["finish", "--outcome", "completed", "--verify-command", "true"]).ok();
    let out = r.mj(&["start", "--resume", &id]).code(15);
    assert!(
        out.stderr.contains(&format!("error: task {id} is finished (outcome completed); it cannot be resumed")),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("hint: start a new task"), "{}", out.stderr);
    assert_eq!(current(&r), (id.clone(), "completed".into()));
    // Archived, it is refused the same way.
    r.start("two");
    r.mj_in(&["handover", "--close"], HANDOVER).ok();
    r.mj(&["start", "--resume", &id]).code(15);
    assert!(resumed(&r).is_empty());
}

#[test]
fn a_blocked_task_comes_back_with_its_questions_and_the_ledger_shows_no_drift() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    let id = r.start("one");
    r.mj(&["question", "add", "Which callback URL?"]).ok();
    r.write("../note.md", "# Next Action\nAsk ops for the URL.\n");
    let note = r.root.join("../note.md").display().to_string();
    r.mj(&["finish", "--outcome", "blocked", "--note", &note]).ok();

    let out = r.mj(&["start", "--resume", &id]).ok();
    assert_resumed(&out, &id);
    assert!(out.first_line().ends_with("was=blocked"), "{}", out.stdout);
    assert!(
        out.stdout.contains(&format!("INFO blockers {id} — 1 unresolved question(s) of this task")),
        "{}",
        out.stdout
    );
    let out = r.mj(&["watch"]).ok();
    assert!(!out.stdout.contains("DRIFT"), "the finish before the resume is not the task's state: {}", out.stdout);
    // Its question still refuses completion; answered, the task finishes again.
    let out = r.mj(&["finish", "--outcome", "completed", "--verify-command", "true"]).code(10);
    assert!(out.stdout.contains("FAIL contract no_open_blockers"), "{}", out.stdout);
    r.mj(&["question", "resolve", "1", "--answer", "https://example.com/cb"]).ok();
    r.mj(&["finish", "--outcome", "completed", "--verify-command", "true"]).ok();
    assert_eq!(current(&r), (id, "completed".into()));
    let out = r.mj(&["watch"]).ok();
    assert!(out.stdout.contains("OK verification"), "the new finish backs the outcome: {}", out.stdout);
}

#[test]
fn an_unknown_id_is_12_and_a_malformed_one_is_2() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    let out = r.mj(&["start", "--resume", "t-20260101000000-abcd"]).code(12);
    assert!(out.stderr.contains("error: no task t-20260101000000-abcd in this checkout"), "{}", out.stderr);
    let id = r.start("one");
    r.mj_in(&["handover", "--close"], HANDOVER).ok();
    r.mj(&["start", "--resume", "t-20260101000000-abcd"]).code(12);
    let out = r.mj(&["start", "--resume", "../current"]).code(2);
    assert!(out.stderr.contains("is not a task id"), "{}", out.stderr);
    assert_eq!(current(&r), (id, "handed_over".into()));
}

#[test]
fn resume_takes_no_task_text_scope_profile_or_owner() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    let id = r.start("one");
    r.mj_in(&["handover", "--close"], HANDOVER).ok();
    for args in [
        vec!["start", "--resume", &id, "new text"],
        vec!["start", "--resume", &id, "--scope", "lib"],
        vec!["start", "--resume", &id, "--profile", "debugging"],
        vec!["start", "--resume", &id, "--owner", "bob"],
    ] {
        let out = r.mj(&args).code(2);
        assert!(out.stderr.contains("cannot be used with"), "{args:?}: {}", out.stderr);
    }
    // Without --resume the task text is still required.
    r.mj(&["start", "--scope", "lib"]).code(2);
    assert!(resumed(&r).is_empty());
    assert_eq!(current(&r), (id, "handed_over".into()));
}
