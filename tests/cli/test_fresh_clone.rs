//! A signed snapshot of the read model for fresh clones (issue 45 item 3; docs/REFERENCE.md#snapshots,
//! docs/SECURITY.md "A signed snapshot for fresh clones"): a clone with no read model of its own
//! reads a snapshot only from a device its mesh trusts by name, only under its own rules, and
//! only when the snapshot describes the store commit it names exactly; then it admits what came
//! after that commit one by one. `continuity verify` never reads one.
//!
//! Forged snapshots are signed in the test with a key made from a seed (as docs/SECURITY.md's
//! forging recipe does for records) and written into the store with git plumbing.

use majordomus::continuity::readmodel::reseal;
use majordomus::continuity::signing::DeviceKey;
use majordomus::continuity::snapshot::{self, Statement};
use serde_json::Value;

use crate::common::machine::{two_clones, Machine};
use crate::common::store::{blob, put};
use crate::common::TestEnv;

const MESH: &str = ".ai/repo/mesh/team.yaml";
const REF: &str = "refs/majordomus/continuity";

fn publish_one(m: &Machine<'_>, objective: &str) -> String {
    m.handover(true, &format!("# Objective\n{objective}\n\n# Current State\nGoing.\n\n# Next Action\nGo on.\n"));
    m.publish(&[])
}

/// The paths under `snapshots/` of the local store's tip.
fn snapshot_paths(m: &Machine<'_>) -> Vec<String> {
    m.git(&["ls-tree", "-r", "--name-only", REF, "snapshots/"]).lines().map(str::to_string).collect()
}

/// The statement and the file of the one snapshot in the local store.
fn the_snapshot(m: &Machine<'_>) -> (Statement, Vec<u8>) {
    let paths = snapshot_paths(m);
    let statement = paths.iter().find(|p| p.ends_with(".json")).expect("a statement");
    let text = m.git(&["cat-file", "blob", &format!("{REF}:{statement}")]);
    let v: Value = serde_json::from_str(&text).unwrap();
    let st: Statement = serde_json::from_value(v["record"].clone()).unwrap();
    let mut file = Vec::new();
    for k in 0..st.parts() {
        let to = m.env.path().join("part");
        m.env.sh(m.root(), &format!("git cat-file blob {REF}:{} > {}", st.part_path(k), to.display()), b"", &[]).ok();
        file.extend_from_slice(&std::fs::read(&to).unwrap());
    }
    assert_eq!(file.len() as u64, st.bytes);
    (st, file)
}

/// Writes `st` signed by `key` and `file` in parts into the local store (one commit).
fn put_snapshot(m: &Machine<'_>, key: &DeviceKey, st: &Statement, file: &[u8]) {
    let (path, signed) = snapshot::sign(key, st);
    let mut entries = vec![("100644".to_string(), blob(&m.repo, &signed), path)];
    for (k, part) in file.chunks(snapshot::PART as usize).enumerate() {
        entries.push(("100644".into(), blob(&m.repo, part), st.part_path(k as u64)));
    }
    let borrowed: Vec<(&str, &str, &str)> =
        entries.iter().map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str())).collect();
    put(&m.repo, &borrowed);
}

/// `st` as device `key` would state it about `file`, changed by `edit`.
fn restated(st: &Statement, key: &DeviceKey, file: &[u8], stamp: &str, edit: impl FnOnce(&mut Statement)) -> Statement {
    let mut s = Statement {
        blake3: blake3::hash(file).to_hex().to_string(),
        bytes: file.len() as u64,
        created_at: stamp.into(),
        device: key.device(),
        ..st.clone()
    };
    edit(&mut s);
    s
}

/// A cold read (the read-model cache removed): the records and lines as JSON, and what stderr said.
fn cold_records(m: &Machine<'_>) -> (Value, String) {
    let _ = std::fs::remove_dir_all(m.root().join(".git/majordomus/readmodel"));
    let out = m.run(&["--json", "continuity", "records"], "").ok();
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    (v, out.stderr)
}

