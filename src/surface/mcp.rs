//! `git majordomus mcp` (docs/REFERENCE.md#mcp): an MCP server over stdio on the official Rust SDK (rmcp).
//! Every docs/REFERENCE.md#surfaces read model is a read-only tool with an input schema and an output schema (the
//! model's schema under `schemas/`, JSON Schema 2020-12); a result carries the JSON value as text
//! content and as `structuredContent`, which conforms to that schema; `majordomus://continuity` and
//! `majordomus://lifecycle/{episodes,recovery}` are resources.
//!
//! stdin is read by a pump thread before rmcp sees it: a line over 1 MiB is dropped without
//! being buffered whole, a line that is not JSON is skipped, each with a note through `note`
//! (stderr); valid JSON lines reach rmcp, which answers malformed requests with JSON-RPC errors.
//! stdout carries only protocol messages.
//!
//! Owns: protocol framing and the tool/resource tables. Must not touch: the store, git and
//! continuity (only through `queries::read`), stdout outside the protocol.

use std::io::BufRead;
use std::path::PathBuf;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, JsonObject, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    Resource, ResourceContents, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;

use super::schemas;
use crate::ctx::{Ctx, Env};
use crate::error::{Error, Result};
use crate::ops::queries::read::{self, Kind, Model, ALL};
use crate::render::context::Text;

/// The longest line read from stdin; a longer one is dropped without being buffered.
pub const MAX_LINE: usize = 1024 * 1024;

/// The resources: URI and the model behind it.
const RESOURCES: &[(&str, Model)] = &[
    ("majordomus://continuity", Model::State),
    ("majordomus://lifecycle/episodes", Model::Episodes),
    ("majordomus://lifecycle/recovery", Model::Recovery),
];

/// A note for stderr.
pub type Note = Arc<dyn Fn(&str) + Send + Sync>;

/// The MCP server of one checkout.
#[derive(Clone)]
pub struct Majordomus {
    repo: Option<PathBuf>,
    env: Env,
}

/// A model's input schema, from its parameters (`queries::read::Param`).
fn input_schema(m: &Model) -> JsonObject {
    let mut props = JsonObject::new();
    for p in m.params() {
        let mut v = schemas::param_schema(p);
        v["description"] = p.description.into();
        props.insert(p.name.into(), v);
    }
    let required: Vec<&str> = m.params().iter().filter(|p| p.required).map(|p| p.name).collect();
    let mut v =
        json!({"$schema": schemas::DIALECT, "type": "object", "properties": props, "additionalProperties": false});
    if m.params().is_empty() {
        v["description"] = json!("No input.");
    }
    if !required.is_empty() {
        v["required"] = json!(required);
    }
    match v {
        Value::Object(o) => o,
        _ => JsonObject::new(),
    }
}

/// A tool call's arguments as the text [`Model::bind`] takes; `Err` names what is wrong.
fn bind(m: &Model, args: &JsonObject) -> std::result::Result<Model, String> {
    if let Some(k) = args.keys().find(|k| !m.params().iter().any(|p| p.name == k.as_str())) {
        return Err(if m.params().is_empty() {
            format!("{} takes no input; got {k:?}", m.tool())
        } else {
            format!("{} takes no argument {k:?}", m.tool())
        });
    }
    for p in m.params() {
        match (p.kind, args.get(p.name)) {
            (_, None | Some(Value::Null)) | (Kind::Text, Some(Value::String(_))) => {}
            (Kind::Count, Some(Value::Number(n))) if n.is_u64() => {}
            (Kind::Text, Some(_)) => return Err(format!("{} must be a string", p.name)),
            (Kind::Count, Some(_)) => return Err(format!("{} must be a whole number", p.name)),
        }
    }
    let text = |name: &str| match args.get(name) {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    };
    m.bind(text).map_err(|e| e.message)
}

impl Majordomus {
    /// A server for the checkout at `repo` (or the current directory).
    pub fn new(repo: Option<PathBuf>, env: Env) -> Majordomus {
        Majordomus { repo, env }
    }

    fn value(&self, m: &Model) -> std::result::Result<Value, Error> {
        let ctx = Ctx::open(self.repo.as_deref(), self.env.clone())?;
        read::value(&ctx, m, None, &Text)
    }

