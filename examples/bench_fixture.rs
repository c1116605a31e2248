//! Generates the `make bench` fixtures, deterministically (every value comes from the index and
//! fixed seeds; no clock, no randomness).
//!
//! - `bench_fixture history <commits> <branches>` prints a `git fast-import` stream: a root commit
//!   on `main`, then `<commits>` commits spread over `<branches>` branches (`main` and `b1`…).
//! - `bench_fixture gitlike <commits> <files>` prints a `git fast-import` stream shaped like a
//!   clone of git/git: a root commit of `<files>` source files (2–6 KiB each) in two levels of
//!   directories, then `<commits>` commits on `main`, each changing one or two files.
//! - `bench_fixture store <checkout> <records> <lines> <devices> <salt> [<parent>]` prints a
//!   `git fast-import` stream that commits `<records>` signed continuity records of this
//!   checkout's repository onto `refs/majordomus/continuity` (from `<parent>` when given):
//!   `<devices>` device keys, `<lines>` lines, every 25th line diverged (its last record continues
//!   the same parent as the one before it). `<salt>` makes two stores of the same shape differ.
//! - `bench_fixture layer <checkout> <handovers> <checkpoints> <ledger> <decisions> <questions>`
//!   writes handover and checkpoint files, ledger lines, decisions and open questions into the
//!   checkout's `.ai/` layer.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{anyhow, Context, Result};
use majordomus::continuity::record::{self, HandoverPart, Record, Source, TaskIntent};
use majordomus::continuity::signing::DeviceKey;
use majordomus::ctx::{Ctx, Env};
use majordomus::model::labels::Anchor;
use majordomus::model::record::RecordMeta;

/// 2026-09-01T00:00:00Z.
const BASE: i64 = 1_788_220_800;

fn stamp(secs: i64) -> String {
    chrono::DateTime::from_timestamp(secs, 0).map(|t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string()).unwrap_or_default()
}

fn compact(secs: i64) -> String {
    chrono::DateTime::from_timestamp(secs, 0).map(|t| t.format("%Y%m%dT%H%M%SZ").to_string()).unwrap_or_default()
}

fn data(out: &mut impl Write, bytes: &[u8]) -> Result<()> {
    writeln!(out, "data {}", bytes.len())?;
    out.write_all(bytes)?;
    out.write_all(b"\n")?;
    Ok(())
}

fn history(commits: usize, branches: usize) -> Result<()> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    writeln!(out, "commit refs/heads/main\nmark :1\ncommitter bench <bench@example.com> {BASE} +0000")?;
    data(&mut out, b"root")?;
    writeln!(out, "M 100644 inline README.md")?;
    data(&mut out, b"bench fixture\n")?;
    for b in 1..branches {
        writeln!(out, "reset refs/heads/b{b}\nfrom :1")?;
    }
    for i in 0..commits {
        let b = i % branches.max(1);
        let name = if b == 0 { "main".to_string() } else { format!("b{b}") };
        let t = BASE + 60 + i as i64;
        writeln!(out, "commit refs/heads/{name}\ncommitter bench <bench@example.com> {t} +0000")?;
        data(&mut out, format!("change {i} on {name}").as_bytes())?;
        writeln!(out, "M 100644 inline src/{name}/f{}.txt", (i / branches.max(1)) % 100)?;
        data(&mut out, format!("{i}\n").as_bytes())?;
    }
    out.flush()?;
    Ok(())
}

/// The path of source file `f` of the git/git-shaped tree: 40 top-level directories of 5
/// subdirectories, and every 10th file at the top level, as git/git keeps its `*.c` files.
fn gitlike_path(f: usize) -> String {
    if f.is_multiple_of(10) {
        format!("file-{f:05}.c")
    } else {
        format!("dir-{:02}/sub-{}/file-{f:05}.c", f % 40, (f / 40) % 5)
    }
}

/// The content of file `f` at version `v`: 2–6 KiB of lines that differ by file and version.
fn gitlike_text(f: usize, v: usize) -> Vec<u8> {
    let lines = 40 + (f * 7919) % 80;
    let mut t = format!("/* file {f}, version {v} */\n");
    for l in 0..lines {
        t.push_str(&format!("static int line_{l}_of_{f}(void) {{ return {}; }}\n", (l * 31 + f) % 997));
    }
    t.into_bytes()
}

