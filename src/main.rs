//! The `git-majordomus` executable: everything lives in the library.
//! Must not touch: any logic, any parsing.

fn main() -> std::process::ExitCode {
    majordomus::cli::main()
}
