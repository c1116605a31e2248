//! Secrets and machine paths end to end (issue 11 item 4, docs/REFERENCE.md#admission, docs/REFERENCE.md#continuity-commands): one table of
//! credential and machine-path shapes, each refused at `continuity publish` (exit 10, one
//! `<code> /handover/body: <reason>` line) and at admission (a validly signed record carrying it,
//! injected into the store of a second clone, is refused there with its diagnostic); near-misses
//! that must pass both; and the raw value never on stdout, stderr, in a file of the layer or in
//! the ref. The shapes are listed in docs/SECURITY.md.

use std::path::{Path, PathBuf};

use majordomus::continuity::admission::Code;
use majordomus::continuity::portability::{scan_admission, scan_publish, NONPORTABLE, SECRET};
use majordomus::continuity::record::{blake3_hex, store_path, stored_bytes, Envelope, Record};
use majordomus::continuity::signing;
use serde_json::{json, Value};

use crate::common::{Output, Repo, TestEnv};

const REF: &str = "refs/majordomus/continuity";

/// Joins pieces, so that no complete credential shape is written in this file (secret scanners
/// of code hosts would flag the repository).
fn cat(parts: &[&str]) -> String {
    parts.concat()
}

/// `n` characters cycling through `alphabet`.
fn fill(alphabet: &str, n: usize) -> String {
    alphabet.chars().cycle().take(n).collect()
}

/// Where a shape is refused.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Where {
    /// At publish and at admission.
    Both,
    /// At publish only: it depends on this machine (an environment value, this checkout's path).
    PublishOnly,
}

/// One shape: a label, the text that carries it, the raw value that must never be echoed, the
/// code it is refused with, and where.
struct Shape {
    label: &'static str,
    text: String,
    value: String,
    code: Code,
    refused: Where,
}

fn row(label: &'static str, text: String, value: &str, code: Code) -> Shape {
    Shape { label, text, value: value.to_string(), code, refused: Where::Both }
}

/// A shape whose text is its value.
fn bare(label: &'static str, value: String, code: Code) -> Shape {
    row(label, value.clone(), &value, code)
}

const ENV_NAME: &str = "MY_DEPLOY_TOKEN";
const ENV_VALUE: &str = "s3cr3t-deploy-value-42";

