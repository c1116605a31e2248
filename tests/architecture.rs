//! The rules of ARCHITECTURE.md that Cargo cannot see, checked by reading the sources.
//!
//! Which crate may use which is Cargo's to enforce (an upward `use` does not compile); this file
//! checks what lies inside a crate: who prints, reads the environment or the clock, runs git, uses
//! gix, clap or the signing crates; the layers inside the root crate; the use cases' graph; and
//! that ARCHITECTURE.md draws the crate graph `cargo metadata` reports. The rules are token greps
//! over each line's code part (comment lines and trailing `// ...` comments are skipped); test
//! code is found by parsing each file with `syn`: every item under a `#[cfg(test)]` (or a
//! `#[cfg(any(test, …))]`) attribute, at any depth. A violation names the file, the line and the
//! rule, and the test lists every one at once.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// One source file: its path relative to the workspace root (with `/`), its lines, and which of
/// them belong to test items.
struct Source {
    rel: String,
    lines: Vec<String>,
    test: Vec<bool>,
}

impl Source {
    /// Whether the file lies under `prefix` (a directory ending in `/`, or a file path).
    fn under(&self, prefix: &str) -> bool {
        self.rel == prefix || (prefix.ends_with('/') && self.rel.starts_with(prefix))
    }

    /// The file's production code with every test line blanked (line numbers kept).
    fn production_lines(&self) -> Vec<String> {
        self.lines.iter().enumerate().map(|(i, l)| if self.test[i] { String::new() } else { l.clone() }).collect()
    }
}

/// Whether an attribute list holds `#[cfg(test)]` or a `#[cfg(any(…, test, …))]`.
fn is_test_cfg(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg") && {
            let tokens = a.meta.require_list().map(|l| l.tokens.to_string()).unwrap_or_default();
            tokens == "test" || (tokens.starts_with("any") && tokens.split(|c: char| !is_ident(c)).any(|t| t == "test"))
        }
    })
}

/// Marks the lines of every item (at any depth) under a test `cfg`; a file whose inner
/// attributes say `#![cfg(test)]` is test code as a whole.
fn test_lines(text: &str, rel: &str) -> Vec<bool> {
    use syn::spanned::Spanned;
    use syn::visit::Visit;
    struct Marker(Vec<bool>);
    impl Marker {
        fn mark(&mut self, span: proc_macro2::Span) {
            let (a, b) = (span.start().line, span.end().line);
            for l in a.max(1)..=b.min(self.0.len()) {
                self.0[l - 1] = true;
            }
        }
    }
    impl<'ast> Visit<'ast> for Marker {
        fn visit_item(&mut self, item: &'ast syn::Item) {
            let attrs: &[syn::Attribute] = match item {
                syn::Item::Const(i) => &i.attrs,
                syn::Item::Enum(i) => &i.attrs,
                syn::Item::Fn(i) => &i.attrs,
                syn::Item::Impl(i) => &i.attrs,
                syn::Item::Macro(i) => &i.attrs,
                syn::Item::Mod(i) => &i.attrs,
                syn::Item::Static(i) => &i.attrs,
                syn::Item::Struct(i) => &i.attrs,
                syn::Item::Trait(i) => &i.attrs,
                syn::Item::Type(i) => &i.attrs,
                syn::Item::Use(i) => &i.attrs,
                _ => &[],
            };
            if is_test_cfg(attrs) {
                self.mark(item.span());
                for a in attrs {
                    self.mark(a.span());
                }
            } else {
                syn::visit::visit_item(self, item);
            }
        }
        fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
            if is_test_cfg(&f.attrs) {
                self.mark(f.span());
            } else {
                syn::visit::visit_impl_item_fn(self, f);
            }
        }
        fn visit_stmt(&mut self, stmt: &'ast syn::Stmt) {
            if let syn::Stmt::Local(l) = stmt {
                if is_test_cfg(&l.attrs) {
                    self.mark(l.span());
                    return;
                }
            }
            syn::visit::visit_stmt(self, stmt);
        }
    }
    let n = text.lines().count();
    let file = syn::parse_file(text).unwrap_or_else(|e| panic!("{rel} does not parse: {e}"));
    if is_test_cfg(&file.attrs) {
        return vec![true; n];
    }
    let mut m = Marker(vec![false; n]);
    m.visit_file(&file);
    m.0
}

fn collect(dir: &Path, out: &mut Vec<Source>) {
    let mut entries: Vec<_> =
        fs::read_dir(dir).expect("src/ is readable").map(|e| e.expect("src/ is readable").path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            let rel = p
                .strip_prefix(root())
                .expect("every file found lies under the workspace root")
                .to_string_lossy()
                .replace('\\', "/");
            let text = fs::read_to_string(&p).expect("source files are UTF-8");
            let test = test_lines(&text, &rel);
            out.push(Source { rel, lines: text.lines().map(str::to_owned).collect(), test });
        }
    }
}

fn architecture_md() -> String {
    fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md exists at the crate root")
}

/// The `src/` directory of every crate of the workspace: the root's, then `crates/*/src`.
fn source_dirs() -> Vec<PathBuf> {
    let mut dirs = vec![root().join("src")];
    let mut crates: Vec<PathBuf> = fs::read_dir(root().join("crates"))
        .expect("crates/ is readable")
        .map(|e| e.expect("crates/ is readable").path().join("src"))
        .filter(|p| p.is_dir())
        .collect();
    crates.sort();
    dirs.extend(crates);
    dirs
}

fn sources() -> Vec<Source> {
    let mut out = Vec::new();
    for dir in source_dirs() {
        collect(&dir, &mut out);
    }
    for lib in ["src/lib.rs", "crates/core/src/lib.rs", "crates/ops/src/lib.rs"] {
        assert!(out.iter().any(|s| s.rel == lib), "{lib} not found under {}", root().display());
    }
    out
}

