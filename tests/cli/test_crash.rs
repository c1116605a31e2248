//! Crash safety (issue 11 item 3): every writer killed with SIGKILL at seeded random moments —
//! `checkpoint`, `handover`, `finish`, `continuity publish`, `continuity sync`, the end hook, `session close`
//! and a cold read-model rebuild of a store of a few hundred records — leaves no half-written
//! file, a store ref on a valid commit and no lock that blocks the next command beyond its
//! bound; re-running the command completes. `MAJORDOMUS_CRASH_SEED` overrides the seed.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use majordomus::continuity::record::{self as rec, Record};
use majordomus::continuity::signing::DeviceKey;
use majordomus::model::task::Task;
use serde_json::Value;

use crate::common::remotes::bare;
use crate::common::store::{fsck, json, note, publish, record_ids, seed, store_path, Rng, REF};
use crate::common::{spawn_mj, Repo, TestEnv, HANDOVER};

/// Kills per command.
const KILLS: usize = 10;

/// How long the re-run after a kill may take (a stale lock would make it wait or fail).
const BOUND: Duration = Duration::from_secs(15);

/// Starts `args` at `dir` with `stdin`, kills it with SIGKILL after `delay` (if it is still
/// running); returns whether it was killed before it finished.
fn kill_after(env: &TestEnv, dir: &Path, args: &[&str], stdin: &str, delay: Duration) -> bool {
    let mut child = spawn_mj(&env.vars(), &[], dir, args, stdin, false);
    let started = Instant::now();
    while started.elapsed() < delay {
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    let killed = child.try_wait().unwrap().is_none();
    let _ = child.kill(); // SIGKILL
    let _ = child.wait();
    killed
}

/// What every kill must leave: record files that parse, a valid ledger, a store ref on a commit
/// whose tree reads, doctor without FAIL.
#[track_caller]
fn intact(r: &Repo<'_>, what: &str) {
    for kind in ["checkpoints", "handovers"] {
        for name in r.records(kind) {
            let text = r.read(&format!(".ai/local/state/{kind}/{name}"));
            assert!(
                text.starts_with("---\n") && text.matches("\n---\n").count() >= 1,
                "{what}: half-written {kind}/{name}:\n{text}"
            );
        }
    }
    // Closed session records (the end hook's and `session close`'s last write).
    if let Ok(dir) = std::fs::read_dir(r.root.join(".ai/repo/sessions")) {
        for e in dir.flatten().filter(|e| e.file_name().to_string_lossy().ends_with(".md")) {
            let text = std::fs::read_to_string(e.path()).unwrap();
            assert!(
                text.starts_with("---\n") && text.contains("\n---\n"),
                "{what}: half-written {:?}:\n{text}",
                e.path()
            );
        }
    }
    r.mj(&["history", "--validate"]).ok();
    if r.git(&["for-each-ref", REF]).contains(REF) {
        assert_eq!(r.git(&["cat-file", "-t", REF]), "commit", "{what}");
        r.git(&["ls-tree", "-r", REF]);
    }
    let doc: Value = serde_json::from_str(&r.mj(&["--json", "doctor"]).stdout).unwrap();
    let fails: Vec<&Value> = doc["findings"].as_array().unwrap().iter().filter(|f| f["level"] == "FAIL").collect();
    assert!(fails.is_empty(), "{what}: doctor: {fails:?}");
    // Every staging file a kill left is named by doctor (a WARN: never read as a record).
    let staging = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["level"] == "WARN" && f["message"].as_str().unwrap().starts_with("staging file"))
        .count();
    assert_eq!(staging, temps(&r.root.join(".ai")), "{what}: doctor names every staging file");
}