/// The table: 48 shapes that are refused at publish and at admission, and 2 that only the
/// publishing machine can know.
fn shapes(checkout: &str) -> Vec<Shape> {
    let a36 = fill("aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xY", 36);
    let b64 = fill("Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFi", 40);
    let aws_secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
    let azure_key = format!("{}==", fill("k3Y9sT0rAgE+Acc0unTkEy/Q1w2E3r4T5y6U7i8O9p", 86));
    let jwt = cat(&[
        "eyJ",
        "hbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
        ".eyJ",
        "zdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ",
        ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    ]);
    let pem = |label: &str| {
        cat(&["-----BEGIN ", label, "-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END ", label, "-----"])
    };
    let basic = "YWxhZGRpbjpvcGVuc2VzYW1l"; // aladdin:opensesame, letters only
    let mut v = vec![
        bare("GitHub personal token", cat(&["gh", "p_", &a36]), SECRET),
        bare("GitHub OAuth token", cat(&["gh", "o_", &a36]), SECRET),
        bare("GitHub app token", cat(&["gh", "s_", &a36]), SECRET),
        bare("GitHub fine-grained token", cat(&["github", "_pat_", &fill("11ABCDEFG0", 22), "_", &a36, "x9Y8z7W6v5U4t3S2r1Q0p9O8n7M6l5K4j3"]), SECRET),
        bare("GitLab token", cat(&["gl", "pat-", &fill("xY9zW8vU7t", 20)]), SECRET),
        bare("AWS access key id", cat(&["AK", "IA", "QWERTYUIOP234567"]), SECRET),
        bare("AWS temporary key id", cat(&["AS", "IA", "ZXCVBNMASD765432"]), SECRET),
        row("AWS secret access key", format!("aws_secret_access_key = {aws_secret}"), aws_secret, SECRET),
        row(
            "GCP service-account JSON",
            format!("{{\"type\": \"service_account\", \"private_key\": \"{}\"}}", pem("PRIVATE KEY").replace('\n', "\\n")),
            "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
            SECRET,
        ),
        bare("Google API key", cat(&["AI", "za", &fill("SyA1b2C3d4E5f6G7h8-I9j0K_l", 35)]), SECRET),
        bare("Google OAuth client secret", cat(&["GOC", "SPX-", &fill("aB1cD2eF3gH4iJ5kL6mN7oP8", 28)]), SECRET),
        row(
            "Azure storage connection string",
            format!("DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={azure_key};EndpointSuffix=core.windows.net"),
            &azure_key,
            SECRET,
        ),
        row(
            "Azure shared access key",
            format!("Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=root;SharedAccessKey={b64}"),
            &b64,
            SECRET,
        ),
        bare("Slack bot token", cat(&["xo", "xb-", "1234567890-0987654321-", &fill("aBcDeF123", 24)]), SECRET),
        bare("Slack user token", cat(&["xo", "xp-", "1234567890-0987654321-", &fill("zYxW987", 24)]), SECRET),
        bare(
            "Slack webhook URL",
            cat(&["https://hooks.", "slack.com/services/", "T0ABCDEF1/B0ABCDEF2/", &fill("q1W2e3R4t5Y6", 24)]),
            SECRET,
        ),
        bare(
            "Discord webhook URL",
            cat(&["https://discord.", "com/api/webhooks/", "123456789012345678/", &fill("Ab-Cd_Ef1", 60)]),
            SECRET,
        ),
        bare("Stripe live secret key", cat(&["sk", "_live_", &fill("51HxYz0AbC", 24)]), SECRET),
        bare("Stripe restricted key", cat(&["rk", "_live_", &fill("51HxYz0AbC", 24)]), SECRET),
        bare("OpenAI key", cat(&["sk", "-", &fill("T3BlbkFJ0aB1cD2eF3gH4iJ5", 48)]), SECRET),
        bare("OpenAI project key", cat(&["sk", "-proj-", &fill("Ab_cD-eF12", 48)]), SECRET),
        bare("Anthropic key", cat(&["sk", "-ant-api03-", &fill("xYz987-Q_w", 90)]), SECRET),
        bare("Hugging Face token", cat(&["hf", "_", &fill("aBcDeFgHiJ1234567890kLmNoPqRsT", 34)]), SECRET),
        bare("npm token", cat(&["np", "m_", &a36]), SECRET),
        bare("SendGrid key", cat(&["SG", ".", &fill("aB1cD2eF3g", 22), ".", &fill("hI4jK5lM6n", 43)]), SECRET),
        bare("JSON Web Token", jwt, SECRET),
        row("PEM RSA private key", pem("RSA PRIVATE KEY"), "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", SECRET),
        row("PEM OpenSSH private key", pem("OPENSSH PRIVATE KEY"), "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", SECRET),
        row("PEM EC private key", pem("EC PRIVATE KEY"), "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", SECRET),
        row("PGP private key block", pem("PGP PRIVATE KEY BLOCK"), "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", SECRET),
        row("bearer credential", format!("curl -H 'Authorization: Bearer {b64}' x"), &b64, SECRET),
        row("basic credential", format!("Authorization: Basic {basic}"), basic, SECRET),
        row(".netrc line", "machine api.example.com login alice password hunter2x".into(), "hunter2x", SECRET),
        row("URL userinfo", "git remote add o https://alice:pa55w0rd@example.com/r.git".into(), "pa55w0rd", SECRET),
        row("database URL", "DATABASE_URL=postgres://app:Sup3rS3cret@db:5432/app".into(), "Sup3rS3cret", SECRET),
        row("env-style *_TOKEN=", "export GITHUB_TOKEN=q8Zr3vN1xK7mP2sT9wY4".into(), "q8Zr3vN1xK7mP2sT9wY4", SECRET),
        row("env-style *_SECRET=", "CLIENT_SECRET=9f8e7d6c5b4a39281706".into(), "9f8e7d6c5b4a39281706", SECRET),
        row("env-style *_PASSWORD=", "DB_PASSWORD=correcthorsebattery".into(), "correcthorsebattery", SECRET),
        // Command lines (issue 39): passwords given on a command line.
        row("curl -u user:password", "curl -u admin:S3cr3tPass123 https://api.example.com".into(), "S3cr3tPass123", SECRET),
        row("mysql -pPASSWORD", "mysql -h db.internal -pWr0ngH0rseBattery app".into(), "Wr0ngH0rseBattery", SECRET),
        row("-uroot -pPASSWORD", "mysqldump -uroot -pS3cr3t app > dump.sql".into(), "S3cr3t", SECRET),
        row("docker login -p", "docker login -u ci -p dckr9Xq2LmZ7 registry.example.com".into(), "dckr9Xq2LmZ7", SECRET),
        row("--password=", "psql --password=Tr0ub4dor3 -h db".into(), "Tr0ub4dor3", SECRET),
        row("env-style *_PASS=", "DB_PASS=S3cr3tP4ssw0rdValue".into(), "S3cr3tP4ssw0rdValue", SECRET),
        row("a token split by a zero-width space", cat(&["gh", "p_", &a36[..10], "\u{200B}", &a36[10..]]), &a36[10..], SECRET),
        row("a token wrapped across a line", cat(&["gh", "p_", &a36[..20], "\n", &a36[20..]]), &a36[20..], SECRET),
        bare("a /home/ path", "/home/alice/work/app/notes.txt".into(), NONPORTABLE),
        bare("a /Users/ path", "/Users/alice/src/app/build.log".into(), NONPORTABLE),
        bare("a C:\\Users\\ path", "C:\\Users\\carol\\repo\\out.txt".into(), NONPORTABLE),
        bare("a /root/ path", "/root/.ssh/id_ed25519".into(), NONPORTABLE),
        bare("a temp path", "/tmp/majordomus-1234/out.json".into(), NONPORTABLE),
        bare("a socket path", "/run/user/1000/gnupg/S.gpg-agent".into(), NONPORTABLE),
    ];
    v.push(Shape {
        label: "this checkout's absolute path",
        text: format!("{checkout}/target/debug/x"),
        value: checkout.to_string(),
        code: NONPORTABLE,
        // At admission only the generic path rules apply: refused there when the checkout is
        // under a home or temp directory (as the test's is), admitted elsewhere.
        refused: if scan_admission(&json!({ "b": checkout })).is_empty() { Where::PublishOnly } else { Where::Both },
    });
    v.push(Shape {
        label: "the value of a secret environment variable",
        text: format!("deploy with {ENV_VALUE} tomorrow"),
        value: ENV_VALUE.into(),
        code: SECRET,
        refused: Where::PublishOnly,
    });
    v
}

