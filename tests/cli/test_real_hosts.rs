//! The real agent hosts (issue 42): each CLI of `contrib/hosts/package-lock.json`, installed by
//! `contrib/host-deps.sh`, run non-interactively against the scripted model server in a scratch
//! repository after `hooks install --<host>`. What is asserted is what reached the **model**:
//! the recorded requests carry the briefing and the authored Next Action, an MCP tool the host
//! lists answers a call; and the end state: the authored handover still resolves, the task is
//! kept, `state` calls the tree clean.

use serde_json::json;

use crate::common::hosts::{run_host, ModelServer};
use crate::common::{have, host_bin, Output, Repo, TestEnv, Tool};

/// The Next Action the scratch repository's authored handover carries.
const NEXT: &str = "XYZZY-NEXT: return Vec<String> from lib/net.rs";

/// The Next Action as `host`'s model reads it: Gemini CLI HTML-escapes `<` and `>` in the
/// context it passes, so the briefing writes them as `‹` and `›` there.
fn next_as_read(host: &str) -> String {
    if host == "gemini-cli" {
        NEXT.replace('<', "‹").replace('>', "›")
    } else {
        NEXT.to_string()
    }
}
/// The briefing's first line.
const BRIEFING: &str = "Majordomus — what this repository already knows";
/// `git majordomus mcp` as a stdio server, in the shape Claude Code's `--mcp-config` takes.
const MCP: &str = r#"{"mcpServers":{"majordomus":{"command":"git","args":["majordomus","mcp"]}}}"#;

/// A checkout with a task, an authored handover and `hooks install --<host>`.
fn scratch<'a>(env: &'a TestEnv, host: &str) -> Repo<'a> {
    let r = env.ready_repo("repo");
    r.start("relay task");
    r.mj_in(&["handover"], &format!("# Objective\nRetry.\n\n# Current State\nHalf done.\n\n# Next Action\n{NEXT}\n"))
        .ok();
    r.mj(&["hooks", "install", &format!("--{host}")]).ok();
    r
}

/// What every host must leave: the authored handover resolves, the task is kept, the tree is
/// clean (the host files are the tool's), each episode closed.
fn end_state(r: &Repo<'_>, host: &str) {
    let resolved = r.mj(&["handover", "--resolve"]).ok().stdout;
    assert!(resolved.contains(NEXT), "{host}: {resolved}");
    let state = r.mj(&["state"]).ok().stdout;
    assert!(state.contains("working tree clean"), "{host}: {state}");
    assert!(state.contains("Task: t-") && state.contains("\"relay task\" (active"), "{host}: {state}");
    assert!(state.contains("Episode: none open here"), "{host}: {state}");
}

/// How many receipts of `host`'s `event` the ledger holds (read as text: a receipt carries two
/// `event` keys).
fn received(r: &Repo<'_>, host: &str, event: &str) -> usize {
    let ledger = std::fs::read_to_string(r.state("ledger.jsonl")).unwrap();
    let key = format!("\"provider\":\"{host}\",\"event\":\"{event}\"");
    ledger.lines().filter(|l| l.contains("\"event\":\"provider.event.received\"") && l.contains(&key)).count()
}

/// One host as the tests drive it.
struct Host {
    /// The `--<host>` of `hooks install` and the provider name of the receipts.
    name: &'static str,
    /// Its CLI under target/hosts.
    bin: &'static str,
    /// What a tool's result looks like in the request that carries it.
    result_marker: &'static str,
}

const HOSTS: [Host; 4] = [
    Host { name: "claude-code", bin: "claude", result_marker: "\"tool_result\"" },
    Host { name: "codex", bin: "codex", result_marker: "\"function_call_output\"" },
    Host { name: "gemini-cli", bin: "gemini", result_marker: "\"functionResponse\"" },
    Host { name: "copilot-cli", bin: "copilot", result_marker: "\"role\":\"tool\"" },
];

