//! Issue 21 (deliverables 3 and 4), docs/REFERENCE.md#front-matter and docs/REFERENCE.md#origin: a large working tree never makes the
//! tool's own records unreadable, a write the readers would skip is refused, and the tool's own
//! layer (`.ai/`) is never the user's work (docs/REFERENCE.md#identity).

use std::path::Path;

use serde_json::Value;

use crate::common::{Repo, TestEnv};

/// The readers' front-matter cap (docs/REFERENCE.md#origin).
const CAP: usize = 64 * 1024;

/// What a test reads from a record's front matter, parsed by hand (the readers' own parser is
/// what the commands under test use).
#[derive(Debug)]
struct Front {
    bytes: usize,
    working_tree: Option<String>,
    changed_files: Vec<String>,
    changed_total: Option<usize>,
}

/// The front matter of the file at `path`.
fn front(path: &Path) -> Front {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let rest = text.strip_prefix("---\n").unwrap_or_else(|| panic!("{}: no front matter", path.display()));
    let end = rest.find("\n---\n").unwrap_or_else(|| panic!("{}: front matter not closed", path.display()));
    let yaml = &rest[..end + 1];
    let value = |key: &str| {
        yaml.lines().find_map(|l| l.strip_prefix(&format!("{key}: ")).map(|v| v.trim_matches('"').to_string()))
    };
    let mut changed_files = Vec::new();
    let mut lines = yaml.lines().skip_while(|l| !l.starts_with("changed_files:"));
    if lines.next().is_some_and(|l| l == "changed_files:") {
        changed_files = lines.map_while(|l| l.strip_prefix("  - ")).map(|v| v.trim_matches('"').to_string()).collect();
    }
    Front {
        bytes: yaml.len(),
        working_tree: value("working_tree"),
        changed_files,
        changed_total: value("changed_total").map(|n| n.parse().unwrap()),
    }
}

/// Every file of `dir` (temp files included), sorted.
fn files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.file_name().into_string().unwrap()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

/// The files of `dir` that `before` did not hold.
fn new_files(dir: &Path, before: &[String]) -> Vec<String> {
    files(dir).into_iter().filter(|f| !before.contains(f)).collect()
}

/// `n` untracked files `node_modules/pkg-<i/100>/dist/m<i%100>.js`, written with std::fs.
fn node_modules(r: &Repo<'_>, n: usize) {
    for i in 0..n {
        let dir = r.root.join(format!("node_modules/pkg-{}/dist", i / 100));
        if i % 100 == 0 {
            std::fs::create_dir_all(&dir).unwrap();
        }
        std::fs::write(dir.join(format!("m{}.js", i % 100)), "module.exports = 1;\n").unwrap();
    }
}

/// A Claude Code hook payload for session `s1` in `r`.
fn payload(r: &Repo<'_>, event: &str, extra: &str) -> String {
    format!(
        r#"{{"session_id":"s1","transcript_path":"/tmp/t.jsonl","cwd":"{}","hook_event_name":"{event}"{extra}}}"#,
        r.root.display()
    )
}

/// Asserts that the one new record in `dir` since `before` is bounded and readable, and returns
/// its front matter.
#[track_caller]
fn one_bounded_record(dir: &Path, before: &[String], what: &str) -> Front {
    let added = new_files(dir, before);
    assert_eq!(added.len(), 1, "{what}: one new record in {}: {added:?}", dir.display());
    let f = front(&dir.join(&added[0]));
    assert!(f.bytes < CAP, "{what}: front matter {} bytes", f.bytes);
    assert!(f.changed_files.len() <= 20, "{what}: {} changed_files", f.changed_files.len());
    assert_eq!(f.changed_files, ["lib/", "node_modules/"], "{what}: untracked directories collapsed");
    assert_eq!(f.changed_total, Some(2), "{what}: changed_total");
    assert_eq!(f.working_tree.as_deref(), Some("dirty"), "{what}");
    f
}

