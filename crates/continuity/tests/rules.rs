//! The read model's rules version (`readmodel::RULES`) against the code that decides what it
//! caches: this test hashes that code — the production part of every rule source, comment lines
//! and blank lines and indentation aside, and the `Cargo.lock` entries of every crate the
//! continuity library runs — and fails until the hash recorded in `rules.lock` is the current
//! one under the current version. A change of a rule therefore forces a bump (every user's cache
//! is then rebuilt once); an edit of a comment does not.
//!
//! Record a bumped version: `MAJORDOMUS_UPDATE_RULES=1 cargo test -p majordomus-continuity --test rules`
//! (it refuses while the version is the recorded one). Must not touch: anything but `rules.lock`.

#![allow(clippy::unwrap_used)]

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use majordomus_continuity::readmodel::RULES;

/// Every source whose code decides a value the read model caches — a verdict (shape, bounds,
/// id, signature, portability, path), a summary field or the file format. A module these use
/// must be here or in [`DECIDE_NOTHING_CACHED`] (checked below).
const RULE_SOURCES: &[&str] = &[
    "crates/continuity/src/admission.rs",
    "crates/continuity/src/portability.rs",
    "crates/continuity/src/record.rs",
    "crates/continuity/src/readmodel/mod.rs",
    "crates/continuity/src/readmodel/format.rs",
    "crates/continuity/src/readmodel/merge.rs",
    "crates/continuity/src/readmodel/rows.rs",
    "crates/continuity/src/readmodel/summary.rs",
    "crates/continuity/src/signing.rs",
    "crates/continuity/src/lineage.rs",
    "crates/continuity/src/view.rs",
    "crates/git/src/store/mod.rs",
    "crates/git/src/store/pack.rs",
    "crates/git/src/store/refs.rs",
    "crates/git/src/store/tree.rs",
    "crates/core/src/model/vocabulary.rs",
    "crates/core/src/model/labels.rs",
    "crates/core/src/model/record.rs",
    "crates/core/src/model/markdown.rs",
    "crates/core/src/model/citations.rs",
    "crates/core/src/clock.rs",
    "crates/core/src/text.rs",
    "crates/core/src/hex.rs",
    "crates/core/src/oid.rs",
];

/// The modules the rule sources use that decide nothing the read model caches, and why.
const DECIDE_NOTHING_CACHED: &[(&str, &str)] = &[
    ("crates/continuity/src/mesh.rs", "trust and standing are judged on every read, never cached"),
    ("crates/core/src/error.rs", "the error type of local failures: no verdict"),
    ("crates/store/src/atomic.rs", "writes files (the device key): no verdict"),
    ("crates/git/src/binary.rs", "runs the git binary for remotes: no stored blob is read through it"),
];

/// The workspace root, or `None` outside it (a packaged crate has no sibling crates to hash).
fn root() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.join("Cargo.lock").is_file().then_some(root)
}