/// The environment and configuration that point `host` at the model server `m`, with
/// `git majordomus mcp` as an MCP server and the checkout `r` trusted; the arguments of a
/// non-interactive run with prompt `prompt`.
fn configure(
    env: &TestEnv,
    r: &Repo<'_>,
    m: &ModelServer,
    host: &str,
    prompt: &str,
) -> (Vec<(&'static str, String)>, Vec<String>) {
    let home = &env.home;
    let own = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    match host {
        "claude-code" => (
            vec![
                ("ANTHROPIC_BASE_URL", m.url()),
                ("ANTHROPIC_API_KEY", "test-key".into()),
                ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".into()),
            ],
            own(&["-p", prompt, "--mcp-config", MCP, "--allowedTools", "Bash,mcp__majordomus"]),
        ),
        "codex" => {
            // Project hooks run only in a trusted project, and only trusted hooks run:
            // `--dangerously-bypass-hook-trust` is the automation's way (docs/HOOKS.md).
            let config = format!(
                "model = \"test-model\"\nmodel_provider = \"scripted\"\nmodel_auto_compact_token_limit = 5000\n\n\
                 [model_providers.scripted]\nname = \"scripted\"\nbase_url = \"{}/v1\"\nwire_api = \"responses\"\nenv_key = \"SCRIPTED_API_KEY\"\n\n\
                 [mcp_servers.majordomus]\ncommand = \"git\"\nargs = [\"majordomus\", \"mcp\"]\n\n\
                 [projects.\"{}\"]\ntrust_level = \"trusted\"\n",
                m.url(),
                r.root.display()
            );
            std::fs::create_dir_all(home.join(".codex")).unwrap();
            std::fs::write(home.join(".codex/config.toml"), config).unwrap();
            (
                vec![("SCRIPTED_API_KEY", "test-key".into())],
                own(&["exec", "--dangerously-bypass-approvals-and-sandbox", "--dangerously-bypass-hook-trust", prompt]),
            )
        }
        "gemini-cli" => {
            // The API key needs the auth type chosen in settings; hooks run in a trusted folder.
            std::fs::create_dir_all(home.join(".gemini")).unwrap();
            let settings = json!({
                "security": { "auth": { "selectedType": "gemini-api-key" }, "folderTrust": { "enabled": true } },
                "mcpServers": { "majordomus": { "command": "git", "args": ["majordomus", "mcp"], "trust": true } },
            });
            std::fs::write(home.join(".gemini/settings.json"), settings.to_string()).unwrap();
            let trusted = json!({ r.root.display().to_string(): "TRUST_FOLDER" });
            std::fs::write(home.join(".gemini/trustedFolders.json"), trusted.to_string()).unwrap();
            (
                vec![("GOOGLE_GEMINI_BASE_URL", m.url()), ("GEMINI_API_KEY", "test-key".into())],
                own(&["-p", prompt, "--approval-mode", "yolo"]),
            )
        }
        "copilot-cli" => (
            // Repository hooks run in `-p` only in a trusted folder or with this variable.
            vec![
                ("COPILOT_PROVIDER_BASE_URL", format!("{}/v1", m.url())),
                ("COPILOT_PROVIDER_API_KEY", "test-key".into()),
                ("COPILOT_MODEL", "test-model".into()),
                ("COPILOT_OFFLINE", "true".into()),
                ("GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS", "true".into()),
            ],
            own(&[
                "-p",
                prompt,
                "--additional-mcp-config",
                r#"{"mcpServers":{"majordomus":{"type":"local","command":"git","args":["majordomus","mcp"],"tools":["*"]}}}"#,
                "--allow-all-tools",
            ]),
        ),
        other => panic!("no host {other}"),
    }
}

/// Runs `host` once with `prompt`; what it printed.
fn session(env: &TestEnv, r: &Repo<'_>, m: &ModelServer, host: &Host, prompt: &str) -> Output {
    let (vars, args) = configure(env, r, m, host.name, prompt);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = run_host(env, r, &host_bin(host.bin), &args, &vars);
    assert_eq!(out.code, 0, "{}: {}", host.name, out.all());
    out
}

#[test]
fn each_real_host_carries_the_briefing_to_the_model_answers_an_mcp_call_and_keeps_the_task() {
    if !have(Tool::Hosts) {
        return;
    }
    for host in &HOSTS {
        let env = TestEnv::new();
        let r = scratch(&env, host.name);
        let m = ModelServer::start(env.path());
        // The model reads the handover through the MCP server, then answers; it reports enough
        // usage that Codex compacts before its next turn.
        m.script(json!([
            { "tool": "majordomus_handover", "input": {}, "then": "Read it.", "usage": 100000 },
            { "text": "Done." }
        ]));
        let out = session(&env, &r, &m, host, "hello");
        // Gemini CLI shows a compact or end hook's stderr to its user (docs/HOOKS.md): ours prints none there.
        assert!(!out.all().contains("Hook system message"), "{}: {}", host.name, out.all());
        let reqs = m.requests();
        let first = reqs.iter().find(|q| q.body.contains(BRIEFING)).unwrap_or_else(|| {
            panic!(
                "{}: no model request carries the briefing: {:?}",
                host.name,
                reqs.iter().map(|q| &q.path).collect::<Vec<_>>()
            )
        });
        assert!(
            first.body.contains(&next_as_read(host.name)) && !first.body.contains("&lt;"),
            "{}: the authored Next Action reached the model, legible",
            host.name
        );
        // The handover command or skill `hooks install` wrote is offered to the model (Gemini
        // CLI's commands are the user's: not in the request).
        let offered = reqs.iter().any(|q| q.body.contains("Hand this task over"));
        assert_eq!(offered, host.name != "gemini-cli", "{}: the handover command or skill", host.name);
        assert!(
            reqs.iter().any(|q| q.body.contains(host.result_marker) && q.body.contains("XYZZY-NEXT")),
            "{}: the MCP call was answered with the handover",
            host.name
        );
        assert!(received(&r, host.name, "start") >= 1, "{}", host.name);
        assert!(received(&r, host.name, "end") >= 1, "{}", host.name);
        match host.name {
            // Claude Code compacts on `/compact`; Codex on the reported usage; Gemini CLI before
            // every model request; Copilot CLI has no such event.
            "claude-code" => {
                m.script(json!([{ "text": "A summary." }]));
                session(&env, &r, &m, host, "/compact");
                assert_eq!(received(&r, host.name, "compact"), 1);
            }
            "copilot-cli" => assert_eq!(received(&r, host.name, "compact"), 0),
            _ => assert!(received(&r, host.name, "compact") >= 1, "{}", host.name),
        }
        // Nothing happened in these episodes (the model only read): no derived record, however
        // often the host compacted (Gemini CLI: before every model request).
        assert_eq!(r.records("checkpoints"), Vec::<String>::new(), "{}", host.name);
        // …and derived no knowledge: only each episode's close derives.
        let derived = r.ledger().iter().filter(|l| l["event"] == "knowledge.derived").count();
        let closed = r.ledger().iter().filter(|l| l["event"] == "session.closed").count();
        assert_eq!(derived, closed, "{}", host.name);
        assert_eq!(r.records("handovers").len(), 1, "{}", host.name);
        // Each host's normal exit of a non-interactive run: Copilot CLI's `complete` closes.
        let closed: Vec<String> = r
            .ledger()
            .iter()
            .filter(|l| l["event"] == "session.closed")
            .map(|l| l["outcome"].as_str().unwrap_or("").to_string())
            .collect();
        if host.name == "copilot-cli" || host.name == "gemini-cli" {
            assert!(closed.iter().all(|o| o == "closed"), "{}: {closed:?}", host.name);
        }
        end_state(&r, host.name);
    }
}

/// The handover command a scripted model runs through its host's shell tool.
fn handover_command(step: usize, next: &str) -> String {
    format!(
        "printf '# Objective\\nRelay the retry task.\\n\\n# Current State\\nStep {step} done.\\n\\n# Next Action\\n{next}\\n' | git majordomus handover"
    )
}

#[test]
fn one_task_is_relayed_claude_code_codex_gemini_copilot_through_their_shell_tools() {
    if !have(Tool::Hosts) {
        return;
    }
    let env = TestEnv::new();
    let r = env.ready_repo("repo");
    let task = r.start("relay task");
    r.mj(&["question", "add", "Which retry limit?"]).ok();
    for host in &HOSTS {
        r.mj(&["hooks", "install", &format!("--{}", host.name)]).ok();
    }
    r.git(&["add", "-A"]);
    r.git(&["commit", "-q", "-m", "hooks"]);
    let m = ModelServer::start(env.path());
    let mut previous: Option<String> = None;
    for (i, host) in HOSTS.iter().enumerate() {
        let next = format!("RELAY-{i}: go on after {}", host.name);
        let command = if i + 1 == HOSTS.len() {
            "git majordomus question resolve 1 --answer 'three' && git majordomus finish --outcome completed --verify-command true".to_string()
        } else {
            handover_command(i, &next)
        };
        m.clear();
        m.script(json!([{ "shell": command, "then": "Done." }]));
        // Where the host expands a project command in a non-interactive run, the user's prompt is
        // the `/handover` command `hooks install` wrote (Gemini CLI 0.61 `-p` expands none behind
        // a start hook's context).
        let prompt = if host.name == "claude-code" { "/handover" } else { "continue the task" };
        session(&env, &r, &m, host, prompt);
        let reqs = m.requests();
        if prompt == "/handover" {
            assert!(
                reqs.iter().any(|q| q.body.contains("Only what you write here survives")),
                "{}: the /handover command was expanded for the model",
                host.name
            );
        }
        let briefed =
            reqs.iter().find(|q| q.body.contains(BRIEFING)).unwrap_or_else(|| panic!("{}: no briefing", host.name));
        if let Some(p) = &previous {
            assert!(
                briefed.body.contains(p.as_str()),
                "{}: the previous host's Next Action {p:?} reached the model",
                host.name
            );
        }
        assert!(briefed.body.contains("Which retry limit?"), "{}: the open question reached the model", host.name);
        assert!(reqs.iter().any(|q| q.body.contains(host.result_marker)), "{}: the shell tool ran", host.name);
        let started: Vec<String> = r
            .ledger()
            .iter()
            .filter(|l| l["event"] == "session.started")
            .map(|l| l["session"].as_str().unwrap_or("").to_string())
            .collect();
        // One host session, one episode (Copilot CLI also runs Claude Code's hooks).
        assert_eq!(started.len(), i + 1, "{}: {started:?}", host.name);
        if i + 1 < HOSTS.len() {
            let resolved = r.mj(&["handover", "--resolve"]).ok().stdout;
            assert!(resolved.contains(&next), "{}: {resolved}", host.name);
            let path = r.mj(&["handover", "--resolve", "--path"]).ok().stdout;
            let text = r.read(path.trim());
            assert!(
                text.contains(&format!("session: {}", started.last().unwrap())),
                "{}: the handover names the host's own episode: {text}",
                host.name
            );
            previous = Some(next);
        }
    }
    let state = r.mj(&["state"]).ok().stdout;
    assert!(state.contains(&format!("Task: {task} \"relay task\" (completed")), "{state}");
    assert!(state.contains("Blockers: 0 open question(s)"), "{state}");
    // Only the three authored handovers: none derived, the finished task's neither (an end hook
    // after `finish` once wrote one).
    assert_eq!(r.records("handovers").len(), 3);
    let resolved = r.mj(&["handover", "--resolve"]).ok().stdout;
    assert!(resolved.contains("RELAY-2"), "{resolved}");
}
