//! A `serve` child on an ephemeral loopback port, for the HTTP tests.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Stdio};

use super::TestEnv;

/// A `serve` child, killed on drop; `addr` is the `host:port` it printed.
pub struct Served {
    pub child: Child,
    pub addr: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `git-majordomus serve --listen 127.0.0.1:0` in `root` and reads the address it prints.
pub fn serve(env: &TestEnv, root: &Path) -> Served {
    let mut child = env
        .command(env!("CARGO_BIN_EXE_git-majordomus"))
        .args(["serve", "--listen", "127.0.0.1:0"])
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap()).read_line(&mut line).unwrap();
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|s| s.split('/').next())
        .unwrap_or_else(|| panic!("no URL in {line:?}"))
        .to_string();
    Served { child, addr }
}
