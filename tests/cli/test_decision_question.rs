//! Tests of `decision` and `question` (docs/REFERENCE.md#decisions, docs/REFERENCE.md#questions; docs/REFERENCE.md#front-matter item 16).

use crate::common::TestEnv;

#[test]
fn decision_add_list_show_and_supersedes() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    assert_eq!(r.mj(&["decision", "list"]).ok().stdout, "(none)\n");
    let out = r
        .mj(&[
            "decision",
            "add",
            "Use the ledger tiebreak",
            "--why",
            "created_at has seconds only",
            "--rejected",
            "names",
        ])
        .ok();
    assert_eq!(out.stdout, "recorded: Use the ledger tiebreak\n");
    insta::assert_snapshot!(r.read(".ai/local/state/decisions.md"), @r#"
    # Decisions

    Append-only: `git majordomus decision add "<title>" --why "<why>"` adds an entry; entries are
    never edited. A later decision names the one it replaces with `--supersedes`.

    <!--
    ## 2026-09-03 — Use the ledger position as the same-second tiebreak
    Task: t-[ID]
    Head: [HEX]
    Why: created_at has one-second precision; the ledger is written in command order
    Rejected: file-name order (random suffixes)
    Evidence: -
    Supersedes: -
    -->

    ## 2026-09-03 — Use the ledger tiebreak
    Task: none
    Head: [HEX]
    Why: created_at has seconds only
    Rejected: names
    Evidence: -
    Supersedes: -
    "#);
    let ev = r.ledger().pop().unwrap();
    assert_eq!(ev["event"], "decision.recorded");
    assert_eq!(ev["task_id"], "none");
    let id = r.start("t");
    r.mj(&["decision", "add", "Use the ledger order", "--why", "x", "--supersedes", "tiebreak"]).ok();
    insta::assert_snapshot!(r.read(".ai/local/state/decisions.md"), @r#"
    # Decisions

    Append-only: `git majordomus decision add "<title>" --why "<why>"` adds an entry; entries are
    never edited. A later decision names the one it replaces with `--supersedes`.

    <!--
    ## 2026-09-03 — Use the ledger position as the same-second tiebreak
    Task: t-[ID]
    Head: [HEX]
    Why: created_at has one-second precision; the ledger is written in command order
    Rejected: file-name order (random suffixes)
    Evidence: -
    Supersedes: -
    -->

    ## 2026-09-03 — Use the ledger tiebreak
    Task: none
    Head: [HEX]
    Why: created_at has seconds only
    Rejected: names
    Evidence: -
    Supersedes: -

    ## 2026-09-03 — Use the ledger order
    Task: t-[ID]
    Head: [HEX]
    Why: x
    Rejected: -
    Evidence: -
    Supersedes: Use the ledger tiebreak
    "#);
    insta::assert_snapshot!(r.mj(&["decision", "list"]).shown(), @"
    2026-09-03  t-[ID]    Use the ledger order
    2026-09-03  none                     Use the ledger tiebreak  (superseded by: Use the ledger order)
    --- stderr
    --- exit 0
    ");
    assert_eq!(r.mj(&["decision", "list", "--task", &id]).ok().stdout.lines().count(), 1);
    assert_eq!(r.mj(&["decision", "list", "--limit", "1"]).ok().stdout.lines().count(), 1);
    insta::assert_snapshot!(r.mj(&["decision", "show", "tiebreak"]).shown(), @"
    ## 2026-09-03 — Use the ledger tiebreak
    Task: none
    Head: [HEX]
    Why: created_at has seconds only
    Rejected: names
    Evidence: -
    Supersedes: -
    Superseded by: Use the ledger order
    --- stderr
    --- exit 0
    ");
    r.mj(&["decision", "show", "nothing like it"]).code(12);
    // supersedes matching 0 or >1 titles → 2
    r.mj(&["decision", "add", "z", "--why", "w", "--supersedes", "nope"]).code(2);
    r.mj(&["decision", "add", "z", "--why", "w", "--supersedes", "Use the ledger"]).code(2);
    r.mj(&["decision", "add", "multi\nline", "--why", "w"]).code(2);
    assert_eq!(r.mj(&["decision", "list"]).ok().stdout.lines().count(), 2, "refusals wrote nothing");
}

#[test]
fn item_16_question_lifecycle() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    insta::assert_snapshot!(r.mj(&["question", "add", "q?"]).code(12).shown(), @"
    --- stderr
    error: question add: no active task
    hint: run git majordomus start first; a question blocks the task that asks it
    --- exit 12
    ");
    let id = r.start("t");
    assert_eq!(r.mj(&["question", "list"]).ok().stdout, "no open questions\n");
    assert_eq!(
        r.mj(&["question", "add", "Which callback URL?"]).ok().stdout,
        format!("opened for {id}: Which callback URL?\n")
    );
    r.mj(&["question", "add", "Which callback owner?"]).ok();
    r.mj(&["question", "add", "has — separator"]).code(2);
    let list = r.mj(&["question", "list"]).ok().stdout;
    assert_eq!(list, format!("1  [unresolved] {id} — Which callback URL? (2026-09-03)\n2  [unresolved] {id} — Which callback owner? (2026-09-03)\n"));
    // ambiguous text → 2, no match → 12, missing answer → 2
    r.mj(&["question", "resolve", "callback", "--answer", "x"]).code(2);
    r.mj(&["question", "resolve", "nothing", "--answer", "x"]).code(12);
    r.mj(&["question", "resolve", "9", "--answer", "x"]).code(12);
    r.mj(&["question", "resolve", "1"]).code(2);
    env.set_now("2026-09-04T08:00:00Z");
    let before = r.read(".ai/local/state/open-questions.md");
    assert_eq!(
        r.mj(&["question", "resolve", "1", "--answer", "x"]).ok().stdout,
        format!("resolved for {id}: Which callback URL?\n")
    );
    let after = r.read(".ai/local/state/open-questions.md");
    let changed: Vec<(&str, &str)> = before.lines().zip(after.lines()).filter(|(a, b)| a != b).collect();
    assert_eq!(changed.len(), 1, "exactly one line rewritten");
    assert_eq!(changed[0].1, format!("- [resolved 2026-09-04] {id} — Which callback URL? (2026-09-03) — x"));
    let ev = r.ledger().pop().unwrap();
    assert_eq!(ev["event"], "question.resolved");
    assert_eq!(ev["answer"], "x");
    // numbering is over unresolved entries only
    assert_eq!(
        r.mj(&["question", "list"]).ok().stdout,
        format!("1  [unresolved] {id} — Which callback owner? (2026-09-03)\n")
    );
    insta::assert_snapshot!(r.mj(&["question", "list", "--all"]).ok().stdout, @"
    -  [resolved 2026-09-04] t-[ID] — Which callback URL? (2026-09-03) — x
    1  [unresolved] t-[ID] — Which callback owner? (2026-09-03)
    ");
    r.mj(&["question", "resolve", "owner", "--answer", "ops"]).ok();
    assert_eq!(r.mj(&["question", "list"]).ok().stdout, "no open questions\n");
}
