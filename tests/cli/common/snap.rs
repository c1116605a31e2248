//! Whole-output assertions: `insta` settings that filter what differs from run to run (the
//! test's temporary directory, record ids, keys, hashes, the version, timings, ports), so an
//! inline snapshot changes only when what the binary prints changes.
//!
//! ```ignore
//! let env = TestEnv::new();
//! let _snap = env.snapshots();
//! insta::assert_snapshot!(r.mj(&["state"]).shown(), @"...");
//! ```
//!
//! Fill or update the `@"..."` literals with `cargo insta test --accept --test cli -- <filter>`
//! (the `cargo-insta` tool) and review the diff. Must not touch: the binary's environment (that
//! is `TestEnv`'s) or any file the tests write.

use super::{Output, TestEnv};

impl Output {
    /// Stdout, then stderr and the exit code, as one reviewable text.
    pub fn shown(&self) -> String {
        format!("{}--- stderr\n{}--- exit {}\n", self.stdout, self.stderr, self.code)
    }
}

/// The filters, in the order they apply.
pub fn settings(env: &TestEnv) -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("snapshots");
    settings.set_prepend_module_to_snapshot(false);
    // The temporary root, also as git and some tools print it (a trailing slash, canonical).
    let root = env.path().display().to_string();
    if let Ok(canonical) = env.path().canonicalize() {
        let canonical = canonical.display().to_string();
        if canonical != root {
            settings.add_filter(&regex_escape(&canonical), "[TMP]");
        }
    }
    settings.add_filter(&regex_escape(&root), "[TMP]");
    settings.add_filter(r"\b([ts])-[0-9a-z]+-[0-9a-f]{4}\b", "$1-[ID]");
    settings.add_filter(r"RW[A-Za-z0-9+/]{40,}={0,2}", "[PUBLIC KEY]");
    // A device key's id (16 upper-case hex digits) where a key is named, before the hashes: a
    // random id of digits only would otherwise read as one (1 run in 1,845).
    settings.add_filter(r#"\b((?:key|key id|key_id|keys)"?:?\s+"?)[0-9A-F]{16}\b"#, "${1}[KEY ID]");
    settings.add_filter(r"\b[0-9a-f]{7,64}\b", "[HEX]");
    // Any other (a file name's random suffix, a key id in a list).
    settings.add_filter(r"\b[0-9A-F]{16}\b", "[KEY ID]");
    settings.add_filter(r"git-majordomus/\d+\.\d+\.\d+", "git-majordomus/[VERSION]");
    settings.add_filter(r"\bran in \d+ ms\b", "ran in [N] ms");
    settings.add_filter(r"127\.0\.0\.1:\d+", "127.0.0.1:[PORT]");
    // Whether a run stayed under its time budget (OK) or not (WARN) depends on the machine's load.
    settings.add_filter(r"(?m)^(?:OK|WARN) budget ", "[OK|WARN] budget ");
    // finish times the verification command in whole seconds.
    settings.add_filter(r"\bexited (-?\d+) in \d+ s\b", "exited $1 in [N] s");
    // A continuity record's store path (`records/<id[..2]>/<id[2..4]>/<id>.json`): its folders.
    settings.add_filter(r"\brecords/[0-9a-f]{2}/[0-9a-f]{2}/", "records/[..]/[..]/");
    settings
}

impl TestEnv {
    /// Binds this test's snapshot filters until the guard drops (see the module header).
    pub fn snapshots(&self) -> insta::internals::SettingsBindDropGuard {
        settings(self).bind_to_scope()
    }
}

/// Whether `text` holds `line` as a whole line (an exact check of one line where the whole
/// output is not deterministic).
pub fn has_line(text: &str, line: &str) -> bool {
    text.lines().any(|l| l == line)
}

/// `text` with each id of `ids` replaced by `[name]`, so that a snapshot still says which record,
/// task or key a line names where the filters would make them all `[HEX]` or `[ID]`.
pub fn named(text: &str, ids: &[(&str, &str)]) -> String {
    ids.iter().fold(text.to_string(), |t, (name, id)| t.replace(id, &format!("[{name}]")))
}

/// `s` as a regular expression matching itself.
pub fn regex_escape(s: &str) -> String {
    s.chars().fold(String::new(), |mut o, c| {
        if "\\.+*?()|[]{}^$".contains(c) {
            o.push('\\');
        }
        o.push(c);
        o
    })
}
