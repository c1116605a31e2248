//! Hostile input (issue 11 item 4): every parser that reads bytes someone else controls, through
//! the entry points of `majordomus_fuzzing` (the same functions the cargo-fuzz targets in
//! `fuzz/` call), over the seed corpora in `fuzz/corpus/`, a proptest-generated stream of random
//! and mutated inputs, and adversarial inputs at the size caps — no panic, no hang (each call is
//! timed), bounded memory (the process's peak resident set is reset before and read after each
//! call).
//!
//! `make fuzz` runs libFuzzer over the same entry points for longer (docs/DECISIONS.md).
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use majordomus::continuity::portability::scan_admission;
use majordomus_fuzzing::{target, TARGETS};
use proptest::prelude::*;
use serde_json::json;

// ---------------------------------------------------------------------------------------------
// Time and memory of one call

/// The process's peak resident set since the last [`reset_peak`], in bytes (Linux `VmHWM`);
/// `None` where /proc is not there.
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb = status.lines().find_map(|l| l.strip_prefix("VmHWM:"))?.trim().trim_end_matches("kB").trim();
    kb.parse::<u64>().ok().map(|k| k * 1024)
}

/// Resets the peak resident set to the current one (`echo 5 > /proc/self/clear_refs`).
fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// The whole test process (every test thread at once) may peak at this resident set while a
/// call runs: far above what the parsers need (a few MiB), far below a blow-up.
const MEMORY_BOUND: u64 = 1 << 30;

/// A call may use this much CPU time (a debug build; typical calls take microseconds to
/// milliseconds).
const TIME_BOUND: Duration = Duration::from_secs(4);

/// A call may take this long on the wall clock: the CPU bound is what catches a runaway parser;
/// this one catches a call that blocks, with room for a machine loaded by other work.
const WALL_BOUND: Duration = Duration::from_secs(60);

/// The CPU time this thread has run (`/proc/thread-self/schedstat`, nanoseconds); `None` where
/// it is not there. Unlike the wall clock it does not grow while other processes hold the cores,
/// so a bound on it does not fail a healthy parser on a busy machine.
fn thread_cpu() -> Option<Duration> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok().map(Duration::from_nanos)
}

/// Runs `f`, asserting that it stays within `cpu_bound` of CPU time (the wall clock when the
/// thread's CPU time cannot be read) and within [`WALL_BOUND`].
#[track_caller]
fn bounded(cpu_bound: Duration, what: &str, f: impl FnOnce()) {
    let (wall, cpu) = (Instant::now(), thread_cpu());
    f();
    let took = wall.elapsed();
    let used = cpu.and_then(|c| Some(thread_cpu()?.saturating_sub(c))).unwrap_or(took);
    assert!(used < cpu_bound, "{what}: {used:?} of CPU ({took:?} on the wall clock)");
    assert!(took < WALL_BOUND, "{what}: {took:?} on the wall clock");
}

/// Runs target `name` on `input`; panics (with the input's name) on a hang or a memory blow-up.
fn run(name: &str, what: &str, input: &[u8]) {
    let f = target(name).unwrap_or_else(|| panic!("no target {name}"));
    reset_peak();
    bounded(TIME_BOUND, &format!("{name} {what} ({} bytes)", input.len()), || f(input));
    if let Some(peak) = peak_rss() {
        assert!(peak < MEMORY_BOUND, "{name} {what}: peak resident set {peak} bytes for {} bytes", input.len());
    }
}

/// The workspace root (this crate lives in `crates/fuzzing/`).
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The seed corpus of a target: (file name, bytes), sorted.
fn corpus(name: &str) -> Vec<(String, Vec<u8>)> {
    let dir = root().join("fuzz/corpus").join(name);
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect();
    out.sort();
    out
}

// ---------------------------------------------------------------------------------------------
// The corpora and the fuzz crate agree with the entry points

