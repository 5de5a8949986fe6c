//! The integration tests of codiva-core, in one binary (one link per crate).

mod process;
