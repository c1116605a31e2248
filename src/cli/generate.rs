//! `git majordomus generate man|bash|zsh|fish [DIR]` (hidden): the man pages and shell
//! completions that `make install` and `contrib/dist.sh` ship.
//!
//! Owns: turning the clap command tree into roff (one page per command and subcommand, so that
//! every `git-majordomus-<command>(1)` a page names exists) and completion scripts, and the bash
//! glue that lets git's own completion (`git majordomus <TAB>`) reach ours.
//! Must not touch: git, records; the file system beyond the one directory `generate man <DIR>`
//! is given (the caller decides where the output goes).

use std::path::{Path, PathBuf};

use crate::error::{Error, Exit, Result};
use crate::ui::Ui;

/// Print the man page or a completion script, or write every man page into a directory
#[derive(Debug, clap::Args)]
pub struct Args {
    /// man, bash, zsh or fish
    what: String,
    /// With man: write one page per command and subcommand (git-majordomus.1,
    /// git-majordomus-start.1, git-majordomus-continuity-sync.1, ...) into this directory,
    /// creating it, and print the paths written
    #[arg(value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// Runs `generate`.
pub fn run(a: &Args, ui: &mut Ui) -> Result<Exit> {
    match (&a.dir, a.what.as_str()) {
        (None, what) => {
            let text = render(what)?;
            ui.text(&text);
        }
        (Some(dir), "man") => {
            for path in write_man_pages(dir)? {
                ui.line(&path.display().to_string());
            }
        }
        (Some(_), other) => {
            return Err(Error::usage(format!("generate: only man takes a directory, not {other:?}")));
        }
    }
    Ok(Exit::Ok)
}

/// Renders one target to stdout's text: `man` (the top page), `bash`, `zsh` or `fish`.
fn render(what: &str) -> Result<String> {
    let mut cmd = super::command().bin_name(BIN);
    let mut out: Vec<u8> = Vec::new();
    match what {
        "man" => {
            let (root, source) = man_tree();
            return Ok(man_page(&root, &source)?.1);
        }
        "bash" => return Ok(bash(cmd)),
        "zsh" => clap_complete::generate(clap_complete::Shell::Zsh, &mut cmd, BIN, &mut out),
        "fish" => clap_complete::generate(clap_complete::Shell::Fish, &mut cmd, BIN, &mut out),
        other => return Err(Error::usage(format!("generate: unknown target {other:?}; use man, bash, zsh or fish"))),
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// The built command tree the man pages describe, and their footer (`git-majordomus <version>`).
///
/// A page lists its subcommands as `<page>-<name>(1)` (clap_mangen), so each visible one gets a
/// page of its own ([`man_pages`]); hidden commands are neither listed nor paged, and clap's
/// `help` subcommand, which would be listed without a page, is left out of the tree.
fn man_tree() -> (clap::Command, String) {
    let mut root = super::command().bin_name(BIN).disable_help_subcommand(true);
    root.build();
    let source = format!("{BIN} {}", root.get_version().unwrap_or_default());
    (root, source)
}

/// One command's page as `(file name, roff)`: `git-majordomus-continuity-sync.1` for
/// `continuity sync`.
fn man_page(cmd: &clap::Command, source: &str) -> Result<(String, String)> {
    let man = clap_mangen::Man::new(cmd.clone()).source(source);
    let mut out: Vec<u8> = Vec::new();
    man.render(&mut out).map_err(|e| Error::io(format!("generate: cannot render {}: {e}", man.get_filename())))?;
    Ok((man.get_filename(), String::from_utf8_lossy(&out).into_owned()))
}

/// Every man page: the top page first, then each visible subcommand's, depth first.
fn man_pages() -> Result<Vec<(String, String)>> {
    fn walk(cmd: &clap::Command, source: &str, pages: &mut Vec<(String, String)>) -> Result<()> {
        pages.push(man_page(cmd, source)?);
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            walk(sub, source, pages)?;
        }
        Ok(())
    }
    let (root, source) = man_tree();
    let mut pages = Vec::new();
    walk(&root, &source, &mut pages)?;
    Ok(pages)
}

/// Writes every page of [`man_pages`] into `dir` (created when missing); returns the paths in
/// file-name order.
fn write_man_pages(dir: &Path) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io_at(dir, e))?;
    let mut pages = man_pages()?;
    pages.sort_by(|a, b| a.0.cmp(&b.0));
    let mut written = Vec::with_capacity(pages.len());
    for (name, text) in pages {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| Error::io_at(&path, e))?;
        written.push(path);
    }
    Ok(written)
}

/// The executable's name.
const BIN: &str = "git-majordomus";

/// A hyphen-free stand-in for [`BIN`] while clap_complete writes the bash script.
const PLACEHOLDER: &str = "gitmajordomusplaceholder";

/// What the placeholder becomes in shell identifiers (the function is `_git__majordomus`).
const IDENT: &str = "git__majordomus";

/// The bash script: clap's completion function plus the `_git_majordomus` entry point git calls.
///
/// clap_complete 4.6 spells the state of a subcommand two different ways when the binary's name
/// has a hyphen (clap-rs/clap#6421), so nothing past the first word would complete. The script is
/// therefore generated under a hyphen-free placeholder and renamed: identifiers become
/// `git__majordomus`, the `complete` registrations name `git-majordomus`.
fn bash(mut cmd: clap::Command) -> String {
    let mut raw = Vec::new();
    clap_complete::generate(clap_complete::Shell::Bash, &mut cmd, PLACEHOLDER, &mut raw);
    let text = String::from_utf8_lossy(&raw).replace(PLACEHOLDER, IDENT);
    let mut script = String::with_capacity(text.len() + GIT_SHIM.len());
    for line in text.lines() {
        let registration = line.trim_start().starts_with("complete ");
        match line.strip_suffix(&format!(" {IDENT}")) {
            Some(head) if registration => {
                script.push_str(head);
                script.push(' ');
                script.push_str(BIN);
            }
            _ => script.push_str(line),
        }
        script.push('\n');
    }
    script.push_str(GIT_SHIM);
    script
}

