//! Tests of episodes: docs/REFERENCE.md#store scenarios 62 and 111, docs/REFERENCE.md#front-matter items 29–32.

use crate::common::json;
use crate::common::snap::named;
use crate::common::{TestEnv, HANDOVER};

fn sid_of(out: &str) -> String {
    out.split_whitespace().nth(1).unwrap().to_string()
}

#[test]
fn item_32_hand_start_twice_refuses_and_context_prints_one_path() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let out = r.mj(&["session", "start"]).ok();
    let sid = sid_of(&out.stdout);
    assert!(out.stdout.starts_with(&format!("session {sid} opened at 2026-09-03T20:00:00Z (head {})", &r.head()[..7])));
    assert!(r.state("sessions-open/hand.yaml").exists());
    let link = std::fs::read_link(r.state("session-current.yaml")).unwrap();
    assert_eq!(link.to_str().unwrap(), "sessions-open/hand.yaml");
    let out = r.mj(&["session", "start"]).code(15);
    assert!(out.stderr.starts_with(&format!("error: session {sid} is open here since ")), "{}", out.stderr);
    insta::assert_snapshot!(out.shown(), @"
    --- stderr
    error: session s-[ID] is open here since 2026-09-03T20:00:00Z; run git majordomus session close first
    --- exit 15
    ");
    let ctxp = r.mj(&["session", "context"]).ok().stdout;
    assert_eq!(ctxp.lines().count(), 1);
    assert!(
        ctxp.trim().starts_with(".ai/local/session-contexts/20260903T200000Z--")
            && ctxp.trim().ends_with(&format!("{sid}.md"))
    );
    insta::assert_snapshot!(r.read(ctxp.trim()), @r#"
    ---
    schema: session-context/v1
    kind: session-context
    session_id: s-[ID]
    opened_at: 2026-09-03T20:00:00Z
    opened_by: hand
    provider: none
    provider_session: none
    branch: main
    head: [HEX]
    task_id: none
    profile: none
    worker: none
    ---

    # Working context of session s-[ID]

    ## Context at open

    # Majordomus context — 2026-09-03T20:00:00Z
    # a projection of durable state, not a source of truth: validate every line against git

    ## GIT
    repository: .git
    branch: main
    head: [HEX]
    working_tree: clean
    task_record: none (no active task)

    ## TASK
    none active — run: git majordomus start "<task>" --scope <path>

    ## PROFILE implementation
    capability: standard
    effort: medium (escalation: none)
    verbosity: normal
    presentation: plain
    reasoning: stepwise
    verification: verify_command_required true, regression_test_required false, decision_record_required false
    output: summary-and-diff

    ## OPEN QUESTIONS (0 unresolved — every one refuses finish --outcome completed)
    - none

    ## CONTEXT DOCUMENTS (1, from the scope paths up to the root; not quoted)
    - README.md (1 line)

    ## DECISIONS (0 most recent in this repository)
    - none recorded

    ## REASONING
    stepwise: work in small verified steps: plan, change, run the checks, checkpoint

    ## EXCLUDED
    - checkpoint — no checkpoint for this worktree and branch
    - handover — no record for this worktree and branch — absence, not a stale match
    - files — no active task: touched files are counted from a task's start and scope
    - history — profile implementation sets context.recent_history_depth: 0

    ## BUDGET
    42 of 300 lines

    ## Notes
    "#);
}

#[test]
fn item_29_ledger_lines_carry_the_episode_of_the_process() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.mj(&["decision", "add", "before", "--why", "w"]).ok();
    assert!(r.ledger().pop().unwrap().get("session").is_none(), "no episode → no session key");
    let a =
        sid_of(&r.mj(&["session", "start", "--provider", "claude-code", "--provider-session", "win-a"]).ok().stdout);
    let b =
        sid_of(&r.mj(&["session", "start", "--provider", "claude-code", "--provider-session", "win-b"]).ok().stdout);
    r.mj_env(&["decision", "add", "from a", "--why", "w"], "", &[("MAJORDOMUS_PROVIDER_SESSION", "win-a")]).ok();
    assert_eq!(r.ledger().pop().unwrap()["session"], a.as_str());
    r.mj_env(
        &["decision", "add", "from pointer", "--why", "w"],
        "",
        &[("MAJORDOMUS_PROVIDER_SESSION", "unknown-window")],
    )
    .ok();
    assert_eq!(
        r.ledger().pop().unwrap()["session"],
        b.as_str(),
        "unknown provider session falls through to the pointer"
    );
    r.mj_env(&["decision", "add", "strict", "--why", "w"], "", &[("MAJORDOMUS_SESSION_KEY", "nope")]).ok();
    assert!(r.ledger().pop().unwrap().get("session").is_none(), "a strict key naming nothing means no episode");
    // The sanitised key is what is looked up.
    let c = sid_of(&r.mj(&["session", "start", "--provider-session", "a b/c"]).ok().stdout);
    assert!(r.state("sessions-open/a-b-c.yaml").exists());
    r.mj_env(&["decision", "add", "sanitised", "--why", "w"], "", &[("MAJORDOMUS_SESSION_KEY", "a b/c")]).ok();
    assert_eq!(r.ledger().pop().unwrap()["session"], c.as_str());
}

