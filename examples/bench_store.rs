//! Fills a checkout's continuity store with N signed records (for `bench/continuity.sh`).
//!
//! Usage: `bench_store <checkout> <n> [<label>]`. The records are signed with a fixed key
//! (device label `bench`), each on its own line, all of this repository — so every one is
//! admitted — and written in one commit per 10,000 records.

use std::path::PathBuf;

use majordomus::continuity::record::{self, Device, HandoverPart, Record, Source};
use majordomus::continuity::signing::DeviceKey;
use majordomus::ctx::{Ctx, Env};
use majordomus::git::store::Committer;

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let repo = PathBuf::from(args.next().ok_or_else(|| anyhow::anyhow!("usage: bench_store <checkout> <n>"))?);
    let n: usize = args.next().unwrap_or_else(|| "100000".into()).parse()?;
    let ctx = Ctx::open(Some(&repo), Env::from_process()).map_err(|e| anyhow::anyhow!(e.message))?;
    let repository = majordomus::ops::continuity::repository(&ctx, None).map_err(|e| anyhow::anyhow!(e.message))?;
    let key = DeviceKey::from_seed([7u8; 32], Some("bench".into()), "2026-09-01T00:00:00Z");
    let Device { node, label } = key.device();
    let head = ctx.identity().map_err(|e| anyhow::anyhow!(e.message))?.head.clone();
    let who = Committer::new("bench", "bench@example.com", 1_788_220_800);
    let mut batch = Vec::with_capacity(10_000);
    for i in 0..n {
        let body = format!(
            "# Objective\nBench record {i}.\n\n# Current State\nFilled by bench_store.\n\n# Next Action\nNothing.\n"
        );
        let rec = Record {
            schema: record::SCHEMA.into(),
            repository: repository.clone(),
            device: Device { node: node.clone(), label: label.clone() },
            session: None,
            episode: "none".into(),
            line: None,
            parent: None,
            published_at: "2026-09-01T00:00:00Z".into(),
            producer: "git-majordomus/bench".into(),
            source: Source {
                branch: Some(format!("bench-{}", i % 100)),
                head: Some(head.clone()),
                working_tree: "clean".into(),
                changed: vec![],
                changed_total: 0,
                fingerprint: None,
            },
            task: None,
            decisions: vec![],
            questions: vec![],
            handover: HandoverPart {
                id: record::blake3_hex(body.as_bytes())[..32].to_string(),
                task: None,
                issue: None,
                milestone: None,
                branch: None,
                head: None,
                created_at: None,
                name: None,
                body,
            },
        };
        let env = key.sign(&rec);
        batch.push((record::store_path(&env.id), record::stored_bytes(&env)));
        if batch.len() == 10_000 || i + 1 == n {
            ctx.git.store_add(&batch, "bench: records", &who).map_err(|e| anyhow::anyhow!(e.to_string()))?;
            batch.clear();
        }
    }
    Ok(())
}
