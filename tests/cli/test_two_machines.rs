//! Two machines in a loop (issue 11 item 2): two clones of one bare remote that refuses
//! non-fast-forward updates and logs every ref update; 20 rounds of publish-on-both then
//! sync-on-both in a seeded order, with the pre-push hook and the fetch refspec installed on one
//! side and plain `git push` / `git fetch` mixed in → both clones and the remote hold the same
//! union of records, the remote's store only ever moved forward, and `git fsck --strict` is
//! clean everywhere. `MAJORDOMUS_LOOP_SEED` overrides the seed.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::remotes::bare;
use crate::common::store::{fsck, note, seed, store_path, Rng, REF};
use crate::common::{Output, TestEnv};

const ROUNDS: usize = 20;

struct Machine<'a> {
    env: &'a TestEnv,
    root: PathBuf,
    home: PathBuf,
}

impl Machine<'_> {
    fn vars(&self) -> Vec<(String, String)> {
        let state = self.home.join(".local/state");
        vec![("HOME".into(), self.home.display().to_string()), ("XDG_STATE_HOME".into(), state.display().to_string())]
    }
    fn mj(&self, args: &[&str], stdin: &str) -> Output {
        let vars = self.vars();
        let extra: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        self.env.run(&self.root, args, Some(stdin.as_bytes()), &extra)
    }
    fn json(&self, args: &[&str], code: i32) -> Value {
        let mut a = vec!["--json"];
        a.extend_from_slice(args);
        let out = self.mj(&a, "").code(code);
        serde_json::from_str(&out.stdout).unwrap()
    }
    /// Real git with the binary on `PATH` (so the installed hooks reach it).
    fn git(&self, args: &[&str]) -> String {
        let out = self.env.command("git").envs(self.vars()).current_dir(&self.root).args(args).output().unwrap();
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    }
    fn publish(&self, objective: &str) -> String {
        let body = format!("# Objective\n{objective}\n\n# Current State\nLooping.\n\n# Next Action\nGo on.\n");
        let name = self.mj(&["handover", "--no-task"], &body).ok().first_line().rsplit('/').next().unwrap().to_string();
        let v = self.json(&["continuity", "publish", "--handover", &name], 0);
        assert_eq!(v["written"], true, "{v}");
        v["record"]["id"].as_str().unwrap().to_string()
    }
    fn ids(&self) -> BTreeSet<String> {
        let v = self.json(&["continuity", "records"], 0);
        v["records"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap().to_string()).collect()
    }
}

fn clone<'a>(env: &'a TestEnv, remote: &Path, name: &str) -> Machine<'a> {
    env.git_in(env.path(), &["clone", "-q", remote.to_str().unwrap(), name]);
    let home = env.path().join(format!("home-{name}"));
    std::fs::create_dir_all(&home).unwrap();
    Machine { env, root: std::fs::canonicalize(env.path().join(name)).unwrap(), home }
}

/// The ids of the records in `dir`'s store tree.
fn tree_ids(env: &TestEnv, dir: &Path) -> BTreeSet<String> {
    env.git_in(dir, &["ls-tree", "-r", "--name-only", REF])
        .lines()
        .filter_map(|l| l.rsplit('/').next()?.strip_suffix(".json").map(str::to_string))
        .collect()
}

