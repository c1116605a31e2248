//! The continuity cockpit (docs/REFERENCE.md#http): the page at `/`, rendered on the server from the same
//! read-model values the API serves — the open episodes, the task, the resolved handover and
//! checkpoint with both labels (a stale record shown as history, its Next Action withheld), the
//! blockers, the Resume panel (the answer of `continuity plan`, its record and the command to
//! run), the continuity lines with their heads (diverged lines marked) and the sync state. A
//! handover or checkpoint of another task than the active one, and an episode open longer than
//! a fresh record lives, are flagged.
//! The embedded script only refreshes `<main>`; the first paint needs no JavaScript.
//!
//! Owns: the HTML of the page. Must not touch: anything but the values `queries::read` returns.

use serde_json::Value;

use crate::ctx::Ctx;
use crate::ops::queries::lifecycle::GitState;
use crate::ops::queries::read::{self, Model};
use crate::render::context::Text;
use crate::text::short;

/// The stylesheet, served at `/cockpit.css`.
pub const CSS: &str = include_str!("../../assets/cockpit/cockpit.css");
/// The refresh script, served at `/cockpit.js`.
pub const JS: &str = include_str!("../../assets/cockpit/cockpit.js");
const PAGE: &str = include_str!("../../assets/cockpit/page.html");

/// Escapes text for HTML.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

fn s<'a>(v: &'a Value, k: &str) -> &'a str {
    v.get(k).and_then(Value::as_str).unwrap_or("")
}

fn label(word: &str) -> String {
    format!("<span class=\"label l-{0}\">{0}</span>", esc(word))
}

fn section(id: &str, title: &str, wide: bool, body: &str) -> String {
    let class = if wide { " class=\"wide\"" } else { "" };
    format!(
        "<section{class} aria-labelledby=\"h-{id}\"><h2 id=\"h-{id}\" tabindex=\"0\">{title}</h2>\n{body}</section>\n"
    )
}

fn origin_words(origin: &str) -> &'static str {
    match origin {
        "derived" => "git-majordomus, from its records and git (derived)",
        _ => "a person or an agent (authored)",
    }
}

fn record(kind: &str, r: &Value, active_task: Option<&str>) -> String {
    if r.is_null() {
        return section(
            kind,
            &capital(kind),
            false,
            &format!(
                "<p class=\"empty\">No relevant {kind} for this worktree and branch; absence is the answer.</p>\n"
            ),
        );
    }
    let fresh = s(r, "freshness");
    let history = matches!(fresh, "stale" | "invalid");
    // One age format everywhere (the briefing's `6d ago`).
    let age = r
        .get("age_minutes")
        .and_then(Value::as_i64)
        .map(|m| format!(", {} ago", crate::model::labels::span(m)))
        .unwrap_or_default();
    let mut b = format!(
        "<p class=\"mono\">{}</p>\n<p>{} {} <span>({}{})</span></p>\n",
        esc(s(r, "path")),
        label(s(r, "divergence")),
        label(fresh),
        esc(s(r, "matched")),
        esc(&age)
    );
    b.push_str(&format!(
        "<p>task <code>{}</code> · branch <code>{}</code> at <code>{}</code> · written {}</p>\n",
        esc(s(r, "task_id")),
        esc(s(r, "branch")),
        esc(short(s(r, "head"))),
        esc(s(r, "created_at"))
    ));
    b.push_str(&format!("<p>{}</p>\n", esc(s(r, "freshness_reason"))));
    b.push_str(&format!("<p>written by: {}</p>\n", esc(origin_words(s(r, "origin")))));
    // A resumed handover names the device and key it came from (issue 39).
    if let Some(a) = r.get("arrived").filter(|a| a.is_object()) {
        let device = a.get("device").and_then(Value::as_str).unwrap_or("a device");
        b.push_str(&format!(
            "<p>arrived from {} (key <code>{}</code>), continuity record <code>{}</code></p>\n",
            esc(device),
            esc(s(a, "key_id")),
            esc(s(a, "record").get(..12).unwrap_or(s(a, "record")))
        ));
    }
    if let Some(p) = r.get("passed_over").and_then(Value::as_str) {
        b.push_str(&format!(
            "<p>preferred to the newer derived <code>{}</code>: an authored record wins</p>\n",
            esc(p)
        ));
    }
    if let Some(rw) = r.get("rewrite").filter(|v| v.is_object()) {
        let by = s(rw, "by");
        let by = if by == "unknown" { String::new() } else { format!(" by {by}") };
        b.push_str(&format!(
            "<p>rewritten from <code>{}</code>{} into <code>{}</code> — proof: {} <code>{}</code></p>\n",
            esc(short(s(rw, "from"))),
            esc(&by),
            esc(short(s(rw, "to"))),
            esc(s(&rw["proof"], "kind")),
            esc(s(&rw["proof"], "value"))
        ));
    }
    if let Some(active) = active_task.filter(|t| *t != s(r, "task_id")) {
        b.push_str(&format!(
            "<p class=\"banner other-task\">Another task's {kind}: it is of <code>{}</code>, the active task is <code>{}</code>.</p>\n",
            esc(s(r, "task_id")),
            esc(active)
        ));
    }
    if matches!(s(r, "divergence"), "diverged" | "different_context") {
        b.push_str("<p class=\"banner\">Its commit is not in this history: trust git, not the record.</p>\n");
    }
    if history {
        b.push_str(&format!(
            "<p class=\"banner\">HISTORY — this {kind} is {}: read it as background, not as the thing to do now.</p>\n",
            esc(fresh)
        ));
        if let Some(w) = r.get("next_action_withheld").and_then(Value::as_str) {
            b.push_str(&format!("<p class=\"withheld\">Next Action withheld ({})</p>\n", esc(w)));
        }
    } else if let Some(na) = r.get("next_action").and_then(Value::as_str) {
        b.push_str(&format!("<h3>Next Action</h3>\n<pre>{}</pre>\n", esc(na)));
    }
    b.push_str(&citations(r, kind));
    let title = if history { format!("{} (history)", capital(kind)) } else { capital(kind) };
    let class = if history { "history" } else { "" };
    format!(
        "<section class=\"{class}\" aria-labelledby=\"h-{kind}\"><h2 id=\"h-{kind}\" tabindex=\"0\">{title}</h2>\n{b}</section>\n"
    )
}

