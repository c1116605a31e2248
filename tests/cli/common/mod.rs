//! Test environment: a temporary directory per test, real git repositories built with the real
//! `git` binary, the real `git-majordomus` binary, a cleared environment and pinned time.
#![allow(dead_code)]

pub mod hosts;
pub mod json;
pub mod machine;
pub mod remotes;
pub mod serve;
pub mod snap;
pub mod store;

use std::cell::Cell;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The default pinned time of every test.
pub const NOW: &str = "2026-09-03T20:00:00Z";

/// What one run of a command printed and returned.
#[derive(Debug, Clone)]
pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Output {
    /// Asserts the exit code, showing the whole output on failure.
    #[track_caller]
    pub fn code(self, expected: i32) -> Self {
        assert_eq!(self.code, expected, "unexpected exit code\n--- stdout\n{}--- stderr\n{}", self.stdout, self.stderr);
        self
    }
    /// Asserts success.
    #[track_caller]
    pub fn ok(self) -> Self {
        self.code(0)
    }
    /// The first line of stdout (a written record's path, a session id line, ...).
    pub fn first_line(&self) -> String {
        self.stdout.lines().next().unwrap_or("").to_string()
    }
    /// Both streams together.
    pub fn all(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }
}

/// One test's world.
pub struct TestEnv {
    pub tmp: tempfile::TempDir,
    pub home: PathBuf,
    pub now: std::cell::RefCell<String>,
    commits: Cell<u32>,
}

impl TestEnv {
    pub fn new() -> TestEnv {
        let tmp = tempfile::tempdir().expect("tempdir");
        let home = tmp.path().join("home");
        std::fs::create_dir_all(&home).unwrap();
        TestEnv { tmp, home, now: std::cell::RefCell::new(NOW.into()), commits: Cell::new(0) }
    }

    /// Pins `MAJORDOMUS_NOW` for later runs.
    pub fn set_now(&self, now: &str) {
        *self.now.borrow_mut() = now.into();
    }

    pub fn path(&self) -> &Path {
        self.tmp.path()
    }

    fn base_env(&self, cmd: &mut Command) {
        cmd.env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", &self.home)
            .env("XDG_STATE_HOME", self.home.join(".local/state"))
            .env("USER", "tester")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            // Discovery never leaves the test's own directory for a repository around it.
            .env("GIT_CEILING_DIRECTORIES", self.tmp.path().parent().unwrap_or(self.tmp.path()))
            .env("TZ", "UTC")
            .env("LC_ALL", "C")
            .env("GIT_AUTHOR_NAME", "Test Author")
            .env("GIT_AUTHOR_EMAIL", "author@example.com")
            .env("GIT_COMMITTER_NAME", "Test Committer")
            .env("GIT_COMMITTER_EMAIL", "committer@example.com");
    }

    /// The environment [`TestEnv::run`] gives the binary (for processes started from other
    /// threads, which cannot share the `TestEnv`).
    pub fn vars(&self) -> Vec<(String, String)> {
        let cmd = self.command("true");
        cmd.get_envs().filter_map(|(k, v)| Some((k.to_str()?.to_string(), v?.to_str()?.to_string()))).collect()
    }

    /// A command with the test environment, `MAJORDOMUS_NOW`, and the binary's directory first
    /// on `PATH` (so `git majordomus ...` reaches the binary under test).
    pub fn command(&self, program: &str) -> Command {
        let mut cmd = Command::new(program);
        self.base_env(&mut cmd);
        let bin_dir = Path::new(env!("CARGO_BIN_EXE_git-majordomus")).parent().unwrap().to_path_buf();
        let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
        cmd.env("PATH", path).env("MAJORDOMUS_NOW", self.now.borrow().as_str());
        cmd
    }

