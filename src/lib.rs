//! The `rpy` command line and the pipeline driver that ties the stages together.

pub mod cli;
pub mod graphview;
pub mod pipeline;

/// Every binary that links the driver (the `rpy` command, the tests and
/// the benches) allocates with mimalloc: see Cargo.toml.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
