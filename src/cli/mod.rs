//! The command line: global flags, the command enum and the one dispatch match.
//!
//! Owns: clap definitions, help text, mapping arguments to `ops` parameters, choosing a renderer.
//! Must not touch: gix, record files, `println!`.

use std::io::{IsTerminal, Read};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::ctx::{Ctx, Env};
use crate::error::{Error, Exit, Result};
use crate::ui::Ui;

mod check;
mod checkpoint;
mod context;
mod continuity;
mod decision;
mod explain;
mod finish;
mod generate;
mod handover;
mod history;
mod hook;
mod hooks;
mod init;
mod knowledge;
mod lifecycle;
#[cfg(feature = "mcp")]
mod mcp;
mod question;
mod search;
mod serve;
mod session;
mod start;
mod state;
mod worktree;

pub use crate::ops::BODY_CAP;

/// Flags every command accepts, before or after the command name.
#[derive(Debug, Clone, clap::Args)]
pub struct GlobalArgs {
    /// Operate on the checkout at this path
    #[arg(long, global = true, value_name = "PATH")]
    pub repo: Option<PathBuf>,
    /// Print one JSON document on stdout. Before the command name it is accepted for every
    /// command and refused by those without a JSON form; after it, each command with a JSON
    /// form offers it in its own help ([`offer_json`]).
    #[arg(long, hide = true)]
    pub json: bool,
    /// Suppress next: lines, INFO/OK findings and success lines
    #[arg(long, short = 'q', global = true)]
    pub quiet: bool,
}

/// Keep the continuity of AI-assisted work in the repository itself
#[derive(Debug, Parser)]
#[command(name = "git-majordomus", bin_name = "git majordomus", version, propagate_version = true)]
#[command(about = "Keep the continuity of AI-assisted work in the repository itself")]
#[command(
    long_about = "Keep the continuity of AI-assisted work in the repository itself.\n\nSmall, typed, durable records beside the code — the active task, checkpoints, handovers, decisions, open questions and an append-only ledger — and a bounded briefing built from them and from git, never from a transcript."
)]
pub struct Cli {
    #[command(flatten)]
    global: GlobalArgs,
    #[command(subcommand)]
    command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
enum Command {
    Init(init::Args),
    Start(start::Args),
    Checkpoint(checkpoint::Args),
    Handover(handover::Args),
    #[command(subcommand)]
    Decision(decision::Args),
    #[command(subcommand)]
    Question(question::Args),
    Context(context::Args),
    #[command(subcommand)]
    Continuity(continuity::Args),
    History(history::Args),
    Finish(finish::Args),
    Check(check::CheckArgs),
    Watch(check::WatchArgs),
    Doctor(check::DoctorArgs),
    Search(search::Args),
    Hook(hook::Args),
    #[command(subcommand)]
    Hooks(hooks::Args),
    #[command(subcommand)]
    Knowledge(knowledge::Args),
    #[command(subcommand)]
    Session(session::Args),
    State(state::Args),
    Explain(explain::Args),
    #[command(subcommand)]
    Lifecycle(lifecycle::Args),
    #[cfg(feature = "mcp")]
    Mcp(mcp::Args),
    Serve(serve::Args),
    #[command(subcommand)]
    Worktree(worktree::Args),
    #[command(hide = true)]
    Generate(generate::Args),
}

/// What a command run needs from the edge: global flags, the environment, the output handle.
pub struct CommandContext {
    /// The global flags.
    pub global: GlobalArgs,
    /// The environment snapshot.
    pub env: Env,
}

impl CommandContext {
    /// Opens the checkout.
    pub fn open(&self) -> Result<Ctx> {
        Ctx::open(self.global.repo.as_deref(), self.env.clone())
    }

    /// Opens the repository, a bare one included ([`Ctx::open_bare_ok`]).
    pub fn open_bare_ok(&self) -> Result<Ctx> {
        Ctx::open_bare_ok(self.global.repo.as_deref(), self.env.clone())
    }