    /// Runs `sh -c <script>` in `dir` with `stdin` (see [`TestEnv::command`]).
    #[must_use]
    pub fn sh(&self, dir: &Path, script: &str, stdin: &[u8], extra_env: &[(&str, &str)]) -> Output {
        let mut cmd = self.command("sh");
        cmd.arg("-c")
            .arg(script)
            .current_dir(dir)
            .envs(extra_env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("spawn sh");
        {
            let mut si = child.stdin.take().unwrap();
            let _ = si.write_all(stdin);
        }
        let out = child.wait_with_output().unwrap();
        Output {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// A fresh repository `name` on branch `main` (unborn).
    pub fn repo(&self, name: &str) -> Repo<'_> {
        let root = self.path().join(name);
        std::fs::create_dir_all(&root).unwrap();
        let r = Repo { env: self, root: std::fs::canonicalize(&root).unwrap() };
        r.git(&["init", "-q", "-b", "main"]);
        r
    }

    /// A repository with the layer committed (one commit, clean tree).
    pub fn ready_repo(&self, name: &str) -> Repo<'_> {
        let r = self.repo(name);
        r.mj(&["init"]).ok();
        r.write("README.md", "hello\n");
        r.git(&["add", "-A"]);
        r.git(&["commit", "-q", "-m", "layer"]);
        r
    }

    /// Runs the binary in `dir` with `args` and `stdin`.
    #[must_use]
    pub fn run(&self, dir: &Path, args: &[&str], stdin: Option<&[u8]>, extra_env: &[(&str, &str)]) -> Output {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_git-majordomus"));
        self.base_env(&mut cmd);
        cmd.env("MAJORDOMUS_NOW", self.now.borrow().as_str());
        for (k, v) in extra_env {
            cmd.env(k, v);
        }
        cmd.current_dir(dir).args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).stdin(Stdio::piped());
        let mut child = cmd.spawn().expect("spawn git-majordomus");
        {
            let mut si = child.stdin.take().unwrap();
            if let Some(b) = stdin {
                let _ = si.write_all(b);
            }
        }
        let out = child.wait_with_output().unwrap();
        Output {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// Runs real git in `dir`; panics on failure; returns trimmed stdout.
    pub fn git_in(&self, dir: &Path, args: &[&str]) -> String {
        let n = self.commits.get() + 1;
        self.commits.set(n);
        let date = format!("2026-09-01T00:{:02}:{:02}Z", (n / 60) % 60, n % 60);
        let mut cmd = Command::new("git");
        self.base_env(&mut cmd);
        cmd.env("GIT_AUTHOR_DATE", &date).env("GIT_COMMITTER_DATE", &date);
        let out = cmd.current_dir(dir).args(args).output().expect("git");
        assert!(out.status.success(), "git {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }
}

/// A checkout inside the test environment.
pub struct Repo<'a> {
    pub env: &'a TestEnv,
    pub root: PathBuf,
}

impl<'a> Repo<'a> {
    /// `git-majordomus <args>` at the root, empty stdin.
    #[must_use]
    pub fn mj(&self, args: &[&str]) -> Output {
        self.env.run(&self.root, args, None, &[])
    }
    /// `git-majordomus <args>` with `stdin`.
    #[must_use]
    pub fn mj_in(&self, args: &[&str], stdin: &str) -> Output {
        self.env.run(&self.root, args, Some(stdin.as_bytes()), &[])
    }
    /// `git-majordomus <args>` with raw stdin bytes.
    #[must_use]
    pub fn mj_bytes(&self, args: &[&str], stdin: &[u8]) -> Output {
        self.env.run(&self.root, args, Some(stdin), &[])
    }
    /// `git-majordomus <args>` with extra environment.
    #[must_use]
    pub fn mj_env(&self, args: &[&str], stdin: &str, env: &[(&str, &str)]) -> Output {
        self.env.run(&self.root, args, Some(stdin.as_bytes()), env)
    }
    /// Real git at the root.
    pub fn git(&self, args: &[&str]) -> String {
        self.env.git_in(&self.root, args)
    }
    /// Writes, adds and commits a file; returns the new HEAD.
    pub fn commit_file(&self, name: &str, content: &str) -> String {
        self.write(name, content);
        self.git(&["add", "--", name]);
        self.git(&["commit", "-q", "-m", &format!("change {name}")]);
        self.head()
    }
    pub fn head(&self) -> String {
        self.git(&["rev-parse", "HEAD"])
    }
    pub fn write(&self, name: &str, content: &str) {
        let p = self.root.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }
    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }
    pub fn exists(&self, rel: &str) -> bool {
        self.root.join(rel).exists()
    }
    /// The state directory path.
    pub fn state(&self, rel: &str) -> PathBuf {
        self.root.join(".ai/local/state").join(rel)
    }
    /// Record file names in `.ai/local/state/<kind>` (kind = checkpoints|handovers), sorted.
    pub fn records(&self, kind: &str) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(self.state(kind))
            .map(|rd| {
                rd.filter_map(|e| e.ok())
                    .map(|e| e.file_name().into_string().unwrap())
                    .filter(|n| !n.starts_with('.'))
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    }
    /// Ledger lines parsed as JSON values.
    pub fn ledger(&self) -> Vec<serde_json::Value> {
        std::fs::read_to_string(self.state("ledger.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad ledger line {l}: {e}")))
            .collect()
    }
    /// Starts a task with scope `lib`; returns its id.
    pub fn start(&self, task: &str) -> String {
        let out = self.mj(&["start", task, "--scope", "lib"]).ok();
        out.stdout.split_whitespace().nth(1).unwrap().to_string()
    }
}

/// A well-formed handover body.
pub const HANDOVER: &str =
    "# Objective\nFix the callback.\n\n# Current State\nReproduced.\n\n# Next Action\nWrite the regression test.\n";

/// Starts the binary under test in `dir` with exactly `vars` and `extra` as its environment and
/// `stdin` written; stdout and stderr piped when `capture`, else discarded. For tests that run
/// many at once or kill them (`test_soak`, `test_crash`).
pub fn spawn_mj(
    vars: &[(String, String)],
    extra: &[(&str, &str)],
    dir: &Path,
    args: &[&str],
    stdin: &str,
    capture: bool,
) -> std::process::Child {
    let out = || if capture { Stdio::piped() } else { Stdio::null() };
    let mut child = Command::new(env!("CARGO_BIN_EXE_git-majordomus"))
        .env_clear()
        .envs(vars.iter().map(|(k, v)| (k, v)))
        .envs(extra.iter().copied())
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(out())
        .stderr(out())
        .spawn()
        .unwrap();
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    child
}

// Which outside tools are here, and what a test does without one (shared with the unit tests).
#[path = "../../support/tools.rs"]
mod tools;
pub use tools::{have, host_bin, Tool};

/// The test venv's python (created by `contrib/test-deps.sh`, which `make test` runs first);
/// a test asks [`have`]`(Tool::SurfacesVenv)` before it.
pub fn venv_python() -> PathBuf {
    let p = tools::venv_python_path();
    assert!(p.exists(), "{} is missing: run contrib/test-deps.sh (make test does)", p.display());
    p
}

/// Validates `doc` against the JSON Schema file `schema` with the `jsonschema` package:
/// `(valid, what it printed)`.
pub fn validate(schema: &Path, doc: &serde_json::Value) -> (bool, String) {
    let mut child = Command::new(venv_python())
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/surfaces/validate.py"))
        .arg(schema)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(doc.to_string().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    (out.status.success(), format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
}