    /// The tools: one per read model, each read-only with an input schema.
    pub fn tools() -> Vec<Tool> {
        ALL.iter()
            .map(|m| {
                let mut t = Tool::new(m.tool(), m.description(), input_schema(m))
                    .with_raw_output_schema(Arc::new(schemas::schema_object(m)));
                let mut a = ToolAnnotations::default();
                a.read_only_hint = Some(true);
                a.destructive_hint = Some(false);
                a.idempotent_hint = Some(true);
                a.open_world_hint = Some(false);
                t.annotations = Some(a);
                t
            })
            .collect()
    }

    fn call(&self, p: CallToolRequestParams) -> std::result::Result<CallToolResult, ErrorData> {
        let Some(model) = Model::from_tool(&p.name) else {
            return Err(ErrorData::invalid_params(format!("unknown tool {:?}", p.name), None));
        };
        let args = p.arguments.unwrap_or_default();
        let model = bind(&model, &args).map_err(|e| ErrorData::invalid_params(e, None))?;
        match self.value(&model) {
            Ok(v) => Ok(CallToolResult::structured(v)),
            Err(e) => Ok(CallToolResult::structured_error(
                json!({"error": {"exit": e.exit.code(), "message": e.message, "hint": e.hint}}),
            )),
        }
    }

    fn read(&self, uri: &str) -> std::result::Result<ReadResourceResult, ErrorData> {
        let Some((_, m)) = RESOURCES.iter().find(|(u, _)| *u == uri) else {
            return Err(ErrorData::resource_not_found(format!("no resource {uri}"), None));
        };
        let v = self.value(m).map_err(|e| ErrorData::internal_error(e.message, None))?;
        let text = serde_json::to_string_pretty(&v).map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let contents = ResourceContents::TextResourceContents {
            uri: uri.to_string(),
            mime_type: Some("application/json".into()),
            text,
            meta: None,
        };
        Ok(ReadResourceResult::new(vec![contents]))
    }
}

