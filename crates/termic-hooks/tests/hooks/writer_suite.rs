//! The config writer's integration tests, in one binary: pure edits,
//! fixtures, the real users' corpus, property tests and the file I/O edge.

#[path = "writer_suite/support.rs"]
mod support;

#[path = "writer_suite/claude.rs"]
mod claude;
#[path = "writer_suite/corpus.rs"]
mod corpus;
#[path = "writer_suite/fixtures.rs"]
mod fixtures;
#[path = "writer_suite/fsio.rs"]
mod fsio;
#[path = "writer_suite/named.rs"]
mod named;
#[path = "writer_suite/props.rs"]
mod props;
#[path = "writer_suite/restore.rs"]
mod restore;