/// The code part of a line: empty for a comment line, cut before a trailing ` // ...`.
fn code(line: &str) -> &str {
    let t = line.trim_start();
    if t.starts_with("//") {
        return "";
    }
    let mut cut = line.len();
    let b = line.as_bytes();
    for i in 0..b.len().saturating_sub(1) {
        if b[i] == b'/' && b[i + 1] == b'/' && (i == 0 || b[i - 1] == b' ' || b[i - 1] == b'\t') {
            cut = i;
            break;
        }
    }
    &line[..cut]
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Whether `needle` occurs in `hay` as a token: when the needle starts with an identifier
/// character, none may come right before it; when `whole` is set and the needle ends with one,
/// none may come right after it.
fn has_token(hay: &str, needle: &str, whole: bool) -> bool {
    let ident_start = needle.chars().next().is_some_and(is_ident);
    let ident_end = needle.chars().next_back().is_some_and(is_ident);
    let mut from = 0;
    while let Some(pos) = hay[from..].find(needle) {
        let start = from + pos;
        let end = start + needle.len();
        let before = !ident_start || hay[..start].chars().next_back().is_none_or(|c| !is_ident(c));
        let after = !(whole && ident_end) || hay[end..].chars().next().is_none_or(|c| !is_ident(c));
        if before && after {
            return true;
        }
        from = start + needle.len().max(1);
    }
    false
}

/// A rule: these tokens may appear only in files under one of `allowed`.
struct Rule {
    what: &'static str,
    tokens: &'static [&'static str],
    whole: bool,
    allowed: &'static [&'static str],
    /// Only files under one of these prefixes are checked (empty: every crate's sources).
    only: &'static [&'static str],
    /// Check comments too (the thresholds must not appear anywhere).
    comments: bool,
    /// Skip test items.
    production_only: bool,
}

fn check(rules: &[Rule]) -> Vec<String> {
    let srcs = sources();
    let mut bad = Vec::new();
    for rule in rules {
        for s in &srcs {
            if rule.allowed.iter().any(|a| s.under(a)) {
                continue;
            }
            if !rule.only.is_empty() && !rule.only.iter().any(|o| s.under(o)) {
                continue;
            }
            for (i, line) in s.lines.iter().enumerate() {
                if rule.production_only && s.test[i] {
                    continue;
                }
                let text = if rule.comments { line.as_str() } else { code(line) };
                if let Some(tok) = rule.tokens.iter().find(|t| has_token(text, t, rule.whole)) {
                    bad.push(format!("{}:{}: {} ({tok}): {}", s.rel, i + 1, rule.what, line.trim()));
                }
            }
        }
    }
    bad
}

fn assert_clean(bad: Vec<String>) {
    assert!(bad.is_empty(), "ARCHITECTURE.md rules broken ({}):\n{}", bad.len(), bad.join("\n"));
}

const ANY: &[&str] = &[];

const GIT: &str = "crates/git/";
const CLOCK: &str = "crates/core/src/clock.rs";
const CTX: &str = "crates/ops/src/ctx.rs";
const SIGNING: &str = "crates/continuity/src/signing.rs";
const LABELS: &str = "crates/core/src/model/labels.rs";

#[test]
fn gix_only_in_git() {
    assert_clean(check(&[Rule {
        what: "gix is used only in crates/git/",
        tokens: &["gix"],
        whole: true,
        allowed: &[GIT],
        only: ANY,
        comments: false,
        production_only: false,
    }]));
}

/// Inside the code an unborn HEAD and a detached branch are `None`; the texts for them are
/// written and read at one place (`model::labels`), and shown by the renderers.
#[test]
fn head_and_branch_sentinels_only_at_the_edges() {
    assert_clean(check(&[Rule {
        what: "the NONE/DETACHED texts live in model/labels.rs (code uses Option)",
        tokens: &["\"NONE\"", "\"DETACHED\""],
        whole: false,
        allowed: &[LABELS, "src/render/"],
        only: ANY,
        comments: false,
        production_only: true,
    }]));
}

#[test]
fn print_macros_only_in_ui() {
    assert_clean(check(&[Rule {
        what: "only src/ui.rs writes to stdout/stderr",
        tokens: &["println!", "eprintln!", "print!", "eprint!", "dbg!"],
        whole: false,
        allowed: &["src/ui.rs"],
        only: ANY,
        comments: false,
        production_only: false,
    }]));
}

/// Text leaves the process only through `Ui`, which escapes it (docs/SECURITY.md): nothing else takes a
/// handle on stdout or stderr, lets clap print for itself, or lets a child inherit them. Two
/// streams are not text: MCP's JSON-RPC on stdout (JSON keeps its own escaping), and the output
/// of `finish`'s verify command, the user's own command, which goes to stderr as it ran.
#[test]
fn stdout_and_stderr_only_through_ui() {
    assert_clean(check(&[Rule {
        what: "only src/ui.rs takes stdout/stderr; text output goes through Ui, which escapes it",
        tokens: &["io::stdout", "io::stderr", "Stdio::inherit", ".print()", "print_help(", "print_long_help("],
        whole: false,
        allowed: &["src/ui.rs", "src/surface/mcp.rs", "crates/ops/src/commands/finish.rs"],
        only: ANY,
        comments: false,
        production_only: true,
    }]));
    // The exceptions stay what they are: MCP's handle is its protocol's, finish's is a child's.
    let srcs = sources();
    let lines = |rel: &str| srcs.iter().find(|s| s.rel == rel).map(Source::production_lines).unwrap_or_default();
    let mcp: Vec<String> =
        lines("src/surface/mcp.rs").into_iter().filter(|l| has_token(code(l), "io::stdout", false)).collect();
    assert!(mcp.iter().all(|l| l.contains(".serve((")), "mcp.rs uses stdout beyond its JSON-RPC transport: {mcp:?}");
    assert!(
        lines("src/surface/mcp.rs").iter().all(|l| !has_token(code(l), "io::stderr", false)),
        "mcp.rs notes go through ui::note"
    );
    let finish: Vec<String> = lines("crates/ops/src/commands/finish.rs")
        .into_iter()
        .filter(|l| ["io::stdout", "io::stderr", "Stdio::inherit"].iter().any(|t| has_token(code(l), t, false)))
        .collect();
    assert!(
        finish.iter().all(|l| l.trim_start().starts_with(".stdout(") || l.trim_start().starts_with(".stderr(")),
        "finish.rs uses stdout/stderr beyond the verify command's child: {finish:?}"
    );
    // Inside ui.rs every text write is escaped: the handles are taken in `new` and `note`, and
    // each writer of text calls `escape` (the JSON writers are the only ones that do not).
    let ui = lines("src/ui.rs").join("\n");
    for writer in ["fn write_out(", "fn write_err(", "pub fn note("] {
        let body = ui.split(writer).nth(1).unwrap_or_else(|| panic!("ui.rs has no {writer}"));
        let end = ["\n}", "\n    }"].iter().filter_map(|e| body.find(e)).min().unwrap_or(body.len());
        let body = &body[..end];
        assert!(body.contains("escape("), "ui.rs: {writer} writes text unescaped");
    }
}

#[test]
fn environment_read_only_in_ctx() {
    assert_clean(check(&[Rule {
        what: "the process environment is read only in ctx.rs (and the tests' stop points)",
        tokens: &["env::var", "env::var_os", "env::vars"],
        whole: false,
        allowed: &[CTX, "crates/core/src/inject.rs"],
        only: ANY,
        comments: false,
        production_only: false,
    }]));
}