#[test]
fn every_target_has_a_seed_corpus_and_a_fuzz_target() {
    let manifest = std::fs::read_to_string(root().join("fuzz/Cargo.toml")).unwrap();
    for (name, _) in TARGETS {
        assert!(!corpus(name).is_empty(), "fuzz/corpus/{name}/ is empty");
        let file = root().join(format!("fuzz/fuzz_targets/{name}.rs"));
        let src = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        assert!(src.contains(&format!("fuzzing::{}", entry_of(name))), "{}: does not call its entry", file.display());
        assert!(manifest.contains(&format!("name = \"{name}\"")), "fuzz/Cargo.toml has no [[bin]] {name}");
    }
    let dirs = std::fs::read_dir(root().join("fuzz/corpus")).unwrap().count();
    assert_eq!(dirs, TARGETS.len(), "a folder of fuzz/corpus/ has no target");
}

/// The entry function a target calls (`fuzzing::target("<name>")` is how every target calls it).
fn entry_of(name: &str) -> String {
    format!("target(\"{name}\")")
}

#[test]
fn seed_corpora_never_panic_hang_or_blow_up() {
    for (name, _) in TARGETS {
        for (file, bytes) in corpus(name) {
            run(name, &file, &bytes);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Generated inputs

/// Tokens that matter to one parser or another, spliced into seeds.
const TOKENS: &[&str] = &[
    "---\n",
    "\n---\n",
    "\u{feff}",
    "&a ",
    "*a",
    "<<: *a",
    "{",
    "}",
    "[",
    "]",
    "\"",
    "'",
    ":",
    ": ",
    "\\",
    "%",
    "%2e",
    "%00",
    "\r\n",
    "\n",
    "\0",
    "é",
    "\u{10ffff}",
    "-",
    "## ",
    "# ",
    "<!--",
    "-->",
    "99999999999999999999",
    "-1",
    "1e999",
    "null",
    "true",
    "{\"a\":",
    "\"record\":",
    "\"schema\":\"majordomus-continuity/v1\"",
    "ghp_",
    "sk-",
    "eyJ",
    "-----BEGIN ",
    "://",
    "@",
    "/home/",
    "C:\\Users\\",
    "token=",
    "machine ",
    "password ",
    "Authorization: Bearer ",
    "Host: ",
    "GET ",
    "?record=",
    "..",
    "jsonrpc",
    "\"method\":\"tools/call\"",
];

/// One edit of a seed.
#[derive(Debug, Clone)]
enum Edit {
    Overwrite(usize, u8),
    Insert(usize, usize),
    Delete(usize, usize),
    Duplicate(usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Edit::Overwrite(i, b)),
        (any::<usize>(), 0..TOKENS.len()).prop_map(|(i, t)| Edit::Insert(i, t)),
        (any::<usize>(), 1usize..64).prop_map(|(i, n)| Edit::Delete(i, n)),
        (any::<usize>(), 1usize..256).prop_map(|(i, n)| Edit::Duplicate(i, n)),
    ]
}

fn apply(mut bytes: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for e in edits {
        let at = |i: usize, len: usize| if len == 0 { 0 } else { i % (len + 1) };
        match *e {
            Edit::Overwrite(i, b) if !bytes.is_empty() => {
                let i = i % bytes.len();
                bytes[i] = b;
            }
            Edit::Overwrite(..) => bytes.push(0),
            Edit::Insert(i, t) => {
                let i = at(i, bytes.len());
                bytes.splice(i..i, TOKENS[t].bytes());
            }
            Edit::Delete(i, n) => {
                let i = at(i, bytes.len());
                let end = (i + n).min(bytes.len());
                bytes.drain(i..end);
            }
            Edit::Duplicate(i, n) => {
                let i = at(i, bytes.len());
                let end = (i + n).min(bytes.len());
                let piece = bytes[i..end].to_vec();
                bytes.splice(i..i, piece);
            }
        }
    }
    bytes
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64 * TARGETS.len() as u32, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random bytes and random token soups, to every target.
    #[test]
    fn random_input_never_panics_hangs_or_blows_up(
        t in 0..TARGETS.len(),
        bytes in prop::collection::vec(any::<u8>(), 0..1024),
        tokens in prop::collection::vec(0..TOKENS.len(), 0..64),
    ) {
        let (name, _) = TARGETS[t];
        run(name, "random bytes", &bytes);
        let soup: Vec<u8> = tokens.iter().flat_map(|&i| TOKENS[i].bytes()).collect();
        run(name, "token soup", &soup);
    }

    /// Each seed with up to 16 edits (overwrite, splice a token, delete, duplicate).
    #[test]
    fn mutated_seeds_never_panic_hang_or_blow_up(
        t in 0..TARGETS.len(),
        pick in any::<usize>(),
        edits in prop::collection::vec(edit(), 1..16),
    ) {
        let (name, _) = TARGETS[t];
        let seeds = corpus(name);
        let (file, seed) = &seeds[pick % seeds.len()];
        run(name, &format!("mutated {file}"), &apply(seed.clone(), &edits));
    }
}

// ---------------------------------------------------------------------------------------------
// Adversarial inputs at the caps, and regressions

/// The largest body `handover` accepts (1 MiB, `ops::BODY_CAP`).
const BODY_CAP: usize = 1024 * 1024;

/// A text of about `len` bytes repeating `unit`.
fn repeat(unit: &str, len: usize) -> String {
    unit.repeat(len / unit.len().max(1) + 1)
}

/// 256 KiB: above a whole stored record (160 KiB, `MAX_STORED_BYTES`). The quadratic scan took
/// minutes here; the linear one takes milliseconds (a debug build).
const SCAN_SIZE: usize = 256 * 1024;

/// Regression: the secret scan was quadratic in these shapes — every repeated prefix
/// (`sk-sk-…`), secret-name assignment (`token=token=…`), path start (`=/=/…`) and `.netrc`
/// keyword (`default login default login …`) re-scanned the rest of the text, so a 1 MiB body
/// took hours and a 160 KiB record pushed by anyone who can write the remote stalled every
/// read. Each now takes a linear pass.
#[test]
fn the_secret_scan_is_linear_on_repetitive_text() {
    for unit in [
        "sk-",
        "xoxb-",
        "glpat-",
        "token=",
        "api_key: ",
        "=/",
        "=/x.sock",
        ":/",
        "default login ",
        "machine login ",
        "authorization: basic ",
        "eyJ.",
        "-----BEGIN ",
        "a://b:c@",
        "/home/",
        ":\\users\\",
        "hooks.slack.com/services/",
    ] {
        let text = repeat(unit, SCAN_SIZE);
        bounded(Duration::from_secs(2), &format!("{unit:?} ({} bytes)", text.len()), || {
            let _ = scan_admission(&json!({ "handover": { "body": text } }));
        });
    }
}

/// Every entry over each cap-sized input of a few shapes: long lines, deep nesting, one huge
/// token.
#[test]
fn cap_sized_inputs_stay_bounded() {
    let inputs: [(&str, Vec<u8>); 5] = [
        ("1 MiB of one line", vec![b'a'; BODY_CAP]),
        ("1 MiB of newlines", vec![b'\n'; BODY_CAP]),
        ("deep JSON", "[".repeat(100_000).into_bytes()),
        ("deep YAML", format!("---\n{}\n---\n", "- ".repeat(50_000)).into_bytes()),
        ("long JSON string", format!("{{\"record\":\"{}\"}}", "x".repeat(BODY_CAP)).into_bytes()),
    ];
    for (name, _) in TARGETS {
        for (what, bytes) in &inputs {
            run(name, what, bytes);
        }
    }
}

#[test]
fn seed_files_are_small() {
    fn walk(dir: &Path, total: &mut u64) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, total);
            } else {
                *total += p.metadata().unwrap().len();
            }
        }
    }
    let mut total = 0;
    walk(&root().join("fuzz/corpus"), &mut total);
    assert!(total < 64 * 1024, "fuzz/corpus holds {total} bytes; keep seeds small");
}

/// The seed of `continuity_record` is a record in its stored form that admission takes (so
/// that mutations start from a file that reaches every check), and it reads back through the
/// strict reader every later read uses.
#[test]
fn the_continuity_record_seed_is_admitted_and_read_back() {
    use majordomus::continuity::{admission, record};
    let (_, bytes) = corpus("continuity_record").into_iter().find(|(f, _)| f == "signed.json").unwrap();
    let text: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    let path = record::store_path(text["id"].as_str().unwrap());
    let admission::Intrinsic::Record { record: admitted, .. } = admission::intrinsic(&path, &bytes) else {
        panic!("the seed is not admitted: {:?}", admission::intrinsic(&path, &bytes));
    };
    assert_eq!(record::read_record(&bytes).unwrap().1, *admitted);
}