/// Re-runs `args` and expects one of `codes` within [`BOUND`].
#[track_caller]
fn rerun(r: &Repo<'_>, args: &[&str], stdin: &str, codes: &[i32]) {
    let t = Instant::now();
    let mut out = r.env.run(&r.root, args, Some(stdin.as_bytes()), &[]);
    if out.code == 13 && out.stderr.contains("continuity.lock") {
        // Killed inside its ref transaction: the lock is a dead writer's once it is 5 s old.
        std::thread::sleep(Duration::from_secs(6).saturating_sub(t.elapsed()));
        out = r.env.run(&r.root, args, Some(stdin.as_bytes()), &[]);
        note(&format!("crash: {args:?} left the store's ref lock; the next run after 6 s removed it"));
    }
    assert!(t.elapsed() < BOUND, "{args:?} after a kill took {:?}", t.elapsed());
    assert!(codes.contains(&out.code), "{args:?} after a kill: exit {}\n{}", out.code, out.all());
}

/// How long one undisturbed run of `args` takes (the window kills are drawn from).
fn duration(r: &Repo<'_>, args: &[&str], stdin: &str, before: &dyn Fn()) -> Duration {
    (0..3)
        .map(|_| {
            before();
            let t = Instant::now();
            let _ = r.env.run(&r.root, args, Some(stdin.as_bytes()), &[]);
            t.elapsed()
        })
        .min()
        .unwrap()
}

/// Kills `args` [`KILLS`] times at moments drawn from `0..1.2 ×` its shortest of three runs, with `before`
/// run ahead of every attempt; checks what each kill left and re-runs it.
fn campaign(r: &Repo<'_>, rng: &mut Rng, args: &[&str], stdin: &str, before: &dyn Fn(), ok: &[i32]) -> usize {
    let d = duration(r, args, stdin, before).as_micros() as u64;
    let mut killed = 0;
    for i in 0..KILLS {
        before();
        let delay = Duration::from_micros(rng.below(d * 6 / 5 + 1));
        killed += usize::from(kill_after(r.env, &r.root, args, stdin, delay));
        let what = format!("{args:?} kill {i} after {delay:?}");
        intact(r, &what);
        rerun(r, args, stdin, ok);
        intact(r, &what);
    }
    note(&format!(
        "crash: {args:?}: {KILLS} runs, {killed} killed mid-run (run takes {} ms); {} temp files left by kills inside a write so far",
        d / 1000,
        temps(&r.root.join(".ai/local"))
    ));
    killed
}

/// How many `.tmp.*` files (a write's staging file, left by a kill inside the write; never read
/// as a record) are under `dir`: the evidence that kills landed inside the write window.
fn temps(dir: &Path) -> usize {
    let Ok(rd) = std::fs::read_dir(dir) else { return 0 };
    rd.flatten()
        .map(|e| {
            if e.path().is_dir() {
                temps(&e.path())
            } else {
                usize::from(e.file_name().to_string_lossy().starts_with(".tmp."))
            }
        })
        .sum()
}