#[test]
fn twenty_rounds_on_two_machines_converge_and_only_fast_forward_the_remote() {
    let env = TestEnv::new();
    let remote = bare(&env, &env.path().join("remote.git"));
    env.git_in(&remote, &["config", "core.logAllRefUpdates", "always"]);
    let a = clone(&env, &remote, "a");
    a.mj(&["init"], "").ok();
    std::fs::write(a.root.join("README.md"), "hello\n").unwrap();
    a.git(&["add", "-A"]);
    a.git(&["commit", "-q", "-m", "layer"]);
    a.git(&["push", "-q", "-u", "origin", "main"]);
    let b = clone(&env, &remote, "b");
    a.mj(&["continuity", "device", "--label", "laptop"], "").ok();
    b.mj(&["continuity", "device", "--label", "desktop"], "").ok();
    // A: the pre-push hook and the fetch refspec; B: neither.
    a.mj(&["hooks", "install", "--git", "--fetch-refspec"], "").ok();
    b.git(&["switch", "-q", "-c", "b-work"]);
    let seed = seed("MAJORDOMUS_LOOP_SEED", 20_261_202);
    let mut rng = Rng(seed);
    let mut published = BTreeSet::new();
    let (mut syncs, mut hook_pushes, mut plain) = (0, 0, 0);
    for round in 0..ROUNDS {
        let order: [&Machine<'_>; 2] = if rng.below(2) == 0 { [&a, &b] } else { [&b, &a] };
        for m in order {
            published
                .insert(m.publish(&format!("Round {round} on {}.", m.root.file_name().unwrap().to_string_lossy())));
        }
        let order: [&Machine<'_>; 2] = if rng.below(2) == 0 { [&a, &b] } else { [&b, &a] };
        for m in order {
            let is_a = std::ptr::eq(m, &a);
            match rng.below(3) {
                // A code push: on A the pre-push hook syncs the store; on B it carries nothing.
                0 => {
                    let file = format!("r{round}.txt");
                    std::fs::write(m.root.join(&file), format!("{round}\n")).unwrap();
                    m.git(&["add", "--", &file]);
                    m.git(&["commit", "-q", "-m", &format!("round {round}")]);
                    if is_a {
                        m.git(&["pull", "-q", "--ff-only", "origin", "main"]);
                        m.git(&["push", "-q", "origin", "main"]);
                        hook_pushes += 1;
                    } else {
                        m.git(&["push", "-q", "origin", "b-work"]);
                        plain += 1;
                    }
                }
                // A plain fetch: on A it brings the store into the remote-tracking ref.
                1 => {
                    m.git(&["fetch", "-q", "origin"]);
                    plain += 1;
                    let s = m.json(&["continuity", "sync"], 0);
                    assert_ne!(s["action"], "unreachable", "{s}");
                    syncs += 1;
                }
                _ => {
                    let s = m.json(&["continuity", "sync"], 0);
                    assert_eq!(s["outcome"], "ok", "round {round}: {s}");
                    syncs += 1;
                }
            }
        }
    }
    // Settle: whatever a hook push left pending goes out, then both take everything in.
    for m in [&a, &b, &a] {
        let s = m.json(&["continuity", "sync"], 0);
        assert_eq!(s["outcome"], "ok", "{s}");
    }
    note(&format!(
        "two machines: {ROUNDS} rounds, seed {seed}: {} records, {syncs} syncs, {hook_pushes} code pushes through the pre-push hook, {plain} plain git push/fetch",
        published.len()
    ));
    assert_eq!(published.len(), 2 * ROUNDS);
    assert_eq!(a.ids(), published, "A lacks records (seed {seed})");
    assert_eq!(b.ids(), published, "B lacks records (seed {seed})");
    assert_eq!(tree_ids(&env, &remote), published, "the remote lacks records (seed {seed})");
    for id in &published {
        env.git_in(&remote, &["cat-file", "-e", &format!("{REF}:{}", store_path(id))]);
    }
    // The remote's store only moved forward: every reflog step old → new is an ancestry.
    let log = std::fs::read_to_string(remote.join("logs").join(REF)).expect("the remote logs its store ref");
    let steps: Vec<(String, String)> = log
        .lines()
        .map(|l| {
            let mut f = l.split(' ');
            (f.next().unwrap().to_string(), f.next().unwrap().to_string())
        })
        .collect();
    assert!(steps.len() >= 2, "{log}");
    for (old, new) in &steps {
        if old.chars().all(|c| c == '0') {
            continue;
        }
        let ok =
            env.command("git").current_dir(&remote).args(["merge-base", "--is-ancestor", old, new]).status().unwrap();
        assert!(ok.success(), "non-fast-forward update {old} -> {new} of the remote's store");
    }
    for dir in [&remote, &a.root, &b.root] {
        fsck(&env, dir);
    }
}
