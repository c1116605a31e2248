//! `serve ensure|status|stop` (docs/REFERENCE.md#http): one detached shared server per checkout, recorded in
//! `.ai/local/state/server.json` (pid, port, url, head); a record whose process is gone or whose
//! port does not answer for this checkout is stale and is replaced.
//!
//! Owns: `server.json`, the liveness probe (`GET /healthz`), starting the detached process.
//! Must not touch: the HTTP routes themselves (`surface/http.rs`), stdout.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::store::atomic::{ensure_dir, read_opt, replace};

/// What `server.json` records.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct ServerRecord {
    /// The server's process id.
    pub pid: u32,
    /// The bound address (`127.0.0.1:8741`).
    pub listen: String,
    /// The bound port.
    pub port: u16,
    /// `http://<listen>/`.
    pub url: String,
    /// The checkout it serves.
    pub worktree: String,
    /// HEAD when it started.
    pub head: String,
    /// When it started.
    pub started_at: String,
}

/// The path of `server.json`.
pub fn record_path(ctx: &Ctx) -> PathBuf {
    ctx.layout.state().join("server.json")
}

/// Reads `server.json` (`None` when absent or unreadable).
pub fn read_record(path: &Path) -> Option<ServerRecord> {
    read_opt(path).ok().flatten().and_then(|t| serde_json::from_str(&t).ok())
}

/// Writes `server.json` atomically.
pub fn write_record(path: &Path, r: &ServerRecord) -> Result<()> {
    if let Some(dir) = path.parent() {
        ensure_dir(dir)?;
    }
    let text = serde_json::to_string_pretty(r).map_err(|e| Error::io(format!("server.json: {e}")))?;
    Ok(replace(path, format!("{text}\n").as_bytes())?)
}

/// Whether `GET /healthz` at `listen` answers for `worktree` with process `pid`.
pub fn answers(listen: &str, worktree: &str, pid: u32) -> bool {
    let Ok(addr) = listen.parse::<SocketAddr>() else { return false };
    let Ok(mut s) = TcpStream::connect_timeout(&addr, Duration::from_millis(500)) else { return false };
    let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
    let req = format!("GET /healthz HTTP/1.1\r\nHost: {listen}\r\nConnection: close\r\n\r\n");
    if s.write_all(req.as_bytes()).is_err() {
        return false;
    }
    let mut body = String::new();
    let _ = s.take(64 * 1024).read_to_string(&mut body);
    let Some((_, json)) = body.split_once("\r\n\r\n") else { return false };
    let Ok(v) = serde_json::from_str::<serde_json::Value>(json) else { return false };
    v["worktree"] == worktree && v["pid"] == pid
}

/// What `serve status` and `ensure` found.
#[derive(Debug, Clone, Serialize)]
pub struct ServerStatus {
    /// `running`, `stale` (a record whose server does not answer) or `absent`.
    pub state: String,
    /// The record, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<ServerRecord>,
}

/// `serve status`.
pub fn status(ctx: &Ctx) -> Result<ServerStatus> {
    ctx.require_layer()?;
    let here = ctx.layout.root().display().to_string();
    Ok(match read_record(&record_path(ctx)) {
        None => ServerStatus { state: "absent".into(), server: None },
        Some(r) if answers(&r.listen, &here, r.pid) => ServerStatus { state: "running".into(), server: Some(r) },
        Some(r) => ServerStatus { state: "stale".into(), server: Some(r) },
    })
}

/// `serve ensure`: the running server, or a freshly started detached one. `exe` is this
/// executable; `listen` defaults to `127.0.0.1:0` (an ephemeral port).
pub fn ensure(ctx: &Ctx, exe: &Path, listen: Option<&str>) -> Result<ServerRecord> {
    let st = status(ctx)?;
    if let (Some(r), "running") = (&st.server, st.state.as_str()) {
        return Ok(r.clone());
    }
    let path = record_path(ctx);
    if st.state == "stale" {
        let _ = std::fs::remove_file(&path);
    }
    let root = ctx.layout.root();
    let listen = listen.unwrap_or("127.0.0.1:0");
    let mut cmd = std::process::Command::new(exe);
    cmd.arg("--repo")
        .arg(root)
        .args(["serve", "--listen", listen, "--record"])
        .current_dir(root)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let child = cmd.spawn().map_err(|e| Error::io(format!("serve ensure: cannot start {}: {e}", exe.display())))?;
    let pid = child.id();
    // The child is detached (its own process group): it is never waited for here.
    drop(child);
    let here = root.display().to_string();
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if let Some(r) = read_record(&path).filter(|r| r.pid == pid) {
            if answers(&r.listen, &here, pid) {
                return Ok(r);
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Err(Error::io(format!("serve ensure: the server (pid {pid}) did not answer within 10 s"))
        .hint("run git majordomus serve in the foreground to see why"))
}

/// `serve stop`: removes the record; the server notices within a second and exits. Returns the
/// record that was stopped, if any answered.
pub fn stop(ctx: &Ctx) -> Result<Option<ServerRecord>> {
    let st = status(ctx)?;
    let path = record_path(ctx);
    if st.server.is_some() {
        std::fs::remove_file(&path).or_else(|e| match e.kind() {
            std::io::ErrorKind::NotFound => Ok(()),
            _ => Err(Error::io_at(&path, e)),
        })?;
    }
    let Some(r) = st.server.filter(|_| st.state == "running") else { return Ok(None) };
    let here = ctx.layout.root().display().to_string();
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline && answers(&r.listen, &here, r.pid) {
        std::thread::sleep(Duration::from_millis(50));
    }
    if answers(&r.listen, &here, r.pid) {
        return Err(Error::io(format!("serve stop: the server (pid {}) still answers after 5 s", r.pid)));
    }
    Ok(Some(r))
}

/// The start hook's `Shared server:` line (docs/REFERENCE.md#hook-events): ensures the server only when
/// `session.ensure_server_on_start` is true.
pub fn hook_line(ctx: &Ctx, exe: Option<&Path>) -> String {
    let Ok(policy) = ctx.policy() else { return "not ensured: the policy could not be read".into() };
    if !policy.session.ensure_server_on_start {
        return "not ensured: session.ensure_server_on_start is false".into();
    }
    let Some(exe) = exe else { return "not ensured: the executable's path is unknown".into() };
    match ensure(ctx, exe, None) {
        Ok(r) => format!("ready {} pid {}", r.url, r.pid),
        Err(e) => format!("not ensured: {}", e.message),
    }
}
