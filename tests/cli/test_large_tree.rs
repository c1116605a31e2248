//! Issue 21 (deliverables 3 and 4), docs/REFERENCE.md#front-matter and docs/REFERENCE.md#origin: a large working tree never makes the
//! tool's own records unreadable, a write the readers would skip is refused, and the tool's own
//! layer (`.ai/`) is never the user's work (TRIAL findings #2 and #10).

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

// Issue 21 (TRIAL #2, docs/REFERENCE.md#front-matter): with 20,000 untracked files every writer writes a record its
// readers read.
#[test]
fn r21_twenty_thousand_untracked_files_leave_every_record_readable() {
    let env = TestEnv::new();
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
    let out = r.mj(&["handover", "--resolve"]).ok();
    assert!(out.stdout.contains("Marker handover-7731."), "{}{}", out.stdout, out.stderr);
    assert!(!out.stderr.contains("skipped"), "{}", out.stderr);
    one_bounded_record(&hos, &before, "handover");

    let before = files(&cps);
    r.mj_in(&["checkpoint"], "Marker checkpoint-4417.\n").ok();
    let out = r.mj(&["checkpoint", "--show"]).ok();
    assert!(out.stdout.contains("Marker checkpoint-4417."), "{}{}", out.stdout, out.stderr);
    one_bounded_record(&cps, &before, "checkpoint");

    // The hooks, with the payloads Claude Code sends.
    env.set_now("2026-09-03T20:05:00Z");
    let out = r.mj_in(&["hook", "claude-code", "start"], &payload(&r, "SessionStart", r#","source":"startup""#)).ok();
    assert!(out.stdout.contains("working tree dirty"), "{}", out.stdout);
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
    assert!(body.contains("Changed files (2):\n- lib/\n- node_modules/\n"), "{body}");
    let s = new_files(&sessions, &before_s);
    assert_eq!(s.len(), 1, "the end hook closed the episode: {s:?}");
    let f = front(&sessions.join(&s[0]));
    // node_modules/ is generated output: a closed session record leaves it out (docs/REFERENCE.md#closed-sessions).
    assert_eq!((f.changed_files.as_slice(), f.changed_total), (&["lib/".to_string()][..], Some(1)), "{f:?}");
    let out = r.mj(&["session", "latest"]).ok();
    assert!(out.stdout.contains(&s[0]), "{}{}", out.stdout, out.stderr);

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
    let out = r.mj(&["knowledge", "candidates"]).ok();
    assert!(out.stdout.contains("Bound every list"), "{}", out.stdout);
    let before = files(&sessions);
    env.set_now("2026-09-03T20:25:00Z");
    r.mj(&["session", "close"]).ok();
    let s = new_files(&sessions, &before);
    assert_eq!(s.len(), 1);
    assert_eq!(front(&sessions.join(&s[0])).changed_total, Some(1));
    let out = r.mj(&["session", "latest"]).ok();
    assert!(out.stdout.contains(&s[0]), "{}{}", out.stdout, out.stderr);

    // Every reader reads them.
    let out = r.mj(&["context"]).ok();
    assert!(out.stdout.contains("Marker handover-7731."), "{}{}", out.stdout, out.stderr);
    assert!(!out.stderr.contains("malformed"), "{}", out.stderr);
    let state: Value = serde_json::from_str(&r.mj(&["--json", "state"]).ok().stdout).unwrap();
    assert_eq!(state["working_tree"], "dirty");
    assert!(state["handover"]["path"].is_string() && state["checkpoint"]["path"].is_string(), "{state}");
    let out = r.mj(&["doctor"]);
    assert!(!out.stdout.contains("FAIL"), "{}", out.stdout);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
}

// Issue 21 (docs/REFERENCE.md#front-matter): a write whose front matter would pass the readers' 64 KiB cap is
// refused with exit 10 and leaves nothing behind.
#[test]
fn r21_a_record_the_readers_would_skip_is_refused_and_nothing_is_written() {
    let env = TestEnv::new();
    let r = env.ready_repo("wide");
    let policy = r.read(".ai/repo/policy.yaml");
    assert!(policy.contains("max_list_items: 20\n"));
    r.write(".ai/repo/policy.yaml", &policy.replace("max_list_items: 20\n", "max_list_items: 100000\n"));
    // 3,000 untracked directories of one file each: 3,000 entries of about 75 bytes.
    for i in 0..3000 {
        r.write(&format!("d{i:04}-{}/f.txt", "long-directory-name-".repeat(3)), "x\n");
    }
    r.mj(&["start", "Wide tree", "--scope", "."]).ok();
    let ledger = r.read(".ai/local/state/ledger.jsonl");
    let body = "# Objective\no\n\n# Current State\ns\n\n# Next Action\nn\n";
    for (args, stdin, dir) in
        [(&["handover"][..], body, r.state("handovers")), (&["checkpoint"][..], "progress\n", r.state("checkpoints"))]
    {
        let out = r.mj_in(args, stdin).code(10);
        let err = out.stderr.lines().next().unwrap_or("");
        assert!(
            err.starts_with(&format!("error: {}: its front matter would be ", args[0]))
                && err.contains("over the 65536 bytes every reader accepts (`changed_files` takes"),
            "{}",
            out.stderr
        );
        assert!(out.stderr.contains("hint: nothing was written; lower context.max_list_items"), "{}", out.stderr);
        assert!(!out.stdout.contains(".ai/local/state/"), "no path is printed: {}", out.stdout);
        assert_eq!(files(&dir), Vec::<String>::new(), "{args:?}: no record and no temp file");
    }
    assert_eq!(r.read(".ai/local/state/ledger.jsonl"), ledger, "no ledger line for a refused write");
    // The closed session record too; the episode stays open.
    r.mj(&["session", "start"]).ok();
    let out = r.mj(&["session", "close"]).code(10);
    assert!(out.stderr.contains("its front matter would be "), "{}", out.stderr);
    assert_eq!(files(&r.root.join(".ai/repo/sessions")), Vec::<String>::new());
    assert!(r.state("sessions-open/hand.yaml").exists());
    // Within the cap the same tree writes.
    r.write(".ai/repo/policy.yaml", &policy);
    r.mj_in(&["handover"], body).ok();
    let f = front(&r.state("handovers").join(&files(&r.state("handovers"))[0]));
    assert_eq!((f.changed_files.len(), f.changed_total), (20, Some(3000)));
}

// Issue 21 (TRIAL #10, docs/REFERENCE.md#origin): changes inside `.ai/` only leave the tree clean everywhere.
#[test]
fn r21_the_tools_own_layer_is_not_the_users_work() {
    let env = TestEnv::new();
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
    assert!(r.read(&out.first_line()).contains("changed_files: []\n"));

    let state: Value = serde_json::from_str(&r.mj(&["--json", "state"]).ok().stdout).unwrap();
    assert_eq!(state["working_tree"], "clean", "{state}");

    let out = r.mj_in(&["hook", "claude-code", "start"], &payload(&r, "SessionStart", r#","source":"startup""#)).ok();
    assert!(out.stdout.contains("working tree clean"), "{}", out.stdout);

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
    let out = r.mj(&["continuity", "publish", "--dry-run"]).ok();
    assert!(!out.all().contains("dirty"), "{}", out.all());
}
