//! Why a plugin file was rejected or a hook call failed. Every variant names what went wrong in
//! words a user can act on; the file is attached by [`crate::Rejected`].

use std::path::PathBuf;

/// One impossible or inconsistent number in a plugin's data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueProblem {
    /// What it is about, e.g. "arch 8.0" or "device \"NVIDIA H200\"".
    pub item: String,
    /// The descriptor field, e.g. "sm_count".
    pub field: &'static str,
    /// What is wrong, e.g. "is 0; expected at least 1".
    pub message: String,
}

impl std::fmt::Display for ValueProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {} {}", self.item, self.field, self.message)
    }
}

/// Errors of loading a plugin or calling one of its hooks.
#[derive(Debug, thiserror::Error)]
pub enum PluginError {
    /// The file is not a complete shared library (checked before `dlopen`, which would crash the
    /// process with SIGBUS on a truncated file).
    #[error("not a complete shared library: {0}")]
    Incomplete(String),
    /// The dynamic loader could not open the file; the message is the loader's own (`dlerror`).
    #[error("cannot load the library: {0}")]
    Open(String),
    /// The library does not export the entry symbol.
    #[error(
        "no entry symbol `{symbol}`: not a warpsight plugin, or built for another ABI major version ({detail})"
    )]
    MissingEntry {
        /// The symbol looked for.
        symbol: &'static str,
        /// The loader's message.
        detail: String,
    },
    /// The entry symbol returned an error status.
    #[error("the entry symbol failed with status {status}: {message}")]
    EntryFailed {
        /// The status code.
        status: i32,
        /// The plugin's message.
        message: String,
    },
    /// The entry symbol panicked; the plugin caught the panic.
    #[error("the plugin panicked in its entry symbol: {message}")]
    EntryPanicked {
        /// The panic message.
        message: String,
    },
    /// The entry symbol succeeded but returned a null table.
    #[error("the entry symbol returned a null table")]
    NullTable,
    /// The table does not start with the magic number.
    #[error(
        "wrong magic number {found:#018x} (expected {expected:#018x}): not a warpsight plugin table"
    )]
    WrongMagic {
        /// What the table holds.
        found: u64,
        /// [`warpsight_plugin::MAGIC`].
        expected: u64,
    },
    /// The plugin was built for another ABI major version.
    #[error(
        "ABI major version {found}, but this warpsight supports {expected}: rebuild the plugin against warpsight-plugin {expected}.x"
    )]
    AbiMajor {
        /// The plugin's major version.
        found: u32,
        /// The host's major version.
        expected: u32,
    },
    /// A struct is smaller than this host needs.
    #[error("{what} is {found} bytes, smaller than the {needed} bytes this host reads")]
    StructTooSmall {
        /// Which struct.
        what: &'static str,
        /// Its size according to the plugin.
        found: usize,
        /// The size the host needs.
        needed: usize,
    },
    /// A pointer or count in the table is unusable.
    #[error("malformed table: {0}")]
    Malformed(String),
    /// A string is not UTF-8.
    #[error("{what} is not valid UTF-8")]
    InvalidUtf8 {
        /// Which string.
        what: String,
    },
    /// Numbers that cannot be right.
    #[error("impossible values: {}", problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    InvalidValues {
        /// Every problem found.
        problems: Vec<ValueProblem>,
    },
    /// The rules hook returned an error status.
    #[error("the rules hook of plugin `{plugin}` failed with status {status}: {message}")]
    HookFailed {
        /// The plugin's name.
        plugin: String,
        /// The status code.
        status: i32,
        /// The plugin's message.
        message: String,
    },
    /// The rules hook panicked; the plugin caught the panic.
    #[error("the rules hook of plugin `{plugin}` panicked: {message}")]
    HookPanicked {
        /// The plugin's name.
        plugin: String,
        /// The panic message.
        message: String,
    },
    /// The rules hook returned findings that cannot be right.
    #[error("the rules hook of plugin `{plugin}` returned invalid findings: {message}")]
    InvalidFindings {
        /// The plugin's name.
        plugin: String,
        /// What is wrong.
        message: String,
    },
    /// The launches could not be converted to the Arrow C Data Interface.
    #[error("cannot pass the launches to the rules hook: {0}")]
    Export(String),
    /// Building the plugins (test support only) failed.
    #[error("cannot build the workspace plugins in {dir}: {message}")]
    Build {
        /// The target directory.
        dir: PathBuf,
        /// What failed.
        message: String,
    },
}