/// Texts that look close to a shape and must pass.
fn near_misses() -> Vec<(&'static str, String)> {
    vec![
        ("a commit SHA", "fixed in 4b825dc642cb6eb9a060e54bf8d69288fbee4904".into()),
        ("a UUID", "request 123e4567-e89b-12d3-a456-426614174000 failed".into()),
        ("a BLAKE3 id", "record af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262".into()),
        ("a minisign public key", "trust RWQf6LRCGA9i53mlYecO4IzT51TGPpvWucNSCh1CBM0QTaLn73Y7GFO3".into()),
        ("a public_key field", "public_key: RWQf6LRCGA9i53mlYecO4IzT51TGPpvWucNSCh1CBM0QTaLn73Y7GFO3".into()),
        ("ordinary prose", "The token expires at noon; rotate the password and the API key next week.".into()),
        ("sk- inside a word", "the risk-assessment-for-the-2026-migration-of-the-desk-booking-system".into()),
        ("ghp_ named, not written", "tokens start with ghp_ and gho_; never paste one".into()),
        ("a PEM public key", "-----BEGIN PUBLIC KEY-----".into()),
        ("a URL without a password", "https://alice@example.com/r.git and https://example.com:8443/x".into()),
        ("an env reference", "DB_PASSWORD=$DB_PASSWORD and API_TOKEN=${API_TOKEN} and GITHUB_TOKEN=<token>".into()),
        ("a placeholder", "export NPM_TOKEN=xxxxxxxx".into()),
        ("a password prompt", "password: see the team vault".into()),
        ("a timestamp assigned", "token_expires_at: 2026-09-03T20:00:00Z".into()),
        ("code naming a token", "let access_token = response.access_token2;".into()),
        ("relative paths", "src/home/page.rs docs/tmp/notes.md ~/notes.md $HOME/x".into()),
        ("a bare /home", "/home and /tmp are directories".into()),
        ("Authorization placeholder", "Authorization: Bearer <token>".into()),
        ("gcc -pthread", "gcc -pthread -O2 -o app main.c".into()),
        ("ssh -p2222", "ssh -p2222 deploy@host and scp -P 2222 a b".into()),
        ("cp -pr", "cp -pr src dst && mkdir -p build".into()),
        ("docker ports and users", "docker run -p 8080:80 -u 1000:1000 image".into()),
        ("a password from stdin", "docker login -u ci --password-stdin registry.example.com".into()),
        ("curl with references", "curl -u $USER:$TOKEN https://x and curl -u admin https://x".into()),
        ("a MySQL prompt", "mysql -uroot -p app".into()),
        ("an option named, not given", "pass --password to log in, or set DB_PASS=$DB_PASS".into()),
    ]
}

