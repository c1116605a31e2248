//! `git majordomus serve` (docs/REFERENCE.md#http): a read-only loopback HTTP server on tiny_http — the docs/REFERENCE.md#surfaces
//! routes, `/healthz`, `/api/v1/openapi.json` and the cockpit page.
//!
//! Owns: binding (loopback unless `--allow-remote`), the Host check (DNS rebinding), the exact
//! route table (a request path is never joined to a directory), 404/405 JSON errors, the ≤ 2 s
//! response cache, the worker pool. Must not touch: the store, git, continuity (only through
//! `queries::read`), stdout.

use std::collections::HashMap;
use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tiny_http::{Header, Request, Response, Server};

use super::{cockpit, openapi};
use crate::ctx::{Ctx, Env};
use crate::error::{Error, Exit, Result};
use crate::ops::commands::server::{read_record, record_path, write_record, ServerRecord};
use crate::ops::queries::lifecycle::{git_state, GitState};
use crate::ops::queries::read::{self, Model};
use crate::render::context::Text;

/// Workers answering requests: a slow client holds one of them, never all.
const WORKERS: usize = 8;
/// Requests with a body being drained at once, each on a thread of its own; more are dropped
/// unanswered (never read, never allocated for).
const DRAINS: usize = 64;
/// How long a computed response may be served again.
const CACHE_TTL: Duration = Duration::from_secs(2);

/// How `serve` runs.
#[derive(Debug, Clone)]
pub struct Options {
    /// The address to bind.
    pub listen: String,
    /// Allow a non-loopback bind.
    pub allow_remote: bool,
    /// The checkout served.
    pub repo: Option<PathBuf>,
    /// The environment snapshot every request's context starts from.
    pub env: Env,
    /// Record the server in `.ai/local/state/server.json` and exit when that record is
    /// removed or names another process (`serve ensure` starts servers this way).
    pub record: bool,
}

/// One response: status, content type, body, extra headers.
#[derive(Debug, Clone)]
pub struct Reply {
    /// HTTP status.
    pub status: u16,
    /// `Content-Type`.
    pub content_type: &'static str,
    /// The body.
    pub body: String,
    /// Extra headers.
    pub headers: Vec<(&'static str, String)>,
}

impl Reply {
    fn json(status: u16, v: &Value) -> Reply {
        let body = serde_json::to_string_pretty(v).unwrap_or_else(|_| "{}".into());
        Reply { status, content_type: "application/json", body, headers: Vec::new() }
    }
    fn error(status: u16, message: impl Into<String>, hint: Option<&str>) -> Reply {
        Reply::json(status, &json!({"error": {"status": status, "message": message.into(), "hint": hint}}))
    }
    fn of_error(e: &Error) -> Reply {
        let status = match e.exit {
            Exit::Usage => 400,
            Exit::NotFound => 404,
            Exit::Refused | Exit::Conflict | Exit::Drift => 409,
            Exit::Ok | Exit::Io => 500,
        };
        Reply::error(status, e.message.clone(), e.hint.as_deref())
    }
}

/// What every worker shares.
pub struct Shared {
    root: PathBuf,
    env: Env,
    served: GitState,
    authorities: Vec<String>,
    allow_remote: bool,
    base_url: String,
    cache: Mutex<HashMap<String, (Instant, Reply)>>,
}

/// The authorities a `Host` header may name for a server bound at `addr`.
fn authorities(addr: SocketAddr) -> Vec<String> {
    let port = addr.port();
    let mut v = vec![format!("localhost:{port}")];
    match addr {
        SocketAddr::V4(a) => v.push(format!("{}:{port}", a.ip())),
        SocketAddr::V6(a) => v.push(format!("[{}]:{port}", a.ip())),
    }
    if port == 80 {
        v.push("localhost".into());
        v.push(addr.ip().to_string());
    }
    v
}

/// Decodes `%xx` escapes once; `None` when an escape is malformed or the result is not UTF-8.
fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The value of query parameter `key`.
fn query_param(query: &str, key: &str) -> Option<String> {
    query
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == key)
        .and_then(|(_, v)| percent_decode(&v.replace('+', " ")))
}

impl Shared {
    /// Builds the shared state for a server bound at `addr`.
    pub fn new(root: PathBuf, env: Env, served: GitState, addr: SocketAddr, allow_remote: bool) -> Shared {
        Shared {
            root,
            env,
            served,
            authorities: authorities(addr),
            allow_remote,
            base_url: format!("http://{addr}"),
            cache: Mutex::new(HashMap::new()),
        }
    }

    fn ctx(&self) -> Result<Ctx> {
        Ctx::open(Some(&self.root), self.env.clone())
    }