/// The stderr lines about snapshots.
fn said(stderr: &str) -> Vec<String> {
    let key_id = |l: &str| {
        l.split(' ')
            .map(|w| {
                let core = w.trim_end_matches([')', ';']);
                if core.len() == 16 && core.bytes().all(|b| b.is_ascii_hexdigit()) {
                    format!("[KEY ID]{}", &w[core.len()..])
                } else {
                    w.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut v: Vec<String> = stderr.lines().filter(|l| l.contains("snapshot")).map(key_id).collect();
    v.sort();
    v
}

fn trust(m: &Machine<'_>, args: &[&str]) {
    let mut v = vec!["trust"];
    v.extend_from_slice(args);
    m.cj(&v, 0);
}

#[test]
fn a_snapshot_is_read_only_when_trusted_by_name_under_these_rules_and_exactly_what_its_commit_holds() {
    let env = TestEnv::new();
    let (_, a, _b, ka, _) = two_clones(&env, "desk");
    let forger = DeviceKey::from_seed([21; 32], Some("ci-runner".into()), "2026-09-01T00:00:00Z");
    let stranger = DeviceKey::from_seed([22; 32], Some("stranger".into()), "2026-09-01T00:00:00Z");
    let gone = DeviceKey::from_seed([23; 32], Some("old-laptop".into()), "2026-09-01T00:00:00Z");
    trust(&a, &["add", &ka, "--label", "macbook-pro", "--create"]);
    trust(&a, &["add", &forger.public_key_base64(), "--label", "ci-runner"]);
    trust(&a, &["add", &gone.public_key_base64(), "--label", "old-laptop"]);
    trust(&a, &["revoke", &gone.public_key_base64()]);
    a.git(&["add", MESH]);
    a.git(&["commit", "-q", "-m", "mesh"]);
    publish_one(&a, "First");
    publish_one(&a, "Second");

    // A snapshot of this store by this device: the records it holds, trusted by name here.
    let made = a.cj(&["snapshot"], 0);
    assert_eq!((made["records"].as_u64(), made["trusted_by_name"].as_bool()), (Some(2), Some(true)), "{made:#}");
    assert_eq!(made["written"].as_bool(), Some(true));
    // Run again with nothing new in the store: that one is said, nothing is written.
    let again = a.cj(&["snapshot"], 0);
    assert_eq!(
        (again["written"].as_bool(), &again["statement"], &again["tip"]),
        (Some(false), &made["statement"], &made["tip"])
    );
    let (real, file) = the_snapshot(&a);
    assert_eq!(real.store_commit, made["store_commit"].as_str().unwrap());
    let c1 = real.store_commit.clone();
    // Its own files are not store files: no stray, nothing refused.
    let v = a.cj(&["verify"], 0);
    assert_eq!((v["verified"].as_u64(), v["problems"].as_array().map(Vec::len)), (Some(2), Some(0)), "{v:#}");
    // Taken out again, so that every read below has only the snapshots a case puts in.
    let removals: Vec<(String, String, String)> =
        snapshot_paths(&a).into_iter().map(|p| ("0".into(), String::new(), p)).collect();
    let borrowed: Vec<(&str, &str, &str)> =
        removals.iter().map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str())).collect();
    put(&a.repo, &borrowed);
    publish_one(&a, "Third");
    let c2 = a.git(&["rev-parse", REF]);
    let (baseline, stderr) = cold_records(&a);
    assert_eq!(said(&stderr), Vec::<String>::new());
    assert_eq!(baseline["records"].as_array().map(Vec::len), Some(3));
    let verified = a.cj(&["verify"], 0);

    // Each snapshot below is ignored, says why once, and the read is the one without it.
    let mut forged_c2 = file.clone();
    let header_end = forged_c2.iter().position(|b| *b == b'\n').unwrap();
    let header = String::from_utf8(forged_c2[..header_end].to_vec()).unwrap().replace(&c1, &c2);
    forged_c2.splice(..header_end, header.into_bytes());
    let forged_c2 = reseal(&forged_c2).expect("a read-model file");
    let mut flipped = file.clone();
    let last = flipped.len() - 20;
    flipped[last] ^= 1;
    let cases: Vec<(&str, &DeviceKey, Statement, Vec<u8>, &str)> = vec![
        (
            "untrusted",
            &stranger,
            restated(&real, &stranger, &file, "2026-12-01T00:00:01Z", |_| {}),
            file.clone(),
            "its signer's key is not in trust.allow",
        ),
        (
            "revoked",
            &gone,
            restated(&real, &gone, &file, "2026-12-01T00:00:02Z", |_| {}),
            file.clone(),
            "its signer's key is revoked",
        ),
        (
            "other rules",
            &forger,
            restated(&real, &forger, &file, "2026-12-01T00:00:03Z", |s| s.rules = "rules/0".into()),
            file.clone(),
            "it was made under rules/0",
        ),
        (
            "a commit that does not hold what it claims",
            &forger,
            restated(&real, &forger, &forged_c2, "2026-12-01T00:00:04Z", |s| s.store_commit = c2.clone()),
            forged_c2.clone(),
            "it does not describe its store commit exactly",
        ),
        (
            "a file that is not the one stated",
            &forger,
            restated(&real, &forger, &file, "2026-12-01T00:00:05Z", |_| {}),
            flipped,
            "its file is incomplete or does not match its statement",
        ),
    ];
    for (what, key, st, bytes, why) in cases {
        put_snapshot(&a, key, &st, &bytes);
        let (records, stderr) = cold_records(&a);
        let line =
            said(&stderr).into_iter().find(|l| l.contains(&st.store_commit[..12]) && l.contains(&st.device.label));
        assert!(
            line.as_deref()
                .is_some_and(|l| l.contains(&format!("ignored: {why}")) && l.ends_with("; every record is admitted")),
            "{what}: {stderr}"
        );
        assert!(!stderr.contains("read from the snapshot"), "{what}: {stderr}");
        assert_eq!(records, baseline, "{what}");
        assert_eq!(a.cj(&["verify"], 0), verified, "{what}: verify reads no snapshot");
    }

    // The control: the same file stated truthfully by a key trusted by name is read, and the
    // record after its commit is admitted one by one: the same records as without it.
    let honest = restated(&real, &forger, &file, "2026-12-01T00:00:06Z", |_| {});
    put_snapshot(&a, &forger, &honest, &file);
    let (records, stderr) = cold_records(&a);
    let adopted: Vec<String> = said(&stderr).into_iter().filter(|l| l.contains("read from the snapshot")).collect();
    assert_eq!(
        adopted,
        vec![format!(
            "warning: read model: read from the snapshot of store commit {} signed by ci-runner (key [KEY ID]); the files after it admitted one by one",
            &c1[..12]
        )]
    );
    assert_eq!(records, baseline);
    // Of each device only its newest statement is judged: the forger's three ignored ones are
    // not said again; the stranger's and the revoked device's still are.
    let ignored: Vec<String> = said(&stderr).into_iter().filter(|l| l.contains("ignored")).collect();
    assert_eq!(ignored.len(), 2, "{ignored:#?}");
    assert!(ignored.iter().all(|l| l.contains("stranger") || l.contains("old-laptop")), "{ignored:#?}");
    assert_eq!(a.cj(&["verify"], 0), verified, "verify reads no snapshot");
    // A warm read looks for none.
    let out = a.run(&["--json", "continuity", "records"], "").ok();
    assert_eq!(said(&out.stderr), Vec::<String>::new());
}

#[test]
fn a_fresh_clone_reads_a_teammates_snapshot_after_a_sync_and_then_what_came_after_it() {
    let env = TestEnv::new();
    let (remote, a, b, ka, kb) = two_clones(&env, "desk");
    trust(&a, &["add", &ka, "--label", "macbook-pro", "--create"]);
    trust(&a, &["add", &kb, "--label", "desk"]);
    a.git(&["add", MESH]);
    a.git(&["commit", "-q", "-m", "mesh"]);
    a.git(&["push", "-q", "origin", "main"]);
    b.git(&["pull", "-q", "--ff-only", "origin", "main"]);
    publish_one(&a, "First");
    publish_one(&a, "Second");
    a.cj(&["snapshot"], 0);
    a.sync();
    // B's sync takes the snapshot in and pushes it on; its own record comes after it.
    b.sync();
    publish_one(&b, "Third");
    b.sync();
    a.sync();
    assert_eq!(snapshot_paths(&a), snapshot_paths(&b));

    // A fresh clone: its first read of the store is the snapshot and the one record after it.
    let c = Machine::clone_of(&env, &remote, "c");
    c.device("ci");
    let out = c.run(&["--json", "continuity", "sync"], "").ok();
    assert!(out.stderr.contains("read model: read from the snapshot of store commit"), "{}", out.stderr);
    assert!(out.stderr.contains("signed by macbook-pro"), "{}", out.stderr);
    let ids = |m: &Machine<'_>| -> Vec<String> {
        let v = m.cj(&["records"], 0);
        let mut ids: Vec<String> =
            v["records"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap().to_string()).collect();
        ids.sort();
        ids
    };
    assert_eq!(ids(&c).len(), 3);
    assert_eq!(ids(&c), ids(&a));
    let status = c.cj(&["status"], 0);
    assert_eq!(status["store"]["records"].as_u64(), Some(3), "{status:#}");

    // A snapshot made on a machine the mesh does not trust by name says so: no clone reads it.
    let _snap = env.snapshots();
    let numbers = |out: String| -> String {
        let words: Vec<String> =
            out.split(' ')
                .map(|w| {
                    if !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit()) {
                        "[N]".to_string()
                    } else {
                        w.to_string()
                    }
                })
                .collect();
        words.join(" ")
    };
    let first = numbers(c.c(&["snapshot"]).ok().shown());
    let second = numbers(c.c(&["snapshot"]).ok().shown());
    insta::assert_snapshot!(second, @"
    unchanged   this device's newest snapshot already describes every file of the store: nothing written
    snapshot    of store commit [HEX] (3 records, [N] other files)
    file        [N] bytes in [N] part(s), BLAKE3 [HEX]
    statement   snapshots/[HEX]/[HEX].json
    rules       rules/6
    note        the mesh here does not trust this device by name: a clone reads only a snapshot of a device it does (continuity trust add)
    --- stderr
    --- exit 0
    ");
    insta::assert_snapshot!(first, @"
    snapshot    of store commit [HEX] (3 records, [N] other files)
    file        [N] bytes in [N] part(s), BLAKE3 [HEX]
    statement   snapshots/[HEX]/[HEX].json
    rules       rules/6
    note        the mesh here does not trust this device by name: a clone reads only a snapshot of a device it does (continuity trust add)
    next        git majordomus continuity sync
    --- stderr
    --- exit 0
    ");
}