#[test]
fn sigkill_during_every_writer_leaves_the_checkout_usable() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    r.mj(&["continuity", "device", "--label", "laptop"]).ok();
    let remote = bare(&env, &env.path().join("remote.git"));
    r.git(&["remote", "add", "origin", remote.to_str().unwrap()]);
    r.git(&["push", "-q", "origin", "main"]);
    let mut rng = Rng(seed("MAJORDOMUS_CRASH_SEED", 20_261_203));
    let task = || {
        let _ = r.mj(&["start", "crash", "--scope", "lib"]);
    };
    let nothing = || {};
    let mut killed = 0;
    killed += campaign(&r, &mut rng, &["checkpoint"], "a checkpoint body\n", &nothing, &[0]);
    killed += campaign(&r, &mut rng, &["handover"], HANDOVER, &task, &[0]);
    // `partial` needs a Next Action: a handover naming the task carries it.
    // Before each attempt, what the last kill and its re-run left is checked against the ledger.
    let handed_task = || {
        finish_agrees(&r, "finish campaign");
        task();
        let _ = r.mj_in(&["handover"], HANDOVER);
    };
    killed += campaign(&r, &mut rng, &["finish", "--outcome", "partial"], "", &handed_task, &[0, 15]);
    finish_agrees(&r, "after the finish campaign");
    let n = std::cell::Cell::new(0);
    let handover = || {
        n.set(n.get() + 1);
        let body = format!("# Objective\nPublish {}.\n\n# Current State\nx\n\n# Next Action\ny\n", n.get());
        let _ = r.mj_in(&["handover", "--no-task"], &body);
    };
    killed += campaign(&r, &mut rng, &["continuity", "publish"], "", &handover, &[0]);
    let pending = || {
        n.set(n.get() + 1);
        publish(&r, &format!("Pending for sync {}.", n.get()));
    };
    killed += campaign(&r, &mut rng, &["continuity", "sync"], "", &pending, &[0]);
    // The end hook (issue 23): a final checkpoint, a derived handover and the closed session
    // record, each whole, whichever step a kill lands in; its re-run finishes the close.
    let episode = || {
        n.set(n.get() + 1);
        r.write("lib/work.txt", &format!("edit {}\n", n.get()));
        let _ = r.mj_in(&["hook", "claude-code", "start"], r#"{"session_id":"crash","source":"startup"}"#);
    };
    killed += campaign(
        &r,
        &mut rng,
        &["hook", "claude-code", "end"],
        r#"{"session_id":"crash","reason":"logout"}"#,
        &episode,
        &[0],
    );
    let open = || {
        let _ = r.mj(&["session", "start"]);
    };
    killed += campaign(&r, &mut rng, &["session", "close", "--if-none", "ignore"], "", &open, &[0]);
    // Every episode closed once, none left open.
    let started = r.ledger().iter().filter(|l| l["event"] == "session.started").count();
    let closed = r.ledger().iter().filter(|l| l["event"] == "session.closed").count();
    assert_eq!(started, closed, "every episode opened was closed once");
    assert!(killed > 0, "no kill landed inside a run");
    // The store reached the remote whole.
    let mut ids = record_ids(&r);
    ids.sort();
    let theirs: Vec<String> = env
        .git_in(&remote, &["ls-tree", "-r", "--name-only", REF])
        .lines()
        .filter_map(|l| l.rsplit('/').next()?.strip_suffix(".json").map(str::to_string))
        .collect();
    assert_eq!(theirs, ids);
    fsck(&env, &r.root);
    fsck(&env, &remote);
}

/// A cold `continuity status` over 300 records, killed while it builds the read model: the next
/// read answers as a read without any cache does.
#[test]
fn sigkill_during_a_read_model_rebuild_leaves_no_cache_that_lies() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    r.mj(&["continuity", "device", "--label", "laptop"]).ok();
    let first = publish(&r, "The template.");
    let text = r.git(&["cat-file", "blob", &format!("{REF}:{}", store_path(&first))]);
    let template: Record =
        serde_json::from_value(serde_json::from_str::<Value>(&text).unwrap()["record"].clone()).unwrap();
    let key = DeviceKey::from_seed([3; 32], Some("desktop".into()), "2026-09-01T00:00:00Z");
    let mut info = String::new();
    for i in 0..300 {
        let mut record = template.clone();
        record.device = key.device();
        record.handover.body = format!("# Objective\nRecord {i}.\n\n# Current State\nx\n\n# Next Action\ny\n");
        let e = key.sign(&record);
        let blob =
            r.env.sh(&r.root, "git hash-object -w --stdin", &rec::stored_bytes(&e), &[]).ok().stdout.trim().to_string();
        info.push_str(&format!("100644 {blob}\t{}\n", store_path(&e.id)));
    }
    crate::common::store::put_info(&r, &info);
    let cache = r.root.join(".git/majordomus/readmodel");
    let cold = |r: &Repo<'_>| {
        let _ = std::fs::remove_dir_all(&cache);
        r.mj(&["--json", "continuity", "status"]).ok().stdout
    };
    let truth = cold(&r);
    assert_eq!(json(&r.mj(&["--json", "continuity", "records"]).ok())["records"].as_array().unwrap().len(), 301);
    let mut rng = Rng(seed("MAJORDOMUS_CRASH_SEED", 20_261_203));
    let _ = std::fs::remove_dir_all(&cache);
    let clear = || {
        let _ = std::fs::remove_dir_all(&cache);
    };
    let d = duration(&r, &["continuity", "status"], "", &clear).as_micros() as u64;
    let mut killed = 0;
    for i in 0..KILLS {
        let _ = std::fs::remove_dir_all(&cache);
        let delay = Duration::from_micros(rng.below(d * 6 / 5 + 1));
        killed += usize::from(kill_after(&env, &r.root, &["continuity", "status"], "", delay));
        let t = Instant::now();
        let after = r.mj(&["--json", "continuity", "status"]).ok().stdout;
        assert!(t.elapsed() < BOUND);
        assert_eq!(after, truth, "kill {i} after {delay:?}: the read model answers differently");
    }
    note(&format!(
        "crash: cold continuity status over 301 records: {KILLS} runs, {killed} killed mid-run (run takes {} ms)",
        d / 1000
    ));
    assert_eq!(cold(&r), truth);
}

