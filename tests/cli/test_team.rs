//! A team's trust, run by commands (issue 40; docs/REFERENCE.md#mesh on revocation; docs/SYNC.md
//! "A team's trust"): `continuity trust add|revoke|list` edit and read the mesh declaration through one
//! writer; a revocation syncs and pins the store commit on the remote, so that the key's
//! records up to there are `retired` (reported, not a failure) and a record it signs after the
//! pin fails `verify` and the CI step; the revoked machine is told.
//!
//! Each machine is a clone of one bare remote with its own `HOME` and `XDG_STATE_HOME`.

use std::path::Path;

use serde_json::Value;

use crate::common::json;
use crate::common::machine::{two_clones, Machine};
use crate::common::store::store_path;
use crate::common::{Output, TestEnv};

const MESH: &str = ".ai/repo/mesh/team.yaml";

fn ci_script() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("contrib/ci/majordomus-ci.sh").display().to_string()
}

/// The CI step in a fresh clone `name` of `remote`.
fn run_ci(env: &TestEnv, remote: &Path, name: &str) -> Output {
    env.git_in(env.path(), &["clone", "-q", remote.to_str().unwrap(), name]);
    let root = std::fs::canonicalize(env.path().join(name)).unwrap();
    env.sh(&root, &format!("sh {} 2>&1", ci_script()), b"", &[])
}

/// `continuity trust <args>` as JSON, its exit code asserted.
#[track_caller]
fn trust(m: &Machine<'_>, args: &[&str], code: i32) -> Value {
    let mut v = vec!["trust"];
    v.extend_from_slice(args);
    m.cj(&v, code)
}

/// A commits the mesh and pushes; `others` pull it.
fn share_mesh(a: &Machine<'_>, others: &[&Machine<'_>]) {
    a.git(&["add", MESH]);
    a.git(&["commit", "-q", "-m", "mesh"]);
    a.git(&["push", "-q", "origin", "main"]);
    for o in others {
        o.git(&["pull", "-q", "--ff-only", "origin", "main"]);
    }
}

/// `text` with its lines after the first sorted (records of one second are listed in id order,
/// which is random in a test).
fn sorted_after_first(text: &str) -> String {
    let mut lines: Vec<&str> = text.lines().collect();
    lines[1..].sort();
    lines.join("\n")
}

/// What the CI step says, without the JSON reports it prints: its own lines and `verify`'s, the
/// diagnostics of a run sorted (they are listed in store-path order, random in a test).
fn ci_said(out: &Output) -> String {
    let without_hex = |l: &str| l.chars().filter(|c| !c.is_ascii_hexdigit()).collect::<String>();
    let (mut said, mut diags): (Vec<&str>, Vec<&str>) = (Vec::new(), Vec::new());
    for l in out.stdout.lines().chain([""]) {
        if ["ERROR ", "WARNING ", "INFO "].iter().any(|p| l.starts_with(p)) {
            diags.push(l);
            continue;
        }
        diags.sort_by_key(|l| without_hex(l));
        said.append(&mut diags);
        if l.starts_with("majordomus-ci:") || l.starts_with("verified ") {
            said.push(l);
        }
    }
    said.join("\n")
}

fn publish_one(m: &Machine<'_>, objective: &str) -> String {
    m.handover(true, &format!("# Objective\n{objective}\n\n# Current State\nGoing.\n\n# Next Action\nGo on.\n"));
    let id = m.publish(&[]);
    m.sync();
    id
}

