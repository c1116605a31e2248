//! Tests of the command surface: repositories, the layer, global flags, exit codes, bad input.

use crate::common::{TestEnv, HANDOVER};

#[test]
fn outside_a_repository_is_a_usage_error() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let out = env.run(env.path(), &["handover", "--resolve"], None, &[]).code(2);
    insta::assert_snapshot!(out.shown(), @r#"
    --- stderr
    error: not inside a git repository
    caused by: Could not find a git repository in "[TMP]" or in any of its parents
    caused by: NotFound
    hint: use --repo <path>
    --- exit 2
    "#);
}

#[test]
fn without_the_layer_every_command_exits_12_with_the_init_hint() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.repo("r");
    let mut said = String::new();
    for args in [
        vec!["start", "x", "--scope", "a"],
        vec!["handover", "--resolve"],
        vec!["checkpoint", "--list"],
        vec!["decision", "list"],
        vec!["question", "list"],
    ] {
        said += &format!("=== {args:?}\n{}", r.mj(&args).code(12).shown());
    }
    insta::assert_snapshot!(said, @r#"
    === ["start", "x", "--scope", "a"]
    --- stderr
    error: no majordomus layer in this repository
    hint: run git majordomus init
    --- exit 12
    === ["handover", "--resolve"]
    --- stderr
    error: no majordomus layer in this repository
    hint: run git majordomus init
    --- exit 12
    === ["checkpoint", "--list"]
    --- stderr
    error: no majordomus layer in this repository
    hint: run git majordomus init
    --- exit 12
    === ["decision", "list"]
    --- stderr
    error: no majordomus layer in this repository
    hint: run git majordomus init
    --- exit 12
    === ["question", "list"]
    --- stderr
    error: no majordomus layer in this repository
    hint: run git majordomus init
    --- exit 12
    "#);
}

#[test]
fn init_creates_the_layer_once_and_ignores_local() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.repo("r");
    let out = r.mj(&["init"]).ok();
    // What it writes, and that the layer and the .gitignore line are committed before start.
    insta::assert_snapshot!(out.shown(), @r#"
    .ai/repo/profiles/routine.yaml
    .ai/repo/profiles/implementation.yaml
    .ai/repo/profiles/debugging.yaml
    .ai/repo/profiles/deep-work.yaml
    .ai/repo/templates/decisions.md
    .ai/repo/templates/open-questions.md
    .ai/repo/prompts/handover.md
    .ai/repo/policy.yaml
    .gitignore
    next: git add .ai/repo .gitignore && git commit -m "Add the majordomus layer", then git majordomus start "<task>" --scope <path>
    --- stderr
    --- exit 0
    "#);
    for p in [
        ".ai/repo/policy.yaml",
        ".ai/repo/profiles/debugging.yaml",
        ".ai/repo/templates/decisions.md",
        ".ai/repo/templates/open-questions.md",
        ".gitignore",
    ] {
        assert!(r.exists(p), "{p}");
    }
    assert!(r.read(".gitignore").lines().any(|l| l == ".ai/local/"));
    r.write(
        ".ai/repo/policy.yaml",
        &r.read(".ai/repo/policy.yaml").replace("max_body_lines: 40", "max_body_lines: 41"),
    );
    let again = r.mj(&["init"]).ok();
    assert_eq!(again.stdout.trim(), "already initialised");
    assert!(
        r.read(".ai/repo/policy.yaml").lines().any(|l| l.trim() == "max_body_lines: 41"),
        "init overwrote the policy"
    );
    assert_eq!(r.read(".gitignore").matches(".ai/local/").count(), 1);
}

#[test]
fn json_is_refused_by_commands_without_a_json_form() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    let out = r.mj(&["--json", "start", "x", "--scope", "lib"]).code(2);
    assert!(out.stdout.is_empty());
    assert_eq!(crate::common::json::error(&out.stderr)["exit"], 2);
    r.mj(&["handover", "--list", "--json"]).code(2);
    assert!(!r.exists(".ai/local/state/current.yaml"));
    // `handover --resolve` has a JSON form (D40): one document, even when nothing resolves.
    let v = crate::common::json::read(
        "handover-resolved.schema.json",
        &r.mj(&["handover", "--resolve", "--json"]).ok().stdout,
    );
    assert!(v["handover"].is_null(), "{v}");
}

