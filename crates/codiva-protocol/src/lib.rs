//! codiva's client protocol: every type a client of codiva sees (requests, their params and
//! results, notifications, session rows and events, log entries, prompts, errors and refusal
//! names), defined once, `Serialize` and `Deserialize`, and the table that ties each method's
//! name to its types. No IO, no tokio, no agent's name: the core (`codiva-core`) re-exports
//! these types where it used to define them, and the front ends speak them.

pub mod agent;
pub mod approval;
pub mod error;
pub mod github;
pub mod group;
pub mod input;
pub mod lang;
pub mod log;
pub mod manager;
pub mod mcp;
pub mod methods;
pub mod outside;
pub mod params;
pub mod plan_usage;
pub mod review;
pub mod schema;
pub mod session;
pub mod text;
pub mod tool;
pub mod view;
mod vocabulary;

pub use approval::{ApprovalPolicy, ApprovalRule};
pub use input::{ImageInput, UserInput};
pub use methods::{ClientRequest, ParseError, Request, ServerNotification};
pub use schema::PROTOCOL_VERSION;