// Issue 21 (docs/REFERENCE.md#front-matter): with 20,000 untracked files every writer writes a record its
// readers read.
#[test]
fn r21_twenty_thousand_untracked_files_leave_every_record_readable() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("big");
    node_modules(&r, 20_000);
    // `lib/` is wholly untracked: the records say `lib/`, the scope rule still sees lib/auth/x.rs.
    r.write("lib/auth/x.rs", "pub fn x() {}\n");
    r.mj(&["start", "Large tree", "--scope", "lib/auth,node_modules"]).ok();
    let check: Value = serde_json::from_str(&r.mj(&["--json", "check"]).ok().stdout).unwrap();
    let scope: Vec<&Value> =
        check["findings"].as_array().unwrap().iter().filter(|f| f["category"] == "scope").collect();
    assert!(
        !scope.is_empty() && scope.iter().all(|f| f["level"] == "OK"),
        "a collapsed lib/ does not put lib/auth/x.rs outside scope lib/auth: {scope:?}"
    );

    let (cps, hos, sessions) = (r.state("checkpoints"), r.state("handovers"), r.root.join(".ai/repo/sessions"));

    // handover, then checkpoint: each readable right away, and it is the new one that is read.
    let before = files(&hos);
    let body = "# Objective\nShip the large tree fix.\n\n# Current State\nMarker handover-7731.\n\n# Next Action\nRun the suite.\n";
    r.mj_in(&["handover"], body).ok();
    insta::assert_snapshot!(r.mj(&["handover", "--resolve"]).ok().shown(), @"
    Handover: .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md
    Match: same_worktree_same_branch
    Git state: exact
    Created: 2026-09-03T20:00:00Z (0m ago)
    Task: t-[ID]
    Freshness: fresh — 0m old, under session.freshness.fresh_minutes (720 min)
    Origin: authored
    ---
    # Objective
    Ship the large tree fix.

    # Current State
    Marker handover-7731.

    # Next Action
    Run the suite.
    --- stderr
    --- exit 0
    ");
    one_bounded_record(&hos, &before, "handover");

    let before = files(&cps);
    r.mj_in(&["checkpoint"], "Marker checkpoint-4417.\n").ok();
    insta::assert_snapshot!(r.mj(&["checkpoint", "--show"]).ok().shown(), @"
    Checkpoint: .ai/local/state/checkpoints/20260903T200000Z--main--[HEX]--[HEX].md
    Created: 2026-09-03T20:00:00Z (0m ago)
    Git state: exact
    Origin: authored
    ---
    Marker checkpoint-4417.
    --- stderr
    --- exit 0
    ");
    one_bounded_record(&cps, &before, "checkpoint");

    // The hooks, with the payloads Claude Code sends.
    env.set_now("2026-09-03T20:05:00Z");
    let out = r.mj_in(&["hook", "claude-code", "start"], &payload(&r, "SessionStart", r#","source":"startup""#)).ok();
    insta::assert_snapshot!(out.stdout, @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on main at [HEX], working tree dirty.
    Task t-[ID] (active, profile implementation): Large tree
    Scope: lib/auth, node_modules
    Handover .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md (same_worktree_same_branch, exact, 5m ago, authored).
    Its Next Action:
      Run the suite.
    Newest authored checkpoint .ai/local/state/checkpoints/20260903T200000Z--main--[HEX]--[HEX].md (exact, 5m ago); read it with git majordomus checkpoint --show.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    ");
    env.set_now("2026-09-03T20:10:00Z");
    r.mj_in(&["decision", "add", "Collapse untracked directories", "--why", "front matter stays small"], "").ok();
    let before = files(&cps);
    r.mj_in(&["hook", "claude-code", "compact"], &payload(&r, "PreCompact", r#","trigger":"auto""#)).ok();
    one_bounded_record(&cps, &before, "compact hook checkpoint");
    env.set_now("2026-09-03T20:15:00Z");
    // More work in the episode, so that its end has something to checkpoint (docs/REFERENCE.md#origin).
    r.mj_in(&["decision", "add", "Cap the front matter", "--why", "readers skip over 64 KiB"], "").ok();
    let (before_cp, before_ho, before_s) = (files(&cps), files(&hos), files(&sessions));
    r.mj_in(&["hook", "claude-code", "end"], &payload(&r, "SessionEnd", r#","reason":"logout""#)).ok();
    one_bounded_record(&cps, &before_cp, "end hook checkpoint");
    one_bounded_record(&hos, &before_ho, "end hook handover");
    // The derived body lists entries as git status shows them, not 20,000 files.
    let derived = new_files(&hos, &before_ho).pop().unwrap();
    let body = std::fs::read_to_string(hos.join(&derived)).unwrap();
    let body = body.split_once("\n---\n").unwrap().1;
    insta::assert_snapshot!(body, @"

    # Objective
    Large tree
    Task t-[ID] (profile implementation, outcome active); scope: lib/auth, node_modules.
    The authored handover .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md (15m ago) states it as:
    > Ship the large tree fix.

    # Current State
    The authored handover .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md (15m ago) said:
    > Marker handover-7731.
    The newest authored checkpoint .ai/local/state/checkpoints/20260903T200000Z--main--[HEX]--[HEX].md (15m ago):
    > Marker checkpoint-4417.
    What git and the records say now:
    On main at [HEX], working tree dirty.
    Since the authored handover: 0 commit(s), exact.
    Since the task started at [HEX]: 0 commit(s), exact.
    Changed files (2):
    - lib/
    - node_modules/
    Recorded in this episode: 2 checkpoint(s), 2 decision(s), 0 question(s), 0 handover(s); for task t-[ID] in all: 3 checkpoint(s), 2 decision(s), 0 question(s), 1 handover(s).

    # Next Action
    The authored handover .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md (15m ago) gave this Next Action:
    > Run the suite.

    # Decisions
    - 2026-09-03 — Cap the front matter
    - 2026-09-03 — Collapse untracked directories

    ---
    Derived by git-majordomus from its records and git; no model wrote it.
    ");
    let s = new_files(&sessions, &before_s);
    assert_eq!(s.len(), 1, "the end hook closed the episode: {s:?}");
    let f = front(&sessions.join(&s[0]));
    // node_modules/ is generated output: a closed session record leaves it out (docs/REFERENCE.md#closed-sessions).
    assert_eq!((f.changed_files.as_slice(), f.changed_total), (&["lib/".to_string()][..], Some(1)), "{f:?}");
    let out = r.mj(&["session", "latest"]).ok();
    assert_eq!(
        out.stdout.lines().nth(1),
        Some(format!("Record: .ai/repo/sessions/{}", s[0]).as_str()),
        "{}",
        out.all()
    );

    // By hand: an episode with a decision, its knowledge, its close.
    env.set_now("2026-09-03T20:20:00Z");
    r.mj(&["session", "start"]).ok();
    r.mj_in(&["decision", "add", "Bound every list", "--why", "readers cap front matter"], "").ok();
    let candidates = r.root.join(".ai/repo/knowledge/candidates");
    let before = files(&candidates);
    r.mj(&["knowledge", "derive"]).ok();
    let added = new_files(&candidates, &before);
    assert_eq!(added.len(), 1, "{added:?}");
    assert!(front(&candidates.join(&added[0])).bytes < CAP);
    // (sorted: candidates of one episode list in no fixed order)
    let listed = r.mj(&["knowledge", "candidates"]).ok().stdout;
    let mut listed: Vec<&str> = listed.lines().collect();
    listed.sort_by_key(|l| l.rsplit("convention ").next());
    insta::assert_snapshot!(listed.join("\n"), @"
    s-[ID]-[HEX]  candidate  convention Bound every list
    s-[ID]-[HEX]  candidate  convention Cap the front matter
    s-[ID]-[HEX]  candidate  convention Collapse untracked directories
    ");
    let before = files(&sessions);
    env.set_now("2026-09-03T20:25:00Z");
    r.mj(&["session", "close"]).ok();
    let s = new_files(&sessions, &before);
    assert_eq!(s.len(), 1);
    assert_eq!(front(&sessions.join(&s[0])).changed_total, Some(1));
    let out = r.mj(&["session", "latest"]).ok();
    assert_eq!(
        out.stdout.lines().nth(1),
        Some(format!("Record: .ai/repo/sessions/{}", s[0]).as_str()),
        "{}",
        out.all()
    );

    // Every reader reads them.
    let out = r.mj(&["context"]).ok();
    assert!(out.stdout.lines().any(|l| l == "Marker handover-7731."), "{}", out.stdout);
    assert_eq!(out.stderr, "");
    let state: Value = serde_json::from_str(&r.mj(&["--json", "state"]).ok().stdout).unwrap();
    assert_eq!(state["working_tree"], "dirty");
    assert!(state["handover"]["path"].is_string() && state["checkpoint"]["path"].is_string(), "{state}");
    insta::assert_snapshot!(r.mj(&["doctor"]).ok().shown(), @r#"
    OK policy .ai/repo/policy.yaml — parses  [reproduce: git majordomus check]
    OK profile .ai/repo/profiles/debugging.yaml — parses  [reproduce: cat .ai/repo/profiles/debugging.yaml]
    OK profile .ai/repo/profiles/deep-work.yaml — parses  [reproduce: cat .ai/repo/profiles/deep-work.yaml]
    OK profile .ai/repo/profiles/implementation.yaml — parses  [reproduce: cat .ai/repo/profiles/implementation.yaml]
    OK profile .ai/repo/profiles/routine.yaml — parses  [reproduce: cat .ai/repo/profiles/routine.yaml]
    OK task t-[ID] — "Large tree" (active, profile implementation, scope lib/auth node_modules)  [reproduce: cat .ai/local/state/current.yaml]
    OK records .ai/local/state/checkpoints — 3 checkpoint record(s), all readable  [reproduce: git majordomus checkpoint --list]
    OK records .ai/local/state/handovers — 2 handover record(s), all readable  [reproduce: git majordomus handover --list]
    OK ledger .ai/local/state/ledger.jsonl — 20 line(s), all valid  [reproduce: git majordomus history --validate]
    OK questions .ai/local/state/open-questions.md — no question store yet  [reproduce: git majordomus question list]
    OK decisions .ai/local/state/decisions.md — 3 decision(s), each with Task, Head and Why  [reproduce: git majordomus decision list]
    OK sessions .ai/local/state/sessions-open — 0 open episode(s), each parses with a working context  [reproduce: git majordomus session status]
    OK sessions .ai/repo/sessions — 2 closed session record(s), all readable  [reproduce: git majordomus session list --all]
    OK retention .ai/local/state/ledger.jsonl — ledger 20 lines, cap 50000  [reproduce: wc -l .ai/local/state/ledger.jsonl]
    OK retention .ai/local/state/handovers — handovers 2 files, cap 200  [reproduce: git majordomus handover --list]
    OK retention .ai/local/state/checkpoints — checkpoints 3 files, cap 500  [reproduce: git majordomus checkpoint --list]
    OK knowledge majordomus.knowledge-observed — newest closed episode s-[ID]: knowledge writer observed  [reproduce: git majordomus history --event knowledge.derived]
    OK knowledge-integrity .ai/repo/knowledge — every knowledge record parses and sits in its directory  [reproduce: git majordomus knowledge candidates]
    OK knowledge candidates-reviewed — 3 candidates awaiting review, cap 40  [reproduce: git majordomus knowledge candidates]
    [OK|WARN] budget doctor — ran in [N] ms, budget 300 ms (benchmark.budget.doctor_ms)  [reproduce: time git majordomus doctor]
    --- stderr
    --- exit 0
    "#);
}

// Issue 21 (docs/REFERENCE.md#front-matter): a write whose front matter would pass the readers' 64 KiB cap is
// refused with exit 10 and leaves nothing behind.
#[test]
fn r21_a_record_the_readers_would_skip_is_refused_and_nothing_is_written() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("wide");
    let policy = r.read(".ai/repo/policy.yaml");
    assert!(policy.lines().any(|l| l.trim() == "max_list_items: 20"), "{policy}");
    r.write(".ai/repo/policy.yaml", &policy.replace("max_list_items: 20\n", "max_list_items: 100000\n"));
    // 3,000 untracked directories of one file each: 3,000 entries of about 75 bytes.
    for i in 0..3000 {
        r.write(&format!("d{i:04}-{}/f.txt", "long-directory-name-".repeat(3)), "x\n");
    }
    r.mj(&["start", "Wide tree", "--scope", "."]).ok();
    let ledger = r.read(".ai/local/state/ledger.jsonl");
    let body = "# Objective\no\n\n# Current State\ns\n\n# Next Action\nn\n";
    // no path is printed
    let mut refusals = String::new();
    for (args, stdin, dir) in
        [(&["handover"][..], body, r.state("handovers")), (&["checkpoint"][..], "progress\n", r.state("checkpoints"))]
    {
        refusals.push_str(&r.mj_in(args, stdin).code(10).shown());
        assert_eq!(files(&dir), Vec::<String>::new(), "{args:?}: no record and no temp file");
    }
    insta::assert_snapshot!(refusals, @"
    --- stderr
    error: handover: its front matter would be 216340 bytes, over the 65536 bytes every reader accepts (`changed_files` takes 216015)
    hint: nothing was written; lower context.max_list_items in .ai/repo/policy.yaml, or commit or ignore some of the changes
    --- exit 10
    --- stderr
    error: checkpoint: its front matter would be 216340 bytes, over the 65536 bytes every reader accepts (`changed_files` takes 216015)
    hint: nothing was written; lower context.max_list_items in .ai/repo/policy.yaml, or commit or ignore some of the changes
    --- exit 10
    ");
    assert_eq!(r.read(".ai/local/state/ledger.jsonl"), ledger, "no ledger line for a refused write");
    // The closed session record too; the episode stays open.
    r.mj(&["session", "start"]).ok();
    insta::assert_snapshot!(r.mj(&["session", "close"]).code(10).shown(), @"
    --- stderr
    error: session close: the closed session record: its front matter would be 216627 bytes, over the 65536 bytes every reader accepts (`changed_files` takes 216015)
    hint: nothing was written; lower context.max_list_items in .ai/repo/policy.yaml, or commit or ignore some of the changes
    --- exit 10
    ");
    assert_eq!(files(&r.root.join(".ai/repo/sessions")), Vec::<String>::new());
    assert!(r.state("sessions-open/hand.yaml").exists());
    // Within the cap the same tree writes.
    r.write(".ai/repo/policy.yaml", &policy);
    r.mj_in(&["handover"], body).ok();
    let f = front(&r.state("handovers").join(&files(&r.state("handovers"))[0]));
    assert_eq!((f.changed_files.len(), f.changed_total), (20, Some(3000)));
}

// Issue 21 (docs/REFERENCE.md#identity): changes inside `.ai/` only leave the tree clean everywhere.
#[test]
fn r21_the_tools_own_layer_is_not_the_users_work() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("own");
    r.mj(&["session", "start"]).ok();
    r.mj(&["session", "close"]).ok();
    let policy = r.read(".ai/repo/policy.yaml");
    r.write(".ai/repo/policy.yaml", &format!("{policy}# edited by hand\n"));
    let porcelain = r.git(&["status", "--porcelain"]);
    let paths: Vec<&str> = porcelain.lines().map(|l| l[2..].trim()).collect();
    assert_eq!(paths, [".ai/repo/policy.yaml", ".ai/repo/sessions/"], "{porcelain}");

    let out = r.mj_in(&["handover", "--no-task"], "# Objective\no\n\n# Current State\ns\n\n# Next Action\nn\n").ok();
    let f = front(&r.root.join(out.first_line()));
    assert_eq!(f.working_tree.as_deref(), Some("clean"), "{f:?}");
    assert_eq!((f.changed_files.len(), f.changed_total), (0, Some(0)), "{f:?}");
    assert!(r.read(&out.first_line()).lines().any(|l| l == "changed_files: []"));

    let state: Value = serde_json::from_str(&r.mj(&["--json", "state"]).ok().stdout).unwrap();
    assert_eq!(state["working_tree"], "clean", "{state}");

    let out = r.mj_in(&["hook", "claude-code", "start"], &payload(&r, "SessionStart", r#","source":"startup""#)).ok();
    insta::assert_snapshot!(out.stdout, @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on main at [HEX], working tree clean.
    No task record: checkpoints and handovers are still written for this episode.
    Handover .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md (same_worktree_same_branch, exact, 0m ago, authored).
    Its Next Action:
      n
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    ");

    r.mj(&["continuity", "device", "--label", "laptop"]).ok();
    let out = r.mj(&["--json", "continuity", "publish", "--dry-run"]).ok();
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!((&v["record"]["working_tree"], &v["record"]["changed_total"]), (&"clean".into(), &0.into()), "{v}");
    // What would leave the machine: a clean source, no changed path, no fingerprint.
    let receipt: Vec<(&str, &Value)> =
        v["receipt"].as_array().unwrap().iter().map(|f| (f["pointer"].as_str().unwrap(), &f["value"])).collect();
    assert!(receipt.contains(&("/source/working_tree", &"clean".into())), "{receipt:?}");
    assert!(
        !receipt.iter().any(|(p, _)| p.starts_with("/source/changed/") || *p == "/source/fingerprint"),
        "{receipt:?}"
    );
    // (the producer line left out: its byte count follows the version)
    let dry = r.mj(&["continuity", "publish", "--dry-run"]).ok().shown();
    let dry: Vec<&str> = dry.lines().filter(|l| !l.starts_with("/producer ")).collect();
    insta::assert_snapshot!(dry.join("\n"), @"
    Dry run: nothing was signed or stored. This would leave the machine:
    /schema (24 bytes): majordomus-continuity/v1
    /repository (32 bytes): [HEX]
    /device/node (32 bytes): [HEX]
    /device/label (6 bytes): laptop
    /session (21 bytes): s-[ID]
    /episode (4 bytes): open
    /published_at (20 bytes): 2026-09-03T20:00:00Z
    /source/branch (4 bytes): main
    /source/head (40 bytes): [HEX]
    /source/working_tree (5 bytes): clean
    /source/changed_total (1 bytes): 0
    /handover/id (32 bytes): [HEX]
    /handover/branch (4 bytes): main
    /handover/head (40 bytes): [HEX]
    /handover/created_at (20 bytes): 2026-09-03T20:00:00Z
    /handover/name (52 bytes): 20260903T200000Z--main--[HEX]--[HEX].md
    /handover/body (50 bytes):
    # Objective
    o

    # Current State
    s

    # Next Action
    n

    --- stderr
    --- exit 0
    ");
}