/// The record's citations that are not unchanged, each with its label (docs/REFERENCE.md#citations):
/// unchanged ones cost no words.
fn citations(r: &Value, kind: &str) -> String {
    let list = r.get("citations").and_then(Value::as_array).cloned().unwrap_or_default();
    let moved: Vec<String> = list
        .iter()
        .filter(|c| s(c, "label") != "unchanged")
        .map(|c| {
            let what = match s(c, "label") {
                "changed" => {
                    match (c.get("commits").and_then(Value::as_u64), c.get("newest").and_then(Value::as_str)) {
                        (Some(n), Some(h)) => {
                            let more =
                                if c.get("more").and_then(Value::as_bool) == Some(true) { "more than " } else { "" };
                            format!(
                                "changed in {more}{n} commit(s) since this {kind}, newest {h} by {}",
                                s(c, "author")
                            )
                        }
                        _ => format!("changed since this {kind}"),
                    }
                }
                "renamed" => format!("renamed to {}", s(c, "renamed_to")),
                "uncommitted" => "has uncommitted changes".into(),
                "absent" => "named, absent".into(),
                other => other.to_string(),
            };
            format!("<li><code>{}</code> {}</li>\n", esc(s(c, "path")), esc(&what))
        })
        .collect();
    if moved.is_empty() {
        return String::new();
    }
    format!("<h3>Cited files</h3>\n<ul class=\"citations\">\n{}</ul>\n", moved.concat())
}

fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().collect::<String>() + c.as_str()).unwrap_or_default()
}