/// A handover body carrying `text`.
fn body(label: &str, text: &str) -> String {
    format!("# Objective\nShip {label}.\n\n# Current State\nSee {text} here.\n\n# Next Action\nDeploy.\n")
}

// ---------------------------------------------------------------------------------------------
// Two clones of one bare remote, sharing the test's device key

struct Checkout<'a> {
    repo: Repo<'a>,
}

impl<'a> Checkout<'a> {
    fn of(env: &'a TestEnv, remote: &Path, name: &str) -> Checkout<'a> {
        env.git_in(env.path(), &["clone", "-q", remote.to_str().unwrap(), name]);
        let root = std::fs::canonicalize(env.path().join(name)).unwrap();
        let c = Checkout { repo: Repo { env, root } };
        c.repo.git(&["symbolic-ref", "HEAD", "refs/heads/main"]);
        c
    }

    #[must_use]
    fn run(&self, args: &[&str], stdin: &str) -> Output {
        self.repo.mj_env(args, stdin, &[(ENV_NAME, ENV_VALUE)])
    }

    fn json(&self, args: &[&str], code: i32) -> (Value, Output) {
        let mut v = vec!["--json"];
        v.extend_from_slice(args);
        let out = self.run(&v, "").code(code);
        let value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{v:?}: {e}: {}", out.all()));
        (value, out)
    }

    /// `handover --no-task`; returns the file name.
    fn handover(&self, text: &str) -> String {
        let out = self.run(&["handover", "--no-task"], text).ok();
        out.stdout.lines().next().unwrap().trim().rsplit('/').next().unwrap().to_string()
    }

    fn handover_path(&self, name: &str) -> PathBuf {
        self.repo.state(&format!("handovers/{name}"))
    }

    fn store_files(&self) -> Vec<(String, String)> {
        let list = self.repo.git(&["ls-tree", "-r", "--name-only", REF]);
        list.lines().map(|p| (p.to_string(), self.repo.git(&["cat-file", "blob", &format!("{REF}:{p}")]))).collect()
    }

    /// Adds `files` to the local store in one new commit on the ref, with plumbing only.
    fn store_put(&self, files: &[(String, Vec<u8>)]) {
        let env = self.repo.env;
        let tmp = env.path().join("plumbing");
        std::fs::create_dir_all(&tmp).unwrap();
        let idx = tmp.join("index");
        let git = |args: &[&str]| {
            let out = env
                .command("git")
                .current_dir(&self.repo.root)
                .env("GIT_INDEX_FILE", &idx)
                .args(args)
                .output()
                .unwrap();
            assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
            String::from_utf8_lossy(&out.stdout).trim().to_string()
        };
        let old = git(&["rev-parse", REF]);
        git(&["read-tree", REF]);
        for (i, (path, bytes)) in files.iter().enumerate() {
            let file = tmp.join(format!("blob-{i}"));
            std::fs::write(&file, bytes).unwrap();
            let blob = git(&["hash-object", "-w", file.to_str().unwrap()]);
            git(&["update-index", "--add", "--cacheinfo", &format!("100644,{blob},{path}")]);
        }
        let tree = git(&["write-tree"]);
        let commit = git(&["commit-tree", &tree, "-p", &old, "-m", "test: records injected with plumbing"]);
        git(&["update-ref", REF, &commit, &old]);
    }
}

/// Every file under `dir` (recursively) with its bytes, as text.
fn files_under(dir: &Path, out: &mut Vec<(PathBuf, String)>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            files_under(&p, out);
        } else if let Ok(bytes) = std::fs::read(&p) {
            out.push((p, String::from_utf8_lossy(&bytes).into_owned()));
        }
    }
}

