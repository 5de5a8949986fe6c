//! The integration tests of codiva-core, in one binary (one link per crate).

mod claude;
mod fixtures;
mod process;