    fn model(&self, m: &Model) -> Reply {
        match self.ctx().and_then(|ctx| read::value(&ctx, m, Some(&self.served), &Text)) {
            Ok(v) => Reply::json(200, &v),
            Err(e) => Reply::of_error(&e),
        }
    }

    /// Answers one request given its method, URL and `Host` header.
    pub fn answer(&self, method: &str, url: &str, host: Option<&str>) -> Reply {
        if !self.allow_remote {
            let Some(host) = host.map(|h| h.trim().to_ascii_lowercase()) else {
                return Reply::error(400, "missing Host header", None);
            };
            if !self.authorities.contains(&host) {
                return Reply::error(
                    403,
                    format!("Host {host:?} is not this server's loopback name or address"),
                    Some("use the URL serve printed"),
                );
            }
        }
        if method != "GET" && method != "HEAD" {
            let mut r = Reply::error(405, format!("method {method} is not allowed; this server is read-only"), None);
            r.headers.push(("Allow", "GET, HEAD".into()));
            return r;
        }
        let (raw_path, query) = url.split_once('?').unwrap_or((url, ""));
        let Some(path) = percent_decode(raw_path) else {
            return Reply::error(400, "the request path has a malformed escape", None);
        };
        if path.split(['/', '\\']).any(|seg| seg == ".." || seg == ".") || path.contains('\0') || path.contains('\\') {
            return Reply::error(400, "the request path tries to leave the route table", None);
        }
        let key = url.to_string();
        if let Ok(cache) = self.cache.lock() {
            if let Some((at, r)) = cache.get(&key) {
                if at.elapsed() < CACHE_TTL {
                    return r.clone();
                }
            }
        }
        let reply = self.route(&path, query);
        if reply.status == 200 {
            if let Ok(mut cache) = self.cache.lock() {
                cache.retain(|_, (at, _)| at.elapsed() < CACHE_TTL);
                cache.insert(key, (Instant::now(), reply.clone()));
            }
        }
        reply
    }

    fn route(&self, path: &str, query: &str) -> Reply {
        let page =
            |content_type, body: &str| Reply { status: 200, content_type, body: body.to_string(), headers: Vec::new() };
        match path {
            "/healthz" => Reply::json(
                200,
                &json!({"status": "ok", "worktree": self.root.display().to_string(), "pid": std::process::id(), "version": env!("CARGO_PKG_VERSION")}),
            ),
            "/api/v1/openapi.json" => Reply::json(200, &openapi::document(&self.base_url)),
            "/" => {
                let html = self.ctx().map(|ctx| cockpit::page(&ctx, &self.served));
                match html {
                    Ok(body) => page("text/html; charset=utf-8", &body),
                    Err(e) => Reply::of_error(&e),
                }
            }
            "/cockpit/fragment" => match self.ctx().map(|ctx| cockpit::main(&ctx, &self.served)) {
                Ok(body) => page("text/html; charset=utf-8", &body),
                Err(e) => Reply::of_error(&e),
            },
            "/cockpit.css" => page("text/css; charset=utf-8", cockpit::CSS),
            "/cockpit.js" => page("text/javascript; charset=utf-8", cockpit::JS),
            _ => match Model::from_route(path) {
                Some(m) => match m.bind(|name| query_param(query, name)) {
                    Ok(m) => self.model(&m),
                    Err(e) => Reply::of_error(&e),
                },
                None => {
                    Reply::error(404, format!("no route {path}"), Some("GET /api/v1/openapi.json lists every route"))
                }
            },
        }
    }
}

/// Whether a request carries a body tiny_http reads from the socket only when it is consumed — and,
/// dropping the request, reads to its declared end (allocating that many bytes) without a deadline.
/// A client that declares one and never sends it (docs/SECURITY.md; eight such clients stalled the
/// server) would hold the worker forever: every one of them, with as many connections.
fn has_body(req: &Request) -> bool {
    match req.body_length() {
        Some(n) => n > 0,
        None => req.headers().iter().any(|h| h.field.equiv("Transfer-Encoding")),
    }
}