/// The layer's files (`.ai/`) and this executable's state under the git dir (read model, locks,
/// `continuity.json`): none may hold `value`. The kept copy of `.ai/local/`
/// (`.git/majordomus/worktrees/`, D60) holds what the user wrote there — the handover this test
/// wrote and then removed by hand, which no write of ours saw go — and is not the store's.
fn assert_not_stored(c: &Checkout<'_>, value: &str, what: &str) {
    let mut files = Vec::new();
    files_under(&c.repo.root.join(".ai"), &mut files);
    files_under(&c.repo.root.join(".git/majordomus"), &mut files);
    let kept = c.repo.root.join(".git/majordomus/worktrees");
    files.retain(|(p, _)| !p.starts_with(&kept));
    for (path, text) in files {
        assert!(!text.contains(value), "{what}: the value is written to {}", path.display());
    }
}

fn assert_not_echoed(out: &Output, value: &str, what: &str) {
    assert!(!out.stdout.contains(value) && !out.stderr.contains(value), "{what}: the value is echoed:\n{}", out.all());
}

// ---------------------------------------------------------------------------------------------

#[test]
fn the_shape_table_is_refused_at_publish_and_at_admission_and_never_echoed() {
    let env = TestEnv::new();
    let remote = env.path().join("remote.git");
    env.git_in(env.path(), &["init", "--bare", "-q", "-b", "main", remote.to_str().unwrap()]);
    let a = Checkout::of(&env, &remote, "a");
    a.run(&["init"], "").ok();
    a.repo.write("README.md", "hello\n");
    a.repo.git(&["add", "-A"]);
    a.repo.git(&["commit", "-q", "-m", "layer"]);
    a.repo.git(&["push", "-q", "-u", "origin", "main"]);
    let checkout = a.repo.root.to_str().unwrap().to_string();
    let table = shapes(&checkout);
    assert!(table.iter().filter(|s| s.refused == Where::Both).count() >= 30, "at least 30 shapes refused at both");

    // The scanner itself, shape by shape (a failure here names the shape).
    let env_vars = vec![(ENV_NAME.to_string(), ENV_VALUE.to_string())];
    for s in &table {
        let v = json!({ "handover": { "body": body(s.label, &s.text) } });
        let publish = scan_publish(&v, &env_vars, &checkout);
        assert!(publish.iter().any(|l| l.code == s.code && l.pointer == "/handover/body"), "{}: {publish:?}", s.label);
        assert_eq!(!scan_admission(&v).is_empty(), s.refused == Where::Both, "{}: at admission", s.label);
    }
    for (label, text) in near_misses() {
        let v = json!({ "handover": { "body": body(label, &text) } });
        assert_eq!(scan_publish(&v, &env_vars, &checkout), vec![], "{label} must pass");
    }

    // Publish: each shape refused with its line, nothing written, the value echoed nowhere.
    for s in &table {
        let name = a.handover(&body(s.label, &s.text));
        for json in [false, true] {
            let mut args = vec!["continuity", "publish", "--handover", &name];
            if json {
                args.insert(0, "--json");
            }
            let out = a.run(&args, "").code(10);
            assert_not_echoed(&out, &s.value, s.label);
            if json {
                let v: Value = serde_json::from_str(&out.stdout).unwrap();
                assert_eq!(v["written"], false, "{}", s.label);
                let refused = v["refused"].as_array().unwrap();
                assert!(
                    refused.iter().any(|l| l["code"] == s.code.as_str() && l["pointer"] == "/handover/body"),
                    "{}: {v}",
                    s.label
                );
            } else {
                assert!(out.stdout.starts_with("the handover is not published, because"), "{}", out.all());
                assert!(out.stdout.contains(&format!("{} /handover/body: ", s.code)), "{}: {}", s.label, out.all());
            }
        }
        std::fs::remove_file(a.handover_path(&name)).unwrap();
        assert_not_stored(&a, &s.value, s.label);
        assert_eq!(a.repo.git(&["for-each-ref", REF]), "", "{}: the store ref is never created", s.label);
    }

    // The near-misses publish (one handover with all of them) and travel.
    let all: String = near_misses().iter().map(|(l, t)| format!("- {l}: {t}\n")).collect();
    let name = a.handover(&body("the near-misses", &all));
    let (published, _) = a.json(&["continuity", "publish", "--handover", &name], 0);
    assert_eq!(published["written"], true, "{published}");
    a.json(&["continuity", "sync"], 0);

    // Admission: B clones, syncs, then holds validly signed records carrying each shape.
    let b = Checkout::of(&env, &remote, "b");
    b.json(&["continuity", "sync"], 0);
    let (clean_path, clean) = b.store_files().pop().unwrap();
    let envelope: Envelope = serde_json::from_str(&clean).unwrap();
    let template: Record = serde_json::from_value(envelope.record).unwrap();
    let key = signing::load(&env.home.join(".local/state/majordomus/node.json")).unwrap().unwrap();
    let mut injected = Vec::new();
    let mut paths = Vec::new();
    for s in &table {
        let mut r = template.clone();
        r.handover.body = body(s.label, &s.text);
        r.handover.id = blake3_hex(r.handover.body.as_bytes())[..32].to_string();
        let signed = key.sign(&r);
        assert!(signing::verify(&signed).is_ok(), "{}: the injected record is validly signed", s.label);
        let path = store_path(&signed.id);
        injected.push((path.clone(), stored_bytes(&signed)));
        paths.push(path);
    }
    b.store_put(&injected);
    let (records, out) = b.json(&["continuity", "records"], 0);
    let diagnostics = records["diagnostics"].as_array().unwrap();
    let admitted: Vec<&str> =
        records["records"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    for (s, path) in table.iter().zip(&paths) {
        let id = path.rsplit('/').next().unwrap().trim_end_matches(".json");
        let d = diagnostics.iter().find(|d| d["path"] == path.as_str());
        match s.refused {
            Where::Both => {
                let d = d.unwrap_or_else(|| panic!("{}: no diagnostic for {path}: {records}", s.label));
                assert_eq!(
                    (d["code"].as_str(), d["severity"].as_str()),
                    (Some(s.code.as_str()), Some("error")),
                    "{}: {d}",
                    s.label
                );
                assert!(d["message"].as_str().unwrap().starts_with("/handover/body: "), "{}: {d}", s.label);
                assert!(!admitted.iter().any(|a| id.starts_with(a) || a.starts_with(id)), "{}: admitted", s.label);
            }
            Where::PublishOnly => assert!(d.is_none(), "{}: refused at admission: {records}", s.label),
        }
        assert_not_echoed(&out, &s.value, s.label);
    }
    assert!(admitted.len() > 1 && clean_path.starts_with("records/"), "the near-miss record is admitted: {records}");
    let text = b.run(&["continuity", "records"], "").ok();
    let status = b.run(&["--json", "continuity", "status"], "").ok();
    let plan = b.run(&["--json", "continuity", "plan"], "");
    for s in table.iter().filter(|s| s.refused == Where::Both) {
        for out in [&text, &status, &plan] {
            assert_not_echoed(out, &s.value, s.label);
        }
        assert_not_stored(&b, &s.value, s.label);
    }
    // The same records pushed to the remote with plain git (anyone who can write the remote can
    // do this): a third clone's sync reports each and never merges one into its own store.
    a.store_put(&injected);
    a.repo.git(&["push", "-q", "origin", REF]);
    let c = Checkout::of(&env, &remote, "c");
    let (synced, out) = c.json(&["continuity", "sync"], 0);
    let local = c.repo.git(&["ls-tree", "-r", "--name-only", REF]);
    assert!(local.contains(clean_path.as_str()), "the admitted records arrive: {synced}");
    for (s, path) in table.iter().zip(&paths) {
        assert_not_echoed(&out, &s.value, s.label);
        if s.refused == Where::Both {
            assert!(!local.contains(path.as_str()), "{}: merged into the local store: {synced}", s.label);
            assert_not_stored(&c, &s.value, s.label);
        }
    }
}
