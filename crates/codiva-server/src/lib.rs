//! codiva's JSON-RPC server, one for every front end: the handlers of the protocol's requests
//! over a session manager (`methods.rs`), JSON-RPC framing and errors (`rpc.rs`), one client's
//! connection over any byte stream (`connection.rs`: `codiva serve --stdio`'s stdin/stdout, a
//! daemon's socket connection) and the in-process client backend (`in_process.rs`: the TUI's
//! in-process mode, and `codiva exec` over an ephemeral manager). What the binary adds is the transport and the wiring
//! (`codiva serve`, the daemon); the benchmarks encode events through this crate as well.

pub mod connection;
pub mod in_process;
pub mod methods;
pub mod rpc;

pub use connection::{Connection, Ended};
pub use methods::{Host, Versions};