#[test]
fn trust_add_writes_the_declaration_through_one_writer_and_refuses_what_does_not_decode() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let (_, a, b, ka, kb) = two_clones(&env, "desk");
    // No declaration: 12, naming --create; nothing written.
    let out = a.c(&["trust", "add", &kb, "--label", "desk"]).code(12);
    insta::assert_snapshot!(out.shown(), @"
    --- stderr
    error: no enabled mesh declaration under .ai/repo/mesh/: nothing to change
    hint: git majordomus continuity trust add <key> --label <label> --create writes .ai/repo/mesh/team.yaml (policy deny_unknown)
    --- exit 12
    ");
    assert!(!a.root().join(MESH).exists());
    // --create writes a deny_unknown declaration and says how to share it.
    let v = trust(&a, &["add", &ka, "--label", "macbook-pro", "--create"], 0);
    assert_eq!((v["created"].as_bool(), v["mesh"].as_str()), (Some(true), Some(MESH)));
    let next: Vec<&str> = v["next"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
    assert_eq!(next[0], format!("git add {MESH}"));
    assert!(next[1].starts_with("git commit -m") && next[1].ends_with(MESH), "{next:?}");
    let text = a.c(&["trust", "add", &kb, "--label", "desk"]).ok().shown();
    insta::assert_snapshot!(text, @r#"
    trust       desk (key [KEY ID]) trusted
    mesh        .ai/repo/mesh/team.yaml
    next        git add .ai/repo/mesh/team.yaml
    next        git commit -m "majordomus: trust desk (key [KEY ID])" -- .ai/repo/mesh/team.yaml
    then        push it: teammates' commands read the declaration their checkout holds
    --- stderr
    --- exit 0
    "#);
    let yaml = std::fs::read_to_string(a.root().join(MESH)).unwrap();
    insta::assert_snapshot!(yaml.replace(&ka, "[KEY A]").replace(&kb, "[KEY B]"), @"
    schema: mesh/v1
    kind: mesh-declaration
    id: team
    enabled: true
    trust:
      policy: deny_unknown
      allow:
      - [KEY A]
      - [KEY B]
      revoked: []
      labels:
        [KEY A]: macbook-pro
        [KEY B]: desk
    ");
    // A key that does not decode: 10, the declaration unchanged byte for byte.
    let cut = &kb[..kb.len() - 1];
    let out = a.c(&["trust", "add", cut, "--label", "x"]).code(10);
    insta::assert_snapshot!(out.shown().replace(cut, "[KEY B CUT]"), @r#"
    --- stderr
    error: "[KEY B CUT]" is not a device key
    hint: give the minisign public key (RW…) or the 64-hex raw key that `git majordomus continuity device` prints on the device
    --- exit 10
    "#);
    assert_eq!(std::fs::read_to_string(a.root().join(MESH)).unwrap(), yaml);
    // A label another trusted key holds: 10.
    let out = a.c(&["trust", "add", &"ab".repeat(32), "--label", "desk"]).code(10);
    insta::assert_snapshot!(out.shown().replace(&b.key_id(), "[KEY ID B]"), @r#"
    --- stderr
    error: label "desk" already names key [KEY ID B] in .ai/repo/mesh/team.yaml
    hint: choose another label, or revoke that key first
    --- exit 10
    "#);
    // The list shows both keys, their labels and standing.
    let list = trust(&a, &["list"], 0);
    let keys = list["keys"].as_array().unwrap();
    let row = |label: &str| keys.iter().find(|k| k["label"] == label).unwrap_or_else(|| panic!("{list}")).clone();
    assert_eq!(row("macbook-pro")["trust"], "this_device");
    assert_eq!(row("desk")["trust"], "trusted");
    assert_eq!(row("desk")["key_id"].as_str().unwrap(), b.key_id());
    // Listed in key order, random here: sorted by name.
    let text = a.c(&["trust", "list"]).ok().stdout;
    let text = text.replace(&a.key_id(), "[KEY ID A]").replace(&b.key_id(), "[KEY ID B]");
    insta::assert_snapshot!(sorted_after_first(&text), @"
    mesh        .ai/repo/mesh/team.yaml (policy deny_unknown)
    key         [KEY ID A]  macbook-pro  this_device  0 record(s)
    key         [KEY ID B]  desk  trusted  0 record(s)
    ");
}

#[test]
fn revoking_by_a_label_two_keys_share_is_refused_naming_both() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    // B calls itself what A is called.
    let (_, a, b, ka, kb) = two_clones(&env, "macbook-pro");
    trust(&a, &["add", &ka, "--label", "a", "--create"], 0);
    trust(&a, &["add", &kb, "--label", "b", "--create"], 0);
    share_mesh(&a, &[&b]);
    publish_one(&a, "A's work.");
    let from_b = publish_one(&b, "B's work.");
    a.sync();
    // The mesh's name for a key is shown, the record's own beside it when they differ.
    let records = a.c(&["records"]).ok().stdout;
    // Records of the same second are listed in id order, random here: sorted.
    let mut lines: Vec<&str> = records.lines().collect();
    lines[1..].sort_by_key(|l| l.split_once("  parent ").map(|(_, rest)| rest));
    insta::assert_snapshot!(lines.join("\n"), @r#"
    2 record(s)
    WARNING continuity.collision: device label "macbook-pro" is claimed by 2 different keys: [KEY ID], [KEY ID]; a label is what a device calls itself, the key id says who signed
    [HEX]  line [HEX]  parent -  a (calls itself macbook-pro)  main  2026-09-03T20:00:00Z
    [HEX]  line [HEX]  parent -  b (calls itself macbook-pro)  main  2026-09-03T20:00:00Z
    "#);
    let st = a.cj(&["status"], 0);
    let v = st["resumable"].as_array().unwrap().iter().find(|v| v["id"] == from_b).expect("offered");
    assert_eq!([&v["team_label"], &v["device"]["label"]], ["b", "macbook-pro"]);
    let before = std::fs::read_to_string(a.root().join(MESH)).unwrap();
    let out = a.c(&["trust", "revoke", "macbook-pro"]).code(10);
    let ids = |t: String| t.replace(&a.key_id(), "[KEY ID A]").replace(&b.key_id(), "[KEY ID B]");
    // The two keys are named in key order, random here.
    let said = ids(out.shown()).replace("[KEY ID B], [KEY ID A]", "[KEY ID A], [KEY ID B]");
    insta::assert_snapshot!(said, @r#"
    --- stderr
    error: label "macbook-pro" names 2 keys: [KEY ID A], [KEY ID B]; revoke by key
    hint: git majordomus continuity trust list shows each key; give the one to revoke
    --- exit 10
    "#);
    assert_eq!(std::fs::read_to_string(a.root().join(MESH)).unwrap(), before);
    let out = a.c(&["trust", "revoke", "nobody"]).code(12);
    insta::assert_snapshot!(out.shown(), @r#"
    --- stderr
    error: no key is labelled "nobody" in .ai/repo/mesh/team.yaml or in the local store
    hint: git majordomus continuity trust list shows the keys; give the key itself
    --- exit 12
    "#);
    let out = a.c(&["trust", "revoke", &kb[..kb.len() - 1]]).code(10);
    insta::assert_snapshot!(out.shown().replace(&kb[..kb.len() - 1], "[KEY B CUT]"), @r#"
    --- stderr
    error: "[KEY B CUT]" is not a device key
    hint: give the minisign public key (RW…) or the 64-hex raw key, or a label `trust list` shows
    --- exit 10
    "#);
    assert_eq!(std::fs::read_to_string(a.root().join(MESH)).unwrap(), before);
}

#[test]
fn a_pinned_revocation_retires_the_keys_records_and_a_later_record_fails_verify_and_ci() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let (remote, a, b, ka, kb) = two_clones(&env, "desk");
    trust(&a, &["add", &ka, "--label", "macbook-pro", "--create"], 0);
    trust(&a, &["add", &kb, "--label", "desk"], 0);
    share_mesh(&a, &[&b]);
    let before = publish_one(&b, "B's work before.");
    publish_one(&a, "A's work.");
    // A revokes B: the sync runs first, then the pin is the store commit on origin.
    let v = trust(&a, &["revoke", "desk"], 0);
    let pin = v["pin"].as_str().expect("pinned").to_string();
    assert_eq!(pin, a.git(&["rev-parse", "refs/majordomus/remotes/origin/continuity"]));
    share_mesh(&a, &[]);
    // B's record before the pin is retired: verify passes, and says so apart from refusals.
    let r = a.cj(&["verify"], 0);
    assert_eq!([&r["admitted"], &r["refused"], &r["retired"]], [1, 0, 1], "{r:#}");
    assert!(r["problems"]
        .as_array()
        .unwrap()
        .iter()
        .any(|d| d["code"] == "continuity.retired" && d["path"].as_str().is_some_and(|p| p.contains(&before))));
    let ids = |t: String| t.replace(&before, "[BEFORE]").replace(&pin, "[PIN]").replace(&pin[..12], "[PIN]");
    let text = a.c(&["verify"]).ok().shown();
    insta::assert_snapshot!(ids(text), @"
    INFO    continuity.retired records/[..]/[..]/[BEFORE].json: signed by device desk (key [KEY ID]) before its revocation (pinned at store commit [PIN]); retired: kept, not admitted
    verified 2 record(s): 1 admitted, 0 refused, 0 untrusted, 1 retired (revoked before their pin; not admitted, not a failure)
    --- stderr
    --- exit 0
    ");
    let out = a.run(&["continuity", "verify", "--format", "github"], "").ok();
    insta::assert_snapshot!(ids(out.shown()), @"
    ::notice title=majordomus continuity.retired::records/[..]/[..]/[BEFORE].json: signed by device desk (key [KEY ID]) before its revocation (pinned at store commit [PIN]); retired: kept, not admitted
    INFO    continuity.retired records/[..]/[..]/[BEFORE].json: signed by device desk (key [KEY ID]) before its revocation (pinned at store commit [PIN]); retired: kept, not admitted
    verified 2 record(s): 1 admitted, 0 refused, 0 untrusted, 1 retired (revoked before their pin; not admitted, not a failure)
    --- stderr
    --- exit 0
    ");
    // The CI step passes a pinned revocation.
    let out = run_ci(&env, &remote, "ci1").ok();
    insta::assert_snapshot!(ids(ci_said(&out)), @"
    majordomus-ci: continuity verify
    INFO    continuity.retired records/[..]/[..]/[BEFORE].json: signed by device desk (key [KEY ID]) before its revocation (pinned at store commit [PIN]); retired: kept, not admitted
    verified 2 record(s): 1 admitted, 0 refused, 0 untrusted, 1 retired (revoked before their pin; not admitted, not a failure)
    majordomus-ci: continuity verify: ok
    majordomus-ci: doctor
    majordomus-ci: doctor: ok
    majordomus-ci: history --validate
    majordomus-ci: history --validate: ok
    majordomus-ci: all checks passed
    ");
    // The trust list counts the retired record.
    let list = trust(&a, &["list"], 0);
    let desk = list["keys"].as_array().unwrap().iter().find(|k| k["label"] == "desk").unwrap().clone();
    assert_eq!((desk["trust"].as_str(), desk["retired"].as_u64()), (Some("revoked"), Some(1)), "{list}");
    assert_eq!(desk["revoked_at"].as_str(), Some(pin.as_str()));

    // B, pulling the mesh, is told on every continuity command; its publish and sync refuse.
    b.git(&["pull", "-q", "--ff-only", "origin", "main"]);
    let st = b.cj(&["status"], 0);
    assert_eq!(st["device_trust"].as_str(), Some("revoked"));
    let out = b.c(&["status"]).ok();
    insta::assert_snapshot!(ids(out.shown()), @"
    repository  [HEX]
    device      desk ([HEX])
                this device: revoked — publish and sync refuse; git majordomus continuity device rotate makes a new key
    branch      main @ [HEX]  clean
    continues   [HEX] (published here)
    store       0 record(s), 1 refused; in sync with origin
    last sync   ok with origin at 2026-09-03T20:00:00Z
    resumable   none
    ERROR   continuity.revoked_key records/[..]/[..]/[BEFORE].json: signed by a revoked key (device desk, key [KEY ID]); its revocation's pin [PIN] is not in this repository (a sync fetches it)
    --- stderr
    warning: this device's key [KEY ID] is revoked by .ai/repo/mesh/team.yaml: its records are refused everywhere; git majordomus continuity device rotate makes a new key; a teammate trusts it with git majordomus continuity trust add
    --- exit 0
    ");
    // `device` says so too.
    insta::assert_snapshot!(ids(b.c(&["device"]).ok().shown()), @"
    device      desk
    node        [HEX]
    key id      [KEY ID]
    public key  [PUBLIC KEY]
    --- stderr
    warning: this device's key [KEY ID] is revoked by .ai/repo/mesh/team.yaml; git majordomus continuity device rotate makes a new key
    --- exit 0
    ");
    b.handover(true, "# Objective\nAfter.\n\n# Current State\nx\n\n# Next Action\ny\n");
    let mut said = String::new();
    for args in [&["publish"][..], &["sync"][..]] {
        said += &format!("=== {args:?}\n{}", b.c(args).code(10).shown());
    }
    insta::assert_snapshot!(ids(said), @r#"
    === ["publish"]
    --- stderr
    warning: this device's key [KEY ID] is revoked by .ai/repo/mesh/team.yaml: its records are refused everywhere; git majordomus continuity device rotate makes a new key; a teammate trusts it with git majordomus continuity trust add
    error: this device's key [KEY ID] is revoked by .ai/repo/mesh/team.yaml: its records are refused everywhere
    hint: git majordomus continuity device rotate makes a new key; a teammate trusts it with git majordomus continuity trust add
    --- exit 10
    === ["sync"]
    --- stderr
    warning: this device's key [KEY ID] is revoked by .ai/repo/mesh/team.yaml: its records are refused everywhere; git majordomus continuity device rotate makes a new key; a teammate trusts it with git majordomus continuity trust add
    error: this device's key [KEY ID] is revoked by .ai/repo/mesh/team.yaml: its records are refused everywhere
    hint: git majordomus continuity device rotate makes a new key; a teammate trusts it with git majordomus continuity trust add
    --- exit 10
    "#);
    // A record signed with the old key after the pin (B's checkout still trusting itself)
    // reaches origin: verify of origin's store and the CI step fail, naming it.
    b.git(&["reset", "-q", "--hard", "HEAD~1"]);
    let after = b.publish(&[]);
    b.sync();
    a.sync();
    let r = a.cj(&["verify", "--remote", "origin"], 10);
    let d = r["problems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["path"].as_str().is_some_and(|p| p.contains(&after)))
        .unwrap();
    assert_eq!(d["code"], "continuity.revoked_key");
    let ids = |t: &str| ids(t.replace(&after, "[AFTER]"));
    insta::assert_snapshot!(ids(json::text(d, "/message")), @"signed by a revoked key (device desk, key [KEY ID]); its revocation is pinned at store commit [PIN], which does not hold this record: the key was used after it was revoked");
    let out = run_ci(&env, &remote, "ci2").code(1);
    insta::assert_snapshot!(ids(&ci_said(&out)), @"
    majordomus-ci: continuity verify
    INFO    continuity.retired records/[..]/[..]/[BEFORE].json: signed by device desk (key [KEY ID]) before its revocation (pinned at store commit [PIN]); retired: kept, not admitted
    ERROR   continuity.revoked_key records/[..]/[..]/[AFTER].json: signed by a revoked key (device desk, key [KEY ID]); its revocation is pinned at store commit [PIN], which does not hold this record: the key was used after it was revoked
    verified 3 record(s): 1 admitted, 1 refused, 0 untrusted, 1 retired (revoked before their pin; not admitted, not a failure)
    majordomus-ci: continuity verify: refused (exit 10)
    majordomus-ci: doctor
    majordomus-ci: doctor: ok
    majordomus-ci: history --validate
    majordomus-ci: history --validate: ok
    majordomus-ci: some checks failed
    ");
}

#[test]
fn a_rotated_device_is_trusted_again_by_a_teammate_and_a_revoked_one_cannot_trust_itself() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let (_, a, b, ka, kb) = two_clones(&env, "desk");
    trust(&a, &["add", &ka, "--label", "macbook-pro", "--create"], 0);
    trust(&a, &["add", &kb, "--label", "desk"], 0);
    share_mesh(&a, &[&b]);
    let old_id = b.key_id();
    // B rotates: a new key, the old one listed in node.json, the teammate's change printed.
    let r = b.cj(&["device", "rotate"], 0);
    let new = r["public_key"].as_str().unwrap().to_string();
    assert_ne!(new, kb);
    assert_eq!((r["rotated"].as_str(), r["applied"].as_bool()), (Some(kb.as_str()), Some(false)));
    let next: Vec<String> = r["next"].as_array().unwrap().iter().map(|n| n.as_str().unwrap().to_string()).collect();
    assert_eq!(
        next,
        [
            format!("git majordomus continuity trust revoke {kb}"),
            format!("git majordomus continuity trust add {new} --label desk")
        ]
    );
    let node: Value = serde_json::from_str(&std::fs::read_to_string(b.node_json()).unwrap()).unwrap();
    assert_eq!(node["rotated"][0]["public_key"].as_str(), Some(kb.as_str()));
    assert_ne!(b.key_id(), old_id);
    // Until a teammate trusts the new key, B's records are untrusted at A.
    publish_one(&a, "A's work.");
    // A runs the printed commands.
    for n in &next {
        let words: Vec<&str> = n.split(' ').skip(2).collect();
        a.run(&words, "").ok();
    }
    share_mesh(&a, &[&b]);
    let id = publish_one(&b, "B with its new key.");
    a.sync();
    let r = a.cj(&["verify"], 0);
    assert_eq!([&r["admitted"], &r["untrusted"], &r["refused"]], [2, 0, 0], "{r:#}");
    let list = trust(&a, &["list"], 0);
    let desk: Vec<&Value> = list["keys"].as_array().unwrap().iter().filter(|k| k["label"] == "desk").collect();
    assert_eq!(desk.len(), 2, "{list}");
    assert!(desk.iter().any(|k| k["trust"] == "trusted" && k["records"] == 1), "{list}");
    assert!(desk.iter().any(|k| k["trust"] == "revoked"), "{list}");
    let plan = a.c(&["plan", "--record", &id]).ok().shown();
    insta::assert_snapshot!(plan.replace(&id, "[ID]").replace(&id[..12], "[ID]"), @"
    Resume      ready
    record      [ID]
    device      desk [trusted]
    key         [KEY ID]
    published   0 min ago
    source      main @ [HEX]  clean
    objective   B with its new key.
    Source
      expected    main @ [HEX]
      local       main @ [HEX]
      relation    exact
    Next action
      Go on.
    Restores    handover, intent, issue, decisions, next_action, lineage, provenance
    Recomputes  worktree, repository_id, episode, working_context, local_source_state
    run git majordomus continuity resume --record [ID]
    --- stderr
    --- exit 0
    ");

    // With --apply, a trusted device makes its own change; once revoked it cannot.
    let r = b.cj(&["device", "rotate", "--apply"], 0);
    assert_eq!(r["applied"].as_bool(), Some(true), "{r}");
    let mesh = std::fs::read_to_string(b.root().join(MESH)).unwrap();
    let newest = r["public_key"].as_str().unwrap();
    let ids = |t: &str| {
        t.replace(&ka, "[KEY A]").replace(&kb, "[KEY B]").replace(&new, "[KEY B2]").replace(newest, "[KEY B3]")
    };
    insta::assert_snapshot!(ids(&mesh), @"
    schema: mesh/v1
    kind: mesh-declaration
    id: team
    enabled: true
    trust:
      policy: deny_unknown
      allow:
      - [KEY A]
      - [KEY B3]
      revoked:
      - [HEX]
      - [HEX]
      labels:
        [KEY A]: macbook-pro
        [KEY B]: desk
        [KEY B2]: desk
        [KEY B3]: desk
      revoked_at:
        [HEX]: [HEX]
        [HEX]: [HEX]
    ");
    b.git(&["checkout", "-q", "--", MESH]);
    trust(&a, &["revoke", r["public_key"].as_str().unwrap()], 0);
    share_mesh(&a, &[&b]);
    let before = std::fs::read_to_string(b.node_json()).unwrap();
    // Told first that it is revoked.
    let out = b.c(&["device", "rotate", "--apply"]).code(10);
    insta::assert_snapshot!(ids(&out.shown()), @"
    --- stderr
    warning: this device's key [KEY ID] is revoked by .ai/repo/mesh/team.yaml: its records are refused everywhere; git majordomus continuity device rotate makes a new key; a teammate trusts it with git majordomus continuity trust add
    error: this device's key [KEY ID] is not trusted by .ai/repo/mesh/team.yaml: it cannot trust its new key itself
    hint: rotate without --apply and ask a teammate to run the trust add it prints
    --- exit 10
    ");
    assert_eq!(std::fs::read_to_string(b.node_json()).unwrap(), before, "nothing rotated");
}

/// A machine that fetched a store and never read one: its start hook reads no store (at a million
/// records that would be a cold read of half a minute inside the hook) and says nothing of what
/// arrived; `continuity status` reads it, and the next briefing names what arrived.
#[test]
fn the_start_hook_reads_no_store_this_machine_never_read() {
    let env = TestEnv::new();
    let (_, a, b, _, _) = two_clones(&env, "desk");
    let refspec = "+refs/majordomus/continuity*:refs/majordomus/remotes/origin/continuity*";
    a.git(&["config", "--add", "remote.origin.fetch", refspec]);
    let id = publish_one(&b, "B's work.");
    a.git(&["fetch", "-q", "origin"]);
    let models = || -> Vec<String> {
        let dir = a.root().join(".git/majordomus/readmodel");
        let names = std::fs::read_dir(dir).into_iter().flatten().flatten();
        names.map(|e| e.file_name().to_string_lossy().into_owned()).collect()
    };
    let first = a.briefing("s-first");
    assert!(!first.contains("Arrived:"), "{first}");
    assert_eq!(models(), Vec::<String>::new(), "the hook read no store");
    let st = a.cj(&["status"], 0);
    assert_eq!(st["standing"]["arrived"]["id"].as_str(), Some(id.as_str()));
    assert_eq!(models(), ["refs%majordomus%remotes%origin%continuity.bin"]);
    let next = a.briefing("s-next");
    let arrived: Vec<&str> = next.lines().filter(|l| l.starts_with("Arrived: ")).collect();
    assert_eq!(arrived.len(), 1, "{next}");
    assert!(arrived[0].contains(&format!("record {} on origin", &id[..12])), "{next}");
}

#[test]
fn a_newer_handover_a_plain_fetch_brought_is_named_in_status_and_the_briefing() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let (_, a, b, _, _) = two_clones(&env, "desk");
    let refspec = "+refs/majordomus/continuity*:refs/majordomus/remotes/origin/continuity*";
    a.git(&["config", "--add", "remote.origin.fetch", refspec]);
    publish_one(&a, "A's older work.");
    // B publishes a newer handover for main; A only fetches, as git fetch does.
    let id = publish_one(&b, "SECRET-PLAN-OF-B");
    a.git(&["fetch", "-q", "origin"]);
    let st = a.cj(&["status"], 0);
    assert_eq!(st["store"]["sync"], "behind", "the JSON keeps its words");
    let standing = json::at(&st, "/standing");
    assert_eq!((standing["not_read_here"].as_u64(), standing["not_on_remote"].as_u64()), (Some(1), Some(0)));
    assert_eq!(standing["arrived"]["id"].as_str(), Some(id.as_str()));
    let ids = |t: &str| t.replace(&id, "[ID]").replace(&id[..12], "[ID]").replace(&b.key_id(), "[KEY ID B]");
    // Named, not quoted.
    let text = a.c(&["status"]).ok().stdout;
    insta::assert_snapshot!(ids(&text), @"
    repository  [HEX]
    device      macbook-pro ([HEX])
    branch      main @ [HEX]  clean
    continues   [HEX] (published here)
    store       1 record(s), 0 refused; 1 record(s) on origin not read here
    arrived     a newer handover for this branch from desk (key [KEY ID B]), 0 min ago, record [ID] on origin: git majordomus continuity sync, then git majordomus continuity plan
    last sync   ok with origin at 2026-09-03T20:00:00Z
    resumable   none
    next        git majordomus continuity sync
    next        git majordomus continuity plan
    ");
    let briefing = a.briefing("s-arrived");
    insta::assert_snapshot!(ids(&briefing), @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on main at [HEX], working tree clean.
    No task record: checkpoints and handovers are still written for this episode.
    Arrived: a newer handover for this branch from desk (key [KEY ID B]), 0 min old, record [ID] on origin — run git majordomus continuity sync, then git majordomus continuity plan
    Handover .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md (same_worktree_same_branch, exact, 0m ago, authored).
    Its Next Action:
      Go on.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    ");
    // The command it names takes it.
    a.sync();
    insta::assert_snapshot!(ids(&a.c(&["plan", "--record", &id]).ok().shown()), @"
    Resume      ready_with_warnings
    record      [ID]
    device      desk [undeclared]
    key         [KEY ID B]
    published   0 min ago
    source      main @ [HEX]  clean
    objective   SECRET-PLAN-OF-B
    Source
      expected    main @ [HEX]
      local       main @ [HEX]
      relation    exact
    Next action
      Go on.
    Restores    handover, intent, issue, decisions, next_action, lineage, provenance
    Recomputes  worktree, repository_id, episode, working_context, local_source_state
    WARN    origin_undeclared: no mesh declaration under .ai/repo/mesh/ says which devices to trust; desk's signature (key [KEY ID B]) is valid but its key is not checked against a trust list
    run git majordomus continuity resume --record [ID]
    --- stderr
    --- exit 0
    ");
    let text = a.c(&["status"]).ok().stdout;
    insta::assert_snapshot!(ids(&text), @"
    repository  [HEX]
    device      macbook-pro ([HEX])
    branch      main @ [HEX]  clean
    continues   [HEX] (published here)
    store       2 record(s), 0 refused; in sync with origin
    last sync   ok with origin at 2026-09-03T20:00:00Z
    Resumable from another device (1)
    record      [ID]
    device      desk [undeclared]
    key         [KEY ID B]
    published   0 min ago
    source      main @ [HEX]  clean
    objective   SECRET-PLAN-OF-B
    next        git majordomus continuity plan
    ");
    insta::assert_snapshot!(a.briefing("s-after"), @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on main at [HEX], working tree clean.
    Also open in this checkout: 1 other episode(s).
    - claude-code episode s-[ID], opened 0m ago, last activity 0m ago
    No task record: checkpoints and handovers are still written for this episode.
    Mesh: 1 resumable handover(s) from other devices — run git majordomus continuity plan
    Handover .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md (same_worktree_same_branch, exact, 0m ago, authored).
    Its Next Action:
      Go on.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    ");
    // What is here and not yet on origin, from this machine's side.
    a.handover(true, "# Objective\nLocal only.\n\n# Current State\nx\n\n# Next Action\ny\n");
    a.publish(&[]);
    let text = a.c(&["status"]).ok().stdout;
    insta::assert_snapshot!(ids(&text), @"
    repository  [HEX]
    device      macbook-pro ([HEX])
    branch      main @ [HEX]  clean
    continues   [HEX] (published here)
    store       3 record(s), 0 refused; 1 record(s) here not yet on origin
    last sync   ok with origin at 2026-09-03T20:00:00Z
    Resumable from another device (1)
    record      [ID]
    device      desk [undeclared]
    key         [KEY ID B]
    published   0 min ago
    source      main @ [HEX]  clean
    objective   SECRET-PLAN-OF-B
    next        git majordomus continuity sync
    next        git majordomus continuity plan
    ");
}

/// The questions log of `m` (its unresolved entries' lines).
fn unresolved(m: &Machine<'_>) -> Vec<String> {
    let text = std::fs::read_to_string(m.root().join(".ai/local/state/open-questions.md")).unwrap_or_default();
    text.lines().filter(|l| l.starts_with("- [unresolved]")).map(str::to_string).collect()
}

#[test]
fn a_diverged_line_heals_by_resume_and_publish_or_by_supersede_and_both_travel() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let (_, a, b, _, _) = two_clones(&env, "desk");
    // A line: R0 by A; B continues it; A continues it too, without syncing first.
    let r0 = publish_one(&a, "Start.");
    b.sync();
    b.cj(&["resume", "--record", &r0], 0);
    b.run(&["start", "B's parser", "--scope", "src"], "").ok();
    b.run(&["question", "add", "Which parser does B keep?"], "").ok();
    let r1b = publish_one(&b, "B's continuation.");
    a.handover(true, "# Objective\nA's continuation.\n\n# Current State\nx\n\n# Next Action\ny\n");
    let r1a = a.publish(&[]);
    a.sync();
    let st = a.cj(&["status"], 0);
    assert_eq!(st["lines"].as_array().unwrap().len(), 1, "one diverged line: {:#}", st["lines"]);
    assert!(st["diagnostics"].as_array().unwrap().iter().any(|d| d["code"] == "continuity.diverged"));

    // A resumes B's head and publishes: the record names both heads (v2) and the line heals.
    let r: Value = a.cj(&["resume", "--record", &r1b], 0);
    assert_eq!(r["position"]["ends"], serde_json::json!([r1a]), "{r}");
    assert_eq!(r["questions_carried"].as_u64(), Some(1), "{r}");
    a.handover(true, "# Objective\nBoth, together.\n\n# Current State\nx\n\n# Next Action\ny\n");
    let r2 = a.publish(&[]);
    let stored = a.git(&["cat-file", "blob", &format!("refs/majordomus/continuity:{}", store_path(&r2))]);
    let stored: Value = serde_json::from_str(&stored).unwrap();
    assert_eq!(stored["record"]["schema"], "majordomus-continuity/v2");
    assert_eq!(stored["record"]["ends"], serde_json::json!([r1a]), "{stored}");
    a.sync();
    let st = a.cj(&["status"], 0);
    assert!(st["lines"].as_array().unwrap().is_empty(), "healed: {:#}", st["lines"]);
    assert!(
        !st["diagnostics"].as_array().unwrap().iter().any(|d| d["code"] == "continuity.diverged"),
        "{:#}",
        st["diagnostics"]
    );
    let ids = |t: &str| {
        [("R0", &r0), ("R1A", &r1a), ("R1B", &r1b), ("R2", &r2)].iter().fold(t.to_string(), |t, (n, id)| {
            t.replace(id.as_str(), &format!("[{n}]")).replace(&id[..12], &format!("[{n}]"))
        })
    };
    insta::assert_snapshot!(sorted_after_first(&ids(&a.c(&["records"]).ok().stdout)), @"
    4 record(s)
    [R0]  line [R0]  parent -  macbook-pro  main  2026-09-03T20:00:00Z
    [R1A]  line [R0]  parent [R0]  macbook-pro  main  2026-09-03T20:00:00Z
    [R1B]  line [R0]  parent [R0]  desk  main  2026-09-03T20:00:00Z
    [R2]  line [R0]  parent [R1B]  macbook-pro  main  2026-09-03T20:00:00Z  also ends [R1A]
    ");
    // B reads the same: one head, r2, and neither old head is offered.
    b.sync();
    let st = b.cj(&["status"], 0);
    assert!(st["lines"].as_array().unwrap().is_empty(), "{:#}", st["lines"]);
    let offered: Vec<&str> = st["resumable"].as_array().unwrap().iter().filter_map(|v| v["id"].as_str()).collect();
    insta::assert_snapshot!(ids(&offered.join("\n")), @"[R2]");
    let r = b.cj(&["verify"], 0);
    assert_eq!([&r["admitted"], &r["refused"]], [4, 0], "{r:#}");

    // B continues its own old head again (its position), without resuming r2: diverged again.
    b.run(&["question", "add", "Is B's cache still needed?"], "").ok();
    let r3b = publish_one(&b, "B went on alone.");
    a.sync();
    let st = a.cj(&["status"], 0);
    assert_eq!(st["lines"].as_array().unwrap().len(), 1, "{:#}", st["lines"]);
    // A ends B's head without resuming it: a signed record without a handover, which travels.
    let before = unresolved(&a).len();
    let s: Value = a.cj(&["supersede", &r3b[..8]], 0);
    assert_eq!(s["superseded"]["id"].as_str(), Some(r3b.as_str()), "{s}");
    assert_eq!(s["record"]["ends_only"].as_bool(), Some(true), "{s}");
    assert!(s["questions_carried"].as_u64().unwrap() >= 1, "{s}");
    // The record that ends it is no handover to resume.
    let ender = s["record"]["id"].as_str().unwrap().to_string();
    let p: Value = a.cj(&["plan", "--record", &ender], 0);
    assert_eq!(
        (p["status"].as_str(), p["blockers"][0]["code"].as_str()),
        (Some("nothing_to_resume"), Some("ends_only")),
        "{p}"
    );
    assert!(unresolved(&a).len() > before);
    insta::assert_snapshot!(unresolved(&a).join("\n"), @"
    - [unresolved] t-[ID] — Which callback URL does staging use? (2026-09-03)
    - [unresolved] none — Which parser does B keep? (2026-09-03)
    - [unresolved] none — Is B's cache still needed? (2026-09-03)
    ");
    let st = a.cj(&["status"], 0);
    assert!(st["lines"].as_array().unwrap().is_empty(), "{:#}", st["lines"]);
    assert!(
        st["resumable"].as_array().unwrap().iter().all(|v| v["id"] != r3b),
        "the superseded head is offered nowhere"
    );
    // Superseding what is not a head is refused.
    let out = a.c(&["supersede", &r3b[..8]]).code(10);
    insta::assert_snapshot!(ids(&out.shown()).replace(&r3b[..12], "[R3B]").replace(&r3b[..8], "[R3B]"), @"
    --- stderr
    error: record [R3B] is not a head: a later record already continues it
    hint: git majordomus continuity status lists the heads of each line
    --- exit 10
    ");
    a.sync();
    b.sync();
    let st = b.cj(&["status"], 0);
    assert!(
        st["lines"].as_array().unwrap().is_empty()
            && st["resumable"].as_array().unwrap().iter().all(|v| v["id"] != r3b),
        "{:#} {:#}",
        st["lines"],
        st["resumable"]
    );
    let plan = b.c(&["plan", "--record", &r3b]).shown();
    insta::assert_snapshot!(ids(&plan.replace(&r3b, "[R3B]").replace(&r3b[..12], "[R3B]")), @"
    Resume      ready_with_warnings
    record      [R3B]
    device      desk (this device)
    published   0 min ago
    source      main @ [HEX]  clean
    objective   B went on alone.
    Source
      expected    main @ [HEX]
      local       main @ [HEX]
      relation    exact
    Next action
      Go on.
    Restores    handover, intent, issue, decisions, next_action, lineage, provenance
    Recomputes  worktree, repository_id, episode, working_context, local_source_state
    WARN    already_resumed: this checkout already continues [R3B]
    run git majordomus continuity resume --record [R3B]
    --- stderr
    --- exit 0
    ");
}

/// Issue 40's "Done when", step by step, on one bare remote: three devices and a CI clone.
#[test]
fn a_team_of_three_devices_and_ci_lives_through_join_revoke_rotate_diverge_heal_and_fetch() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let (remote, a, b, ka, kb) = two_clones(&env, "desk");
    let refspec = "+refs/majordomus/continuity*:refs/majordomus/remotes/origin/continuity*";
    // The team: A and B trusted; shared.
    trust(&a, &["add", &ka, "--label", "macbook-pro", "--create"], 0);
    trust(&a, &["add", &kb, "--label", "desk"], 0);
    share_mesh(&a, &[&b]);

    // 1. A newcomer joins: `device` on C, `trust add` by A.
    let c = Machine::clone_of(&env, &remote, "c");
    let kc = c.device("c-laptop");
    trust(&a, &["add", &kc, "--label", "c-laptop"], 0);
    share_mesh(&a, &[&b, &c]);

    // 2. Records flow: C's record is trusted at A.
    let from_c = publish_one(&c, "C's first work.");
    a.sync();
    let st = a.cj(&["status"], 0);
    let v = st["resumable"].as_array().unwrap().iter().find(|v| v["id"] == from_c).expect("C's record is offered");
    assert_eq!(v["trust"], "trusted");
    assert!(v.get("withheld").is_none(), "{v}");
    publish_one(&b, "B's work before.");

    // 3. A revokes B: pinned; the CI step stays green.
    let v = trust(&a, &["revoke", "desk"], 0);
    assert!(v["pin"].is_string(), "{v}");
    share_mesh(&a, &[&c]);
    let out = run_ci(&env, &remote, "ci1").ok();
    insta::assert_snapshot!(ci_said(&out), @"
    majordomus-ci: continuity verify
    INFO    continuity.retired records/[..]/[..]/[HEX].json: signed by device desk (key [KEY ID]) before its revocation (pinned at store commit [HEX]); retired: kept, not admitted
    verified 2 record(s): 1 admitted, 0 refused, 0 untrusted, 1 retired (revoked before their pin; not admitted, not a failure)
    majordomus-ci: continuity verify: ok
    majordomus-ci: doctor
    majordomus-ci: doctor: ok
    majordomus-ci: history --validate
    majordomus-ci: history --validate: ok
    majordomus-ci: all checks passed
    ");

    // 4. The revoked device is told.
    b.git(&["pull", "-q", "--ff-only", "origin", "main"]);
    insta::assert_snapshot!(b.c(&["status"]).ok().shown(), @"
    repository  [HEX]
    device      desk ([HEX])
                this device: revoked — publish and sync refuse; git majordomus continuity device rotate makes a new key
    branch      main @ [HEX]  clean
    continues   [HEX] (published here)
    store       1 record(s), 0 refused; in sync with origin
    last sync   ok with origin at 2026-09-03T20:00:00Z
    Resumable from another device (1)
    record      [HEX]
    device      c-laptop [trusted]
    key         [KEY ID]
    published   0 min ago
    source      main @ [HEX]  clean
    objective   C's first work.
    INFO    continuity.retired records/[..]/[..]/[HEX].json: signed by device desk (key [KEY ID]) before its revocation (pinned at store commit [HEX]); retired: kept, not admitted
    next        git majordomus continuity plan
    --- stderr
    warning: this device's key [KEY ID] is revoked by .ai/repo/mesh/team.yaml: its records are refused everywhere; git majordomus continuity device rotate makes a new key; a teammate trusts it with git majordomus continuity trust add
    --- exit 0
    ");
    let old_node = std::fs::read(b.node_json()).unwrap();

    // 5. B rotates; a teammate trusts the new key; B's records flow again.
    let r = b.cj(&["device", "rotate"], 0);
    let next: Vec<String> = r["next"].as_array().unwrap().iter().map(|n| n.as_str().unwrap().to_string()).collect();
    a.run(&next[1].split(' ').skip(2).collect::<Vec<_>>(), "").ok();
    share_mesh(&a, &[&b, &c]);
    let from_new_b = publish_one(&b, "B with its new key.");
    a.sync();
    insta::assert_snapshot!(a.c(&["plan", "--record", &from_new_b]).ok().shown(), @"
    Resume      ready
    record      [HEX]
    device      desk [trusted]
    key         [KEY ID]
    published   0 min ago
    source      main @ [HEX]  clean
    objective   B with its new key.
    Source
      expected    main @ [HEX]
      local       main @ [HEX]
      relation    exact
    Next action
      Go on.
    Restores    handover, intent, issue, decisions, next_action, lineage, provenance
    Recomputes  worktree, repository_id, episode, working_context, local_source_state
    run git majordomus continuity resume --record [HEX]
    --- stderr
    --- exit 0
    ");

    // 6. A record signed with the old key after the revocation fails CI.
    let thief = env.path().join("thief-state");
    std::fs::create_dir_all(thief.join("majordomus")).unwrap();
    std::fs::write(thief.join("majordomus/node.json"), &old_node).unwrap();
    let old_mesh = b.git(&["show", "HEAD~3:.ai/repo/mesh/team.yaml"]);
    b.repo.write(MESH, &format!("{old_mesh}\n"));
    let xdg = [("XDG_STATE_HOME", thief.to_str().unwrap())];
    b.run_env(&["handover", "--no-task"], "# Objective\nStolen.\n\n# Current State\nx\n\n# Next Action\ny\n", &xdg)
        .ok();
    b.run_env(&["continuity", "publish"], "", &xdg).ok();
    b.run_env(&["continuity", "sync"], "", &xdg).ok();
    b.git(&["checkout", "-q", "--", MESH]);
    let out = run_ci(&env, &remote, "ci2").code(1);
    insta::assert_snapshot!(ci_said(&out), @"
    majordomus-ci: continuity verify
    INFO    continuity.retired records/[..]/[..]/[HEX].json: signed by device desk (key [KEY ID]) before its revocation (pinned at store commit [HEX]); retired: kept, not admitted
    ERROR   continuity.revoked_key records/[..]/[..]/[HEX].json: signed by a revoked key (device desk, key [KEY ID]); its revocation is pinned at store commit [HEX], which does not hold this record: the key was used after it was revoked
    verified 4 record(s): 2 admitted, 1 refused, 0 untrusted, 1 retired (revoked before their pin; not admitted, not a failure)
    majordomus-ci: continuity verify: refused (exit 10)
    majordomus-ci: doctor
    majordomus-ci: doctor: ok
    majordomus-ci: history --validate
    majordomus-ci: history --validate: ok
    majordomus-ci: some checks failed
    ");

    // 7. Two machines diverge, and the line heals.
    let head = publish_one(&a, "A before the fork.");
    c.sync();
    c.cj(&["resume", "--record", &head], 0);
    let c_fork = publish_one(&c, "C's fork.");
    a.handover(true, "# Objective\nA's fork.\n\n# Current State\nx\n\n# Next Action\ny\n");
    a.publish(&[]);
    a.sync();
    assert_eq!(a.cj(&["status"], 0)["lines"].as_array().unwrap().len(), 1, "diverged");
    a.cj(&["resume", "--record", &c_fork], 0);
    let healed = publish_one(&a, "Both forks, together.");
    assert!(a.cj(&["status"], 0)["lines"].as_array().unwrap().is_empty(), "healed");

    // 8. A newer handover fetched from another device is in the next briefing.
    c.sync();
    c.cj(&["resume", "--record", &healed], 0);
    let newer = publish_one(&c, "C's newest.");
    a.git(&["config", "--add", "remote.origin.fetch", refspec]);
    a.git(&["fetch", "-q", "origin"]);
    let briefing = a.briefing("s-team");
    insta::assert_snapshot!(briefing.replace(&newer[..12], "[NEWER]"), @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on main at [HEX], working tree clean.
    No task record: checkpoints and handovers are still written for this episode.
    Mesh: 2 resumable handover(s) from other devices — run git majordomus continuity plan
    Arrived: a newer handover for this branch from c-laptop (key [KEY ID]), 0 min old, record [NEWER] on origin — run git majordomus continuity sync, then git majordomus continuity plan
    Handover .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md (same_worktree_same_branch, exact, 0m ago, authored).
    Its Next Action:
      Go on.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    ");
}

#[test]
fn device_says_when_it_creates_the_key_a_newcomer_sends() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let (remote, _, _, _, _) = two_clones(&env, "desk");
    let c = Machine::clone_of(&env, &remote, "c");
    let out = c.c(&["device"]).ok().shown();
    insta::assert_snapshot!(out, @"
    created     a new device key at [TMP]/c-state/majordomus/node.json (mode 0600)
    device      [HEX]
    node        [HEX]
    key id      [KEY ID]
    public key  [PUBLIC KEY]
    --- stderr
    --- exit 0
    ");
    // Said once.
    insta::assert_snapshot!(c.c(&["device"]).ok().shown(), @"
    device      [HEX]
    node        [HEX]
    key id      [KEY ID]
    public key  [PUBLIC KEY]
    --- stderr
    --- exit 0
    ");
    // In a clone that has fetched nothing, the store is not called empty on origin.
    let st = c.c(&["status"]).ok().shown();
    insta::assert_snapshot!(st, @"
    repository  [HEX]
    device      [HEX] ([HEX])
    branch      main @ [HEX]  clean
    continues   nothing yet on this branch
    store       0 record(s), 0 refused; empty here; nothing fetched from origin yet (continuity sync fetches it)
    resumable   none
    --- stderr
    hint: this clone has no continuity records yet (git clone does not bring refs/majordomus/continuity): run git majordomus continuity sync, and git majordomus hooks install --fetch-refspec so that git fetch brings them
    --- exit 0
    ");
}