/// The production code of a source: before its test module (`mod tests`, private or shared
/// within its crate), without comment or blank lines,
/// without indentation, and without the one-line attributes of the feature `mcp` (the JSON
/// Schema a surface publishes of a type describes its shape and decides nothing).
fn production(text: &str) -> String {
    let tests = ["\n#[cfg(test)]\nmod tests", "\n#[cfg(test)]\npub(crate) mod tests"];
    let code = tests.iter().filter_map(|t| text.find(t)).min().map_or(text, |at| &text[..at]);
    let schema_only = |l: &str| l.starts_with("#[cfg_attr(feature = \"mcp\",") && l.ends_with(")]");
    code.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//") && !schema_only(l))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The `[[package]]` entries of `Cargo.lock` reachable from `from` through their dependencies.
fn lock_closure(lock: &str, from: &str) -> Vec<String> {
    let entries: Vec<&str> = lock.split("[[package]]").skip(1).collect();
    let field = |e: &str, key: &str| {
        e.lines()
            .find_map(|l| l.strip_prefix(&format!("{key} = \"")).and_then(|v| v.strip_suffix('"')).map(str::to_string))
    };
    let deps = |e: &str| -> Vec<String> {
        e.split_once("dependencies = [")
            .map(|(_, rest)| rest.split(']').next().unwrap_or_default())
            .unwrap_or_default()
            .split('"')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect()
    };
    // A dependency is named `name` or, when two versions are locked, `name version`.
    let find = |want: &str| {
        let (name, version) = want.split_once(' ').map_or((want, None), |(n, v)| (n, Some(v)));
        entries.iter().find(|e| {
            field(e, "name").as_deref() == Some(name)
                && version.is_none_or(|v| field(e, "version").as_deref() == Some(v))
        })
    };
    let mut seen = BTreeSet::new();
    let mut todo = vec![from.to_string()];
    let mut out = Vec::new();
    while let Some(want) = todo.pop() {
        let entry = find(&want).unwrap_or_else(|| panic!("Cargo.lock has no entry {want}"));
        if seen.insert(entry.trim().to_string()) {
            out.push(entry.trim().to_string());
            todo.extend(deps(entry));
        }
    }
    out.sort();
    out
}

/// The hash of everything that decides a cached value.
fn rules_code_hash(root: &Path) -> String {
    let mut h = blake3::Hasher::new();
    for path in RULE_SOURCES {
        let code = production(&std::fs::read_to_string(root.join(path)).unwrap());
        h.update(path.as_bytes());
        h.update(&(code.len() as u64).to_le_bytes());
        h.update(code.as_bytes());
    }
    for entry in lock_closure(&std::fs::read_to_string(root.join("Cargo.lock")).unwrap(), "majordomus-continuity") {
        h.update(&(entry.len() as u64).to_le_bytes());
        h.update(entry.as_bytes());
    }
    h.finalize().to_hex()[..32].to_string()
}

#[test]
fn the_rules_version_is_bumped_when_the_code_deciding_a_cached_value_changes() {
    let Some(root) = root() else { return };
    let lock_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("rules.lock");
    let recorded = std::fs::read_to_string(&lock_path).unwrap_or_default();
    let (version, hash) = recorded
        .lines()
        .find(|l| !l.starts_with('#'))
        .and_then(|l| l.split_once(' '))
        .map(|(v, h)| (v.to_string(), h.to_string()))
        .unwrap_or_default();
    let now = rules_code_hash(&root);
    if version == RULES && hash == now {
        return;
    }
    let update = std::env::var_os("MAJORDOMUS_UPDATE_RULES").is_some();
    if update && version != RULES {
        let text = format!(
            "# readmodel::RULES and the hash of the code that decides a cached value (tests/rules.rs).\n{RULES} {now}\n"
        );
        std::fs::write(&lock_path, text).unwrap();
        return;
    }
    if version == RULES {
        panic!(
            "the code that decides a cached read-model value changed under {RULES}: bump `readmodel::RULES`, \
             then record it with MAJORDOMUS_UPDATE_RULES=1 cargo test -p majordomus-continuity --test rules"
        );
    }
    panic!("readmodel::RULES is {RULES} but rules.lock records {version:?}: record it with MAJORDOMUS_UPDATE_RULES=1");
}

#[test]
fn the_hash_covers_every_module_the_rule_sources_use() {
    let Some(root) = root() else { return };
    let listed: HashSet<&str> = RULE_SOURCES.iter().copied().collect();
    let exempt: HashSet<&str> = DECIDE_NOTHING_CACHED.iter().map(|(p, _)| *p).collect();
    // The module names a crate's root gives the crates below it (`use majordomus_git as git`).
    let below = |first: &str| match first {
        "git" => Some("crates/git/src"),
        "store" => Some("crates/store/src"),
        "model" | "clock" | "error" | "format" | "assets" => Some("crates/core/src"),
        _ => None,
    };
    let mut missing = Vec::new();
    for path in RULE_SOURCES {
        let text = std::fs::read_to_string(root.join(path)).unwrap();
        let (src, inner) = path.split_once("/src/").map(|(c, r)| (format!("{c}/src"), r)).unwrap();
        // `super::` of `a/b.rs` is `a`, of `a/b/mod.rs` also `a`.
        let module_dir = Path::new(inner).parent().unwrap();
        let dir = if inner.ends_with("/mod.rs") { module_dir.parent().unwrap() } else { module_dir };
        let dir = dir.to_str().unwrap();
        let code = production(&text);
        for (prefix, base) in [("crate::", ""), ("super::", dir)] {
            for (at, _) in code.match_indices(prefix) {
                let rest = &code[at + prefix.len()..];
                let mut segments: Vec<&str> = rest
                    .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
                    .next()
                    .unwrap_or_default()
                    .split("::")
                    .take_while(|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
                    .collect();
                // `crate::git::x` in a crate that names git below it: git's own `x`.
                let mut crate_src = src.clone();
                if prefix == "crate::" && !segments.is_empty() {
                    if let Some(other) = below(segments[0]).filter(|o| *o != src) {
                        crate_src = other.to_string();
                        if matches!(segments[0], "git" | "store") {
                            segments.remove(0);
                        }
                    }
                }
                // The longest prefix of the path that is a file: `a/b.rs` or `a/b/mod.rs`.
                let file = (1..=segments.len()).rev().find_map(|n| {
                    let stem = [crate_src.as_str(), base]
                        .into_iter()
                        .chain(segments[..n].iter().copied())
                        .filter(|s| !s.is_empty())
                        .collect::<Vec<_>>()
                        .join("/");
                    [format!("{stem}.rs"), format!("{stem}/mod.rs")].into_iter().find(|f| root.join(f).is_file())
                });
                let Some(file) = file else { continue };
                if !listed.contains(file.as_str()) && !exempt.contains(file.as_str()) && !missing.contains(&file) {
                    missing.push(file);
                }
            }
        }
    }
    assert!(missing.is_empty(), "used by the rules but not in RULE_SOURCES nor DECIDE_NOTHING_CACHED: {missing:?}");
}

#[test]
fn the_hash_ignores_comments_and_layout_but_not_code() {
    let code = "fn f() -> u8 {\n    1\n}\n";
    assert_eq!(production(code), production("// a note\nfn f() -> u8 {\n        1\n\n}\n"));
    assert_ne!(production(code), production("fn f() -> u8 {\n    2\n}\n"));
    assert_eq!(production("fn f() {}\n#[cfg(test)]\nmod tests {\n    fn t() {}\n}\n"), "fn f() {}");
}

#[test]
fn the_lock_closure_follows_dependencies() {
    let lock = "[[package]]\nname = \"a\"\nversion = \"1.0.0\"\ndependencies = [\n \"b\",\n \"c 2.0.0\",\n]\n\n\
                [[package]]\nname = \"b\"\nversion = \"1.0.0\"\n\n\
                [[package]]\nname = \"c\"\nversion = \"1.0.0\"\n\n\
                [[package]]\nname = \"c\"\nversion = \"2.0.0\"\n\n\
                [[package]]\nname = \"d\"\nversion = \"1.0.0\"\n";
    let names: Vec<String> =
        lock_closure(lock, "a").iter().map(|e| e.lines().take(2).collect::<Vec<_>>().join(" ")).collect();
    assert_eq!(
        names,
        ["name = \"a\" version = \"1.0.0\"", "name = \"b\" version = \"1.0.0\"", "name = \"c\" version = \"2.0.0\""]
    );
}