#[test]
fn scenario_111_one_episode_per_provider_session() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let a =
        sid_of(&r.mj(&["session", "start", "--provider", "claude-code", "--provider-session", "win-a"]).ok().stdout);
    let out = r
        .mj(&["session", "start", "--if-open", "keep", "--provider", "claude-code", "--provider-session", "win-a"])
        .ok();
    insta::assert_snapshot!(out.shown().replace(&a, "[A]"), @"
    --- stderr
    session [A] already open here since 2026-09-03T20:00:00Z; kept
    --- exit 0
    ");
    let b =
        sid_of(&r.mj(&["session", "start", "--provider", "claude-code", "--provider-session", "win-b"]).ok().stdout);
    assert_ne!(a, b);
    assert!(r.state("sessions-open/win-a.yaml").exists() && r.state("sessions-open/win-b.yaml").exists());
    assert_eq!(
        std::fs::read_link(r.state("session-current.yaml")).unwrap().to_str().unwrap(),
        "sessions-open/win-b.yaml"
    );
    let st = r.mj(&["session", "status"]).ok().stdout;
    insta::assert_snapshot!(st.replace(&a, "[A]").replace(&b, "[B]"), @"
    Session: [B]
    Opened: 2026-09-03T20:00:00Z (0m ago)
    Owner: tester
    Worker: -
    Provider: claude-code (session win-b)
    Branch: main
    Start head: [HEX] (exact)
    Also open:  [A] (win-a)
    ");
    // end of window a closes only its own; the pointer (at b) stays
    r.mj(&["session", "close", "--provider-session", "win-a"]).ok();
    assert!(!r.state("sessions-open/win-a.yaml").exists() && r.state("sessions-open/win-b.yaml").exists());
    assert_eq!(
        std::fs::read_link(r.state("session-current.yaml")).unwrap().to_str().unwrap(),
        "sessions-open/win-b.yaml"
    );
    // unknown end → nothing to close (12), or 0 with ignore
    r.mj(&["session", "close", "--provider-session", "nope"]).code(12);
    assert_eq!(r.mj(&["session", "close", "--provider-session", "nope", "--if-none", "ignore"]).ok().stdout, "");
    // hand episode, then the provider close re-aims the pointer at the remaining hand episode
    let h = sid_of(&r.mj(&["session", "start"]).ok().stdout);
    assert_eq!(
        std::fs::read_link(r.state("session-current.yaml")).unwrap().to_str().unwrap(),
        "sessions-open/hand.yaml"
    );
    r.mj(&["session", "start"]).code(15);
    r.mj(&["session", "close", "--provider-session", "win-b"]).ok();
    assert_eq!(
        std::fs::read_link(r.state("session-current.yaml")).unwrap().to_str().unwrap(),
        "sessions-open/hand.yaml"
    );
    // this process's episode (the hand one), no other
    let st = r.mj(&["--json", "session", "status"]).ok().stdout;
    json::read("session-status.schema.json", &st);
    insta::assert_snapshot!(named(&st, &[("H", &h)]), @r#"
    {
      "schema": 1,
      "open": {
        "session_id": "[H]",
        "started_at": "2026-09-03T20:00:00Z",
        "owner": "tester",
        "worker": null,
        "provider": null,
        "provider_session": null,
        "repository_id": "[TMP]/r/.git",
        "worktree": "[TMP]/r",
        "branch": "main",
        "start_head": "[HEX]",
        "start_working_tree": "clean",
        "foreign": false,
        "label": "exact"
      },
      "others": []
    }
    "#);
    // last close removes the pointer
    r.mj(&["session", "close"]).ok();
    assert!(std::fs::symlink_metadata(r.state("session-current.yaml")).is_err());
    assert_eq!(
        r.mj(&["session", "status"]).ok().stdout,
        "No open session in this worktree.\nnext: git majordomus session start\n"
    );
}

#[test]
fn item_30_close_derives_lists_only_from_its_own_stamped_lines() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.mj(&["session", "start", "--provider-session", "win-a"]).ok();
    r.mj(&["session", "start", "--provider-session", "win-b"]).ok();
    let a = [("MAJORDOMUS_SESSION_KEY", "win-a")];
    let b = [("MAJORDOMUS_SESSION_KEY", "win-b")];
    r.mj_env(&["decision", "add", "decided in a", "--why", "w"], "", &a).ok();
    r.mj_env(&["decision", "add", "decided in b", "--why", "w"], "", &b).ok();
    let cp_a = r.mj_env(&["checkpoint"], "note a\n", &a).ok().stdout.trim().to_string();
    let cp_b = r.mj_env(&["checkpoint"], "note b\n", &b).ok().stdout.trim().to_string();
    let rec_b = r.mj_env(&["session", "close"], "", &b).ok().stdout.trim().to_string();
    let rec_a = r.mj_env(&["session", "close"], "", &a).ok().stdout.trim().to_string();
    let ta = r.read(&rec_a);
    let tb = r.read(&rec_b);
    // (the two checkpoints shown as [CP_A] and [CP_B])
    let cps = |text: &str| text.replace(&cp_a, "[CP_A]").replace(&cp_b, "[CP_B]");
    insta::assert_snapshot!(cps(&ta), @r#"
    ---
    schema: session/v1
    kind: session
    created_at: 2026-09-03T20:00:00Z
    task_id: none
    profile: none
    repository_id: "local:[HEX]"
    worktree_id: [HEX]
    branch: main
    head: [HEX]
    working_tree: clean
    changed_files: []
    changed_total: 0
    session_id: s-[ID]
    started_at: 2026-09-03T20:00:00Z
    closed_at: 2026-09-03T20:00:00Z
    outcome: closed
    title: "Session s-[ID] on main"
    worker: ""
    start_head: [HEX]
    start_working_tree: clean
    commits: []
    tasks: []
    checkpoints:
      - "[CP_A]"
    handovers: []
    decisions:
      - "decided in a"
    questions: []
    ---

    # What Happened
    No commits between [HEX] and [HEX].

    # Progress Notes
    - [CP_A]: note a

    # Decisions
    - decided in a

    # Open Questions
    None recorded in this episode.

    # Outcome
    closed at [HEX]; tasks: none.

    ---
    Composed by git-majordomus from the ledger lines stamped with this episode and from git; no model wrote it.
    "#);
    insta::assert_snapshot!(cps(&tb), @r#"
    ---
    schema: session/v1
    kind: session
    created_at: 2026-09-03T20:00:00Z
    task_id: none
    profile: none
    repository_id: "local:[HEX]"
    worktree_id: [HEX]
    branch: main
    head: [HEX]
    working_tree: clean
    changed_files: []
    changed_total: 0
    session_id: s-[ID]
    started_at: 2026-09-03T20:00:00Z
    closed_at: 2026-09-03T20:00:00Z
    outcome: closed
    title: "Session s-[ID] on main"
    worker: ""
    start_head: [HEX]
    start_working_tree: clean
    commits: []
    tasks: []
    checkpoints:
      - "[CP_B]"
    handovers: []
    decisions:
      - "decided in b"
    questions: []
    ---

    # What Happened
    No commits between [HEX] and [HEX].

    # Progress Notes
    - [CP_B]: note b

    # Decisions
    - decided in b

    # Open Questions
    None recorded in this episode.

    # Outcome
    closed at [HEX]; tasks: none.

    ---
    Composed by git-majordomus from the ledger lines stamped with this episode and from git; no model wrote it.
    "#);
    // session.closed carries the stamp of its own episode
    let closed: Vec<serde_json::Value> = r.ledger().into_iter().filter(|l| l["event"] == "session.closed").collect();
    assert_eq!(closed.len(), 2);
    assert_ne!(closed[0]["session"], closed[1]["session"]);
}

#[test]
fn item_30_commits_is_diverged_after_a_rebase_past_the_start_head() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.commit_file("a", "1\n");
    r.mj(&["session", "start"]).ok();
    r.git(&["reset", "-q", "--hard", "HEAD~1"]);
    r.commit_file("b", "2\n");
    let rec = r.mj(&["session", "close"]).ok().stdout.trim().to_string();
    insta::assert_snapshot!(r.read(&rec), @r#"
    ---
    schema: session/v1
    kind: session
    created_at: 2026-09-03T20:00:00Z
    task_id: none
    profile: none
    repository_id: "local:[HEX]"
    worktree_id: [HEX]
    branch: main
    head: [HEX]
    working_tree: clean
    changed_files: []
    changed_total: 0
    session_id: s-[ID]
    started_at: 2026-09-03T20:00:00Z
    closed_at: 2026-09-03T20:00:00Z
    outcome: closed
    title: "Session s-[ID] on main"
    worker: ""
    start_head: [HEX]
    start_working_tree: clean
    commits:
      - diverged
    tasks: []
    checkpoints: []
    handovers: []
    decisions: []
    questions: []
    ---

    # What Happened
    - commit diverged

    # Progress Notes
    None recorded in this episode.

    # Decisions
    None recorded in this episode.

    # Open Questions
    None recorded in this episode.

    # Outcome
    closed at [HEX]; tasks: none.

    ---
    Composed by git-majordomus from the ledger lines stamped with this episode and from git; no model wrote it.
    "#);
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.mj(&["session", "start"]).ok();
    let h1 = r.commit_file("a", "1\n");
    let h2 = r.commit_file("b", "1\n");
    let rec = r.mj(&["session", "close"]).ok().stdout.trim().to_string();
    // (the two commits shown as [H1] and [H2])
    let mut text = r.read(&rec);
    for (h, name) in [(&h1, "[H1]"), (&h2, "[H2]")] {
        text = text.replace(h.as_str(), name).replace(&h[..12], name).replace(&h[..7], name);
    }
    insta::assert_snapshot!(text, @r#"
    ---
    schema: session/v1
    kind: session
    created_at: 2026-09-03T20:00:00Z
    task_id: none
    profile: none
    repository_id: "local:[HEX]"
    worktree_id: [HEX]
    branch: main
    head: [H2]
    working_tree: clean
    changed_files: []
    changed_total: 0
    session_id: s-[ID]
    started_at: 2026-09-03T20:00:00Z
    closed_at: 2026-09-03T20:00:00Z
    outcome: closed
    title: "Session s-[ID] on main"
    worker: ""
    start_head: [HEX]
    start_working_tree: clean
    commits:
      - [H1]
      - [H2]
    tasks: []
    checkpoints: []
    handovers: []
    decisions: []
    questions: []
    ---

    # What Happened
    - commit [H1]
    - commit [H2]

    # Progress Notes
    None recorded in this episode.

    # Decisions
    None recorded in this episode.

    # Open Questions
    None recorded in this episode.

    # Outcome
    closed at [H2]; tasks: none.

    ---
    Composed by git-majordomus from the ledger lines stamped with this episode and from git; no model wrote it.
    "#);
}

#[test]
fn item_31_double_close_writes_one_record() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.mj(&["session", "close"]).code(12);
    r.mj(&["session", "close", "--if-none", "ignore"]).ok();
    r.mj(&["session", "start", "--provider-session", "w"]).ok();
    // Two concurrent closes of the same episode.
    let bin = env!("CARGO_BIN_EXE_git-majordomus");
    let spawn = || {
        std::process::Command::new(bin)
            .args(["session", "close", "--provider-session", "w", "--if-none", "ignore"])
            .current_dir(&r.root)
            .env("MAJORDOMUS_NOW", "2026-09-03T20:00:00Z")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    };
    let (x, y) = std::thread::scope(|s| {
        let a = s.spawn(spawn);
        let b = s.spawn(spawn);
        (a.join().unwrap(), b.join().unwrap())
    });
    assert!(x.status.success() && y.status.success());
    let records: Vec<_> = std::fs::read_dir(r.root.join(".ai/repo/sessions")).unwrap().collect();
    assert_eq!(records.len(), 1, "one episode, one record");
    assert_eq!(r.ledger().iter().filter(|l| l["event"] == "session.closed").count(), 1);
}

#[test]
fn scenario_62_session_divergence_and_ordering() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    // absence, read-only
    assert_eq!(r.mj(&["session", "list"]).ok().stdout, "No closed sessions for this worktree and branch.\n");
    assert_eq!(r.mj(&["session", "latest"]).ok().stdout, "No closed session for this worktree and branch.\n");
    assert_eq!(r.mj(&["--json", "session", "latest"]).ok().stdout, "null\n");
    let list = r.mj(&["--json", "session", "list"]).ok().stdout;
    json::read("session-list.schema.json", &list);
    insta::assert_snapshot!(list, @r#"
    {
      "sessions": [],
      "skipped": 0
    }
    "#);
    r.mj(&["session", "show", "s-nope"]).code(12);
    r.mj(&["session", "start"]).ok();
    let rec1 = r.mj(&["session", "close"]).ok().stdout.trim().to_string();
    insta::assert_snapshot!(r.mj(&["session", "latest"]).ok().stdout, @"
    Session: s-[ID]
    Record: .ai/repo/sessions/20260903T200000Z--s-[ID]--main--[HEX]--[HEX].md
    Match: same_worktree_same_branch
    Git state: exact
    Closed: 2026-09-03T20:00:00Z (closed)
    ---
    # What Happened
    No commits between [HEX] and [HEX].

    # Progress Notes
    None recorded in this episode.

    # Decisions
    None recorded in this episode.

    # Open Questions
    None recorded in this episode.

    # Outcome
    closed at [HEX]; tasks: none.

    ---
    Composed by git-majordomus from the ledger lines stamped with this episode and from git; no model wrote it.
    ");
    r.commit_file("x", "1\n");
    insta::assert_snapshot!(r.mj(&["session", "latest"]).ok().stdout, @"
    Session: s-[ID]
    Record: .ai/repo/sessions/20260903T200000Z--s-[ID]--main--[HEX]--[HEX].md
    Match: same_worktree_same_branch
    Git state: advanced
    Closed: 2026-09-03T20:00:00Z (closed)
    ---
    # What Happened
    No commits between [HEX] and [HEX].

    # Progress Notes
    None recorded in this episode.

    # Decisions
    None recorded in this episode.

    # Open Questions
    None recorded in this episode.

    # Outcome
    closed at [HEX]; tasks: none.

    ---
    Composed by git-majordomus from the ledger lines stamped with this episode and from git; no model wrote it.
    ");
    let latest = r.mj(&["--json", "session", "latest"]).ok().stdout;
    let first = json::read("session-record.schema.json", &latest);
    insta::assert_snapshot!(named(&latest, &[("REC1", &rec1)]), @r#"
    {
      "session_id": "s-[ID]",
      "created_at": "2026-09-03T20:00:00Z",
      "outcome": "closed",
      "branch": "main",
      "head": "[HEX]",
      "title": "Session s-[ID] on main",
      "path": "[REC1]",
      "label": "advanced",
      "matched": "same_worktree_same_branch"
    }
    "#);
    // a later session; touch the older one: order unchanged
    env.set_now("2026-09-03T20:05:00Z");
    r.mj(&["session", "start"]).ok();
    let rec2 = r.mj(&["session", "close"]).ok().stdout.trim().to_string();
    let f = std::fs::File::options().write(true).open(r.root.join(&rec1)).unwrap();
    f.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(3600)).unwrap();
    assert_eq!(r.mj(&["session", "latest", "--path"]).ok().stdout.trim(), rec2);
    let list = r.mj(&["session", "list"]).ok().stdout;
    assert!(list.lines().next().unwrap().ends_with(&rec2), "{list}");
    // history rewrite → diverged with a WARNING everywhere
    r.git(&["reset", "-q", "--hard", "HEAD~1"]);
    r.commit_file("y", "2\n");
    let out = r.mj(&["session", "latest"]).ok().stdout;
    insta::assert_snapshot!(out, @"
    Session: s-[ID]
    Record: .ai/repo/sessions/20260903T200500Z--s-[ID]--main--[HEX]--[HEX].md
    Match: same_worktree_same_branch
    Git state: diverged
    WARNING: its commit is diverged; trust git, not the record
    Closed: 2026-09-03T20:05:00Z (closed)
    ---
    # What Happened
    No commits between [HEX] and [HEX].

    # Progress Notes
    None recorded in this episode.

    # Decisions
    None recorded in this episode.

    # Open Questions
    None recorded in this episode.

    # Outcome
    closed at [HEX]; tasks: none.

    ---
    Composed by git-majordomus from the ledger lines stamped with this episode and from git; no model wrote it.
    ");
    insta::assert_snapshot!(r.mj(&["session", "list"]).ok().stdout, @"
    2026-09-03T20:05:00Z  s-[ID]    closed       diverged           .ai/repo/sessions/20260903T200500Z--s-[ID]--main--[HEX]--[HEX].md
    2026-09-03T20:00:00Z  s-[ID]    closed       advanced           .ai/repo/sessions/20260903T200000Z--s-[ID]--main--[HEX]--[HEX].md
    ");
    let sid2 = r.read(&rec2).lines().find_map(|l| l.strip_prefix("session_id: ").map(str::to_string)).unwrap();
    insta::assert_snapshot!(r.mj(&["session", "show", &sid2]).ok().stdout, @"
    Session: s-[ID]
    Record: .ai/repo/sessions/20260903T200500Z--s-[ID]--main--[HEX]--[HEX].md
    Git state: diverged
    WARNING: its commit is diverged; trust git, not the record
    Closed: 2026-09-03T20:05:00Z (closed)
    ---
    # What Happened
    No commits between [HEX] and [HEX].

    # Progress Notes
    None recorded in this episode.

    # Decisions
    None recorded in this episode.

    # Open Questions
    None recorded in this episode.

    # Outcome
    closed at [HEX]; tasks: none.

    ---
    Composed by git-majordomus from the ledger lines stamped with this episode and from git; no model wrote it.
    ");
    // another branch: no latest; --all shows it as different_context
    r.git(&["checkout", "-q", "-b", "other"]);
    assert_eq!(r.mj(&["session", "latest"]).ok().stdout, "No closed session for this worktree and branch.\n");
    insta::assert_snapshot!(r.mj(&["session", "list", "--all"]).ok().stdout, @"
    2026-09-03T20:05:00Z  s-[ID]    closed       different_context  .ai/repo/sessions/20260903T200500Z--s-[ID]--main--[HEX]--[HEX].md
    2026-09-03T20:00:00Z  s-[ID]    closed       different_context  .ai/repo/sessions/20260903T200000Z--s-[ID]--main--[HEX]--[HEX].md
    ");
    r.git(&["checkout", "-q", "main"]);
    // malformed record skipped with a warning
    r.write(".ai/repo/sessions/20260903T210000Z--s-x--main--0000000--00000000000000ff.md", "garbage\n");
    let out = r.mj(&["session", "latest", "--path"]).ok();
    assert_eq!(out.stdout.trim(), rec2);
    insta::assert_snapshot!(out.stderr, @"warning: skipped .ai/repo/sessions/20260903T210000Z--s-x--main--[HEX]--[HEX].md: no front matter");
    // under --json the list counts it, newest first: the later record, diverged, then the first as
    // `latest` showed it (`matched` is latest's alone); show prints the record as listed
    let listed = json::read("session-list.schema.json", &r.mj(&["--json", "session", "list"]).ok().stdout);
    assert_eq!(listed["skipped"], 1);
    assert_eq!(listed["sessions"].as_array().map(Vec::len), Some(2));
    assert_eq!(
        (json::text(&listed, "/sessions/0/path"), json::text(&listed, "/sessions/0/label")),
        (rec2.as_str(), "diverged")
    );
    let mut older = first;
    older.as_object_mut().expect("a record").remove("matched");
    assert_eq!(listed["sessions"][1], older);
    let shown = r.mj(&["--json", "session", "show", &sid2]).ok().stdout;
    assert_eq!(json::read("session-record.schema.json", &shown), listed["sessions"][0], "the newest, as listed");
}

#[test]
fn same_second_closed_sessions_tie_by_ledger_order() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.mj(&["session", "start", "--provider-session", "p1"]).ok();
    r.mj(&["session", "start", "--provider-session", "p2"]).ok();
    let first = r.mj(&["session", "close", "--provider-session", "p1"]).ok().stdout.trim().to_string();
    let second = r.mj(&["session", "close", "--provider-session", "p2"]).ok().stdout.trim().to_string();
    // Rename so that the later record sorts first by name; fix the ledger accordingly.
    let dir = r.root.join(".ai/repo/sessions");
    let name = |p: &str| p.rsplit('/').next().unwrap().to_string();
    let (n1, n2) = (name(&first), name(&second));
    let n2_new = format!("{}0000000000000000.md", &n2[..n2.len() - 19]);
    let n1_new = format!("{}ffffffffffffffff.md", &n1[..n1.len() - 19]);
    std::fs::rename(dir.join(&n2), dir.join(&n2_new)).unwrap();
    std::fs::rename(dir.join(&n1), dir.join(&n1_new)).unwrap();
    let ledger = std::fs::read_to_string(r.state("ledger.jsonl")).unwrap().replace(&n2, &n2_new).replace(&n1, &n1_new);
    std::fs::write(r.state("ledger.jsonl"), ledger).unwrap();
    assert_eq!(r.mj(&["session", "latest", "--path"]).ok().stdout, format!(".ai/repo/sessions/{n2_new}\n"));
}

#[test]
fn summary_on_stdin_is_the_body_and_identity_lines_are_refused() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.mj(&["session", "start"]).ok();
    r.mj_in(&["session", "close"], "Did things.\nhead: abc\n").code(10);
    let rec = r.mj_in(&["session", "close"], "Did things.\n").ok().stdout.trim().to_string();
    assert!(r.read(&rec).ends_with("---\n\nDid things.\n"));
    let _ = HANDOVER;
}

/// Found 2026-09-11: concurrent `session start`s once corrupted each other through a
/// non-atomic pointer update. Eight windows start at once: eight episodes, a pointer that is a
/// symlink to one of them, no temporary file left behind.
#[test]
fn r13_concurrent_starts_leave_a_valid_pointer() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let bin = env!("CARGO_BIN_EXE_git-majordomus");
    let outs: Vec<std::process::Output> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|i| {
                let root = r.root.clone();
                s.spawn(move || {
                    std::process::Command::new(bin)
                        .args([
                            "session",
                            "start",
                            "--provider",
                            "claude-code",
                            "--provider-session",
                            &format!("win-{i}"),
                        ])
                        .current_dir(root)
                        .env("MAJORDOMUS_NOW", "2026-09-03T20:00:00Z")
                        .env("GIT_CONFIG_GLOBAL", "/dev/null")
                        .stdin(std::process::Stdio::null())
                        .output()
                        .unwrap()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(outs.iter().all(|o| o.status.success()));
    let files: Vec<String> = std::fs::read_dir(r.state("sessions-open"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(files.len(), 8, "{files:?}");
    assert!(files.iter().all(|f| !f.starts_with('.')), "no temp file left: {files:?}");
    let target = std::fs::read_link(r.state("session-current.yaml")).unwrap();
    assert!(r.state("").join(&target).exists(), "the pointer resolves: {target:?}");
    let leftovers: Vec<String> = std::fs::read_dir(r.state(""))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with(".tmp."))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    assert_eq!(r.ledger().iter().filter(|l| l["event"] == "session.started").count(), 8);
}

/// A past defect: a closed record once listed 122 "changed files" including generated output and its
/// own sibling records.
#[test]
fn r13_closed_record_lists_only_real_changes() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.mj(&["session", "start"]).ok();
    r.write("src/real.rs", "fn main() {}\n");
    r.write("target/debug/build.o", "x");
    r.write("web/node_modules/a/index.js", "x");
    r.mj_in(&["checkpoint"], "note\n").ok();
    let rec = r.mj(&["session", "close"]).ok().stdout.trim().to_string();
    let text = r.read(&rec);
    // The untracked `src/` is listed as git status shows it (docs/REFERENCE.md#front-matter); `web/`, which holds only
    // generated output, is left out with `target/`.
    insta::assert_snapshot!(text, @r#"
    ---
    schema: session/v1
    kind: session
    created_at: 2026-09-03T20:00:00Z
    task_id: none
    profile: none
    repository_id: "local:[HEX]"
    worktree_id: [HEX]
    branch: main
    head: [HEX]
    working_tree: dirty
    changed_files:
      - src/
    changed_total: 1
    session_id: s-[ID]
    started_at: 2026-09-03T20:00:00Z
    closed_at: 2026-09-03T20:00:00Z
    outcome: closed
    title: "Session s-[ID] on main"
    worker: ""
    start_head: [HEX]
    start_working_tree: clean
    commits: []
    tasks: []
    checkpoints:
      - ".ai/local/state/checkpoints/20260903T200000Z--main--[HEX]--[HEX].md"
    handovers: []
    decisions: []
    questions: []
    ---

    # What Happened
    No commits between [HEX] and [HEX].

    # Progress Notes
    - .ai/local/state/checkpoints/20260903T200000Z--main--[HEX]--[HEX].md: note

    # Decisions
    None recorded in this episode.

    # Open Questions
    None recorded in this episode.

    # Outcome
    closed at [HEX]; tasks: none.

    ---
    Composed by git-majordomus from the ledger lines stamped with this episode and from git; no model wrote it.
    "#);
}
