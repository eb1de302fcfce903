//! The `rpy` command line and the pipeline driver that ties the stages together.

pub mod cli;
pub mod graphview;
pub mod pipeline;
