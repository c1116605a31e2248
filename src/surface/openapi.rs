//! The OpenAPI 3.1 document of the HTTP surface (docs/REFERENCE.md#http), built from the checked-in JSON
//! Schemas under `schemas/` — the same files the drift test holds equal to the Rust types.
//!
//! Owns: the route descriptions and the schema embedding. Must not touch: I/O.

use serde_json::{json, Map, Value};

use super::schemas::{param_schema, schema_text};
use crate::ops::queries::read::{Model, ALL};

/// The component name of a model's value (`continuity.state` → `continuity_state`).
fn component(m: &Model) -> String {
    m.capability().replace('.', "_")
}

/// Rewrites `#/$defs/X` references to `#/components/schemas/<prefix>_X`.
fn rewrite_refs(v: &mut Value, prefix: &str) {
    match v {
        Value::Object(o) => {
            if let Some(Value::String(r)) = o.get_mut("$ref") {
                if let Some(name) = r.strip_prefix("#/$defs/") {
                    *r = format!("#/components/schemas/{prefix}_{name}");
                }
            }
            for (_, x) in o.iter_mut() {
                rewrite_refs(x, prefix);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| rewrite_refs(x, prefix)),
        _ => {}
    }
}

/// Adds a model's schema (and its `$defs`) to `components`.
fn add_schema(components: &mut Map<String, Value>, m: &Model) {
    let name = component(m);
    let mut schema: Value = serde_json::from_str(schema_text(m)).unwrap_or_else(|_| json!({"type": "object"}));
    rewrite_refs(&mut schema, &name);
    if let Value::Object(o) = &mut schema {
        o.remove("$schema");
        if let Some(Value::Object(defs)) = o.remove("$defs") {
            for (k, d) in defs {
                components.insert(format!("{name}_{k}"), d);
            }
        }
    }
    components.insert(name, schema);
}

fn json_response(schema_ref: &str, description: &str) -> Value {
    json!({"description": description, "content": {"application/json": {"schema": {"$ref": schema_ref}}}})
}

fn operation(id: &str, summary: &str, ok: Value, parameters: Vec<Value>) -> Value {
    let mut op = json!({
        "operationId": id,
        "summary": summary,
        "responses": {
            "200": ok,
            "default": json_response("#/components/schemas/Error", "An error: the JSON error body"),
        },
    });
    if !parameters.is_empty() {
        op["parameters"] = Value::Array(parameters);
    }
    json!({"get": op})
}

/// The OpenAPI 3.1 document; `base_url` is the bound server's `http://<addr>`.
pub fn document(base_url: &str) -> Value {
    let mut components = Map::new();
    components.insert(
        "Error".into(),
        json!({
            "type": "object",
            "required": ["error"],
            "properties": {"error": {
                "type": "object",
                "required": ["status", "message"],
                "properties": {
                    "status": {"type": "integer"},
                    "message": {"type": "string"},
                    "hint": {"type": ["string", "null"]},
                },
            }},
        }),
    );
    components.insert(
        "Health".into(),
        json!({
            "type": "object",
            "required": ["status", "worktree", "pid", "version"],
            "properties": {
                "status": {"const": "ok"},
                "worktree": {"type": "string"},
                "pid": {"type": "integer", "minimum": 0},
                "version": {"type": "string"},
            },
        }),
    );
    let mut paths = Map::new();
    for m in ALL {
        add_schema(&mut components, m);
        let params = m
            .params()
            .iter()
            .map(|p| {
                let schema = param_schema(p);
                json!({"name": p.name, "in": "query", "required": p.required, "description": p.description, "schema": schema})
            })
            .collect();
        let ok = json_response(&format!("#/components/schemas/{}", component(m)), m.description());
        paths.insert(m.route().into(), operation(m.capability(), m.description(), ok, params));
    }
    paths.insert(
        "/healthz".into(),
        operation(
            "healthz",
            "Liveness: the checkout served and the process",
            json_response("#/components/schemas/Health", "Alive"),
            vec![],
        ),
    );
    paths.insert(
        "/api/v1/openapi.json".into(),
        operation(
            "openapi",
            "This document",
            json!({"description": "The OpenAPI document", "content": {"application/json": {"schema": {"type": "object"}}}}),
            vec![],
        ),
    );
    paths.insert(
        "/".into(),
        operation(
            "cockpit",
            "The continuity cockpit page (server-rendered HTML)",
            json!({"description": "The page", "content": {"text/html": {"schema": {"type": "string"}}}}),
            vec![],
        ),
    );
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "git-majordomus read surfaces",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Read-only: continuity.state, continuity.explain, lifecycle.*, the continuity status, records and plan, the resolved handover, the context briefing, decisions, open questions, search and history of one checkout. Nothing here writes.",
        },
        "servers": [{"url": base_url}],
        "paths": Value::Object(paths),
        "components": {"schemas": Value::Object(components)},
    })
}
