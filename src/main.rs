//! The `git-majordomus` executable: everything lives in the library.

fn main() -> std::process::ExitCode {
    majordomus::cli::main()
}