/// A writer killed inside its ref transaction leaves `refs/majordomus/continuity.lock` behind
/// (git does the same; a kill during `continuity publish` can leave it, after which every
/// publish would fail with "gave up after 20 attempts (concurrent writers)"). Only this executable
/// writes that reference, under its writers' lock: holding that lock proves the file a
/// leftover, so the next publish removes it at once, whatever its age (issue 41 item 5).
#[test]
fn a_ref_lock_left_by_a_killed_writer_is_cleared_by_the_next_publish() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    publish(&r, "Before the crash.");
    let tip = r.git(&["rev-parse", REF]);
    let lock = r.root.join(".git/refs/majordomus/continuity.lock");
    std::fs::write(&lock, "").unwrap();
    r.mj_in(&["handover", "--no-task"], HANDOVER).ok();
    let t = Instant::now();
    let out = r.mj(&["continuity", "publish"]).ok();
    assert!(t.elapsed() < BOUND);
    assert!(!out.all().contains("concurrent writers"), "{}", out.all());
    assert!(!lock.exists());
    assert_ne!(r.git(&["rev-parse", REF]), tip);
    assert_eq!(record_ids(&r).len(), 2);
    fsck(&env, &r.root);
}

/// A `continuity publish` stopped at its worst moments by name (`MAJORDOMUS_STOP_AT`, an
/// abort: no destructor runs, as after SIGKILL) leaves the store readable and the next publish
/// working: after its objects are written and before the reference moves, and after the
/// reference moved but before `continuity.json` is written. A checkpoint stopped half way
/// through its ledger line leaves a torn tail that the next event moves aside.
#[test]
fn writers_stopped_at_named_steps_leave_nothing_broken() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    publish(&r, "Before the crash.");
    for (step, moved) in [("store.before-ref", false), ("publish.after-ref", true)] {
        let tip = r.git(&["rev-parse", REF]);
        r.mj_in(&["handover", "--no-task"], &HANDOVER.replace("Reproduced.", step)).ok();
        let out = r.mj_env(&["continuity", "publish"], "", &[("MAJORDOMUS_STOP_AT", step)]);
        assert_ne!(out.code, 0, "{step}: stopped: {}", out.all());
        assert_eq!(r.git(&["rev-parse", REF]) != tip, moved, "{step}");
        r.mj(&["continuity", "status"]).ok();
        r.mj(&["continuity", "publish"]).ok();
        r.mj(&["continuity", "verify"]).ok();
        fsck(&env, &r.root);
    }
    assert_eq!(record_ids(&r).len(), 3);
    let out = r.mj_env(&["checkpoint"], "half a line\n", &[("MAJORDOMUS_STOP_AT", "ledger.mid-line")]);
    assert_ne!(out.code, 0);
    assert!(!std::fs::read_to_string(r.state("ledger.jsonl")).unwrap().ends_with('\n'), "a torn tail");
    r.mj_in(&["checkpoint"], "after\n").ok();
    r.mj(&["history", "--validate"]).ok();
    assert!(r.state("ledger.jsonl.torn").is_file());
}

