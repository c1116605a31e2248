//! The shipped CI step (docs/SYNC.md#the-ci-step, issue 10): `contrib/ci/majordomus-ci.sh`, shared by the GitHub
//! Actions composite action and the GitLab job, run end to end against a bare remote — a fresh
//! clone passes; a tampered record and an untrusted signer on the remote make it fail with a
//! workflow annotation naming each.

use std::path::Path;

use crate::common::json;
use crate::common::machine::printed;
use crate::common::remotes;
use crate::common::{Output, Repo, TestEnv};

const REF: &str = "refs/majordomus/continuity";

fn ci_script() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("contrib/ci/majordomus-ci.sh").display().to_string()
}

/// Clones `remote` into `<tmp>/<name>`; `xdg` gives it its own device key.
fn clone<'a>(env: &'a TestEnv, remote: &Path, name: &str) -> Repo<'a> {
    env.git_in(env.path(), &["clone", "-q", remote.to_str().unwrap(), name]);
    Repo { env, root: std::fs::canonicalize(env.path().join(name)).unwrap() }
}

fn key(name: &str, env: &TestEnv) -> String {
    env.path().join(format!("{name}-state")).display().to_string()
}

#[must_use]
fn mj(r: &Repo<'_>, who: &str, args: &[&str], stdin: &str) -> Output {
    r.mj_env(args, stdin, &[("XDG_STATE_HOME", &key(who, r.env))])
}

fn publish_and_sync(r: &Repo<'_>, who: &str, objective: &str) -> String {
    let body = format!("# Objective\n{objective}\n\n# Current State\nDone.\n\n# Next Action\nGo on.\n");
    mj(r, who, &["handover", "--no-task"], &body).ok();
    let args = ["--json", "continuity", "publish"];
    let v = printed(&args, &mj(r, who, &args, "").ok().stdout);
    mj(r, who, &["continuity", "sync"], "").ok();
    json::text(&v, "/record/id").to_string()
}

/// What the CI step says, without the JSON reports it prints: its own lines, `verify`'s and the
/// workflow annotations, each run of diagnostics or annotations sorted (they are listed in
/// store-path order, random in a test).
fn ci_said(out: &Output) -> String {
    let without_hex = |l: &str| l.chars().filter(|c| !c.is_ascii_hexdigit()).collect::<String>();
    let (mut said, mut run): (Vec<&str>, Vec<&str>) = (Vec::new(), Vec::new());
    for l in out.stdout.lines().chain([""]) {
        if ["ERROR ", "WARNING ", "INFO ", "::"].iter().any(|p| l.starts_with(p)) {
            run.push(l);
            continue;
        }
        run.sort_by_key(|l| without_hex(l));
        said.append(&mut run);
        if l.starts_with("majordomus-ci:") || l.starts_with("verified ") {
            said.push(l);
        }
    }
    said.join("\n")
}

/// Runs the CI script in a fresh clone of `remote` (`ci1` is shallow, as CI checkouts are).
fn run_ci(env: &TestEnv, remote: &Path, name: &str, github: bool) -> Output {
    let c = if name == "ci1" {
        let url = format!("file://{}", remote.display());
        env.git_in(env.path(), &["clone", "-q", "--depth=1", &url, name]);
        Repo { env, root: std::fs::canonicalize(env.path().join(name)).unwrap() }
    } else {
        clone(env, remote, name)
    };
    let extra: Vec<(&str, &str)> = if github { vec![("GITHUB_ACTIONS", "true")] } else { vec![] };
    env.sh(&c.root, &format!("sh {} 2>&1", ci_script()), b"", &extra)
}