fn episodes(v: &Value) -> String {
    let list = v.get("episodes").and_then(Value::as_array).cloned().unwrap_or_default();
    if list.is_empty() {
        return section("episodes", "Open episodes", true, "<p class=\"empty\">No open episode.</p>\n");
    }
    let mut b = String::from(
        "<table><thead><tr><th>episode</th><th>standing</th><th class=\"hide-narrow\">provider</th><th>started</th><th class=\"hide-narrow\">last event</th><th>tasks</th></tr></thead><tbody>\n",
    );
    for e in &list {
        let standing = if e.get("long_open").and_then(Value::as_bool).unwrap_or(false) {
            let open =
                e.get("open_minutes").and_then(Value::as_i64).map(crate::model::labels::span).unwrap_or_default();
            format!("{} <span class=\"label l-long_open\">open {}</span>", label(s(e, "standing")), esc(&open))
        } else {
            label(s(e, "standing"))
        };
        b.push_str(&format!(
            "<tr><td class=\"mono\">{}</td><td>{}</td><td class=\"hide-narrow\">{}</td><td>{}</td><td class=\"hide-narrow\">{} {}</td><td>{}</td></tr>\n",
            esc(s(e, "session_id")),
            standing,
            esc(s(e, "provider")),
            esc(s(e, "started_at")),
            esc(s(e, "last_event")),
            esc(s(e, "last_activity")),
            esc(&e.get("tasks").and_then(Value::as_array).map(|a| a.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(", ")).unwrap_or_default())
        ));
    }
    b.push_str("</tbody></table>\n");
    let long: Vec<&str> = list
        .iter()
        .filter(|e| e.get("long_open").and_then(Value::as_bool).unwrap_or(false))
        .map(|e| s(e, "session_id"))
        .collect();
    if !long.is_empty() {
        b.push_str(&format!(
            "<p class=\"banner\">Open longer than a fresh record lives: {} — a session that ended without its end hook? <code>git majordomus session close</code> in its checkout closes it.</p>\n",
            long.iter().map(|id| format!("<code>{}</code>", esc(id))).collect::<Vec<_>>().join(", ")
        ));
    }
    section("episodes", "Open episodes", true, &b)
}

fn task(t: &Value) -> String {
    if t.is_null() {
        return section("task", "Task", false, "<p class=\"empty\">No active task in this checkout.</p>\n");
    }
    let scope = t
        .get("scope")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(", "))
        .unwrap_or_default();
    let b = format!(
        "<p><code>{}</code> {}</p>\n<p><strong>{}</strong></p>\n<p>profile {} · scope <code>{}</code> · started {}</p>\n",
        esc(s(t, "id")),
        label(s(t, "outcome")),
        esc(s(t, "task")),
        esc(s(t, "profile")),
        esc(&scope),
        esc(s(t, "started_at"))
    );
    section("task", "Task", false, &b)
}

fn blockers(state: &Value) -> String {
    let list = state.get("blockers").and_then(Value::as_array).cloned().unwrap_or_default();
    let b = if list.is_empty() {
        "<p class=\"empty\">No unresolved question.</p>\n".to_string()
    } else {
        let mut b = format!(
            "<p class=\"banner\">{} unresolved question(s) refuse finish --outcome completed.</p>\n<ul>\n",
            list.len()
        );
        for q in list.iter().filter_map(Value::as_str) {
            b.push_str(&format!("<li>{}</li>\n", esc(q)));
        }
        b + "</ul>\n"
    };
    section("blockers", "Blockers", false, &b)
}

fn findings(state: &Value) -> String {
    let list = state.get("findings").and_then(Value::as_array).cloned().unwrap_or_default();
    let b = if list.is_empty() {
        "<p class=\"empty\">Nothing to warn about.</p>\n".to_string()
    } else {
        let items: String = list.iter().filter_map(Value::as_str).map(|f| format!("<li>{}</li>\n", esc(f))).collect();
        format!("<ul>\n{items}</ul>\n")
    };
    section("findings", "Findings", false, &b)
}