/// A `session close` killed after writing the closed record but before its ledger line (or after
/// the line but before the open files go) is finished by the next close, and the episode's
/// `session.closed` line is written exactly once either way. Found by the merged crash campaign:
/// the re-run reused the closed record and skipped the line.
#[test]
fn a_close_killed_between_its_record_and_its_ledger_line_is_finished_once_by_the_next_close() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    let closes = |r: &Repo<'_>| r.ledger().iter().filter(|l| l["event"] == "session.closed").count();
    for drop_line in [true, false] {
        r.mj(&["session", "start"]).ok();
        let open = r.state("sessions-open/hand.yaml");
        let pointer = r.state("session-current.yaml");
        let (episode, aim) = (std::fs::read(&open).unwrap(), std::fs::read(&pointer).unwrap());
        let before = closes(&r);
        r.mj(&["session", "close"]).ok();
        assert_eq!(closes(&r), before + 1);
        // Put back what the kill would have left.
        std::fs::write(&open, &episode).unwrap();
        std::fs::write(&pointer, &aim).unwrap();
        if drop_line {
            drop_ledger_lines(&r, "session.closed");
        }
        r.mj(&["session", "close"]).ok();
        let after = closes(&r);
        assert_eq!(after, before + 1, "one session.closed line for the episode (drop_line={drop_line})");
        assert!(!open.exists(), "the open episode is gone after the second close");
        r.mj(&["session", "close"]).code(12);
    }
}

/// Removes every ledger line of `event`: what a writer killed before appending it leaves.
fn drop_ledger_lines(r: &Repo<'_>, event: &str) {
    let ledger = r.state("ledger.jsonl");
    let text = std::fs::read_to_string(&ledger).unwrap();
    let needle = format!("\"event\":\"{event}\"");
    let kept: Vec<&str> = text.lines().filter(|l| !l.contains(&needle)).collect();
    std::fs::write(&ledger, kept.join("\n") + "\n").unwrap();
}

/// The task record and the ledger agree once every finish has run to its end: at most one
/// `task.finished` line per task id, and for the task record exactly one when its outcome is
/// terminal, none while it is not.
#[track_caller]
fn finish_agrees(r: &Repo<'_>, what: &str) {
    let mut lines: BTreeMap<String, usize> = BTreeMap::new();
    for l in r.ledger().iter().filter(|l| l["event"] == "task.finished") {
        *lines.entry(l["task_id"].as_str().unwrap().to_string()).or_default() += 1;
    }
    for (id, n) in &lines {
        assert_eq!(*n, 1, "{what}: task {id} has {n} task.finished lines");
    }
    let Ok(text) = std::fs::read_to_string(r.state("current.yaml")) else { return };
    let t = Task::parse(&text).unwrap();
    let n = lines.get(&t.id).copied().unwrap_or(0);
    assert_eq!(
        n,
        usize::from(t.outcome.is_terminal()),
        "{what}: task {} has outcome {} and {n} task.finished line(s)",
        t.id,
        t.outcome
    );
}

/// Doctor's findings about the task's `task.finished` line (category `verification`).
fn doctor_on_finish(r: &Repo<'_>) -> Vec<(String, String)> {
    let doc: Value = serde_json::from_str(&r.mj(&["--json", "doctor"]).stdout).unwrap();
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["category"] == "verification")
        .map(|f| (f["level"].as_str().unwrap().to_string(), f["message"].as_str().unwrap().to_string()))
        .collect()
}

