//! Remotes for the sync tests (issue 10): bare repositories with server-side hooks and settings,
//! and `git daemon` (git://) and smart HTTP (`git http-backend` behind
//! `tests/support/git_http_server.py`) servers that the test starts and that stop when dropped.

use std::io::{BufRead, BufReader};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use super::TestEnv;

/// A server process, killed when dropped.
pub struct Server {
    child: Child,
    /// `git://127.0.0.1:<port>/` or `http://127.0.0.1:<port>/`; append the repository's name.
    pub base: String,
}

impl Server {
    /// Stops the server now (a remote that goes away).
    pub fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A bare repository at `path` on `main` with `receive.denyNonFastForwards` and
/// `receive.fsckObjects` on (so a forced or broken push fails the test); returns its
/// canonical path.
pub fn bare(env: &TestEnv, path: &Path) -> PathBuf {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    env.git_in(env.path(), &["init", "--bare", "-q", "-b", "main", path.to_str().unwrap()]);
    env.git_in(path, &["config", "receive.denyNonFastForwards", "true"]);
    env.git_in(path, &["config", "receive.fsckObjects", "true"]);
    env.git_in(path, &["config", "http.receivepack", "true"]);
    std::fs::canonicalize(path).unwrap()
}

/// Writes an executable script (a hook, a wrapper).
pub fn script(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A `pre-receive` hook a hosting server might install: refuses every `refs/majordomus/*` update with a
/// message, accepts everything else.
pub const REFUSE_MAJORDOMUS: &str = "#!/bin/sh\n# pre-receive: refuse refs/majordomus/* (stdin lines: \"<old> <new> <ref>\")\nstatus=0\nwhile read old new ref; do\n  case \"$ref\" in refs/majordomus/*) echo \"majordomus: updates to $ref are not accepted here\" >&2; status=1 ;; esac\ndone\nexit $status\n";

/// `git daemon` serving every repository under `base` with receive-pack enabled, on a port picked
/// here (the daemon takes `--port=0` as "unset" and listens on 9418). The
/// `git-daemon` program is started directly: `git daemon` would run it as a child that outlives
/// a killed `git`.
pub fn daemon(env: &TestEnv, base: &Path) -> Server {
    let program = Path::new(&env.git_in(env.path(), &["--exec-path"])).join("git-daemon");
    for _ in 0..10 {
        let port = {
            let l = TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let mut child = env
            .command(program.to_str().unwrap())
            .args([
                "--export-all",
                "--enable=receive-pack",
                "--reuseaddr",
                "--listen=127.0.0.1",
                &format!("--port={port}"),
                &format!("--base-path={}", base.display()),
                base.to_str().unwrap(),
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("git daemon");
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(10) {
            if let Ok(Some(_)) = child.try_wait() {
                break; // the port was taken: pick another
            }
            if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return Server { child, base: format!("git://127.0.0.1:{port}/") };
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
    panic!("git daemon did not start");
}

/// Smart HTTP for every repository under `root` (pushes enabled; `/private/...` answers 401).
pub fn http(env: &TestEnv, root: &Path) -> Server {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/git_http_server.py");
    let mut child = env
        .command("python3")
        .arg(script)
        .arg(root)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("python3 for the HTTP fixture");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let port: u16 = line.trim().parse().unwrap_or_else(|_| panic!("HTTP fixture printed {line:?}"));
    Server { child, base: format!("http://127.0.0.1:{port}/") }
}
