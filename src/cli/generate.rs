//! `git majordomus generate man|bash|zsh|fish` (hidden): the man page and shell completions
//! that `make install` writes.

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
    let mut cmd = super::command().bin_name("git-majordomus");
    let mut out: Vec<u8> = Vec::new();
    match a.what.as_str() {
        "man" => clap_mangen::Man::new(cmd).render(&mut out).map_err(|e| Error::io(e.to_string()))?,
        "bash" => {
            clap_complete::generate(clap_complete::Shell::Bash, &mut cmd, "git-majordomus", &mut out);
            // git's completion calls _git_<subcommand> for `git majordomus <TAB>`.
            out.extend_from_slice(
                b"\n_git_majordomus() {\n    local cur=\"${COMP_WORDS[COMP_CWORD]}\"\n    COMP_WORDS=(git-majordomus \"${COMP_WORDS[@]:2}\")\n    COMP_CWORD=$((COMP_CWORD - 1))\n    _git__majordomus git-majordomus \"$cur\" \"${COMP_WORDS[COMP_CWORD-1]}\"\n}\n",
            );
        }
        "zsh" => clap_complete::generate(clap_complete::Shell::Zsh, &mut cmd, "git-majordomus", &mut out),
        "fish" => clap_complete::generate(clap_complete::Shell::Fish, &mut cmd, "git-majordomus", &mut out),
        other => return Err(Error::usage(format!("generate: unknown target {other:?}; use man, bash, zsh or fish"))),
    }
    ui.text(&String::from_utf8_lossy(&out));
    Ok(Exit::Ok)
}