fn lines(status: &Result<Value, String>) -> String {
    let st = match status {
        Ok(v) => v,
        Err(e) => {
            return section(
                "lines",
                "Continuity lines",
                true,
                &format!("<p class=\"empty\">Unavailable: {}</p>\n", esc(e)),
            )
        }
    };
    let store = st.get("store").cloned().unwrap_or(Value::Null);
    let mut b = format!(
        "<p>Sync {} · store tip <code>{}</code> · remote {} · {} record(s), {} refused</p>\n",
        label(s(&store, "sync")),
        esc(short(s(&store, "tip"))),
        esc(if s(&store, "remote").is_empty() { "none" } else { s(&store, "remote") }),
        store.get("records").and_then(Value::as_u64).unwrap_or(0),
        store.get("refused").and_then(Value::as_u64).unwrap_or(0)
    );
    b.push_str(&syncs(st));
    let list = st.get("lines").and_then(Value::as_array).cloned().unwrap_or_default();
    if list.is_empty() {
        b.push_str("<p class=\"empty\">No continuity line in this store.</p>\n");
        return section("lines", "Continuity lines", true, &b);
    }
    b.push_str("<table><thead><tr><th>line</th><th>state</th><th>records</th><th>heads</th></tr></thead><tbody>\n");
    for l in &list {
        let state = s(l, "state");
        let heads: Vec<String> = l
            .get("heads")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .map(|h| {
                        let id = esc(s(h, "id").get(..12).unwrap_or(s(h, "id")));
                        let device = esc(h.get("device").map(|d| s(d, "label")).unwrap_or(""));
                        // A withheld head (untrusted, revoked) is named, never quoted (issue 39).
                        match h.get("withheld").and_then(Value::as_str) {
                            Some(w) => format!(
                                "<code>{id}</code> {device} (key <code>{}</code>) — withheld: {}",
                                esc(s(h, "key_id")),
                                esc(w)
                            ),
                            None => format!(
                                "<code>{id}</code> {device} on {} at <code>{}</code>",
                                esc(h.get("branch").and_then(Value::as_str).unwrap_or("?")),
                                esc(short(h.get("head").and_then(Value::as_str).unwrap_or("")))
                            ),
                        }
                    })
                    .collect()
            })
            .unwrap_or_default();
        let mark = if state == "diverged" {
            format!("{} DIVERGED: {} heads", label(state), heads.len())
        } else {
            label(state)
        };
        b.push_str(&format!(
            "<tr class=\"{}\"><td class=\"mono\">{}</td><td>{mark}</td><td>{}</td><td>{}</td></tr>\n",
            esc(state),
            esc(s(l, "line").get(..12).unwrap_or(s(l, "line"))),
            l.get("records").and_then(Value::as_u64).unwrap_or(0),
            heads.join("<br>")
        ));
    }
    b.push_str("</tbody></table>\n");
    section("lines", "Continuity lines", true, &b)
}

/// The chosen remote's last sync, then each other remote's apart: records go only to the chosen
/// one, so a failed sync with a fork is that fork's standing, never the store's.
fn syncs(st: &Value) -> String {
    let one = |l: &Value| {
        let detail = l.get("detail").and_then(Value::as_str).map(|d| format!(" ({})", esc(d))).unwrap_or_default();
        format!("{} at {}{detail}", label(s(l, "outcome")), esc(s(l, "at")))
    };
    let mut b = String::new();
    if let Some(l) = st.get("last_sync").filter(|l| l.is_object()) {
        b.push_str(&format!("<p>Last sync with {}: {}</p>\n", esc(s(l, "remote")), one(l)));
    }
    let others = st.get("other_syncs").and_then(Value::as_array).cloned().unwrap_or_default();
    if !others.is_empty() {
        let chosen = st.get("store").map(|s_| s(s_, "remote")).filter(|r| !r.is_empty()).unwrap_or("no remote");
        b.push_str(&format!("<p>Other remotes (records go to {}, not to these):</p>\n<ul>\n", esc(chosen)));
        for l in &others {
            b.push_str(&format!("<li>{}: {}</li>\n", esc(s(l, "remote")), one(l)));
        }
        b.push_str("</ul>\n");
    }
    b
}

