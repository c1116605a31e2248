//! Concurrent writers never lose a record: 8 processes × 200 writes on one checkout.

use std::process::{Command, Stdio};

use crate::common::TestEnv;

#[test]
fn eight_processes_times_two_hundred_writes_lose_nothing() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    r.start("t");
    const PROCS: usize = 8;
    const EACH: usize = 200;
    let bin = env!("CARGO_BIN_EXE_git-majordomus");
    // Each worker is a shell loop, so process creation, not the test harness, is what runs in parallel.
    let script = format!(
        r#"i=0; while [ $i -lt {EACH} ]; do
             if [ $((i % 2)) -eq 0 ]; then "$BIN" decision add "w$W d$i" --why "because $i" >/dev/null || exit 1;
             else printf 'worker %s note %s\n' "$W" "$i" | "$BIN" checkpoint >/dev/null || exit 1; fi
             i=$((i + 1)); done"#
    );
    let children: Vec<_> = (0..PROCS)
        .map(|w| {
            Command::new("sh")
                .arg("-c")
                .arg(&script)
                .current_dir(&r.root)
                .env("BIN", bin)
                .env("W", w.to_string())
                .env("MAJORDOMUS_NOW", "2026-09-03T20:00:00Z")
                .env("GIT_CONFIG_GLOBAL", "/dev/null")
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("HOME", &env.home)
                .stdout(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success(), "a worker failed");
    }
    let decisions = r.read(".ai/local/state/decisions.md");
    let checkpoints = r.records("checkpoints");
    assert_eq!(checkpoints.len(), PROCS * EACH / 2);
    for w in 0..PROCS {
        for i in (0..EACH).step_by(2) {
            assert!(decisions.contains(&format!("— w{w} d{i}\n")), "decision w{w} d{i} lost");
        }
    }
    let ledger = std::fs::read_to_string(r.state("ledger.jsonl")).unwrap();
    let lines: Vec<&str> = ledger.lines().collect();
    assert_eq!(lines.len(), 1 + PROCS * EACH, "one task.started plus one line per write");
    for l in &lines {
        serde_json::from_str::<serde_json::Value>(l).unwrap_or_else(|e| panic!("torn ledger line {l}: {e}"));
    }
    let list = r.mj(&["decision", "list"]).ok();
    assert_eq!(list.stdout.lines().count(), PROCS * EACH / 2);
    let cp_lines = lines.iter().filter(|l| l.contains("\"task.checkpoint\"")).count();
    assert_eq!(cp_lines, PROCS * EACH / 2);
    let bodies: usize = checkpoints
        .iter()
        .map(|n| r.read(&format!(".ai/local/state/checkpoints/{n}")).matches("worker ").count())
        .sum();
    assert_eq!(bodies, PROCS * EACH / 2, "every body intact");
}

/// Two processes each publishing 50 records into one checkout at once: 100 records, none lost.
#[test]
fn two_publishers_times_fifty_records_lose_nothing() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    let script = r#"i=0; while [ $i -lt 50 ]; do
        f=$(printf '# Objective\nWorker %s record %s.\n# Current State\nx\n# Next Action\ny\n' "$W" "$i" | git majordomus handover --no-task | head -n 1) || exit 1
        git majordomus continuity publish --handover "$(basename "$f")" >/dev/null || exit 1
        i=$((i + 1)); done"#;
    let children: Vec<_> = (0..2)
        .map(|w| {
            let mut c = env.command("sh");
            c.arg("-c").arg(script).current_dir(&r.root).env("W", w.to_string()).stdout(Stdio::null()).spawn().unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success(), "a publisher failed");
    }
    let listing = r.git(&["ls-tree", "-r", "--name-only", "refs/majordomus/continuity"]);
    assert_eq!(listing.lines().filter(|l| l.ends_with(".json")).count(), 100, "{listing}");
    let records = r.mj(&["--json", "continuity", "records"]).ok();
    let v = crate::common::json::read("continuity-records.schema.json", &records.stdout);
    assert_eq!(v["records"].as_array().unwrap().len(), 100);
    r.git(&["fsck", "--strict"]);
}
