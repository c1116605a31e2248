//! A team's trust, run by commands (issue 40; SPEC §A.28 "Revocation"; docs/SYNC.md "A team's
//! trust"): `continuity trust add|revoke|list` edit and read the mesh declaration through one
//! writer; a revocation syncs and pins the store commit on the remote, so that the key's
//! records up to there are `retired` (reported, not a failure) and a record it signs after the
//! pin fails `verify` and the CI step; the revoked machine is told.
//!
//! Each machine is a clone of one bare remote with its own `HOME` and `XDG_STATE_HOME`.

use std::path::Path;

use serde_json::Value;

use crate::common::json::{Status, Verify};
use crate::common::machine::{two_clones, Machine};
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

fn publish_one(m: &Machine<'_>, objective: &str) -> String {
    m.handover(true, &format!("# Objective\n{objective}\n\n# Current State\nGoing.\n\n# Next Action\nGo on.\n"));
    let id = m.publish(&[]);
    m.sync();
    id
}

#[test]
fn trust_add_writes_the_declaration_through_one_writer_and_refuses_what_does_not_decode() {
    let env = TestEnv::new();
    let (_, a, b, ka, kb) = two_clones(&env, "desk");
    // No declaration: 12, naming --create; nothing written.
    let out = a.c(&["trust", "add", &kb, "--label", "desk"]).code(12);
    assert!(out.stderr.contains("--create"), "{}", out.stderr);
    assert!(!a.root().join(MESH).exists());
    // --create writes a deny_unknown declaration and says how to share it.
    let v = trust(&a, &["add", &ka, "--label", "macbook-pro", "--create"], 0);
    assert_eq!((v["created"].as_bool(), v["mesh"].as_str()), (Some(true), Some(MESH)));
    let next: Vec<&str> = v["next"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
    assert_eq!(next[0], format!("git add {MESH}"));
    assert!(next[1].starts_with("git commit -m") && next[1].ends_with(MESH), "{next:?}");
    let text = a.c(&["trust", "add", &kb, "--label", "desk"]).ok().stdout;
    assert!(text.contains("desk (key ") && text.contains(" trusted"), "{text}");
    let yaml = std::fs::read_to_string(a.root().join(MESH)).unwrap();
    assert!(yaml.contains("policy: deny_unknown") && yaml.contains(&ka) && yaml.contains(&kb), "{yaml}");
    assert!(yaml.contains("labels:") && yaml.contains(": desk"), "{yaml}");
    // A key that does not decode: 10, the declaration unchanged byte for byte.
    let cut = &kb[..kb.len() - 1];
    let out = a.c(&["trust", "add", cut, "--label", "x"]).code(10);
    assert!(out.stderr.contains("is not a device key"), "{}", out.stderr);
    assert_eq!(std::fs::read_to_string(a.root().join(MESH)).unwrap(), yaml);
    // A label another trusted key holds: 10.
    let out = a.c(&["trust", "add", &"ab".repeat(32), "--label", "desk"]).code(10);
    assert!(out.stderr.contains("already names key"), "{}", out.stderr);
    // The list shows both keys, their labels and standing.
    let list = trust(&a, &["list"], 0);
    let keys = list["keys"].as_array().unwrap();
    let row = |label: &str| keys.iter().find(|k| k["label"] == label).unwrap_or_else(|| panic!("{list}")).clone();
    assert_eq!(row("macbook-pro")["trust"], "this_device");
    assert_eq!(row("desk")["trust"], "trusted");
    assert_eq!(row("desk")["key_id"].as_str().unwrap(), b.key_id());
    let text = a.c(&["trust", "list"]).ok().stdout;
    assert!(text.contains(&b.key_id()) && text.contains("desk") && text.contains("trusted"), "{text}");
}

#[test]
fn revoking_by_a_label_two_keys_share_is_refused_naming_both() {
    let env = TestEnv::new();
    // B calls itself what A is called.
    let (_, a, b, ka, kb) = two_clones(&env, "macbook-pro");
    trust(&a, &["add", &ka, "--label", "a", "--create"], 0);
    trust(&a, &["add", &kb, "--label", "b", "--create"], 0);
    share_mesh(&a, &[&b]);
    publish_one(&a, "A's work.");
    publish_one(&b, "B's work.");
    a.sync();
    let before = std::fs::read_to_string(a.root().join(MESH)).unwrap();
    let out = a.c(&["trust", "revoke", "macbook-pro"]).code(10);
    assert!(out.stderr.contains(&a.key_id()) && out.stderr.contains(&b.key_id()), "{}", out.stderr);
    assert_eq!(std::fs::read_to_string(a.root().join(MESH)).unwrap(), before);
    let out = a.c(&["trust", "revoke", "nobody"]).code(12);
    assert!(out.stderr.contains("no key is labelled"), "{}", out.stderr);
}

#[test]
fn a_pinned_revocation_retires_the_keys_records_and_a_later_record_fails_verify_and_ci() {
    let env = TestEnv::new();
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
    let r: Verify = a.cj(&["verify"], 0);
    assert_eq!((r.admitted, r.refused, r.retired), (1, 0, 1), "{r:?}");
    assert!(r.problems.iter().any(|d| d.code == "continuity.retired" && d.path.as_deref().unwrap().contains(&before)));
    let text = a.c(&["verify"]).ok().stdout;
    assert!(text.contains("1 retired"), "{text}");
    let out = a.run(&["continuity", "verify", "--format", "github"], "").ok();
    assert!(out.stdout.contains("::notice title=majordomus continuity.retired::"), "{}", out.stdout);
    assert!(!out.stdout.contains("::error"), "{}", out.stdout);
    // The CI step passes a pinned revocation.
    let out = run_ci(&env, &remote, "ci1").ok();
    assert!(out.stdout.contains("majordomus-ci: all checks passed"), "{}", out.stdout);
    // The trust list counts the retired record.
    let list = trust(&a, &["list"], 0);
    let desk = list["keys"].as_array().unwrap().iter().find(|k| k["label"] == "desk").unwrap().clone();
    assert_eq!((desk["trust"].as_str(), desk["retired"].as_u64()), (Some("revoked"), Some(1)), "{list}");
    assert_eq!(desk["revoked_at"].as_str(), Some(pin.as_str()));

    // B, pulling the mesh, is told on every continuity command; its publish and sync refuse.
    b.git(&["pull", "-q", "--ff-only", "origin", "main"]);
    let st: Status = b.cj(&["status"], 0);
    assert_eq!(st.device_trust.as_deref(), Some("revoked"));
    let out = b.c(&["status"]).ok();
    assert!(out.stdout.contains("this device: revoked"), "{}", out.stdout);
    assert!(out.stderr.contains("is revoked by .ai/repo/mesh/team.yaml"), "{}", out.stderr);
    b.handover(true, "# Objective\nAfter.\n\n# Current State\nx\n\n# Next Action\ny\n");
    for args in [&["publish"][..], &["sync"][..]] {
        let out = b.c(args).code(10);
        assert!(
            out.stderr.contains(".ai/repo/mesh/team.yaml") && out.stderr.contains("device rotate"),
            "{}",
            out.stderr
        );
    }
    // A record signed with the old key after the pin (B's checkout still trusting itself)
    // reaches origin: verify of origin's store and the CI step fail, naming it.
    b.git(&["reset", "-q", "--hard", "HEAD~1"]);
    let after = b.publish(&[]);
    b.sync();
    a.sync();
    let r: Verify = a.cj(&["verify", "--remote", "origin"], 10);
    let d = r.problems.iter().find(|d| d.path.as_deref().is_some_and(|p| p.contains(&after))).unwrap();
    assert_eq!(d.code, "continuity.revoked_key");
    assert!(d.message.contains("used after it was revoked"), "{}", d.message);
    let out = run_ci(&env, &remote, "ci2").code(1);
    assert!(out.stdout.contains("continuity.revoked_key") && out.stdout.contains("1 retired"), "{}", out.stdout);
}

#[test]
fn a_rotated_device_is_trusted_again_by_a_teammate_and_a_revoked_one_cannot_trust_itself() {
    let env = TestEnv::new();
    let (_, a, b, ka, kb) = two_clones(&env, "desk");
    trust(&a, &["add", &ka, "--label", "macbook-pro", "--create"], 0);
    trust(&a, &["add", &kb, "--label", "desk"], 0);
    share_mesh(&a, &[&b]);
    let old_id = b.key_id();
    // B rotates: a new key, the old one listed in node.json, the teammate's change printed.
    let r = b.cj::<Value>(&["device", "rotate"], 0);
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
    let r: Verify = a.cj(&["verify"], 0);
    assert_eq!((r.admitted, r.untrusted, r.refused), (2, 0, 0), "{r:?}");
    let list = trust(&a, &["list"], 0);
    let desk: Vec<&Value> = list["keys"].as_array().unwrap().iter().filter(|k| k["label"] == "desk").collect();
    assert_eq!(desk.len(), 2, "{list}");
    assert!(desk.iter().any(|k| k["trust"] == "trusted" && k["records"] == 1), "{list}");
    assert!(desk.iter().any(|k| k["trust"] == "revoked"), "{list}");
    assert!(a.c(&["plan", "--record", &id]).ok().stdout.contains("B with its new key."));

    // With --apply, a trusted device makes its own change; once revoked it cannot.
    let r = b.cj::<Value>(&["device", "rotate", "--apply"], 0);
    assert_eq!(r["applied"].as_bool(), Some(true), "{r}");
    let mesh = std::fs::read_to_string(b.root().join(MESH)).unwrap();
    assert!(mesh.contains(r["public_key"].as_str().unwrap()) && mesh.contains("revoked_at:"), "{mesh}");
    b.git(&["checkout", "-q", "--", MESH]);
    trust(&a, &["revoke", r["public_key"].as_str().unwrap()], 0);
    share_mesh(&a, &[&b]);
    let before = std::fs::read_to_string(b.node_json()).unwrap();
    let out = b.c(&["device", "rotate", "--apply"]).code(10);
    assert!(out.stderr.contains("cannot trust its new key itself"), "{}", out.stderr);
    assert!(out.stderr.contains("is revoked by"), "told first: {}", out.stderr);
    assert_eq!(std::fs::read_to_string(b.node_json()).unwrap(), before, "nothing rotated");
}

#[test]
fn a_newer_handover_a_plain_fetch_brought_is_named_in_status_and_the_briefing() {
    let env = TestEnv::new();
    let (_, a, b, _, _) = two_clones(&env, "desk");
    let refspec = "+refs/majordomus/continuity*:refs/majordomus/remotes/origin/continuity*";
    a.git(&["config", "--add", "remote.origin.fetch", refspec]);
    publish_one(&a, "A's older work.");
    // B publishes a newer handover for main; A only fetches, as git fetch does.
    let id = publish_one(&b, "SECRET-PLAN-OF-B");
    a.git(&["fetch", "-q", "origin"]);
    let st: Status = a.cj(&["status"], 0);
    assert_eq!(st.store.sync, "behind", "the JSON keeps its words");
    let standing = st.standing.expect("standing");
    assert_eq!((standing["not_read_here"].as_u64(), standing["not_on_remote"].as_u64()), (Some(1), Some(0)));
    assert_eq!(standing["arrived"]["id"].as_str(), Some(id.as_str()));
    let text = a.c(&["status"]).ok().stdout;
    assert!(text.contains("1 record(s) on origin not read here"), "{text}");
    assert!(text.contains(&format!("a newer handover for this branch from desk (key {})", b.key_id())), "{text}");
    assert!(text.contains("git majordomus continuity sync, then git majordomus continuity plan"), "{text}");
    assert!(!text.contains("SECRET-PLAN-OF-B"), "named, not quoted: {text}");
    let briefing = a.briefing("s-arrived");
    assert!(briefing.contains("Arrived: a newer handover for this branch from desk"), "{briefing}");
    assert!(briefing.contains(&id[..12]) && !briefing.contains("SECRET-PLAN-OF-B"), "{briefing}");
    // The command it names takes it.
    a.sync();
    assert!(a.c(&["plan", "--record", &id]).ok().stdout.contains("SECRET-PLAN-OF-B"));
    let text = a.c(&["status"]).ok().stdout;
    assert!(text.contains("in sync with origin") && !text.contains("arrived"), "{text}");
    assert!(!a.briefing("s-after").contains("Arrived:"));
    // What is here and not yet on origin, from this machine's side.
    a.handover(true, "# Objective\nLocal only.\n\n# Current State\nx\n\n# Next Action\ny\n");
    a.publish(&[]);
    let text = a.c(&["status"]).ok().stdout;
    assert!(text.contains("1 record(s) here not yet on origin"), "{text}");
}
