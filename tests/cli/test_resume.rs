//! Tests of `start --resume <task-id>` (docs/REFERENCE.md#task): a handed-over task, current or
//! archived, comes back active under its own id.

use crate::common::snap::named;
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

/// `text` with each `(name, id)` pair's id replaced by `[name]`, so a snapshot still says which
/// task it names.
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
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let id = r.start("scoped work");
    r.mj_in(&["handover", "--close"], HANDOVER).ok();
    r.write("README.outside", "oops\n");
    // Handed over: the scope rule applies to active tasks only.
    r.mj(&["check"]).ok();

    // Its handover is named.
    let out = r.mj(&["start", "--resume", &id]).ok();
    assert_resumed(&out, &id);
    insta::assert_snapshot!(named(&out.shown(), &[("ID", &id)]), @"
    resumed [ID]  profile=implementation  scope=lib  was=handed_over
    INFO handover .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md — its handover, same_worktree_same_branch, exact, 0m ago  [reproduce: git majordomus handover --resolve]
    next: git majordomus handover --resolve, then git majordomus context
    --- stderr
    --- exit 0
    ");
    assert_eq!(current(&r), (id.clone(), "active".into()));
    let ev = resumed(&r);
    assert_eq!(ev.len(), 1, "{ev:?}");
    assert_eq!(ev[0]["task_id"], id.as_str());
    assert_eq!(ev[0]["previous_outcome"], "handed_over");
    assert_eq!(ev[0]["from"], "current");
    assert_eq!(r.ledger().last().unwrap()["event"], "task.resumed");

    let out = r.mj(&["check"]).code(10);
    let fails: Vec<&str> = out.stdout.lines().filter(|l| l.starts_with("FAIL ")).collect();
    insta::assert_snapshot!(fails.join("\n"), @"FAIL scope README.outside — touched since the task started, outside its scope (lib)  [reproduce: git diff --name-only [HEX]; git status --porcelain]");
    // The ledger agrees with the record: no drift for a resumed task.
    let out = r.mj(&["watch"]);
    insta::assert_snapshot!(named(&out.shown(), &[("ID", &id)]), @r#"
    OK task [ID] — "scoped work" (active, profile implementation, scope lib)  [reproduce: cat .ai/local/state/current.yaml]
    OK state [ID] — task record exact (recorded head [HEX] on main)  [reproduce: git majordomus context]
    OK state [ID] — outcome active; the ledger has not finished it  [reproduce: git majordomus history --task [ID] --all]
    OK checkpoint [ID] — last checkpoint 0m ago, interval 15m (profile implementation)  [reproduce: grep checkpoint_at .ai/local/state/current.yaml]
    OK questions .ai/local/state/open-questions.md — no question store yet  [reproduce: git majordomus question list]
    OK decisions .ai/local/state/decisions.md — no decision log yet  [reproduce: git majordomus decision list]
    OK ledger .ai/local/state/ledger.jsonl — 3 line(s), all valid  [reproduce: git majordomus history --validate]
    OK retention .ai/local/state/ledger.jsonl — ledger 3 lines, cap 50000  [reproduce: wc -l .ai/local/state/ledger.jsonl]
    OK retention .ai/local/state/handovers — handovers 1 files, cap 200  [reproduce: git majordomus handover --list]
    OK retention .ai/local/state/checkpoints — checkpoints 0 files, cap 500  [reproduce: git majordomus checkpoint --list]
    [OK|WARN] budget watch — ran in [N] ms, budget 300 ms (benchmark.budget.watch_ms)  [reproduce: time git majordomus watch]
    --- stderr
    --- exit 0
    "#);
    let out = r.mj(&["history", "--event", "task.resumed"]).ok();
    insta::assert_snapshot!(named(&out.shown(), &[("ID", &id)]), @"
    2026-09-03T20:00:00Z  task.resumed        [ID]  [HEX]  was=handed_over from=current
    --- stderr
    --- exit 0
    ");
}

#[test]
fn an_archived_task_comes_back_and_the_current_one_is_archived() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let one = r.start("one");
    r.mj_in(&["handover", "--close"], HANDOVER).ok();
    let two = r.start("two");
    assert!(r.exists(&format!(".ai/local/state/archive/{one}.yaml")));
    // The current task must not be active.
    let ids = [("ONE", one.as_str()), ("TWO", two.as_str())];
    let out = r.mj(&["start", "--resume", &one]).code(15);
    insta::assert_snapshot!(named(&out.shown(), &ids), @"
    --- stderr
    error: task [TWO] is active ('two')
    hint: run git majordomus handover --close or git majordomus finish first
    --- exit 15
    ");
    r.mj_in(&["handover", "--close"], HANDOVER).ok();

    let out = r.mj(&["start", "--resume", &one]).ok();
    assert_resumed(&out, &one);
    insta::assert_snapshot!(named(&out.shown(), &ids), @"
    resumed [ONE]  profile=implementation  scope=lib  was=handed_over
    INFO handover .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md — its handover, same_worktree_same_branch, exact, 0m ago  [reproduce: git majordomus handover --resolve]
    next: git majordomus handover --resolve, then git majordomus context
    --- stderr
    archived [TWO] to .ai/local/state/archive/[TWO].yaml
    --- exit 0
    ");
    assert_eq!(current(&r), (one.clone(), "active".into()));
    assert!(!r.exists(&format!(".ai/local/state/archive/{one}.yaml")), "the archive moved back");
    let archived = r.read(&format!(".ai/local/state/archive/{two}.yaml"));
    assert!(archived.lines().any(|l| l == "outcome: handed_over"), "{archived}");
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
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let id = r.start("one");
    let out = r.mj(&["start", "--resume", &id]).code(15);
    insta::assert_snapshot!(named(&out.shown(), &[("ID", &id)]), @"
    --- stderr
    error: task [ID] is already active ('one'); nothing to resume
    hint: carry on with it: git majordomus context
    --- exit 15
    ");
    // A plain handover leaves the task active: still refused, with the hint.
    r.mj_in(&["handover"], HANDOVER).ok();
    r.mj_in(&["handover", "--close"], HANDOVER).ok();
    let other = r.start("two");
    // The refusal names the active task, not the one asked for.
    let out = r.mj(&["start", "--resume", &id]).code(15);
    insta::assert_snapshot!(named(&out.shown(), &[("ID", &id), ("OTHER", &other)]), @"
    --- stderr
    error: task [OTHER] is active ('two')
    hint: run git majordomus handover --close or git majordomus finish first
    --- exit 15
    ");
    assert!(resumed(&r).is_empty());
    assert_eq!(current(&r), (other, "active".into()));
}

#[test]
fn start_over_an_active_task_names_handover_close() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    let id = r.start("one");
    let out = r.mj(&["start", "two", "--scope", "lib"]).code(15);
    assert_eq!(out.stderr, format!("error: task {id} is active ('one')\n{ACTIVE_HINT}\n"));
    // What the hint says works: a plain handover does not, --close does.
    r.mj_in(&["handover"], HANDOVER).ok();
    r.mj(&["start", "two", "--scope", "lib"]).code(15);
    r.mj_in(&["handover", "--close"], HANDOVER).ok();
    r.mj(&["start", "two", "--scope", "lib"]).ok();
}

#[test]
fn a_completed_task_is_refused_with_15() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let id = r.start("one");
    r.mj(&["finish", "--outcome", "completed", "--verify-command", "true"]).ok();
    let out = r.mj(&["start", "--resume", &id]).code(15);
    insta::assert_snapshot!(named(&out.shown(), &[("ID", &id)]), @r#"
    --- stderr
    error: task [ID] is finished (outcome completed); it cannot be resumed
    hint: start a new task: git majordomus start "<task>" --scope <path>
    --- exit 15
    "#);
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
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let id = r.start("one");
    r.mj(&["question", "add", "Which callback URL?"]).ok();
    r.write("../note.md", "# Next Action\nAsk ops for the URL.\n");
    let note = r.root.join("../note.md").display().to_string();
    r.mj(&["finish", "--outcome", "blocked", "--note", &note]).ok();

    let out = r.mj(&["start", "--resume", &id]).ok();
    assert_resumed(&out, &id);
    insta::assert_snapshot!(named(&out.shown(), &[("ID", &id)]), @"
    resumed [ID]  profile=implementation  scope=lib  was=blocked
    INFO blockers [ID] — 1 unresolved question(s) of this task; each refuses finish --outcome completed  [reproduce: git majordomus question list]
    next: git majordomus handover --resolve, then git majordomus context
    --- stderr
    --- exit 0
    ");
    // The finish before the resume is not the task's state: no drift.
    let out = r.mj(&["watch"]).ok();
    insta::assert_snapshot!(named(&out.shown(), &[("ID", &id)]), @r#"
    OK task [ID] — "one" (active, profile implementation, scope lib)  [reproduce: cat .ai/local/state/current.yaml]
    OK state [ID] — task record exact (recorded head [HEX] on main)  [reproduce: git majordomus context]
    OK state [ID] — outcome active; the ledger has not finished it  [reproduce: git majordomus history --task [ID] --all]
    OK checkpoint [ID] — last checkpoint 0m ago, interval 15m (profile implementation)  [reproduce: grep checkpoint_at .ai/local/state/current.yaml]
    INFO blockers .ai/local/state/open-questions.md — 1 unresolved question(s); each refuses finish --outcome completed  [reproduce: git majordomus question list]
    OK decisions .ai/local/state/decisions.md — no decision log yet  [reproduce: git majordomus decision list]
    OK ledger .ai/local/state/ledger.jsonl — 4 line(s), all valid  [reproduce: git majordomus history --validate]
    OK retention .ai/local/state/ledger.jsonl — ledger 4 lines, cap 50000  [reproduce: wc -l .ai/local/state/ledger.jsonl]
    OK retention .ai/local/state/handovers — handovers 0 files, cap 200  [reproduce: git majordomus handover --list]
    OK retention .ai/local/state/checkpoints — checkpoints 0 files, cap 500  [reproduce: git majordomus checkpoint --list]
    [OK|WARN] budget watch — ran in [N] ms, budget 300 ms (benchmark.budget.watch_ms)  [reproduce: time git majordomus watch]
    --- stderr
    --- exit 0
    "#);
    // Its question still refuses completion; answered, the task finishes again.
    let out = r.mj(&["finish", "--outcome", "completed", "--verify-command", "true"]).code(10);
    let fails: Vec<&str> = out.stdout.lines().filter(|l| l.starts_with("FAIL ")).collect();
    insta::assert_snapshot!(named(&fails.join("\n"), &[("ID", &id)]), @"FAIL contract no_open_blockers — fail: 1 unresolved question(s) refuse completion: Which callback URL?  [reproduce: git majordomus finish --check --outcome completed]");
    r.mj(&["question", "resolve", "1", "--answer", "https://example.com/cb"]).ok();
    r.mj(&["finish", "--outcome", "completed", "--verify-command", "true"]).ok();
    assert_eq!(current(&r), (id.clone(), "completed".into()));
    // The new finish backs the outcome.
    let out = r.mj(&["watch"]).ok();
    insta::assert_snapshot!(named(&out.shown(), &[("ID", &id)]), @r#"
    OK task [ID] — "one" (completed, profile implementation, scope lib)  [reproduce: cat .ai/local/state/current.yaml]
    OK state [ID] — task record exact (recorded head [HEX] on main)  [reproduce: git majordomus context]
    OK verification [ID] — outcome completed, task.finished at 2026-09-03T20:00:00Z  [reproduce: git majordomus history --task [ID] --all]
    OK questions .ai/local/state/open-questions.md — every entry parses; none unresolved  [reproduce: git majordomus question list]
    OK decisions .ai/local/state/decisions.md — no decision log yet  [reproduce: git majordomus decision list]
    OK ledger .ai/local/state/ledger.jsonl — 6 line(s), all valid  [reproduce: git majordomus history --validate]
    OK retention .ai/local/state/ledger.jsonl — ledger 6 lines, cap 50000  [reproduce: wc -l .ai/local/state/ledger.jsonl]
    OK retention .ai/local/state/handovers — handovers 0 files, cap 200  [reproduce: git majordomus handover --list]
    OK retention .ai/local/state/checkpoints — checkpoints 0 files, cap 500  [reproduce: git majordomus checkpoint --list]
    [OK|WARN] budget watch — ran in [N] ms, budget 300 ms (benchmark.budget.watch_ms)  [reproduce: time git majordomus watch]
    --- stderr
    --- exit 0
    "#);
}

#[test]
fn an_unknown_id_is_12_and_a_malformed_one_is_2() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let out = r.mj(&["start", "--resume", "t-20260101000000-abcd"]).code(12);
    insta::assert_snapshot!(out.shown(), @"
    --- stderr
    error: no task t-[ID] in this checkout
    hint: a task comes back from .ai/local/state/current.yaml or .ai/local/state/archive/<id>.yaml; git majordomus history --event task.started lists the tasks started here
    --- exit 12
    ");
    let id = r.start("one");
    r.mj_in(&["handover", "--close"], HANDOVER).ok();
    r.mj(&["start", "--resume", "t-20260101000000-abcd"]).code(12);
    let out = r.mj(&["start", "--resume", "../current"]).code(2);
    insta::assert_snapshot!(out.shown(), @r#"
    --- stderr
    error: start --resume: "../current" is not a task id
    hint: task ids look like t-[ID]; git majordomus history --event task.started lists them
    --- exit 2
    "#);
    assert_eq!(current(&r), (id, "handed_over".into()));
}

#[test]
fn resume_takes_no_task_text_scope_profile_or_owner() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let id = r.start("one");
    r.mj_in(&["handover", "--close"], HANDOVER).ok();
    let mut said = String::new();
    for args in [
        vec!["start", "--resume", &id, "new text"],
        vec!["start", "--resume", &id, "--scope", "lib"],
        vec!["start", "--resume", &id, "--profile", "debugging"],
        vec!["start", "--resume", &id, "--owner", "bob"],
    ] {
        said += &r.mj(&args).code(2).shown();
    }
    insta::assert_snapshot!(named(&said, &[("ID", &id)]), @"
    --- stderr
    error: the argument '--resume <TASK_ID>' cannot be used with '[TASK]'

    Usage: git majordomus start --resume <TASK_ID> [TASK]

    For more information, try '--help'.
    --- exit 2
    --- stderr
    error: the argument '--resume <TASK_ID>' cannot be used with '--scope <PATHS>'

    Usage: git majordomus start --resume <TASK_ID> [TASK]

    For more information, try '--help'.
    --- exit 2
    --- stderr
    error: the argument '--resume <TASK_ID>' cannot be used with '--profile <PROFILE>'

    Usage: git majordomus start --resume <TASK_ID> [TASK]

    For more information, try '--help'.
    --- exit 2
    --- stderr
    error: the argument '--resume <TASK_ID>' cannot be used with '--owner <OWNER>'

    Usage: git majordomus start --resume <TASK_ID> [TASK]

    For more information, try '--help'.
    --- exit 2
    ");
    // Without --resume the task text is still required.
    r.mj(&["start", "--scope", "lib"]).code(2);
    assert!(resumed(&r).is_empty());
    assert_eq!(current(&r), (id, "handed_over".into()));
}