#[test]
fn freshness_thresholds_live_only_in_policy() {
    assert_clean(check(&[Rule {
        what: "thresholds live only in policy",
        tokens: &["720", "2880", "5760"],
        whole: true,
        allowed: ANY,
        only: ANY,
        comments: true,
        production_only: false,
    }]));
}

#[test]
fn no_unwrap_outside_tests() {
    assert_clean(check(&[Rule {
        what: "no .unwrap() outside tests; return an Error or expect(\"... because ...\")",
        tokens: &[".unwrap()"],
        whole: false,
        allowed: ANY,
        only: ANY,
        comments: false,
        production_only: true,
    }]));
}

#[test]
fn lanes() {
    assert_clean(check(&[
        Rule {
            what: "clap is used only in src/cli/",
            tokens: &["clap"],
            whole: true,
            allowed: &["src/cli/"],
            only: ANY,
            comments: false,
            production_only: false,
        },
        Rule {
            what: "the signing crates are used only in continuity's signing.rs",
            tokens: &["ed25519_dalek", "curve25519_dalek", "minisign_verify"],
            whole: true,
            allowed: &[SIGNING],
            only: ANY,
            comments: false,
            production_only: false,
        },
        Rule {
            what: "only crates/git/ runs the git binary",
            tokens: &["Command::new(\"git\")"],
            whole: false,
            allowed: &[GIT],
            only: ANY,
            comments: false,
            production_only: false,
        },
        Rule {
            what: "the wall clock is read only in clock.rs",
            tokens: &["Utc::now", "Local::now", "SystemTime::now"],
            whole: true,
            allowed: &[CLOCK],
            only: ANY,
            comments: false,
            production_only: false,
        },
        Rule {
            what: "ctx.rs sits below the use cases",
            tokens: &["crate::commands", "crate::queries", "crate::health", "crate::hook", "crate::services"],
            whole: true,
            allowed: ANY,
            only: &[CTX],
            comments: false,
            production_only: false,
        },
    ]));
}

/// The top-level module of a file of the root crate (`src/cli/x.rs` → `cli`, `src/ui.rs` → `ui`);
/// `None` for the other crates, whose direction Cargo enforces.
fn top_module(rel: &str) -> Option<&str> {
    let rest = rel.strip_prefix("src/")?;
    let first = rest.split('/').next().unwrap_or(rest);
    Some(first.strip_suffix(".rs").unwrap_or(first))
}

/// The top-level modules the production code of a file names through `crate::`, each with the
/// line it starts on: plain paths (`crate::store::x`) and every root of a grouped `use` tree
/// (`use crate::{store::x, git::{self, Y}};`, over as many lines as it spans).
fn crate_paths(lines: &[String]) -> Vec<(usize, String)> {
    let code: Vec<&str> = lines.iter().map(|l| code(l)).collect();
    let text = code.join("\n");
    let line_of = |pos: usize| text[..pos].matches('\n').count();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(pos) = text[from..].find("crate::") {
        let start = from + pos + "crate::".len();
        from = start;
        if text[..start - "crate::".len()].chars().next_back().is_some_and(is_ident) {
            continue; // `my_crate::`
        }
        if text[start..].starts_with('{') {
            for (at, root) in use_tree_roots(&text, start) {
                out.push((line_of(at), root));
            }
            continue;
        }
        let end = text[start..].find(|c: char| !is_ident(c)).map_or(text.len(), |e| start + e);
        out.push((line_of(start), text[start..end].to_string()));
        from = end;
    }
    out
}

/// The first identifier of each item of the brace group opening at `open` (`{a::b, c, d::{e}}`
/// → `a`, `c`, `d`), with the offset it starts at; `self` is skipped.
fn use_tree_roots(text: &str, open: usize) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut item_start = true;
    let mut chars = text[open..].char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '{' => {
                depth += 1;
                item_start = depth == 1;
            }
            '}' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            ',' if depth == 1 => item_start = true,
            c if item_start && is_ident(c) => {
                let at = open + i;
                let end = text[at..].find(|c: char| !is_ident(c)).map_or(text.len(), |e| at + e);
                let name = &text[at..end];
                if name != "self" {
                    out.push((at, name.to_string()));
                }
                item_start = false;
                while chars.peek().is_some_and(|(j, _)| open + j < end) {
                    chars.next();
                }
            }
            _ => {}
        }
    }
    out
}

/// Which modules each module of the root crate may name (`crate::<module>`; the crates below are
/// re-exported there under their module names): the layers of ARCHITECTURE.md inside the root
/// crate. `lib` and `main` are the roots and may name anything.
fn allowed_imports() -> BTreeMap<&'static str, &'static [&'static str]> {
    BTreeMap::from([
        ("cli", &["ctx", "error", "model", "ops", "render", "store", "surface", "ui", "clock", "assets"][..]),
        // MCP and HTTP reach the store, git and continuity only through ops; like
        // cli they pass the context document's layout (`render::context::Text`) to ops (D40).
        ("surface", &["ctx", "error", "model", "ops", "render", "clock", "assets", "text"][..]),
        // Renderers see only reports (and the plain entries they carry): never git or ctx.
        ("render", &["continuity", "model", "ops", "store", "clock", "error", "text"][..]),
        // The one escape of text output (`text::escape`) is core's, beside the other text rules.
        ("ui", &["error", "model", "text"][..]),
    ])
}

#[test]
fn imports_follow_the_layers() {
    let allowed = allowed_imports();
    let mut bad = Vec::new();
    for s in sources() {
        let Some(from) = top_module(&s.rel) else { continue };
        if matches!(from, "lib" | "main") {
            continue;
        }
        let Some(ok) = allowed.get(from) else {
            bad.push(format!("{}: module {from} has no row in the layer table", s.rel));
            continue;
        };
        let lines = s.production_lines();
        for (i, to) in crate_paths(&lines) {
            if to != from && !ok.contains(&to.as_str()) {
                bad.push(format!("{}:{}: {from} may not name crate::{to}: {}", s.rel, i + 1, lines[i].trim()));
            }
        }
    }
    assert_clean(bad);
}

/// Where the use cases live: `crates/ops/src/<room>/<module>`.
const OPS: &str = "crates/ops/src/";

/// The rooms of the use cases and the rooms each may name (`crate::<room>::…`; its own room
/// included where listed). A command never names another command: what two commands share is a
/// service.
const ROOMS: &[(&str, &[&str])] = &[
    ("commands", &["services"]),
    ("queries", &["services", "queries"]),
    ("health", &["services", "health"]),
    ("services", &["services"]),
    ("hook", &["commands", "queries", "services"]),
];