#[test]
fn usage_errors_exit_2() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    r.mj(&["no-such-command"]).code(2);
    r.mj(&["start", "x"]).code(2); // scope required
    r.mj(&["start", "x", "--scope", "/etc"]).code(2);
    r.mj(&["start", "x", "--scope", "../up"]).code(2);
    r.mj(&["start", "x", "--scope", "a", "--profile", "nope"]).code(12);
    r.mj(&["decision", "add", "t"]).code(2); // --why required
}

#[test]
fn repo_flag_and_subdirectory_resolve_the_same_checkout() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    r.start("task");
    let written = r.mj_in(&["handover"], HANDOVER).ok().first_line();
    std::fs::create_dir_all(r.root.join("lib/deep")).unwrap();
    let sub = env.run(&r.root.join("lib/deep"), &["handover", "--resolve", "--path"], None, &[]).ok();
    assert_eq!(sub.stdout.trim(), written);
    let other =
        env.run(env.path(), &["--repo", r.root.to_str().unwrap(), "handover", "--resolve", "--path"], None, &[]).ok();
    assert_eq!(other.stdout.trim(), written);
    let after =
        env.run(env.path(), &["handover", "--resolve", "--path", "--repo", r.root.to_str().unwrap()], None, &[]).ok();
    assert_eq!(after.stdout.trim(), written, "global flags are accepted after the command too");
}