/// The Resume panel: the answer of `continuity plan`, the record it would resume and the
/// command to run (never run from here), with what stops or warns.
fn resume(plan: &Result<Value, String>) -> String {
    let p = match plan {
        Ok(v) => v,
        Err(e) => {
            return section("resume", "Resume", true, &format!("<p class=\"empty\">Unavailable: {}</p>\n", esc(e)))
        }
    };
    let status = s(p, "status");
    let mut b = format!("<p>Plan {} <span class=\"note\">(git majordomus continuity plan)</span></p>\n", label(status));
    if let Some(r) = p.get("record").filter(|r| r.is_object() && r.get("withheld").is_some()) {
        // Untrusted or revoked: named by id, device label, key id and verdict, never quoted
        // (issue 39).
        b.push_str(&format!(
            "<p>Record <code>{}</code> from {} (key <code>{}</code>) — withheld: {}; its content is not shown</p>\n",
            esc(s(r, "id").get(..12).unwrap_or(s(r, "id"))),
            esc(r.get("device").map(|d| s(d, "label")).unwrap_or("a device")),
            esc(s(r, "key_id")),
            esc(s(r, "withheld"))
        ));
    } else if let Some(r) = p.get("record").filter(|r| r.is_object()) {
        let device = r.get("device").map(|d| s(d, "label")).unwrap_or("");
        let on = r.get("branch").and_then(Value::as_str).unwrap_or("?");
        b.push_str(&format!(
            "<p>Record <code>{}</code> from {} on <code>{}</code> at <code>{}</code>, {} ago: {}</p>\n",
            esc(s(r, "id").get(..12).unwrap_or(s(r, "id"))),
            esc(if device.is_empty() { "a device" } else { device }),
            esc(on),
            esc(short(r.get("head").and_then(Value::as_str).unwrap_or(""))),
            esc(&r
                .get("age_minutes")
                .and_then(Value::as_i64)
                .map(crate::model::labels::span)
                .unwrap_or_else(|| "?".into())),
            esc(s(r, "objective"))
        ));
    }
    let notices = |key: &str| -> Vec<String> {
        p.get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|n| format!("<li><code>{}</code> {}</li>\n", esc(s(n, "code")), esc(s(n, "message"))))
            .collect()
    };
    let blockers = notices("blockers");
    if !blockers.is_empty() {
        b.push_str(&format!("<p class=\"banner\">What stops a resume:</p>\n<ul>\n{}</ul>\n", blockers.concat()));
    }
    let warnings = notices("warnings");
    if !warnings.is_empty() {
        b.push_str(&format!("<p>What a resume should know:</p>\n<ul>\n{}</ul>\n", warnings.concat()));
    }
    let actions: Vec<&str> =
        p.get("actions").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    match (matches!(status, "ready" | "ready_with_warnings"), actions.split_first()) {
        (true, Some((first, rest))) => {
            b.push_str(&format!("<p>To resume, run:</p>\n<pre class=\"command\">{}</pre>\n", esc(first)));
            if !rest.is_empty() {
                let more: String = rest.iter().map(|a| format!("<li><code>{}</code></li>\n", esc(a))).collect();
                b.push_str(&format!("<p>Then:</p>\n<ul>\n{more}</ul>\n"));
            }
        }
        (false, Some(_)) => {
            let all: String = actions.iter().map(|a| format!("<li><code>{}</code></li>\n", esc(a))).collect();
            b.push_str(&format!("<p>Recommended:</p>\n<ul>\n{all}</ul>\n"));
        }
        (_, None) if status == "nothing_to_resume" => {
            b.push_str("<p class=\"empty\">Nothing to resume from the continuity store.</p>\n")
        }
        (_, None) => {}
    }
    section("resume", "Resume", true, &b)
}

/// The content of `<main>` (also served alone at `/cockpit/fragment` for the refresh).
pub fn main(ctx: &Ctx, served: &GitState) -> String {
    let get = |m: &Model| read::value(ctx, m, Some(served), &Text).map_err(|e| e.message);
    let state = get(&Model::State);
    let eps = get(&Model::Episodes).unwrap_or(Value::Null);
    let status = get(&Model::ContinuityStatus);
    let runtime = get(&Model::Runtime).unwrap_or(Value::Null);
    let plan = get(&Model::ContinuityPlan(None));
    let state = match state {
        Ok(v) => v,
        Err(e) => {
            return section("state", "State", true, &format!("<p class=\"banner\">Unavailable: {}</p>\n", esc(&e)))
        }
    };
    let mut out = String::new();
    let agree = runtime.get("agree").and_then(Value::as_bool).unwrap_or(true);
    let git = format!(
        "<p>On <code>{}</code> at <code>{}</code>, working tree {}.{}</p>\n",
        esc(s(&state, "branch")),
        esc(short(s(&state, "head"))),
        esc(s(&state, "working_tree")),
        if agree {
            ""
        } else {
            " <span class=\"banner\">The repository has moved since this server started; values are read afresh.</span>"
        }
    );
    out.push_str(&section("git", "Checkout", true, &git));
    out.push_str(&episodes(&eps));
    out.push_str(&task(state.get("task").unwrap_or(&Value::Null)));
    out.push_str(&blockers(&state));
    let active = state.get("task").map(|t| s(t, "id")).filter(|id| !id.is_empty());
    out.push_str(&record("handover", state.get("handover").unwrap_or(&Value::Null), active));
    out.push_str(&record("checkpoint", state.get("checkpoint").unwrap_or(&Value::Null), active));
    out.push_str(&resume(&plan));
    out.push_str(&lines(&status));
    out.push_str(&findings(&state));
    out
}