/// A `finish` killed after writing the task's outcome but before appending its `task.finished`
/// line is completed by the next `finish` of the same outcome, and the line is written once;
/// until then doctor names the missing line (WARN) and how to complete it. Before, the re-run was
/// refused as already finished (15) and the line never came.
#[test]
fn a_finish_killed_between_its_outcome_and_its_ledger_line_is_completed_once_by_the_next_finish() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let finished = |r: &Repo<'_>| r.ledger().iter().filter(|l| l["event"] == "task.finished").count();
    r.mj(&["start", "crash", "--scope", "lib"]).ok();
    r.mj_in(&["handover"], HANDOVER).ok();
    r.mj(&["finish", "--outcome", "partial"]).ok();
    assert_eq!(finished(&r), 1);
    let ok = doctor_on_finish(&r);
    assert!(matches!(ok.as_slice(), [(level, _)] if level == "OK"), "{ok:?}");
    // What the kill leaves: the outcome written, the line not.
    drop_ledger_lines(&r, "task.finished");
    let warn = doctor_on_finish(&r);
    assert!(
        matches!(warn.as_slice(), [(level, m)] if level == "WARN" && m.contains("run git majordomus finish --outcome partial")),
        "{warn:?}"
    );
    // Another outcome is still refused; the hint names the finish to complete.
    insta::assert_snapshot!(r.mj(&["finish", "--outcome", "blocked"]).code(15).shown(), @"
    --- stderr
    error: task t-[ID] is already finished (outcome partial)
    hint: its finish was interrupted before the task.finished line; run git majordomus finish --outcome partial to complete it
    --- exit 15
    ");
    let rerun = r.mj(&["finish", "--outcome", "partial"]).ok();
    insta::assert_snapshot!(rerun.stderr, @"warning: task t-[ID] already had outcome partial but no task.finished line (a finish was interrupted); completing it");
    assert_eq!(finished(&r), 1);
    finish_agrees(&r, "after the re-run");
    assert_eq!(doctor_on_finish(&r)[0].0, "OK");
    r.mj(&["finish", "--outcome", "partial"]).code(15);
    assert_eq!(finished(&r), 1, "a finished finish is not written twice");
}

/// A fetch that cannot take the remote-tracking ref's lock (another git on this clone holds it,
/// or a git killed hard left it) is a local failure, exit 13 naming the lock, never
/// "unreachable" (docs/SYNC.md#outcomes-and-what-to-do); the local store and the last sync are left as they were. Found by
/// the crash campaign on a clean clone: a killed sync's own `git fetch` was still finishing when
/// the re-run fetched, and the re-run said the remote could not be reached.
#[test]
fn a_held_tracking_ref_lock_is_a_local_error_not_an_unreachable_remote() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let remote = bare(&env, &env.path().join("remote.git"));
    r.git(&["remote", "add", "origin", remote.to_str().unwrap()]);
    r.git(&["push", "-q", "origin", "main"]);
    publish(&r, "Synced once.");
    r.mj(&["continuity", "sync"]).ok();
    let tracking = "refs/majordomus/remotes/origin/continuity";
    r.git(&["update-ref", "-d", tracking]);
    let lock = r.root.join(".git").join(format!("{tracking}.lock"));
    std::fs::create_dir_all(lock.parent().unwrap()).unwrap();
    std::fs::write(&lock, "").unwrap();
    let state = std::fs::read(r.state("continuity.json")).unwrap();
    let tip = r.git(&["rev-parse", REF]);
    let t = Instant::now();
    let out = r.mj(&["continuity", "sync"]).code(13);
    assert!(t.elapsed() < BOUND, "{:?}", t.elapsed());
    // the lock is named; the remote is not called unreachable (git's own explanation left out)
    assert!(!out.all().contains("unreachable"), "{}", out.all());
    let ours: Vec<&str> =
        out.stderr.lines().filter(|l| ["error: ", "caused by: ", "hint: "].iter().any(|p| l.starts_with(p))).collect();
    insta::assert_snapshot!(ours.join("\n"), @"
    error: continuity sync: this clone could not take in origin's store
    caused by: error: cannot lock ref 'refs/majordomus/remotes/origin/continuity': Unable to create '[TMP]/r/.git/refs/majordomus/remotes/origin/continuity.lock': File exists.
    hint: another git process holds that lock; when none is running, remove the .lock file git names
    ");
    assert_eq!(std::fs::read(r.state("continuity.json")).unwrap(), state, "last sync untouched");
    assert_eq!(r.git(&["rev-parse", REF]), tip);
    std::fs::remove_file(&lock).unwrap();
    r.mj(&["continuity", "sync"]).ok();
    assert_eq!(r.git(&["rev-parse", tracking]), env.git_in(&remote, &["rev-parse", REF]));
}

