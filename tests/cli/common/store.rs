//! Plumbing on the continuity store for the reliability tests (issue 11): one checkout with a
//! device key and published records, entries written straight into the ref's tree with the real
//! `git` binary (a temporary index; no branch, index or HEAD of the checkout moves), and the
//! reads every proof compares.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{Output, Repo, TestEnv};

/// The local store reference.
pub const REF: &str = "refs/majordomus/continuity";

/// `records/<id[0..2]>/<id[2..4]>/<id>.json`.
pub fn store_path(id: &str) -> String {
    format!("records/{}/{}/{id}.json", &id[..2], &id[2..4])
}

/// A run of the binary at `dir`, with how long it took.
pub fn timed(env: &TestEnv, dir: &Path, args: &[&str]) -> (Output, Duration) {
    let t = Instant::now();
    let out = env.run(dir, args, None, &[]);
    (out, t.elapsed())
}

/// The JSON document a run printed on stdout.
#[track_caller]
pub fn json(out: &Output) -> Value {
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{}\n{}", out.stdout, out.stderr))
}

/// The `code` of every diagnostic in `v`.
pub fn codes(v: &Value) -> Vec<String> {
    v.as_array().into_iter().flatten().filter_map(|d| d["code"].as_str().map(str::to_string)).collect()
}

/// The `(code, path)` of every diagnostic in `v`.
pub fn coded_paths(v: &Value) -> Vec<(String, String)> {
    v.as_array()
        .into_iter()
        .flatten()
        .map(|d| (d["code"].as_str().unwrap_or("").to_string(), d["path"].as_str().unwrap_or("").to_string()))
        .collect()
}

/// Ids of the records `continuity records --json` admitted, sorted.
pub fn record_ids(repo: &Repo<'_>) -> Vec<String> {
    let v = json(&repo.mj(&["--json", "continuity", "records"]).ok());
    let mut ids: Vec<String> =
        v["records"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap().to_string()).collect();
    ids.sort();
    ids
}

/// Writes a handover (no task) with `objective` and publishes it; returns the record id.
pub fn publish(repo: &Repo<'_>, objective: &str) -> String {
    let body = format!("# Objective\n{objective}\n\n# Current State\nWork in progress.\n\n# Next Action\nGo on.\n");
    let out = repo.mj_in(&["handover", "--no-task"], &body).ok();
    let name = out.first_line().rsplit('/').next().unwrap().to_string();
    let v = json(&repo.mj(&["--json", "continuity", "publish", "--handover", &name]).ok());
    assert_eq!(v["written"], true, "{v}");
    v["record"]["id"].as_str().unwrap().to_string()
}

/// `git hash-object -w` of `bytes` in `repo`; returns the blob id.
pub fn blob(repo: &Repo<'_>, bytes: &[u8]) -> String {
    let out = repo.env.sh(&repo.root, "git hash-object -w --stdin", bytes, &[]).ok();
    out.stdout.trim().to_string()
}

/// The blob of the store file at `path` in `reference`.
pub fn blob_at(repo: &Repo<'_>, reference: &str, path: &str) -> String {
    repo.git(&["rev-parse", &format!("{reference}:{path}")])
}

/// Replaces the tree of the store with its current tree plus `entries` (`mode`, object, path;
/// mode `0` removes the path), as a new commit on [`REF`] whose parent is the old tip.
pub fn put(repo: &Repo<'_>, entries: &[(&str, &str, &str)]) -> String {
    let info: String = entries
        .iter()
        .map(|(mode, object, path)| {
            if *mode == "0" {
                format!("0 0000000000000000000000000000000000000000\t{path}\n")
            } else {
                format!("{mode} {object}\t{path}\n")
            }
        })
        .collect();
    put_info(repo, &info)
}

/// [`put`] with `git update-index --index-info` lines (`<mode> <object>\t<path>`), for many
/// entries at once.
pub fn put_info(repo: &Repo<'_>, info: &str) -> String {
    let idx = repo.env.path().join(format!("plumbing-index-{}", std::process::id()));
    let _ = std::fs::remove_file(&idx);
    let idx_s = idx.to_str().unwrap().to_string();
    let env = [("GIT_INDEX_FILE", idx_s.as_str())];
    let old = repo.git(&["rev-parse", REF]);
    repo.env.sh(&repo.root, &format!("git read-tree {REF}"), b"", &env).ok();
    repo.env.sh(&repo.root, "git update-index --index-info", info.as_bytes(), &env).ok();
    let tree = repo.env.sh(&repo.root, "git write-tree --missing-ok", b"", &env).ok().stdout.trim().to_string();
    let _ = std::fs::remove_file(&idx);
    let commit = repo.git(&["commit-tree", &tree, "-p", &old, "-m", "test: store edited with plumbing"]);
    repo.git(&["update-ref", REF, &commit, &old]);
    commit
}

/// Every file under `.ai/local/` with its bytes, and every ref with its value: what "the local
/// store unchanged" compares.
pub fn local_snapshot(repo: &Repo<'_>) -> (Vec<(String, Vec<u8>)>, String) {
    let mut files = Vec::new();
    walk(&repo.root, &repo.root.join(".ai/local"), &mut files);
    files.sort();
    (files, repo.git(&["for-each-ref", "--format=%(refname) %(objectname)"]))
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        let meta = std::fs::symlink_metadata(&p).unwrap();
        if meta.is_dir() {
            walk(root, &p, out);
        } else {
            let rel = p.strip_prefix(root).unwrap().display().to_string();
            out.push((rel, std::fs::read(&p).unwrap_or_default()));
        }
    }
}

/// `git fsck --strict` at `dir` is clean (no error, no warning).
#[track_caller]
pub fn fsck(env: &TestEnv, dir: &Path) {
    let out = env.command("git").current_dir(dir).args(["fsck", "--strict", "--no-progress"]).output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(
        out.status.success() && !text.contains("error") && !text.contains("warning"),
        "fsck {}: {text}",
        dir.display()
    );
}

/// A small deterministic generator (SplitMix64), so that every seeded proof replays.
pub struct Rng(pub u64);

impl Rng {
    /// The next value.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// A value in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// The seed of a proof: `var` from the environment if set, else `default`; printed (the test
/// harness shows it with a failure, so the run can be replayed).
pub fn seed(var: &str, default: u64) -> u64 {
    let s = std::env::var(var).ok().and_then(|v| v.parse().ok()).unwrap_or(default);
    note(&format!("{var}={s}"));
    s
}

/// A line on the test's stderr (the harness shows it with a failure, or with `--nocapture`):
/// the seed, the duration and what a proof ran, for the record.
#[allow(clippy::disallowed_macros)]
pub fn note(line: &str) {
    eprintln!("{line}");
}