/// git's completion (`git-completion.bash`) completes `git majordomus ...` by calling
/// `_git_majordomus`, after asking bash-completion's loader for the file named `git-majordomus`
/// (this one). The shim hands clap's function the words after `majordomus` — git's own `words`,
/// `cword` and `__git_cmd_idx` when they exist, so `git -C dir majordomus ...` works too — and
/// appends the space git's `-o nospace` registration leaves to each candidate.
const GIT_SHIM: &str = r#"
# `git majordomus <TAB>`: git's completion calls _git_majordomus.
_git_majordomus() {
    local -a w
    local c i
    if [[ -n ${__git_cmd_idx-} ]] && declare -p words >/dev/null 2>&1; then
        w=(git-majordomus "${words[@]:__git_cmd_idx+1}")
        c=$((cword - __git_cmd_idx))
    else
        w=(git-majordomus "${COMP_WORDS[@]:2}")
        c=$((COMP_CWORD - 1))
    fi
    local -a COMP_WORDS=("${w[@]}")
    local COMP_CWORD=$c
    _git__majordomus git-majordomus "${w[c]}" "${w[c-1]}"
    for i in "${!COMPREPLY[@]}"; do
        [[ -d ${COMPREPLY[i]} ]] || COMPREPLY[i]+=" "
    done
}
"#;

#[cfg(test)]
mod tests {
    use super::render;

    #[test]
    fn bash_states_agree() {
        let s = render("bash").expect("bash renders");
        assert!(s.starts_with("_git__majordomus() {") || s.contains("\n_git__majordomus() {"), "function name");
        assert!(s.contains("\n_git_majordomus() {"), "git shim");
        assert!(!s.contains(super::PLACEHOLDER));
        let regs: Vec<&str> = s.lines().filter(|l| l.trim_start().starts_with("complete ")).collect();
        assert!(!regs.is_empty());
        assert!(regs.iter().all(|l| l.contains("-F _git__majordomus ") && l.ends_with(" git-majordomus")), "{regs:?}");
        // Every state the word loop sets has a case arm of its own (clap-rs/clap#6421).
        for line in s.lines() {
            let state = line.trim().strip_prefix("cmd=\"").and_then(|r| r.strip_suffix('"'));
            if let Some(state) = state.filter(|s| !s.is_empty()) {
                assert!(s.contains(&format!("\n        {state})\n")), "no case arm for {state}");
            }
        }
    }

    #[test]
    fn man_names_the_page_git_majordomus() {
        let s = render("man").expect("man renders");
        assert!(s.contains(".TH git-majordomus 1"), "{}", &s[..200.min(s.len())]);
    }

    /// Every `git-majordomus...(1)` a page names is a page `generate man <DIR>` writes.
    #[test]
    fn every_page_a_man_page_names_exists() {
        let pages = super::man_pages().expect("pages render");
        let names: std::collections::BTreeSet<&str> = pages.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names.len(), pages.len(), "one file per page");
        for want in [
            "git-majordomus.1",
            "git-majordomus-start.1",
            "git-majordomus-continuity.1",
            "git-majordomus-continuity-sync.1",
        ] {
            assert!(names.contains(want), "{want} missing from {names:?}");
        }
        assert!(!names.iter().any(|n| n.contains("generate") || n.ends_with("-help.1")), "{names:?}");
        let mut refs = 0;
        for (name, text) in &pages {
            assert!(
                text.contains(&format!("\n.TH {} 1 ", name.trim_end_matches(".1"))),
                "{name}: {}",
                &text[..200.min(text.len())]
            );
            let text = text.replace("\\-", "-");
            for (end, _) in text.match_indices("(1)") {
                let start = text[..end].rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '-')).map_or(0, |i| i + 1);
                let page = format!("{}.1", &text[start..end]);
                assert!(names.contains(page.as_str()), "{name} names {page}, which is not written");
                refs += 1;
            }
        }
        assert!(
            refs + 1 >= pages.len(),
            "each page but the top one is named by its parent ({refs} names, {} pages)",
            pages.len()
        );
    }

    #[test]
    fn man_dir_gets_every_page_and_other_targets_refuse_a_dir() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("man");
        let written = super::write_man_pages(&dir).expect("pages written");
        assert_eq!(written.len(), super::man_pages().expect("pages render").len());
        assert!(written.iter().all(|p| p.is_file() && p.parent() == Some(dir.as_path())), "{written:?}");
        assert!(written.windows(2).all(|w| w[0] < w[1]), "sorted: {written:?}");
        let top = std::fs::read_to_string(dir.join("git-majordomus.1")).expect("top page");
        assert_eq!(top, render("man").expect("man renders"), "the directory's top page is what stdout gets");

        let a = super::Args { what: "bash".into(), dir: Some(dir) };
        let e = super::run(&a, &mut crate::ui::Ui::new(false, false)).expect_err("refused");
        assert_eq!(e.exit, crate::error::Exit::Usage);
    }

    #[test]
    fn unknown_target_is_a_usage_error() {
        let e = render("powershell").expect_err("refused");
        assert_eq!(e.exit, crate::error::Exit::Usage);
    }
}