/// The room and module of a file of the use cases (`services/continuity/views.rs` →
/// `(services, continuity)`, `hook.rs` → `(hook, hook)`); `None` outside the rooms.
fn ops_module(rel: &str) -> Option<(&str, &str)> {
    let rest = rel.strip_prefix(OPS)?;
    let mut parts = rest.split('/');
    let first = parts.next()?;
    let room = first.strip_suffix(".rs").unwrap_or(first);
    ROOMS.iter().find(|(r, _)| *r == room)?;
    let module = parts.next().map_or(room, |m| m.strip_suffix(".rs").unwrap_or(m));
    Some((room, module))
}

/// The `(room, module)` pairs a file's production code names: `crate::<room>::<module>` (each
/// root of a grouped `use crate::<room>::{a, b::c}`), and `super::<module>` from a file directly
/// in a room's directory or from a module's `mod.rs` (deeper files' `super::` stays inside their
/// module).
fn ops_edges(rel: &str, lines: &[String]) -> Vec<(String, String)> {
    let code: Vec<&str> = lines.iter().map(|l| code(l)).collect();
    let code = code.join("\n");
    let Some((room, _)) = ops_module(rel) else { return Vec::new() };
    let depth = rel.strip_prefix(OPS).map_or(0, |r| r.matches('/').count());
    let direct = depth == 1 || (depth == 2 && rel.ends_with("/mod.rs"));
    let ident_at = |at: usize| {
        let end = code[at..].find(|c: char| !is_ident(c)).map_or(code.len(), |e| at + e);
        code[at..end].to_string()
    };
    let mut out = Vec::new();
    let mut push_from = |to_room: &str, at: usize| {
        if code[at..].starts_with('{') {
            out.extend(use_tree_roots(&code, at).into_iter().map(|(_, m)| (to_room.to_string(), m)));
        } else {
            let m = ident_at(at);
            if !m.is_empty() {
                out.push((to_room.to_string(), m));
            }
        }
    };
    for (to_room, _) in ROOMS {
        let prefix = format!("crate::{to_room}::");
        let mut from = 0;
        while let Some(pos) = code[from..].find(&prefix) {
            let start = from + pos + prefix.len();
            if !code[..from + pos].chars().next_back().is_some_and(is_ident) {
                push_from(to_room, start);
            }
            from = start;
        }
    }
    if direct {
        let mut from = 0;
        while let Some(pos) = code[from..].find("super::") {
            let start = from + pos + "super::".len();
            let nested =
                code[..from + pos].ends_with("super::") || code[..from + pos].chars().next_back().is_some_and(is_ident);
            if !nested && !code[start..].starts_with("super::") {
                push_from(room, start);
            }
            from = start;
        }
    }
    out
}

#[test]
fn use_cases_keep_to_their_rooms_and_form_no_cycle() {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut bad = Vec::new();
    for s in &sources() {
        let Some((room, module)) = ops_module(&s.rel) else { continue };
        let may = ROOMS.iter().find(|(r, _)| *r == room).map_or(&[][..], |(_, m)| *m);
        for (to_room, to) in ops_edges(&s.rel, &s.production_lines()) {
            if to_room == room && to == module {
                continue;
            }
            if !may.contains(&to_room.as_str()) {
                bad.push(format!("{}: the {room} room may not name crate::{to_room}::{to}", s.rel));
            }
            graph.entry(format!("{room}::{module}")).or_default().insert(format!("{to_room}::{to}"));
        }
    }
    // Depth-first search; a back edge is a cycle, reported as its path.
    fn visit(
        n: &str,
        g: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
        cycles: &mut Vec<String>,
    ) {
        if let Some(i) = path.iter().position(|p| p == n) {
            cycles.push(format!("{} -> {n}", path[i..].join(" -> ")));
            return;
        }
        if !done.insert(n.to_string()) {
            return;
        }
        path.push(n.to_string());
        for m in g.get(n).into_iter().flatten() {
            visit(m, g, path, done, cycles);
        }
        path.pop();
    }
    let mut cycles = Vec::new();
    let mut done = BTreeSet::new();
    for n in graph.keys() {
        visit(n, &graph, &mut Vec::new(), &mut done, &mut cycles);
    }
    assert!(
        graph.get("services::continuity").is_some_and(|e| e.contains("services::identity")),
        "the graph sees super:: edges from a mod.rs: {graph:?}"
    );
    assert!(
        graph.get("hook::hook").is_some_and(|e| e.contains("services::briefing") && e.contains("commands::session")),
        "the graph sees use crate::room::{{…}} edges: {graph:?}"
    );
    assert_clean(bad);
    assert!(cycles.is_empty(), "use cases in {OPS} import each other in a cycle:\n{}", cycles.join("\n"));
}

#[test]
fn every_module_starts_with_a_module_doc() {
    let bad: Vec<String> = sources()
        .iter()
        .filter(|s| !s.lines.first().is_some_and(|l| l.starts_with("//!")))
        .map(|s| format!("{}: first line is not a //! module doc", s.rel))
        .collect();
    assert_clean(bad);
}

/// Each header says what its module must not touch, in the words ARCHITECTURE.md's tables use
/// ("Must not touch: …"), so that a reader of one file knows its boundary without the map.
#[test]
fn every_module_header_says_what_it_must_not_touch() {
    let bad: Vec<String> = sources()
        .iter()
        .filter(|s| !s.lines.iter().take_while(|l| l.starts_with("//!")).any(|l| l.contains("Must not touch")))
        .map(|s| format!("{}: the //! header does not say \"Must not touch: …\"", s.rel))
        .collect();
    assert_clean(bad);
}

#[test]
fn architecture_md_maps_every_top_level_module() {
    let doc = architecture_md();
    let mut bad = Vec::new();
    for dir in source_dirs() {
        let base = dir.strip_prefix(root()).expect("under the root").to_string_lossy().replace('\\', "/");
        for e in fs::read_dir(&dir).expect("src/ is readable") {
            let p = e.expect("src/ is readable").path();
            let name = p.file_name().expect("a directory entry has a name").to_string_lossy().into_owned();
            let wanted = if p.is_dir() { format!("`{base}/{name}/`") } else { format!("`{base}/{name}`") };
            if (p.is_dir() || name.ends_with(".rs")) && !doc.contains(&wanted) {
                bad.push(format!("ARCHITECTURE.md does not map {wanted}"));
            }
        }
    }
    bad.sort();
    assert_clean(bad);
}