impl ServerHandler for Majordomus {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_resources().build())
            .with_server_info(Implementation::new("git-majordomus", env!("CARGO_PKG_VERSION")))
            .with_instructions("Read-only continuity of this checkout: call majordomus_continuity first.")
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(Self::tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<CallToolResponse, ErrorData> {
        self.call(request).map(CallToolResponse::from)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListResourcesResult, ErrorData> {
        let list = RESOURCES
            .iter()
            .map(|(uri, m)| {
                let mut r = Resource::new(*uri, m.capability());
                r.description = Some(m.description().into());
                r.mime_type = Some("application/json".into());
                r
            })
            .collect();
        Ok(ListResourcesResult::with_all_items(list))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ReadResourceResponse, ErrorData> {
        self.read(&request.uri).map(ReadResourceResponse::from)
    }
}

/// Reads `input` line by line into `out`: lines over `max` bytes are dropped (never buffered
/// past `max`), lines that are not JSON are skipped; `note` hears of each. Returns at EOF.
pub fn pump(mut input: impl BufRead, max: usize, note: &dyn Fn(&str), mut out: impl FnMut(Vec<u8>) -> bool) {
    let mut line: Vec<u8> = Vec::new();
    let mut dropping = false;
    loop {
        let buf = match input.fill_buf() {
            Ok([]) | Err(_) => break,
            Ok(b) => b,
        };
        let (chunk, done, used) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], true, i + 1),
            None => (buf, false, buf.len()),
        };
        if !dropping {
            if line.len() + chunk.len() > max {
                dropping = true;
                line = Vec::new();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        input.consume(used);
        if done {
            if dropping {
                note(&format!("mcp: dropped an input line over {max} bytes"));
            } else if !line.iter().all(u8::is_ascii_whitespace) {
                if serde_json::from_slice::<Value>(&line).is_ok() {
                    line.push(b'\n');
                    if !out(std::mem::take(&mut line)) {
                        return;
                    }
                } else {
                    note("mcp: skipped an input line that is not JSON");
                }
            }
            line.clear();
            dropping = false;
        }
    }
}

/// Hostile-input entry (`crate::fuzzing`): `data` as the server's stdin, through [`pump`], each
/// line read as an rmcp client message, and each `tools/call` and `resources/read` through the
/// server's own argument checks, for the checkout at `repo`. Never panics.
#[doc(hidden)]
pub fn fuzz_lines(data: &[u8], repo: PathBuf) {
    use rmcp::model::{ClientJsonRpcMessage, ClientRequest, JsonRpcMessage};
    let server = Majordomus::new(Some(repo), Env::default());
    pump(data, MAX_LINE, &|_| {}, |line| {
        if let Ok(JsonRpcMessage::Request(r)) = serde_json::from_slice::<ClientJsonRpcMessage>(&line) {
            match r.request {
                ClientRequest::CallToolRequest(c) => drop(server.call(c.params)),
                ClientRequest::ReadResourceRequest(q) => drop(server.read(&q.params.uri)),
                _ => {}
            }
        }
        true
    });
}

/// Serves MCP on stdin/stdout until stdin closes.
pub fn run(repo: Option<PathBuf>, env: Env, note: Note) -> Result<()> {
    // Fail early, before the handshake, when this is not a checkout.
    Ctx::open(repo.as_deref(), env.clone())?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::io(format!("mcp: cannot start the runtime: {e}")))?;
    rt.block_on(async move {
        let (mut tx, rx) = tokio::io::duplex(64 * 1024);
        let (lines_tx, mut lines_rx) = tokio::sync::mpsc::channel::<Vec<u8>>(16);
        let pump_note = note.clone();
        std::thread::spawn(move || {
            let stdin = std::io::stdin();
            pump(stdin.lock(), MAX_LINE, &|s| pump_note(s), |l| lines_tx.blocking_send(l).is_ok());
        });
        tokio::spawn(async move {
            while let Some(l) = lines_rx.recv().await {
                if tx.write_all(&l).await.is_err() {
                    break;
                }
            }
            let _ = tx.shutdown().await;
        });
        let service = Majordomus::new(repo, env)
            .serve((rx, tokio::io::stdout()))
            .await
            .map_err(|e| Error::io(format!("mcp: the handshake failed: {e}")))?;
        service.waiting().await.map_err(|e| Error::io(format!("mcp: {e}")))?;
        Ok::<(), Error>(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_pump(input: &[u8], max: usize) -> (Vec<String>, Vec<String>) {
        let notes = std::cell::RefCell::new(Vec::new());
        let mut out = Vec::new();
        pump(std::io::BufReader::with_capacity(8, input), max, &|s| notes.borrow_mut().push(s.to_string()), |l| {
            out.push(String::from_utf8(l).unwrap());
            true
        });
        (out, notes.into_inner())
    }

    #[test]
    fn pump_drops_long_lines_and_skips_non_json() {
        let long = format!("{{\"a\":\"{}\"}}", "x".repeat(100));
        let input = format!("{{\"jsonrpc\":\"2.0\"}}\nnot json\n{long}\n\n[1]\n");
        let (out, notes) = run_pump(input.as_bytes(), 64);
        assert_eq!(out, vec!["{\"jsonrpc\":\"2.0\"}\n".to_string(), "[1]\n".to_string()]);
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(notes[0].contains("not JSON") && notes[1].contains("over 64 bytes"));
    }

    #[test]
    fn every_tool_is_read_only_with_an_input_and_an_output_schema() {
        let tools = Majordomus::tools();
        assert_eq!(tools.len(), ALL.len());
        for t in tools {
            assert_eq!(t.input_schema.get("type"), Some(&json!("object")), "{}", t.name);
            assert_eq!(t.annotations.and_then(|a| a.read_only_hint), Some(true));
            // 2025-11-25 restricts an output schema's root to an object; 2026-07-28 reads it as
            // JSON Schema 2020-12.
            let out = t.output_schema.unwrap_or_else(|| panic!("{} declares no output schema", t.name));
            assert_eq!(out.get("type"), Some(&json!("object")), "{}", t.name);
            assert_eq!(out.get("$schema"), Some(&json!(schemas::DIALECT)), "{}", t.name);
            assert!(out.get("properties").is_some_and(Value::is_object), "{}", t.name);
        }
    }
}