/// The whole page, server-rendered.
pub fn page(ctx: &Ctx, served: &GitState) -> String {
    let title = ctx.layout.root().display().to_string();
    PAGE.replace("{{title}}", &esc(&title))
        .replace("{{version}}", env!("CARGO_PKG_VERSION"))
        .replace("{{main}}", &main(ctx, served))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(status: &str, actions: &[&str]) -> Result<Value, String> {
        Ok(serde_json::json!({
            "status": status,
            "record": {"id": "0123456789abcdef", "device": {"label": "macbook"}, "branch": "main",
                       "head": "6d4af53aaaaaaaaa", "age_minutes": 60, "objective": "Ship <it>"},
            "blockers": [], "warnings": [{"code": "origin_dirty", "message": "uncommitted work there"}],
            "actions": actions,
        }))
    }

    #[test]
    fn a_ready_plan_offers_its_first_action_as_the_command_to_run() {
        let html = resume(&plan(
            "ready_with_warnings",
            &["git majordomus continuity resume --record 0123456789ab", "git status"],
        ));
        assert!(
            html.contains("<pre class=\"command\">git majordomus continuity resume --record 0123456789ab</pre>"),
            "{html}"
        );
        assert!(html.contains("Then:") && html.contains("<code>git status</code>"));
        assert!(html.contains("<code>0123456789ab</code> from macbook on <code>main</code> at <code>6d4af53</code>, 60m ago: Ship &lt;it&gt;"), "{html}");
        assert!(html.contains("<code>origin_dirty</code> uncommitted work there"));
        // Not resumable: the actions are recommendations, no command to run.
        let html = resume(&plan("requires_source_update", &["git pull --ff-only"]));
        assert!(!html.contains("class=\"command\"") && html.contains("Recommended:"), "{html}");
        assert!(resume(&Err("no store".into())).contains("Unavailable: no store"));
    }

    /// An untrusted record's plan is named by id, device, key id and verdict (issue 39).
    #[test]
    fn a_withheld_plan_quotes_nothing_of_its_record() {
        let p = Ok(serde_json::json!({
            "status": "refused", "withheld": "untrusted",
            "record": {"id": "0123456789abcdef", "device": {"label": "alice-laptop"}, "key_id": "0A1B2C3D4E5F6071",
                       "withheld": "untrusted", "age_minutes": 5},
            "blockers": [{"code": "origin_untrusted", "message": "record 0123456789ab is signed by key 0A1B2C3D4E5F6071"}],
            "warnings": [], "actions": [],
        }));
        let html = resume(&p);
        assert!(
            html.contains(
                "<code>0123456789ab</code> from alice-laptop (key <code>0A1B2C3D4E5F6071</code>) — withheld: untrusted"
            ),
            "{html}"
        );
        assert!(!html.contains("on <code>"), "{html}");
    }

    #[test]
    fn other_remotes_are_listed_apart_from_the_chosen_ones_standing() {
        let st = serde_json::json!({
            "store": {"remote": "origin", "sync": "in_sync"},
            "last_sync": {"remote": "origin", "at": "2026-12-05T10:00:00Z", "outcome": "ok"},
            "other_syncs": [{"remote": "fork", "at": "2026-12-05T11:00:00Z", "outcome": "unreachable",
                             "detail": "fatal: '<gone>' does not appear to be a git repository"}],
        });
        let html = syncs(&st);
        assert!(
            html.contains("<p>Last sync with origin: <span class=\"label l-ok\">ok</span> at 2026-12-05T10:00:00Z</p>"),
            "{html}"
        );
        assert!(html.contains("Other remotes (records go to origin, not to these)"), "{html}");
        assert!(html.contains("<li>fork: <span class=\"label l-unreachable\">unreachable</span> at 2026-12-05T11:00:00Z (fatal: &#39;&lt;gone&gt;&#39; does not"), "{html}");
        // One remote, never synced: nothing to say.
        assert_eq!(syncs(&serde_json::json!({"store": {"remote": "origin"}})), "");
    }
}