fn gitlike(commits: usize, files: usize) -> Result<()> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    writeln!(out, "commit refs/heads/main\ncommitter bench <bench@example.com> {BASE} +0000")?;
    data(&mut out, b"root: the source tree")?;
    for f in 0..files {
        writeln!(out, "M 100644 inline {}", gitlike_path(f))?;
        data(&mut out, &gitlike_text(f, 0))?;
    }
    for i in 0..commits {
        let t = BASE + 60 + i as i64;
        writeln!(out, "commit refs/heads/main\ncommitter bench <bench@example.com> {t} +0000")?;
        data(&mut out, format!("change {i}").as_bytes())?;
        let touched = if i.is_multiple_of(3) { 2 } else { 1 };
        for k in 0..touched {
            let f = (i * 7919 + k * 104_729) % files.max(1);
            writeln!(out, "M 100644 inline {}", gitlike_path(f))?;
            data(&mut out, &gitlike_text(f, i + 1))?;
        }
    }
    out.flush()?;
    Ok(())
}

fn store(repo: PathBuf, n: usize, lines: usize, devices: usize, salt: &str, parent: Option<String>) -> Result<()> {
    let ctx = Ctx::open(Some(&repo), Env::from_process()).map_err(|e| anyhow!(e.message))?;
    let repository = majordomus::ops::services::continuity::repository(&ctx, None).map_err(|e| anyhow!(e.message))?;
    let head = ctx.identity().map_err(|e| anyhow!(e.message))?.head.as_ref().map(|h| h.to_string());
    let keys: Vec<DeviceKey> = (0..devices.max(1))
        .map(|d| {
            let mut seed = [7u8; 32];
            seed[0] = d as u8;
            seed[1] = (d >> 8) as u8;
            DeviceKey::from_seed(seed, Some(format!("device-{d:02}")), "2026-09-01T00:00:00Z")
        })
        .collect();
    let lines = lines.max(1);
    let per_line = n.div_ceil(lines);
    // Per line: (line id, previous id, the one before it).
    let mut state: Vec<Option<(String, String, Option<String>)>> = vec![None; lines];
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut made = 0usize;
    let mut mark = 0usize;
    let mut paths: Vec<(String, usize)> = Vec::with_capacity(10_000);
    let mut commits = 0usize;
    for step in 0..per_line {
        // One step: the next record of every line, signed on every core.
        let todo: Vec<usize> = (0..lines).filter(|_| made < n).take(n - made).collect();
        let envelopes: Vec<(usize, record::Envelope)> = std::thread::scope(|scope| {
            let workers = std::thread::available_parallelism().map(|x| x.get()).unwrap_or(1);
            let chunk = todo.len().div_ceil(workers).max(1);
            let handles: Vec<_> = todo
                .chunks(chunk)
                .map(|part| {
                    let (keys, state, repository, head) = (&keys, &state, &repository, &head);
                    scope.spawn(move || {
                        part.iter()
                            .map(|&l| {
                                let i = step * lines + l;
                                let key = &keys[(l + step) % keys.len()];
                                let diverge = l.is_multiple_of(25) && step + 1 == per_line && step >= 2;
                                let (line, parent) = match &state[l] {
                                    None => (None, None),
                                    Some((line, _, before)) if diverge => (Some(line.clone()), before.clone()),
                                    Some((line, prev, _)) => (Some(line.clone()), Some(prev.clone())),
                                };
                                let body = format!(
                                    "# Objective\nBench {salt} record {i} on line {l}.\n\n# Current State\nGenerated.\n\n# Next Action\nStep {}.\n",
                                    step + 1
                                );
                                let rec = Record {
                                    schema: record::SCHEMA.into(),
                                    repository: repository.clone(),
                                    device: key.device(),
                                    session: None,
                                    episode: "none".into(),
                                    line,
                                    parent,
                                    published_at: stamp(BASE + (i as i64) * 60),
                                    producer: "git-majordomus/bench".into(),
                                    source: Source {
                                        branch: Some(if l.is_multiple_of(50) { "main".into() } else { format!("b{}", l % 50) }),
                                        head: head.clone(),
                                        working_tree: "clean".into(),
                                        changed: vec![],
                                        changed_total: 0,
                                        fingerprint: None,
                                    },
                                    task: Some(TaskIntent {
                                        id: format!("t-{l}"),
                                        title: format!("Bench task {l}"),
                                        profile: None,
                                        scope: vec!["src".into()],
                                        outcome: None,
                                    }),
                                    decisions: vec![],
                                    questions: vec![],
                                    ends: Vec::new(),
                                    handover: HandoverPart {
                                        id: record::blake3_hex(body.as_bytes())[..32].to_string(),
                                        task: Some(format!("t-{l}")),
                                        issue: Some(format!("#{}", l + 1)),
                                        milestone: None,
                                        branch: None,
                                        head: None,
                                        created_at: None,
                                        name: None,
                                        body,
                                        citations: Vec::new(),
                                    },
                                };
                                (l, key.sign(&rec))
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect()
        });
        for (l, env) in envelopes {
            mark += 1;
            writeln!(out, "blob\nmark :{mark}")?;
            data(&mut out, &record::stored_bytes(&env))?;
            paths.push((record::store_path(&env.id), mark));
            let line = state[l].as_ref().map(|s| s.0.clone()).unwrap_or_else(|| env.id.clone());
            let before = state[l].as_ref().map(|s| s.1.clone());
            state[l] = Some((line, env.id.clone(), before));
            made += 1;
        }
        if paths.len() >= 10_000 || made == n {
            let t = BASE + commits as i64;
            writeln!(out, "commit refs/majordomus/continuity\ncommitter bench <bench@example.com> {t} +0000")?;
            data(&mut out, b"bench: records")?;
            if commits == 0 {
                if let Some(p) = &parent {
                    writeln!(out, "from {p}")?;
                }
            }
            for (p, m) in paths.drain(..) {
                writeln!(out, "M 100644 :{m} {p}")?;
            }
            commits += 1;
        }
        if made == n {
            break;
        }
    }
    out.flush()?;
    Ok(())
}

fn layer(
    repo: PathBuf,
    handovers: usize,
    checkpoints: usize,
    ledger: usize,
    decisions: usize,
    questions: usize,
) -> Result<()> {
    let ctx = Ctx::open(Some(&repo), Env::from_process()).map_err(|e| anyhow!(e.message))?;
    let id = ctx.identity().map_err(|e| anyhow!(e.message))?.clone();
    let meta = |i: usize, t: i64| RecordMeta {
        created_at: stamp(t),
        task_id: "none".into(),
        profile: "none".into(),
        owner: "bench".into(),
        repository_id: id.repository_id.clone(),
        worktree: id.worktree.clone(),
        branch: if i.is_multiple_of(50) { "main".into() } else { format!("b{}", i % 50) },
        head: id.head_text().into(),
        working_tree: "clean".into(),
        changed_files: vec![],
        changed_total: Some(0),
        citations: vec![],
        citations_total: None,
        origin: majordomus::model::record::Origin::Authored,
        session: "none".into(),
        continuity_record: None,
        continuity_device: None,
        continuity_label: None,
        continuity_key_id: None,
        continuity_created_at: None,
        issue: None,
        milestone: None,
    };
    for (dir, count, kind) in
        [(ctx.layout.handovers(), handovers, "handover"), (ctx.layout.checkpoints(), checkpoints, "checkpoint")]
    {
        std::fs::create_dir_all(&dir)?;
        for i in 0..count {
            let t = BASE + (i as i64) * 60;
            let m = meta(i, t);
            let body = format!(
                "# Objective\nBench {kind} {i}.\n\n# Current State\nGenerated.\n\n# Next Action\nRead record {i}.\n"
            );
            let key = majordomus::model::record::branch_key(&m.branch);
            let name = format!("{}--{key}--{}--{i:016x}.md", compact(t), &m.head[..7.min(m.head.len())]);
            std::fs::write(dir.join(name), m.render(&body).context("rendering a record")?)
                .context("writing a record")?;
        }
    }
    let mut text = String::from("# Decisions\n");
    for i in 0..decisions {
        text.push_str(&format!(
            "\n## {} — Bench decision {i}\nWhy: generated for the benchmark.\nTask: t-{}\n",
            &stamp(BASE + i as i64 * 3600)[..10],
            i % 500
        ));
    }
    std::fs::write(ctx.layout.decisions(), text)?;
    let mut text = String::from("# Open questions\n\n");
    for i in 0..questions {
        text.push_str(&majordomus::store::questions::unresolved_line(
            "none",
            &format!("Bench question {i}?"),
            "2026-09-01",
        ));
        text.push('\n');
    }
    std::fs::write(ctx.layout.questions(), text)?;
    let path = ctx.layout.ledger();
    let mut f = std::io::BufWriter::new(std::fs::OpenOptions::new().create(true).append(true).open(&path)?);
    for i in 0..ledger {
        let line = serde_json::json!({
            "ts": stamp(BASE + i as i64), "event": "decision.recorded", "head": id.head, "branch": "main",
            "by": "git-majordomus/bench", "task_id": "none", "decision": format!("filler {i}"),
        });
        writeln!(f, "{line}")?;
    }
    f.flush()?;
    Ok(())
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize| -> Result<usize> {
        args.get(i).ok_or_else(|| anyhow!("missing argument {i}"))?.parse().context("not a number")
    };
    match args.first().map(String::as_str) {
        Some("history") => history(num(1)?, num(2)?),
        Some("gitlike") => gitlike(num(1)?, num(2)?),
        Some("store") => store(
            PathBuf::from(&args[1]),
            num(2)?,
            num(3)?,
            num(4)?,
            args.get(5).map(String::as_str).unwrap_or("a"),
            args.get(6).cloned(),
        ),
        Some("layer") => layer(PathBuf::from(&args[1]), num(2)?, num(3)?, num(4)?, num(5)?, num(6)?),
        _ => Err(anyhow!("usage: bench_fixture history|gitlike|store|layer ... (see the file's header)")),
    }
}
