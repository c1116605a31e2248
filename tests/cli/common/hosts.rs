//! The real agent hosts against a scripted model server (tests/support/model_server.py): the
//! server on an ephemeral loopback port, recording every model request; each host run
//! non-interactively in a checkout with the environment that points it at the server.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use super::{Output, Repo, TestEnv};

/// The scripted model server, killed on drop.
pub struct ModelServer {
    child: Child,
    pub port: u16,
    pub record: PathBuf,
    pub script: PathBuf,
}

impl Drop for ModelServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One request the server received.
#[derive(Debug, Clone)]
pub struct Request {
    pub path: String,
    /// The request body as JSON text.
    pub body: String,
}

impl ModelServer {
    /// Starts the server in `dir` (its record and script files live there).
    pub fn start(dir: &Path) -> ModelServer {
        let record = dir.join("model-requests.jsonl");
        let script = dir.join("model-script.json");
        std::fs::write(&script, r#"{"replies":[{"text":"OK."}]}"#).unwrap();
        let server = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/model_server.py");
        let mut child = Command::new("python3")
            .arg(server)
            .arg(&record)
            .arg(&script)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 runs the model server");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let port = line.trim().parse().unwrap_or_else(|_| panic!("no port from the model server: {line:?}"));
        ModelServer { child, port, record, script }
    }

    /// What the model answers from now on (tests/support/model_server.py's script format).
    pub fn script(&self, replies: serde_json::Value) {
        std::fs::write(&self.script, serde_json::json!({ "replies": replies }).to_string()).unwrap();
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<Request> {
        std::fs::read_to_string(&self.record)
            .unwrap_or_default()
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                Request { path: v["path"].as_str().unwrap_or("").to_string(), body: v["body"].to_string() }
            })
            .collect()
    }

    /// Forgets the requests received so far.
    pub fn clear(&self) {
        std::fs::write(&self.record, "").unwrap();
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

/// Runs host CLI `bin` (`tools::host_bin`) with `args` in `repo`, with the test environment and
/// `extra` on top, for at most two minutes.
pub fn run_host(env: &TestEnv, repo: &Repo<'_>, bin: &Path, args: &[&str], extra: &[(&str, String)]) -> Output {
    let mut cmd = env.command("timeout");
    cmd.arg("-k").arg("5").arg("120").arg(bin).args(args).current_dir(&repo.root);
    for (k, v) in extra {
        cmd.env(k, v);
    }
    // Node finds its own binary on PATH; the hosts' state lives under the test's HOME.
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let out = cmd.output().expect("run the host");
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}