#[test]
fn unborn_branch_records_head_none() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.repo("r");
    r.mj(&["init"]).ok();
    r.mj_in(&["handover", "--no-task"], HANDOVER).ok();
    let f = r.records("handovers");
    assert_eq!(f.len(), 1);
    insta::assert_snapshot!(f[0], @"20260903T200000Z--main--NONE--[HEX].md");
    let out = r.mj(&["handover", "--resolve"]).ok();
    insta::assert_snapshot!(out.shown(), @"
    Handover: .ai/local/state/handovers/20260903T200000Z--main--NONE--[HEX].md
    Match: same_worktree_same_branch
    Git state: exact
    Created: 2026-09-03T20:00:00Z (0m ago)
    Task: none
    Freshness: fresh — 0m old, under session.freshness.fresh_minutes (720 min)
    Origin: authored
    ---
    # Objective
    Fix the callback.

    # Current State
    Reproduced.

    # Next Action
    Write the regression test.
    --- stderr
    --- exit 0
    ");
    r.commit_file("a.txt", "a\n");
    let out = r.mj(&["handover", "--resolve"]).ok();
    insta::assert_snapshot!(out.shown(), @"
    Handover: .ai/local/state/handovers/20260903T200000Z--main--NONE--[HEX].md
    Match: same_worktree_same_branch
    Git state: advanced
    Created: 2026-09-03T20:00:00Z (0m ago)
    Task: none
    Freshness: fresh — 0m old, under session.freshness.fresh_minutes (720 min)
    Origin: authored
    ---
    # Objective
    Fix the callback.

    # Current State
    Reproduced.

    # Next Action
    Write the regression test.
    --- stderr
    --- exit 0
    ");
}

#[test]
fn detached_head_records_detached_and_resolves_only_in_its_worktree() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let head = r.head();
    r.git(&["checkout", "-q", "--detach", &head]);
    r.mj_in(&["handover", "--no-task"], HANDOVER).ok();
    let f = r.records("handovers");
    insta::assert_snapshot!(f[0], @"20260903T200000Z--DETACHED--[HEX]--[HEX].md");
    insta::assert_snapshot!(r.read(&format!(".ai/local/state/handovers/{}", f[0])), @r#"
    ---
    schema_version: 1
    created_at: 2026-09-03T20:00:00Z
    task_id: none
    profile: none
    owner: "tester"
    repository_id: [TMP]/r/.git
    worktree: [TMP]/r
    branch: DETACHED
    head: [HEX]
    working_tree: clean
    changed_files: []
    changed_total: 0
    origin: authored
    session: none
    ---

    # Objective
    Fix the callback.

    # Current State
    Reproduced.

    # Next Action
    Write the regression test.
    "#);
    let out = r.mj(&["handover", "--resolve"]).ok();
    insta::assert_snapshot!(out.shown(), @"
    Handover: .ai/local/state/handovers/20260903T200000Z--DETACHED--[HEX]--[HEX].md
    Match: same_worktree_same_branch
    Git state: exact
    Created: 2026-09-03T20:00:00Z (0m ago)
    Task: none
    Freshness: fresh — 0m old, under session.freshness.fresh_minutes (720 min)
    Origin: authored
    ---
    # Objective
    Fix the callback.

    # Current State
    Reproduced.

    # Next Action
    Write the regression test.
    --- stderr
    --- exit 0
    ");
    r.git(&["checkout", "-q", "main"]);
    assert_eq!(r.mj(&["handover", "--resolve"]).ok().stdout, "No relevant handover.\n");
}

#[test]
fn linked_worktree_has_its_own_records_and_shares_the_repository_id() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let wt = env.path().join("wt");
    r.git(&["worktree", "add", "-q", "-b", "feat/x", wt.to_str().unwrap()]);
    let wt = std::fs::canonicalize(wt).unwrap();
    let out = env.run(&wt, &["handover", "--no-task"], Some(HANDOVER.as_bytes()), &[]).ok();
    let rel = out.stdout.lines().next().unwrap();
    insta::assert_snapshot!(rel, @".ai/local/state/handovers/20260903T200000Z--feat-x--[HEX]--[HEX].md");
    let text = std::fs::read_to_string(wt.join(rel)).unwrap();
    insta::assert_snapshot!(text, @r#"
    ---
    schema_version: 1
    created_at: 2026-09-03T20:00:00Z
    task_id: none
    profile: none
    owner: "tester"
    repository_id: [TMP]/r/.git
    worktree: [TMP]/wt
    branch: feat/x
    head: [HEX]
    working_tree: clean
    changed_files: []
    changed_total: 0
    origin: authored
    session: none
    ---

    # Objective
    Fix the callback.

    # Current State
    Reproduced.

    # Next Action
    Write the regression test.
    "#);
    let res = env.run(&wt, &["handover", "--resolve"], None, &[]).ok();
    insta::assert_snapshot!(res.shown(), @"
    Handover: .ai/local/state/handovers/20260903T200000Z--feat-x--[HEX]--[HEX].md
    Match: same_worktree_same_branch
    Git state: exact
    Created: 2026-09-03T20:00:00Z (0m ago)
    Task: none
    Freshness: fresh — 0m old, under session.freshness.fresh_minutes (720 min)
    Origin: authored
    ---
    # Objective
    Fix the callback.

    # Current State
    Reproduced.

    # Next Action
    Write the regression test.
    --- stderr
    --- exit 0
    ");
    assert_eq!(r.mj(&["handover", "--resolve"]).ok().stdout, "No relevant handover.\n");
}

#[test]
fn bare_repository_is_refused_with_a_usage_error() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let bare = env.path().join("bare.git");
    env.git_in(env.path(), &["init", "-q", "--bare", bare.to_str().unwrap()]);
    let out = env.run(&bare, &["handover", "--resolve"], None, &[]).code(2);
    insta::assert_snapshot!(out.shown(), @"
    --- stderr
    error: [TMP]/bare.git is a bare repository; continuity records need a working tree
    hint: run it in a checkout with a working tree; continuity verify and continuity records also read a bare repository
    --- exit 2
    ");
}

#[test]
fn oversized_body_is_refused_and_nothing_is_written() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    r.start("t");
    let big = vec![b'x'; 10 * 1024 * 1024];
    // Exact: a snapshot would filter the byte counts as hexadecimal.
    for cmd in ["checkpoint", "handover"] {
        let out = r.mj_bytes(&[cmd], &big).code(10);
        assert_eq!(
            out.stderr,
            format!("error: {cmd}: body is 10485760 bytes, cap 1048576\nhint: shorten the body; nothing was written\n")
        );
    }
    assert!(r.records("checkpoints").is_empty() && r.records("handovers").is_empty());
    assert_eq!(r.ledger().len(), 1, "only task.started");
}

#[test]
fn invalid_utf8_body_is_refused_and_nothing_is_written() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let out = r.mj_bytes(&["checkpoint"], b"ok\n\xff\xfe bad\n").code(10);
    insta::assert_snapshot!(out.shown(), @"
    --- stderr
    error: checkpoint: body is not valid UTF-8 (invalid byte at offset 3)
    hint: send UTF-8 text; nothing was written
    --- exit 10
    ");
    assert!(r.records("checkpoints").is_empty());
    assert!(!r.state("ledger.jsonl").exists());
}

#[test]
fn policy_with_an_unknown_key_is_refused_naming_it() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.write(
        ".ai/repo/policy.yaml",
        &r.read(".ai/repo/policy.yaml").replace("checkpoint:\n", "checkpoint:\n  max_body_linez: 3\n"),
    );
    let out = r.mj(&["start", "t", "--scope", "lib"]).code(10);
    insta::assert_snapshot!(out.shown(), @"
    --- stderr
    error: .ai/repo/policy.yaml: checkpoint: unknown field `max_body_linez`, expected `max_body_lines` or `retention_max_files` at line 14 column 3
    hint: fix the key it names; git majordomus init writes the defaults of every key
    --- exit 10
    ");
    assert!(!r.exists(".ai/local/state/current.yaml"));
}

#[test]
fn yaml_bomb_in_front_matter_is_skipped_with_a_warning() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let mut y = String::from(
        "---\nschema_version: 1\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    let mut prev = 'a';
    for c in 'b'..='k' {
        y.push_str(&format!("{c}: &{c} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"));
        prev = c;
    }
    y.push_str("head: NONE\ncreated_at: 2026-09-03T19:00:00Z\n---\n# Objective\nx\n");
    r.write(".ai/local/state/handovers/20260903T190000Z--main--NONE--0123456789abcdef.md", &y);
    let out = r.mj(&["handover", "--resolve"]).ok();
    insta::assert_snapshot!(out.shown(), @"
    No relevant handover.
    --- stderr
    warning: skipped .ai/local/state/handovers/20260903T190000Z--main--NONE--[HEX].md: malformed front matter
    --- exit 0
    ");
}

#[test]
fn record_symlinked_outside_the_checkout_is_never_followed() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let outside = env.path().join("outside.md");
    std::fs::write(&outside, format!("---\nschema_version: 1\ncreated_at: 2026-09-03T19:00:00Z\ntask_id: none\nrepository_id: {}/.git\nworktree: {}\nbranch: main\nhead: NONE\n---\n{HANDOVER}", r.root.display(), r.root.display())).unwrap();
    std::fs::create_dir_all(r.state("handovers")).unwrap();
    std::os::unix::fs::symlink(&outside, r.state("handovers/20260903T190000Z--main--NONE--0123456789abcdef.md"))
        .unwrap();
    let out = r.mj(&["handover", "--resolve"]).ok();
    insta::assert_snapshot!(out.shown(), @"
    No relevant handover.
    --- stderr
    warning: skipped .ai/local/state/handovers/20260903T190000Z--main--NONE--[HEX].md: .ai/local/state/handovers/20260903T190000Z--main--NONE--[HEX].md is a symlink pointing outside the checkout; refusing to follow it
    --- exit 0
    ");
    // Writing through a symlinked store file is refused too, and the target is untouched.
    std::os::unix::fs::symlink(&outside, r.state("decisions.md")).unwrap();
    let before = std::fs::read_to_string(&outside).unwrap();
    let out = r.mj(&["decision", "add", "x", "--why", "y"]).code(13);
    insta::assert_snapshot!(out.shown(), @"
    --- stderr
    error: .ai/local/state/decisions.md is a symlink pointing outside the checkout; refusing to follow it
    hint: replace the symlink with a regular file
    --- exit 13
    ");
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), before);
}

#[test]
fn bad_majordomus_now_is_a_usage_error() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let out = r.mj_env(&["handover", "--resolve"], "", &[("MAJORDOMUS_NOW", "yesterday")]).code(2);
    insta::assert_snapshot!(out.shown(), @"
    --- stderr
    error: MAJORDOMUS_NOW is not an RFC 3339 time (yesterday): premature end of input
    hint: use a form such as 2026-09-03T19:30:12Z
    --- exit 2
    ");
}

/// `--json` is offered in a command's help only where the command has a JSON form (issue 23);
/// after the name it is that command's flag, before it the old global form still works.
#[test]
fn json_is_offered_only_where_it_exists() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    for with in [
        &["state"][..],
        &["continuity", "status"],
        &["decision", "list"],
        &["hooks", "status"],
        &["lifecycle", "episodes"],
    ] {
        let help = r.mj(&[with, &["--help"][..]].concat()).ok().stdout;
        let json: Vec<String> = help
            .lines()
            .filter(|l| l.contains("--json"))
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect();
        assert_eq!(json, ["--json Print one JSON document on stdout"], "{with:?} offers --json:\n{help}");
    }
    for without in
        [&["checkpoint"][..], &["start"], &["decision", "add"], &["hooks", "install"], &["finish"], &["init"]]
    {
        let help = r.mj(&[without, &["--help"][..]].concat()).ok().stdout;
        assert!(!help.contains("--json"), "{without:?} has no JSON form:\n{help}");
    }
    assert!(!r.mj(&["--help"]).ok().stdout.contains("--json"));
    let after = r.mj(&["state", "--json"]).ok().stdout;
    let before = r.mj(&["--json", "state"]).ok().stdout;
    assert_eq!(after, before);
    assert!(serde_json::from_str::<serde_json::Value>(&after).is_ok());
    insta::assert_snapshot!(r.mj(&["checkpoint", "--json"]).code(2).shown(), @"
    --- stderr
    error: unexpected argument '--json' found

    Usage: git majordomus checkpoint [OPTIONS]

    For more information, try '--help'.
    --- exit 2
    ");
    insta::assert_snapshot!(r.mj(&["--json", "checkpoint"]).code(2).shown(), @r#"
    --- stderr
    {"error":{"exit":2,"message":"checkpoint has no JSON form; drop --json","hint":null}}
    --- exit 2
    "#);
}

/// Issue 24 item 6: what the checkout shares (`.ai/repo/`, `.gitignore`) is written
/// with the umask, an existing file keeps its mode, and only what is this machine's
/// (`.ai/local/`, the device key) is 0600.
#[test]
fn shared_files_are_written_with_the_umask_and_only_this_machines_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let env = TestEnv::new();
    let r = env.repo("r");
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let at = |p: &str| mode(&r.root.join(p));
    r.write(".gitignore", "target/\n");
    std::fs::set_permissions(r.root.join(".gitignore"), std::fs::Permissions::from_mode(0o640)).unwrap();
    env.sh(&r.root, "umask 022 && git-majordomus init", b"", &[]).ok();
    assert_eq!(at(".ai/repo/policy.yaml"), 0o644);
    assert_eq!(at(".ai/repo/templates/decisions.md"), 0o644);
    assert_eq!(at(".gitignore"), 0o640, "an existing file keeps its mode");
    env.sh(&r.root, "umask 022 && git-majordomus hooks install --claude-code --git", b"", &[]).ok();
    assert_eq!(at(".claude/settings.json"), 0o644, "a host's settings are shared configuration");
    assert_eq!(at(".git/hooks/pre-push"), 0o755, "a hook is executable, as git's samples are");
    std::fs::set_permissions(r.root.join(".claude/settings.json"), std::fs::Permissions::from_mode(0o600)).unwrap();
    env.sh(&r.root, "umask 022 && git-majordomus hooks install --codex --claude-code", b"", &[]).ok();
    assert_eq!(at(".claude/settings.json"), 0o600, "an existing settings file keeps its mode");
    r.git(&["add", "-A"]);
    r.git(&["commit", "-q", "-m", "layer"]);
    let script = "umask 022 && git-majordomus start t --scope lib >/dev/null && git-majordomus handover >/dev/null \
                  && git-majordomus session start >/dev/null && git-majordomus session close >/dev/null \
                  && git-majordomus continuity device >/dev/null";
    env.sh(&r.root, script, HANDOVER.as_bytes(), &[]).ok();
    let sessions: Vec<_> = std::fs::read_dir(r.root.join(".ai/repo/sessions")).unwrap().flatten().collect();
    assert!(!sessions.is_empty());
    for s in &sessions {
        assert_eq!(mode(&s.path()), 0o644, "{:?}", s.path());
    }
    let handovers = r.records("handovers");
    assert!(!handovers.is_empty());
    for name in handovers {
        assert_eq!(at(&format!(".ai/local/state/handovers/{name}")), 0o600);
    }
    assert_eq!(at(".ai/local/state/ledger.jsonl"), 0o600);
    assert_eq!(at(".git/majordomus/roots"), 0o644, "a cache under the git directory");
    let key = env.home.join(".local/state/majordomus/node.json");
    assert_eq!(mode(&key), 0o600, "the device key");
    // The umask decides for shared files: 077 keeps them to their owner.
    let q = env.repo("q");
    env.sh(&q.root, "umask 077 && git-majordomus init", b"", &[]).ok();
    assert_eq!(mode(&q.root.join(".ai/repo/policy.yaml")), 0o600);
    assert_eq!(mode(&q.root.join(".gitignore")), 0o600);
}