/// Every file and directory of the repository, relative to the root with `/` (a directory ends
/// in `/`); `.git` and build output (`target/`) are left out.
fn repository_paths() -> BTreeSet<String> {
    fn walk(dir: &Path, out: &mut BTreeSet<String>) {
        for e in fs::read_dir(dir).expect("the repository is readable") {
            let p = e.expect("the repository is readable").path();
            let rel = p.strip_prefix(root()).expect("under the root").to_string_lossy().replace('\\', "/");
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if name == ".git" || name == "target" {
                continue;
            }
            if p.is_dir() {
                out.insert(format!("{rel}/"));
                walk(&p, out);
            } else {
                out.insert(rel);
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(&root(), &mut out);
    out
}

/// A Markdown text cut into items, each on one line: a heading, a table row, a list item with
/// its continuation lines, or a paragraph. Fenced code is left out.
fn markdown_items(doc: &str) -> Vec<String> {
    let mut items = Vec::new();
    let mut cur = String::new();
    let mut fence = false;
    for line in doc.lines() {
        let t = line.trim();
        let single = line.starts_with('|') || line.starts_with('#');
        if t.is_empty() || line.starts_with("- ") || single || line.starts_with("```") {
            items.push(std::mem::take(&mut cur));
        }
        if line.starts_with("```") {
            fence = !fence;
            continue;
        }
        if fence || t.is_empty() {
            continue;
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(t);
        if single {
            items.push(std::mem::take(&mut cur));
        }
    }
    items.push(cur);
    items.retain(|i| !i.is_empty());
    items
}

/// The `code spans` of one item.
fn code_spans(item: &str) -> Vec<&str> {
    item.split('`').skip(1).step_by(2).collect()
}

/// Whether a code span names a path of the repository: one word holding a `/` or ending in a
/// source or document extension. Paths the tool writes at run time (`.ai/…`, `refs/…`,
/// placeholders such as `<git-dir>/…`, `$XDG_STATE_HOME/…`), Rust paths and command lines are not.
fn path_like(t: &str) -> bool {
    const EXT: &[&str] = &[".rs", ".md", ".toml", ".sh", ".json", ".py"];
    !t.is_empty()
        && !t.chars().any(char::is_whitespace)
        && t.chars().any(char::is_alphanumeric)
        && !t.contains("::")
        && !t.starts_with(".ai/")
        && !t.starts_with("refs/")
        && !t.contains(['<', '>', '$', '~', '#', '|', '@', ':', '='])
        && (t.contains('/') || EXT.iter().any(|e| t.ends_with(e)))
}

/// `{a,b}` alternatives expanded: `templates/{x,y}.md` → `templates/x.md`, `templates/y.md`.
fn expand_braces(t: &str) -> Vec<String> {
    match (t.find('{'), t.find('}')) {
        (Some(a), Some(b)) if a < b => {
            t[a + 1..b].split(',').flat_map(|alt| expand_braces(&format!("{}{alt}{}", &t[..a], &t[b + 1..]))).collect()
        }
        _ => vec![t.to_string()],
    }
}

/// Whether `pattern` (a path from the root, a directory ending in `/`, `*` standing for part of
/// one name) names something in `paths`.
fn path_exists(paths: &BTreeSet<String>, pattern: &str) -> bool {
    let pattern = pattern.strip_prefix("./").unwrap_or(pattern);
    match pattern.split_once('*') {
        _ if pattern.is_empty() => true,
        None => paths.contains(pattern),
        Some((head, tail)) => paths.iter().any(|p| {
            p.len() >= head.len() + tail.len()
                && p.starts_with(head)
                && p.ends_with(tail)
                && !p[head.len()..p.len() - tail.len()].contains('/')
        }),
    }
}

/// The paths an item names that the repository does not hold. A path starting at the root (its
/// first name is an entry there) must exist as written; a shorter one (`cli/`, `json.rs`) must
/// name something under the directory of the item's first rooted path (`- `tests/cli/main.rs` —
/// `common/` (`json.rs` …)` resolves both under `tests/cli/`), or anywhere when there is none.
fn missing_paths(item: &str, paths: &BTreeSet<String>) -> Vec<String> {
    let top = |t: &str| {
        t == "./"
            || paths.contains(t.split('/').next().unwrap_or(t))
            || paths.contains(&format!("{}/", t.split('/').next().unwrap_or(t)))
    };
    let spans: Vec<&str> = code_spans(item).into_iter().filter(|t| path_like(t)).collect();
    let base = spans.iter().find(|t| top(t)).map_or(String::new(), |t| {
        let t = t.strip_prefix("./").unwrap_or(t);
        if t.ends_with('/') || t.is_empty() {
            t.to_string()
        } else {
            t.rsplit_once('/').map_or(String::new(), |(d, _)| format!("{d}/"))
        }
    });
    let mut out = Vec::new();
    for t in spans {
        for e in expand_braces(t) {
            let found = if top(&e) {
                path_exists(paths, &e)
            } else {
                paths.iter().any(|p| p.starts_with(&base) && (*p == e || p.ends_with(&format!("/{e}"))))
            };
            if !found {
                out.push(e);
            }
        }
    }
    out
}

/// ARCHITECTURE.md is the map: a path it names in a code span is a file or directory of the
/// repository, so the map cannot describe what is not there.
#[test]
fn every_path_architecture_md_names_exists() {
    let paths = repository_paths();
    assert!(paths.contains("src/cli/mod.rs") && paths.contains("crates/core/src/model/"), "the walk sees the tree");
    // The resolution itself: rooted, relative to the item's first rooted path, braces, globs.
    let probe = |item: &str| missing_paths(item, &paths);
    assert!(probe("- `tests/cli/main.rs` — `common/` (`json.rs`), `crates/core/assets/profiles/*.yaml`").is_empty());
    assert!(probe("`crates/core/assets/templates/{decisions,open-questions}.md`, `./`").is_empty());
    assert_eq!(probe("- `src/render/mod.rs` — `nothing.rs`, `src/nowhere/`"), ["nothing.rs", "src/nowhere/"]);
    assert!(probe("`.ai/local/state/current.yaml`, `<git-dir>/majordomus/`, `crate::git::Git`").is_empty());
    let doc = architecture_md();
    let items = markdown_items(&doc);
    let named: usize = items.iter().map(|i| code_spans(i).into_iter().filter(|t| path_like(t)).count()).sum();
    assert!(named > 150, "ARCHITECTURE.md names {named} paths; the item split lost some");
    let mut bad: Vec<String> = items
        .iter()
        .flat_map(|i| missing_paths(i, &paths).into_iter().map(move |p| format!("`{p}` in: {}", &i[..i.len().min(90)])))
        .collect();
    bad.sort();
    bad.dedup();
    assert_clean(bad);
}

/// The anchors GitHub gives a Markdown file's headings (lowercased; punctuation but `-` and `_`
/// dropped; spaces as `-`), fenced code left out.
fn heading_anchors(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut fence = false;
    for line in text.lines() {
        if line.starts_with("```") {
            fence = !fence;
        }
        let Some(h) = line.strip_prefix('#').filter(|_| !fence) else { continue };
        let h = h.trim_start_matches('#');
        if !h.starts_with(' ') {
            continue;
        }
        let a: String = h
            .trim()
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        out.insert(a);
    }
    out
}

/// Every `.rs` and `.md` file of the repository (fuzz corpora left out), relative to the root.
fn texts() -> Vec<String> {
    repository_paths()
        .into_iter()
        .filter(|p| (p.ends_with(".rs") || p.ends_with(".md")) && !p.starts_with("fuzz/corpus/"))
        .collect()
}

/// A citation of the project's own documents is a promise that the section exists: every
/// `docs/<NAME>.md#<anchor>` in a source or a document names a heading of that file, and every
/// relative Markdown link (`[x](path#anchor)`) a file (and heading) that is there.
#[test]
fn citations_of_the_projects_docs_name_headings_that_exist() {
    const DOCS: &[&str] = &["REFERENCE", "SYNC", "SECURITY", "HOOKS", "PERFORMANCE", "DECISIONS", "STATUS"];
    let anchors_of = |rel: &str| fs::read_to_string(root().join(rel)).map(|t| heading_anchors(&t)).ok();
    assert!(heading_anchors("## Outcomes, and what to do\n```\n# not: a heading\n```\n")
        .into_iter()
        .eq(["outcomes-and-what-to-do".to_string()]));
    let mut bad = Vec::new();
    let mut seen = 0;
    for rel in texts() {
        let text = fs::read_to_string(root().join(&rel)).expect("text files are UTF-8");
        for (n, line) in text.lines().enumerate() {
            for doc in DOCS {
                let needle = format!("{doc}.md#");
                let mut from = 0;
                while let Some(pos) = line[from..].find(&needle) {
                    let at = from + pos + needle.len();
                    let end = line[at..]
                        .find(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_'))
                        .map_or(line.len(), |e| at + e);
                    let anchor = &line[at..end];
                    seen += 1;
                    if !anchors_of(&format!("docs/{doc}.md")).is_some_and(|a| a.contains(anchor)) {
                        bad.push(format!("{rel}:{}: docs/{doc}.md has no heading #{anchor}", n + 1));
                    }
                    from = end;
                }
            }
            if !rel.ends_with(".md") {
                continue;
            }
            let mut from = 0;
            while let Some(pos) = line[from..].find("](") {
                let at = from + pos + 2;
                let end = line[at..].find([')', ' ']).map_or(line.len(), |e| at + e);
                let target = &line[at..end];
                from = end;
                if target.starts_with("http://") || target.starts_with("https://") || target.starts_with("mailto:") {
                    continue;
                }
                let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
                let dir = Path::new(&rel).parent().unwrap_or(Path::new(""));
                let path = if file.is_empty() { PathBuf::from(&rel) } else { dir.join(file) };
                let path = path.to_string_lossy().replace('\\', "/");
                if !root().join(&path).exists() {
                    bad.push(format!("{rel}:{}: link to {target}: no such file", n + 1));
                } else if !anchor.is_empty()
                    && path.ends_with(".md")
                    && !anchors_of(&path).is_some_and(|a| a.contains(anchor))
                {
                    bad.push(format!("{rel}:{}: link to {target}: no such heading", n + 1));
                }
            }
        }
    }
    assert!(seen > 100, "only {seen} citations of docs/*.md#… found: the scan is broken");
    assert_clean(bad);
}

/// The documents the tool was first built from are not in the repository, so nothing may cite
/// them: a comment or a document names the fact, or the project's own doc (docs/REFERENCE.md,
/// docs/DECISIONS.md `Dnn`, …).
const OUTSIDE_DOCUMENTS: &[&str] = &["SPEC", "TECH-NOTES", "HOSTS.md", "STYLE.md", "TRIAL", "§", "../shared/"];

#[test]
fn docs_and_comments_cite_no_document_outside_the_repository() {
    let mut bad = Vec::new();
    // This file names them to find them.
    for rel in texts().into_iter().filter(|r| r != "tests/architecture.rs") {
        let text = fs::read_to_string(root().join(&rel)).expect("text files are UTF-8");
        for (n, line) in text.lines().enumerate() {
            let Some(tok) = OUTSIDE_DOCUMENTS.iter().find(|t| has_token(line, t, true)) else { continue };
            bad.push(format!("{rel}:{}: cites {tok}: {}", n + 1, line.trim()));
        }
    }
    assert!(has_token("(SPEC §A.28)", "SPEC", true) && !has_token("SPECIAL", "SPEC", true));
    assert_clean(bad);
}

/// The workspace's crates and the workspace crates each depends on (normal dependencies), as
/// `cargo metadata` reports them.
fn crate_graph() -> BTreeMap<String, BTreeSet<String>> {
    let out = std::process::Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--no-deps", "--offline"])
        .current_dir(root())
        .output()
        .expect("cargo metadata runs");
    assert!(out.status.success(), "cargo metadata: {}", String::from_utf8_lossy(&out.stderr));
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON");
    let packages = meta["packages"].as_array().expect("packages");
    let names: BTreeSet<String> = packages.iter().filter_map(|p| p["name"].as_str()).map(str::to_owned).collect();
    let mut graph = BTreeMap::new();
    for p in packages {
        let deps = p["dependencies"]
            .as_array()
            .expect("dependencies")
            .iter()
            .filter(|d| d["kind"].is_null())
            .filter_map(|d| d["name"].as_str())
            .filter(|d| names.contains(*d))
            .map(str::to_owned)
            .collect();
        graph.insert(p["name"].as_str().expect("name").to_owned(), deps);
    }
    graph
}

/// `| `<crate>` | `<path>` | <deps> | ... |` rows under `## Crates`: each crate and the
/// workspace crates it depends on (comma-separated, `—` for none).
fn documented_crate_graph() -> BTreeMap<String, BTreeSet<String>> {
    let doc = architecture_md();
    let section = doc.split("\n## Crates").nth(1).expect("ARCHITECTURE.md has a '## Crates' section");
    let section = section.split("\n## ").next().unwrap_or(section);
    let mut rows = BTreeMap::new();
    for line in section.lines() {
        let cells: Vec<&str> = line.trim().trim_matches('|').split('|').map(str::trim).collect();
        if cells.len() < 3 || !cells[0].starts_with('`') {
            continue;
        }
        let deps = cells[2]
            .split(',')
            .map(|d| d.trim().trim_matches('`').to_owned())
            .filter(|d| !d.is_empty() && d != "—")
            .collect();
        rows.insert(cells[0].trim_matches('`').to_owned(), deps);
    }
    rows
}

#[test]
fn architecture_md_draws_the_crate_graph_cargo_reports() {
    let cargo = crate_graph();
    assert!(cargo.len() >= 7, "cargo metadata lists the workspace: {cargo:?}");
    assert_eq!(documented_crate_graph(), cargo, "ARCHITECTURE.md's crate table (left) against cargo metadata (right)");
    // The direction the layers need: the core depends on no crate of the workspace, git and the
    // store on the core only, and nothing below the root crate names it.
    assert!(cargo["majordomus-core"].is_empty());
    for low in ["majordomus-git", "majordomus-store"] {
        assert_eq!(cargo[low], BTreeSet::from(["majordomus-core".to_owned()]), "{low}");
    }
    for (name, deps) in &cargo {
        if name != "majordomus-fuzzing" {
            assert!(!deps.contains("git-majordomus"), "{name} depends on the root crate");
        }
    }
}

/// `| <code> | `<Variant>` | ... |` rows under `## Exit codes`.
fn documented_exit_codes() -> BTreeMap<u8, String> {
    let doc = architecture_md();
    let section = doc.split("\n## Exit codes").nth(1).expect("ARCHITECTURE.md has a '## Exit codes' section");
    let section = section.split("\n## ").next().unwrap_or(section);
    let mut rows = BTreeMap::new();
    for line in section.lines() {
        let cells: Vec<&str> = line.trim().trim_matches('|').split('|').map(str::trim).collect();
        if cells.len() < 3 {
            continue;
        }
        let Ok(code) = cells[0].parse::<u8>() else {
            continue;
        };
        let variant = cells[1].trim_matches('`').to_owned();
        assert!(rows.insert(code, variant).is_none(), "exit code {code} is listed twice");
    }
    rows
}

/// `Variant = <code>,` lines of `pub enum Exit` in the core's error.rs.
fn enum_exit_codes() -> BTreeMap<u8, String> {
    let src = fs::read_to_string(root().join("crates/core/src/error.rs")).expect("error.rs is readable");
    let body = src.split("pub enum Exit {").nth(1).expect("error.rs defines pub enum Exit");
    let body = body.split('}').next().unwrap_or(body);
    let mut out = BTreeMap::new();
    for line in body.lines().map(str::trim).filter(|l| !l.starts_with("//") && !l.starts_with('#')) {
        if let Some((name, value)) = line.trim_end_matches(',').split_once('=') {
            let code: u8 =
                value.trim().parse().unwrap_or_else(|_| panic!("Exit::{} has no literal value", name.trim()));
            assert!(out.insert(code, name.trim().to_owned()).is_none(), "exit code {code} appears twice in Exit");
        }
    }
    out
}

#[test]
fn exit_code_table_matches_the_exit_enum() {
    let doc = documented_exit_codes();
    let code = enum_exit_codes();
    assert!(!doc.is_empty(), "no rows found in ARCHITECTURE.md's exit-code table");
    assert_eq!(doc, code, "ARCHITECTURE.md's exit-code table (left) differs from error.rs `Exit` (right)");
    // The documented codes (docs/REFERENCE.md, "Exit codes").
    assert_eq!(doc.keys().copied().collect::<Vec<_>>(), vec![0, 2, 10, 11, 12, 13, 15]);
}

#[test]
fn the_greps_see_what_they_should() {
    assert!(has_token("use gix::Repository;", "gix", true));
    assert!(!has_token("let gixel = 1;", "gix", true));
    assert!(has_token("    println!(\"x\")", "println!", false));
    assert!(!has_token("eprintln!(\"x\")", "println!", false));
    assert!(has_token("std::env::var(\"X\")", "env::var", false));
    assert!(has_token("let m = 720;", "720", true));
    assert!(!has_token("let m = 7200;", "720", true));
    assert!(!has_token("0x2880", "2880", true));
    assert!(has_token("let v = x.unwrap();", ".unwrap()", false));
    assert!(!has_token("x.unwrap_or(0)", ".unwrap()", false));
    assert_eq!(code("    //! gix"), "");
    assert_eq!(code("let a = 1; // gix").trim_end(), "let a = 1;");
    assert_eq!(code("let u = \"https://x\";"), "let u = \"https://x\";");
    let paths =
        |src: &str| -> Vec<(usize, String)> { crate_paths(&src.lines().map(str::to_string).collect::<Vec<_>>()) };
    let names = |src: &str| paths(src).into_iter().map(|(_, m)| m).collect::<Vec<_>>();
    assert_eq!(names("use crate::store::atomic;"), ["store"]);
    assert_eq!(names("use crate::{store::x, git::{self, Y}, ops};"), ["store", "git", "ops"]);
    assert_eq!(paths("use crate::{\n    self as c,\n    git::Git,\n};"), [(2, "git".to_string())]);
    assert_eq!(names("let x = crate::git::Git::discover(p); // crate::ops"), ["git"]);
    assert!(names("use my_crate::store;").is_empty());
}

#[test]
fn test_items_are_found_at_any_depth() {
    let text = "fn a() {}\n#[cfg(test)]\nmod tests {\n    fn b() {}\n}\nfn c() {\n    x.unwrap();\n}\nimpl T {\n    #[cfg(test)]\n    fn d() {\n        y.unwrap();\n    }\n    fn e() {}\n}\n#[cfg(any(test, feature = \"x\"))]\nfn f() {}\n";
    let marks = test_lines(text, "t.rs");
    let tested: Vec<usize> = marks.iter().enumerate().filter(|(_, t)| **t).map(|(i, _)| i + 1).collect();
    assert_eq!(tested, [2, 3, 4, 5, 10, 11, 12, 13, 16, 17]);
    assert!(test_lines("#![cfg(test)]\nfn a() {}\n", "t.rs").iter().all(|t| *t));
}

/// `cargo install git-majordomus` builds what `cargo package` ships: the sources and what they
/// embed, the README and the licences — no tests, fixtures, benches, scripts or build output.
#[test]
fn the_package_ships_only_sources_assets_and_licences() {
    let out = std::process::Command::new(env!("CARGO"))
        .args(["package", "--list", "--allow-dirty", "--offline", "-p", "git-majordomus"])
        .current_dir(root())
        .output()
        .expect("cargo package runs");
    assert!(out.status.success(), "cargo package --list: {}", String::from_utf8_lossy(&out.stderr));
    let files = String::from_utf8(out.stdout).expect("UTF-8 paths");
    let shipped = |f: &str| {
        ["src/", "assets/cockpit/", "schemas/"].iter().any(|p| f.starts_with(p))
            || [
                ".cargo_vcs_info.json",
                "Cargo.lock",
                "Cargo.toml",
                "Cargo.toml.orig",
                "README.md",
                "LICENSE-MIT",
                "LICENSE-APACHE",
            ]
            .contains(&f)
    };
    let bad: Vec<&str> = files.lines().filter(|f| !shipped(f) || f.ends_with(".snap")).collect();
    assert!(bad.is_empty(), "cargo package would ship: {bad:?}");
    for needed in ["src/main.rs", "LICENSE-MIT", "LICENSE-APACHE", "README.md", "assets/cockpit/page.html"] {
        assert!(files.lines().any(|f| f == needed), "{needed} is not shipped");
    }
}

/// The files of one crate that a source names through `crate::…` and `super::…` paths (the
/// longest prefix of each path that is a module file), its own ancestors aside.
fn crate_file_edges(s: &Source, files: &BTreeSet<String>) -> BTreeSet<String> {
    let Some((src, inner)) = s.rel.split_once("/src/").map(|(c, r)| (format!("{c}/src"), r)) else {
        return BTreeSet::new();
    };
    let module: Vec<&str> = {
        let stem = inner.trim_end_matches(".rs");
        let mut parts: Vec<&str> = stem.split('/').collect();
        if matches!(parts.last(), Some(&("mod" | "lib" | "main"))) {
            parts.pop();
        }
        parts
    };
    let file_of = |segments: &[&str]| {
        (1..=segments.len()).rev().find_map(|n| {
            let stem = std::iter::once(src.as_str()).chain(segments[..n].iter().copied()).collect::<Vec<_>>().join("/");
            [format!("{stem}.rs"), format!("{stem}/mod.rs")].into_iter().find(|f| files.contains(f))
        })
    };
    let code = s.production_lines().iter().map(|l| code(l).to_string()).collect::<Vec<_>>().join("\n");
    let mut out = BTreeSet::new();
    for (prefix, base) in [("crate::", &module[..0]), ("super::", &module[..module.len().saturating_sub(1)])] {
        for (at, _) in code.match_indices(prefix) {
            if code[..at].ends_with(|c: char| is_ident(c) || c == ':') {
                continue;
            }
            let mut path: Vec<&str> = code[at + prefix.len()..]
                .split(|c: char| !(is_ident(c) || c == ':'))
                .next()
                .unwrap_or_default()
                .split("::")
                .take_while(|p| {
                    !p.is_empty() && p.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
                })
                .collect();
            // `super::super::x`: each further `super` goes up one more.
            let ups = path.iter().take_while(|p| **p == "super").count();
            path.drain(..ups);
            let Some(base) = base.get(..base.len().saturating_sub(ups)).filter(|_| ups <= base.len()) else { continue };
            let segments: Vec<&str> = base.iter().copied().chain(path).collect();
            if segments.is_empty() || module.starts_with(&segments) {
                continue;
            }
            if let Some(file) = file_of(&segments) {
                out.insert(file);
            }
        }
    }
    out.remove(&s.rel);
    out
}

#[test]
fn no_two_files_of_a_crate_import_each_other() {
    let sources = sources();
    let files: BTreeSet<String> = sources.iter().map(|s| s.rel.clone()).collect();
    let edges: BTreeMap<&str, BTreeSet<String>> =
        sources.iter().map(|s| (s.rel.as_str(), crate_file_edges(s, &files))).collect();
    // A module and the modules under it may name each other (a parent re-exports its parts).
    let dir_of = |f: &str| f.trim_end_matches("/mod.rs").trim_end_matches(".rs").to_string();
    let related = |a: &str, b: &str| {
        dir_of(b).starts_with(&format!("{}/", dir_of(a))) || dir_of(a).starts_with(&format!("{}/", dir_of(b)))
    };
    let mut circles = Vec::new();
    for (a, to) in &edges {
        for b in to {
            if a < &b.as_str() && !related(a, b) && edges.get(b.as_str()).is_some_and(|back| back.contains(*a)) {
                circles.push(format!("{a} <-> {b}"));
            }
        }
    }
    assert!(
        circles.is_empty(),
        "two files of a crate import each other (move the shared item down):\n{}",
        circles.join("\n")
    );
}

#[test]
fn the_import_edges_resolve_crate_and_super_paths() {
    let files: BTreeSet<String> =
        ["crates/x/src/lib.rs", "crates/x/src/a.rs", "crates/x/src/b/mod.rs", "crates/x/src/b/c.rs"]
            .map(String::from)
            .into();
    let source = |rel: &str, text: &str| Source {
        rel: rel.into(),
        lines: text.lines().map(String::from).collect(),
        test: vec![false; text.lines().count()],
    };
    let a = crate_file_edges(&source("crates/x/src/a.rs", "use crate::b::c::Thing;\nuse crate::b;\n"), &files);
    assert_eq!(a, ["crates/x/src/b/c.rs", "crates/x/src/b/mod.rs"].map(String::from).into());
    let c = crate_file_edges(&source("crates/x/src/b/c.rs", "use super::super::a::f;\n"), &files);
    assert_eq!(c, ["crates/x/src/a.rs"].map(String::from).into(), "super::super goes up twice");
    let c = crate_file_edges(&source("crates/x/src/b/c.rs", "// use crate::a;\n"), &files);
    assert_eq!(c, BTreeSet::new(), "a comment names nothing");
    let c = crate_file_edges(&source("crates/x/src/b/c.rs", "use super::Thing;\nfn f() { crate::a::g() }\n"), &files);
    assert_eq!(c, ["crates/x/src/a.rs"].map(String::from).into(), "super:: of a part is its parent: not an edge");
}

#[test]
fn services_choose_no_exit_code() {
    assert_clean(check(&[Rule {
        what:
            "a service says what went wrong as a typed error; crates/ops/src/edge.rs maps it to an exit code and a hint",
        tokens: &[
            "Exit::",
            "Error::new(",
            "Error::usage(",
            "Error::refused(",
            "Error::not_found(",
            "Error::io(",
            "Error::io_at(",
            "Error::conflict(",
            "Error::no_layer(",
        ],
        whole: false,
        allowed: ANY,
        only: &["crates/ops/src/services/"],
        comments: false,
        production_only: true,
    }]));
}