/// Hands a request with a body off the worker: a thread of its own reads the body in small
/// blocks (no allocation the client sizes), then answers; a silent client holds only that
/// thread. Past [`DRAINS`] of them the request is forgotten unanswered: its connection is
/// never read again, and no worker waits for it.
fn drain_elsewhere(shared: &Arc<Shared>, drains: &Arc<std::sync::atomic::AtomicUsize>, mut req: Request) {
    use std::sync::atomic::Ordering;
    if drains.fetch_add(1, Ordering::SeqCst) >= DRAINS {
        drains.fetch_sub(1, Ordering::SeqCst);
        std::mem::forget(req);
        return;
    }
    let (shared, mine) = (shared.clone(), drains.clone());
    let spawned = std::thread::Builder::new().name("serve-drain".into()).spawn(move || {
        let mut buf = [0u8; 8192];
        let reader = req.as_reader();
        while matches!(reader.read(&mut buf), Ok(n) if n > 0) {}
        respond(&shared, req);
        mine.fetch_sub(1, Ordering::SeqCst);
    });
    if spawned.is_err() {
        // No thread to spare: the closure (and the request in it) is dropped here, which reads
        // the rest of its body on this worker; rare enough to leave to the operating system.
        drains.fetch_sub(1, Ordering::SeqCst);
    }
}

fn respond(shared: &Shared, req: Request) {
    let method = req.method().as_str().to_string();
    let host = req.headers().iter().find(|h| h.field.equiv("Host")).map(|h| h.value.as_str().to_string());
    let reply = shared.answer(&method, req.url(), host.as_deref());
    // Every body is in memory: always a Content-Length, never chunked.
    let mut resp = Response::from_string(reply.body).with_status_code(reply.status).with_chunked_threshold(usize::MAX);
    let mut headers = vec![
        ("Content-Type", reply.content_type.to_string()),
        ("Cache-Control", "no-store".to_string()),
        ("X-Content-Type-Options", "nosniff".to_string()),
        (
            "Content-Security-Policy",
            "default-src 'none'; style-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'".to_string(),
        ),
    ];
    headers.extend(reply.headers);
    for (k, v) in headers {
        if let Ok(h) = Header::from_bytes(k.as_bytes(), v.as_bytes()) {
            resp.add_header(h);
        }
    }
    let _ = req.respond(resp);
}

/// Refuses a non-loopback bind without `--allow-remote` (exit 2).
pub fn check_bind(listen: &str, allow_remote: bool) -> Result<SocketAddr> {
    let addr: SocketAddr = listen.parse().map_err(|_| {
        Error::usage(format!("serve --listen {listen}: not an address"))
            .hint("give an IP address and port, for example 127.0.0.1:8741")
    })?;
    if !allow_remote && !addr.ip().is_loopback() {
        return Err(Error::usage(format!("serve --listen {listen}: not a loopback address"))
            .hint("bind 127.0.0.1 or ::1, or pass --allow-remote to serve other machines"));
    }
    Ok(addr)
}

/// Binds, then serves until the process ends (or, with `record`, until `server.json` no longer
/// names this process). `ready` is called once with the URL after the bind.
pub fn serve(opts: Options, ready: impl FnOnce(&str)) -> Result<()> {
    let addr = check_bind(&opts.listen, opts.allow_remote)?;
    let ctx = Ctx::open(opts.repo.as_deref(), opts.env.clone())?;
    ctx.require_layer()?;
    let served = git_state(&ctx)?;
    let root = ctx.layout.root().to_path_buf();
    let listener = TcpListener::bind(addr).map_err(|e| {
        Error::conflict(format!("serve: cannot bind {addr}: {e}"))
            .hint("pick another port with --listen, or 127.0.0.1:0")
    })?;
    let bound = listener.local_addr().map_err(|e| Error::io(format!("serve: {e}")))?;
    let server = Arc::new(Server::from_listener(listener, None).map_err(|e| Error::io(format!("serve: {e}")))?);
    let shared = Arc::new(Shared::new(root.clone(), opts.env.clone(), served.clone(), bound, opts.allow_remote));
    let url = format!("http://{bound}/");
    let record = record_path(&ctx);
    if opts.record {
        write_record(
            &record,
            &ServerRecord {
                pid: std::process::id(),
                listen: bound.to_string(),
                port: bound.port(),
                url: url.clone(),
                worktree: root.display().to_string(),
                head: served.head.clone(),
                started_at: ctx.clock.stamp(),
            },
        )?;
    }
    drop(ctx);
    ready(&url);
    let mut workers = Vec::new();
    let drains = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    for _ in 0..WORKERS {
        let (server, shared, drains) = (server.clone(), shared.clone(), drains.clone());
        workers.push(std::thread::spawn(move || {
            while let Ok(req) = server.recv() {
                if has_body(&req) {
                    drain_elsewhere(&shared, &drains, req);
                } else {
                    respond(&shared, req);
                }
            }
        }));
    }
    if opts.record {
        let me = std::process::id();
        loop {
            std::thread::sleep(Duration::from_millis(250));
            if read_record(&record).is_none_or(|r| r.pid != me) {
                server.unblock();
                return Ok(());
            }
        }
    }
    for w in workers {
        let _ = w.join();
    }
    Ok(())
}