#[test]
fn the_ci_script_passes_a_clean_store_and_fails_a_tampered_record_and_an_untrusted_signer() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let remote = remotes::bare(&env, &env.path().join("remote.git"));
    // A: the layer, a mesh that trusts only A's key, one published record.
    let a = clone(&env, &remote, "a");
    a.git(&["symbolic-ref", "HEAD", "refs/heads/main"]);
    mj(&a, "a", &["init"], "").ok();
    let args = ["--json", "continuity", "device"];
    let dev = printed(&args, &mj(&a, "a", &args, "").ok().stdout);
    let ka = json::text(&dev, "/public_key");
    a.write(
        ".ai/repo/mesh/home.yaml",
        &format!("schema: mesh/v1\nkind: mesh-declaration\nid: home\nenabled: true\ntrust:\n  policy: deny_unknown\n  allow:\n    - {ka}\n  revoked: []\n"),
    );
    a.git(&["add", "-A"]);
    a.git(&["commit", "-q", "-m", "layer and mesh"]);
    a.git(&["push", "-q", "-u", "origin", "main"]);
    let good = publish_and_sync(&a, "a", "Fix the callback.");

    // A fresh (shallow, as in CI) clone runs the CI step: it passes.
    let out = run_ci(&env, &remote, "ci1", false).ok();
    insta::assert_snapshot!(ci_said(&out), @"
    majordomus-ci: continuity verify
    verified 1 record(s): 1 admitted, 0 refused, 0 untrusted
    majordomus-ci: continuity verify: ok
    majordomus-ci: doctor
    majordomus-ci: doctor: ok
    majordomus-ci: history --validate
    majordomus-ci: history --validate: ok
    majordomus-ci: all checks passed
    ");
    assert!(!out.stdout.contains("::error"), "{}", out.stdout);

    // B, whose key the mesh does not allow, publishes; and someone rewrites A's record on the
    // remote (a fast-forward commit whose blob no longer matches its id).
    let b = clone(&env, &remote, "b");
    let untrusted = publish_and_sync(&b, "b", "Unvetted work.");
    let path = format!("records/{}/{}/{good}.json", &good[..2], &good[2..4]);
    let t = clone(&env, &remote, "tamper");
    t.git(&["fetch", "-q", "origin", &format!("{REF}:{REF}")]);
    let text = t.git(&["show", &format!("{REF}:{path}")]).replace("Fix the callback.", "Fix the callbacks.");
    // `git` output comes back trimmed: the stored form ends with one newline.
    t.write("tampered.json", &format!("{text}\n"));
    let blob = t.git(&["hash-object", "-w", "tampered.json"]);
    let index = env.path().join("tamper.index");
    let idx = [("GIT_INDEX_FILE", index.to_str().unwrap())];
    let git_idx = |args: &[&str]| {
        let out = env.command("git").current_dir(&t.root).envs(idx).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    git_idx(&["read-tree", REF]);
    git_idx(&["update-index", "--cacheinfo", &format!("100644,{blob},{path}")]);
    let tree = git_idx(&["write-tree"]);
    let commit = t.git(&["commit-tree", &tree, "-p", REF, "-m", "tamper"]);
    t.git(&["push", "-q", "origin", &format!("{commit}:{REF}")]);

    // The next fresh clone's CI step fails, with an annotation naming each record.
    let out = run_ci(&env, &remote, "ci2", true);
    assert_eq!(out.code, 1, "{}", out.stdout);
    let annotations: Vec<&str> = out.stdout.lines().filter(|l| l.starts_with("::")).collect();
    assert_eq!(annotations.len(), 2, "{}", out.stdout);
    let named = |t: String| t.replace(&good, "[GOOD]").replace(&untrusted, "[UNTRUSTED]");
    insta::assert_snapshot!(named(ci_said(&out)), @"
    majordomus-ci: continuity verify
    ::error title=majordomus continuity.id_mismatch::records/[..]/[..]/[GOOD].json: its content does not match its id and path; it was altered
    ::error title=majordomus continuity.untrusted::records/[..]/[..]/[UNTRUSTED].json: signed by [HEX] ([HEX]), whose key is not in trust.allow
    ERROR   continuity.id_mismatch records/[..]/[..]/[GOOD].json: its content does not match its id and path; it was altered
    ERROR   continuity.untrusted records/[..]/[..]/[UNTRUSTED].json: signed by [HEX] ([HEX]), whose key is not in trust.allow
    verified 2 record(s): 1 admitted, 1 refused, 1 untrusted
    majordomus-ci: continuity verify: refused (exit 10)
    majordomus-ci: doctor
    majordomus-ci: doctor: ok
    majordomus-ci: history --validate
    majordomus-ci: history --validate: ok
    majordomus-ci: some checks failed
    ");
    // Plain text outside GitHub Actions: the same verdict, no annotations.
    let out = run_ci(&env, &remote, "ci3", false);
    assert_eq!(out.code, 1, "{}", out.stdout);
    insta::assert_snapshot!(named(ci_said(&out)), @"
    majordomus-ci: continuity verify
    ERROR   continuity.id_mismatch records/[..]/[..]/[GOOD].json: its content does not match its id and path; it was altered
    ERROR   continuity.untrusted records/[..]/[..]/[UNTRUSTED].json: signed by [HEX] ([HEX]), whose key is not in trust.allow
    verified 2 record(s): 1 admitted, 1 refused, 1 untrusted
    majordomus-ci: continuity verify: refused (exit 10)
    majordomus-ci: doctor
    majordomus-ci: doctor: ok
    majordomus-ci: history --validate
    majordomus-ci: history --validate: ok
    majordomus-ci: some checks failed
    ");
}

/// Both recipes parse and run the one shared script (so what `make test` runs is what CI runs).
#[test]
fn the_github_action_and_the_gitlab_job_run_the_shared_script() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("contrib/ci");
    let action: serde_yaml::Value =
        serde_yaml::from_str(&std::fs::read_to_string(dir.join("action.yml")).unwrap()).unwrap();
    assert_eq!(action["runs"]["using"].as_str(), Some("composite"));
    let steps = action["runs"]["steps"].as_sequence().unwrap();
    let run: Vec<&str> = steps.iter().filter_map(|s| s["run"].as_str()).collect();
    assert!(run.iter().any(|r| r.contains("$GITHUB_ACTION_PATH/majordomus-ci.sh")), "{run:?}");
    assert!(steps.iter().any(|s| s["env"]["MAJORDOMUS_FORMAT"].as_str() == Some("github")));
    let gitlab: serde_yaml::Value =
        serde_yaml::from_str(&std::fs::read_to_string(dir.join("gitlab-ci.yml")).unwrap()).unwrap();
    let job = &gitlab["majordomus-continuity"];
    assert_eq!(job["variables"]["MAJORDOMUS_CI_SCRIPT"].as_str(), Some("contrib/ci/majordomus-ci.sh"));
    assert!(job["script"][0].as_str().unwrap().contains("sh \"$MAJORDOMUS_CI_SCRIPT\""));
}

/// `make demo`, `make install` and `make bench` find the binary where cargo put it when
/// `CARGO_TARGET_DIR` is set (issue 10 item 7), and under `target/` otherwise.
#[test]
fn the_makefile_honours_cargo_target_dir() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let manifest = env!("CARGO_MANIFEST_DIR");
    let elsewhere = env.path().join("build");
    let make = |target_dir: Option<&Path>| {
        let mut cmd = env.command("make");
        cmd.args(["-n", "-C", manifest, "demo", "install", "bench"]).env("PREFIX", env.path().join("prefix"));
        if let Some(d) = target_dir {
            cmd.env("CARGO_TARGET_DIR", d);
        }
        let out = cmd.output().expect("make");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    // The lines that name the binary, the checkout as [MANIFEST].
    let binary_lines = |out: String| {
        let lines: Vec<&str> = out.lines().filter(|l| l.contains("release")).collect();
        lines.join("\n").replace(manifest, "[MANIFEST]")
    };
    let out = make(Some(&elsewhere));
    insta::assert_snapshot!(binary_lines(out), @r#"
    cargo build --release
    MAJORDOMUS_BIN_DIR="[TMP]/build/release" contrib/demo.sh
    rm -rf [TMP]/build/release/generated/man
    mkdir -p [TMP]/build/release/generated
    [TMP]/build/release/git-majordomus generate man [TMP]/build/release/generated/man > /dev/null
    [TMP]/build/release/git-majordomus generate bash > [TMP]/build/release/generated/git-majordomus.bash
    [TMP]/build/release/git-majordomus generate zsh  > [TMP]/build/release/generated/_git-majordomus
    [TMP]/build/release/git-majordomus generate fish > [TMP]/build/release/generated/git-majordomus.fish
    install -m 755 [TMP]/build/release/git-majordomus [TMP]/prefix/bin/git-majordomus
    install -m 644 [TMP]/build/release/generated/man/*.1 [TMP]/prefix/share/man/man1/
    install -m 644 [TMP]/build/release/generated/git-majordomus.bash [TMP]/prefix/share/bash-completion/completions/git-majordomus
    install -m 644 [TMP]/build/release/generated/_git-majordomus [TMP]/prefix/share/zsh/site-functions/_git-majordomus
    install -m 644 [TMP]/build/release/generated/git-majordomus.fish [TMP]/prefix/share/fish/vendor_completions.d/git-majordomus.fish
    cargo build --release --example bench_fixture
    GEN="[TMP]/build/release/examples/bench_fixture" bench/bench.sh "[TMP]/build/release/git-majordomus"
    bench/pre-push.sh "[TMP]/build/release/git-majordomus"
    "#);
    let out = make(None);
    insta::assert_snapshot!(binary_lines(out), @r#"
    cargo build --release
    MAJORDOMUS_BIN_DIR="[MANIFEST]/target/release" contrib/demo.sh
    rm -rf [MANIFEST]/target/release/generated/man
    mkdir -p [MANIFEST]/target/release/generated
    [MANIFEST]/target/release/git-majordomus generate man [MANIFEST]/target/release/generated/man > /dev/null
    [MANIFEST]/target/release/git-majordomus generate bash > [MANIFEST]/target/release/generated/git-majordomus.bash
    [MANIFEST]/target/release/git-majordomus generate zsh  > [MANIFEST]/target/release/generated/_git-majordomus
    [MANIFEST]/target/release/git-majordomus generate fish > [MANIFEST]/target/release/generated/git-majordomus.fish
    install -m 755 [MANIFEST]/target/release/git-majordomus [TMP]/prefix/bin/git-majordomus
    install -m 644 [MANIFEST]/target/release/generated/man/*.1 [TMP]/prefix/share/man/man1/
    install -m 644 [MANIFEST]/target/release/generated/git-majordomus.bash [TMP]/prefix/share/bash-completion/completions/git-majordomus
    install -m 644 [MANIFEST]/target/release/generated/_git-majordomus [TMP]/prefix/share/zsh/site-functions/_git-majordomus
    install -m 644 [MANIFEST]/target/release/generated/git-majordomus.fish [TMP]/prefix/share/fish/vendor_completions.d/git-majordomus.fish
    cargo build --release --example bench_fixture
    GEN="[MANIFEST]/target/release/examples/bench_fixture" bench/bench.sh "[MANIFEST]/target/release/git-majordomus"
    bench/pre-push.sh "[MANIFEST]/target/release/git-majordomus"
    "#);
}
