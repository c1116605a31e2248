//! `git majordomus generate man|bash|zsh|fish` (hidden): the man page and shell completions
//! that `make install` writes.
//!
//! Owns: turning the clap command tree into roff and completion scripts, and the bash glue that
//! lets git's own completion (`git majordomus <TAB>`) reach ours.
//! Must not touch: git, records, the file system (the Makefile decides where the output goes).

use crate::error::{Error, Exit, Result};
use crate::ui::Ui;

/// Print the man page or a completion script
#[derive(Debug, clap::Args)]
pub struct Args {
    /// man, bash, zsh or fish
    what: String,
}

/// Runs `generate`.
pub fn run(a: &Args, ui: &mut Ui) -> Result<Exit> {
    let text = render(&a.what)?;
    ui.text(&text);
    Ok(Exit::Ok)
}

/// Renders one target: `man`, `bash`, `zsh` or `fish`.
fn render(what: &str) -> Result<String> {
    let mut cmd = super::command().bin_name(BIN);
    let mut out: Vec<u8> = Vec::new();
    match what {
        "man" => clap_mangen::Man::new(cmd).render(&mut out).map_err(|e| Error::io(e.to_string()))?,
        "bash" => return Ok(bash(cmd)),
        "zsh" => clap_complete::generate(clap_complete::Shell::Zsh, &mut cmd, BIN, &mut out),
        "fish" => clap_complete::generate(clap_complete::Shell::Fish, &mut cmd, BIN, &mut out),
        other => return Err(Error::usage(format!("generate: unknown target {other:?}; use man, bash, zsh or fish"))),
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
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

    #[test]
    fn unknown_target_is_a_usage_error() {
        let e = render("powershell").expect_err("refused");
        assert_eq!(e.exit, crate::error::Exit::Usage);
    }
}
