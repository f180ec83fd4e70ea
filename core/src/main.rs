//! The `warpsight` binary: parses the command line, sets up logging and prints errors in the
//! `error:` / `Caused by:` / `hint:` style. All work happens in the library.

use std::process::ExitCode;

fn main() -> ExitCode {
    warpsight::cli::main()
}