/// A write past a file-size limit (`ulimit -f 2` once killed `checkpoint` with SIGXFSZ and
/// left a torn ledger line the next event was appended onto): exit 13 naming what could not be
/// written, the ledger as it was; a torn last line left by a kill is moved aside before the next
/// append, kept for `doctor` to show (issue 41 item 5).
#[test]
fn a_file_size_limit_is_exit_13_and_a_torn_ledger_line_is_moved_aside_before_the_next_append() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("task");
    let ledger = r.root.join(".ai/local/state/ledger.jsonl");
    // Pad the ledger until its end sits just below a 512-byte block boundary: a limit at that
    // boundary then cuts the next event's line part way (the write starts, then fails).
    let len = |p: &std::path::Path| std::fs::metadata(p).unwrap().len();
    for _ in 0..64 {
        if len(&ledger) > 1024 && len(&ledger) % 512 > 400 {
            break;
        }
        r.mj_in(&["checkpoint"], "padding\n").ok();
    }
    assert!(len(&ledger) % 512 > 400, "no padding put the ledger's end near a boundary");
    let before = std::fs::read(&ledger).unwrap();
    let blocks = before.len() / 512 + 1;
    let bin = env!("CARGO_BIN_EXE_git-majordomus");
    let out = env.sh(&r.root, &format!("ulimit -f {blocks}; seq 1 30 | {bin} checkpoint"), b"", &[]);
    assert_eq!(out.code, 13, "{}", out.all());
    insta::assert_snapshot!(out.stderr, @"error: [TMP]/r/.ai/local/state/ledger.jsonl: File too large (os error 27)");
    assert_eq!(std::fs::read(&ledger).unwrap(), before, "no partial line is kept");
    r.mj_in(&["checkpoint"], "ok\n").ok();
    r.mj(&["history", "--validate"]).ok();

    // A kill mid-append leaves a torn last line; the next append moves it aside first.
    let torn = "{\"event\":\"checkpoint.written\",\"ts\":\"2026-";
    let mut bytes = std::fs::read(&ledger).unwrap();
    let whole = bytes.len();
    bytes.extend_from_slice(torn.as_bytes());
    std::fs::write(&ledger, &bytes).unwrap();
    r.mj_in(&["checkpoint"], "after the tear\n").ok();
    let now = std::fs::read(&ledger).unwrap();
    assert_eq!(&now[..whole], &bytes[..whole], "complete lines are never rewritten");
    assert!(!String::from_utf8_lossy(&now).contains(torn), "the torn bytes left the ledger");
    r.mj(&["history", "--validate"]).ok();
    let aside = r.root.join(".ai/local/state/ledger.jsonl.torn");
    assert_eq!(std::fs::read_to_string(&aside).unwrap(), format!("{torn}\n"));
    let doctor = r.mj(&["doctor"]).stdout;
    let ledger: Vec<&str> = doctor.lines().filter(|l| l.contains("/ledger.jsonl.torn — ")).collect();
    insta::assert_snapshot!(ledger.join("\n"), @"WARN ledger .ai/local/state/ledger.jsonl.torn — 42 byte(s) of ledger lines a write cut short, moved aside before the next event was appended; the ledger itself is whole. Read them, then delete the file  [reproduce: cat .ai/local/state/ledger.jsonl.torn]  [fix: rm .ai/local/state/ledger.jsonl.torn]");
}