    /// Refuses `--json` for a command without a JSON form (exit 2).
    pub fn no_json(&self, what: &str) -> Result<()> {
        if self.global.json {
            return Err(Error::usage(format!("{what} has no JSON form; drop --json")));
        }
        Ok(())
    }
}

/// Reads a body from stdin: empty when stdin is a terminal; capped at 1 MiB; UTF-8 only.
pub fn read_body(cmd: &str) -> Result<String> {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return Ok(String::new());
    }
    let mut buf = Vec::new();
    stdin
        .lock()
        .take(BODY_CAP as u64 + 1)
        .read_to_end(&mut buf)
        .map_err(|e| Error::io(format!("{cmd}: cannot read stdin: {e}")))?;
    if buf.len() > BODY_CAP {
        let mut rest = Vec::new();
        let extra = std::io::stdin().lock().read_to_end(&mut rest).unwrap_or(0);
        return Err(Error::refused(format!("{cmd}: body is {} bytes, cap {BODY_CAP}", buf.len() + extra))
            .hint("shorten the body; nothing was written"));
    }
    String::from_utf8(buf).map_err(|e| {
        Error::refused(format!(
            "{cmd}: body is not valid UTF-8 (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
        .hint("send UTF-8 text; nothing was written")
    })
}

/// Prints the warnings the use case collected.
pub fn flush_warnings(ui: &mut Ui, ctx: &Ctx) {
    for w in ctx.take_warnings() {
        ui.warn(&w);
    }
}

/// `checkpoint --list` / `handover --list`: every record of `dir`, newest first, labelled.
pub fn print_record_list(ui: &mut Ui, ctx: &Ctx, dir: &std::path::Path, empty: &str) -> Result<()> {
    ctx.require_layer()?;
    let all = crate::ops::services::resolve::list(ctx, dir)?;
    if all.is_empty() {
        ui.line(empty);
    }
    for (_, path, meta, _) in &all {
        let label = crate::ops::services::rewrite::shown(ctx, &meta);
        ui.line(&crate::render::records::list_line(meta, &label, &ctx.rel(path)));
    }
    Ok(())
}

/// Prints findings (or their JSON document) and returns the exit code they map to.
pub fn print_findings(ui: &mut Ui, findings: crate::model::finding::Findings) -> Exit {
    if ui.json_mode() {
        ui.json(&findings);
    } else {
        for f in &findings.findings {
            ui.finding(f);
        }
    }
    findings.exit()
}

/// The clap command tree (for the man page and completions).
pub fn command() -> clap::Command {
    offer_json(Cli::command(), "")
}

/// The commands without a JSON form, by path: their help does not offer `--json` (a parent not
/// listed offers it on each of its subcommands not listed).
const NO_JSON: &[&str] = &[
    "init",
    "start",
    "checkpoint",
    "finish",
    "hook",
    "mcp",
    "generate",
    "serve",
    "decision add",
    "decision show",
    "question add",
    "question resolve",
    "knowledge promote",
    "knowledge reject",
    "hooks install",
    "hooks uninstall",
    "session start",
    "session close",
    "serve ensure",
    "serve stop",
];

/// The id of the `--json` a command with a JSON form declares.
const JSON_ID: &str = "json_here";

/// Adds `--json` to every runnable command at or under `cmd` with a JSON form.
fn offer_json(mut cmd: clap::Command, path: &str) -> clap::Command {
    let names: Vec<String> = cmd.get_subcommands().map(|c| c.get_name().to_string()).collect();
    for name in names {
        let sub = if path.is_empty() { name.clone() } else { format!("{path} {name}") };
        cmd = cmd.mut_subcommand(&name, |c| offer_json(c, &sub));
    }
    let runnable = !cmd.is_subcommand_required_set() || !cmd.has_subcommands();
    if !path.is_empty() && runnable && !NO_JSON.contains(&path) {
        cmd = cmd.arg(
            clap::Arg::new(JSON_ID)
                .long("json")
                .action(clap::ArgAction::SetTrue)
                .help("Print one JSON document on stdout"),
        );
    }
    cmd
}

/// Whether the command that runs was given its own `--json`.
fn json_here(m: &clap::ArgMatches) -> bool {
    match m.subcommand() {
        Some((_, sub)) => json_here(sub),
        None => m.try_get_one::<bool>(JSON_ID).ok().flatten().copied().unwrap_or(false),
    }
}

/// A write past a file-size limit (`ulimit -f`) raises SIGXFSZ, whose default action kills the
/// process mid-write, leaving a half line in the ledger. With a handler installed the write fails
/// with EFBIG instead, and the command ends as exit 13 with what it could not write, its writes
/// rolled back (issue 41 item 5). Child processes get the default action back at `exec`.
fn survive_file_size_limits() {
    let noted = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    // Failing to install it leaves the default: nothing worse than before.
    let _ = signal_hook::flag::register(signal_hook::consts::SIGXFSZ, noted);
}

/// Process entry: parse, dispatch, print, map to an exit code.
pub fn main() -> ExitCode {
    survive_file_size_limits();
    let parsed = command().try_get_matches().and_then(|m| {
        let json = json_here(&m);
        Cli::from_arg_matches(&m).map(|mut cli| {
            cli.global.json |= json;
            cli
        })
    });
    let cli = match parsed {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { Exit::Usage.code() } else { 0 };
            // Help, the version or a usage error quoting the command line: through `Ui`, whose
            // escaping holds for it too (clap's colours are dropped with the rest).
            Ui::new(false, false).parser(&e.render().to_string(), e.use_stderr());
            return ExitCode::from(code);
        }
    };
    let mut ui = Ui::new(cli.global.quiet, cli.global.json);
    let cc = CommandContext { global: cli.global.clone(), env: Env::from_process() };
    // A hook's stderr is the host's to show (Gemini CLI's compact and end print nothing, docs/HOOKS.md).
    let quiet_stderr = matches!(cli.command, Command::Hook(_));
    let result = dispatch(&cc, cli.command, &mut ui);
    for failure in crate::store::keep::take_failures() {
        if !quiet_stderr {
            ui.warn(&failure.to_string());
        }
    }
    let code = match result {
        Ok(exit) => exit,
        Err(e) => {
            ui.error(&e);
            e.exit
        }
    };
    ui.flush();
    if ui.broken_pipe() {
        return ExitCode::SUCCESS;
    }
    ExitCode::from(code.code())
}

fn dispatch(cc: &CommandContext, command: Command, ui: &mut Ui) -> Result<Exit> {
    match command {
        Command::Init(a) => init::run(cc, &a, ui),
        Command::Start(a) => start::run(cc, a, ui),
        Command::Checkpoint(a) => checkpoint::run(cc, &a, ui),
        Command::Handover(a) => handover::run(cc, &a, ui),
        Command::Decision(a) => decision::run(cc, a, ui),
        Command::Question(a) => question::run(cc, a, ui),
        Command::Context(a) => context::run(cc, &a, ui),
        Command::Continuity(a) => continuity::run(cc, a, ui),
        Command::History(a) => history::run(cc, &a, ui),
        Command::Finish(a) => finish::run(cc, &a, ui),
        Command::Check(a) => check::run_check(cc, &a, ui),
        Command::Watch(a) => check::run_watch(cc, &a, ui),
        Command::Doctor(a) => check::run_doctor(cc, &a, ui),
        Command::Search(a) => search::run(cc, &a, ui),
        Command::Hook(a) => hook::run(cc, &a, ui),
        Command::Hooks(a) => hooks::run(cc, &a, ui),
        Command::Knowledge(a) => knowledge::run(cc, a, ui),
        Command::Session(a) => session::run(cc, a, ui),
        Command::State(a) => state::run(cc, &a, ui),
        Command::Explain(a) => explain::run(cc, &a, ui),
        Command::Lifecycle(a) => lifecycle::run(cc, a, ui),
        #[cfg(feature = "mcp")]
        Command::Mcp(a) => mcp::run(cc, &a, ui),
        Command::Serve(a) => serve::run(cc, &a, ui),
        Command::Worktree(a) => worktree::run(cc, a, ui),
        Command::Generate(a) => generate::run(&a, ui),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn clap_definition_is_consistent() {
        super::command().debug_assert();
    }

    /// Every command's `--help`, depth first: any change to the CLI surface shows in review.
    fn help_tree(cmd: &mut clap::Command, path: &str, out: &mut String) {
        let name = if path.is_empty() { cmd.get_name().to_string() } else { format!("{path} {}", cmd.get_name()) };
        out.push_str(&format!("===== {name} --help\n{}\n", cmd.render_long_help()));
        let mut subs: Vec<clap::Command> = cmd.get_subcommands().filter(|c| !c.is_hide_set()).cloned().collect();
        for sub in &mut subs {
            help_tree(sub, &name, out);
        }
    }

    #[test]
    fn help_tree_snapshot() {
        let mut cmd = super::command().bin_name("git-majordomus").term_width(100);
        cmd.build();
        let mut out = String::new();
        help_tree(&mut cmd, "", &mut out);
        insta::assert_snapshot!("help_tree", out);
    }
}
