//! The fake model server and the real agents against it directly, outside
//! termic: `server` runs in the normal suite; `native`, `errors` and `more`
//! are `#[ignore]`d real-agent measurements (TERMIC_REAL_AGENTS, `--ignored`;
//! `.ci/run` runs `native::`). `cargo test -p termic-fakemodel --test fakemodel`.

#[path = "fakemodel/errors.rs"]
mod errors;
#[path = "fakemodel/more.rs"]
mod more;
#[path = "fakemodel/native.rs"]
mod native;
#[path = "fakemodel/server.rs"]
mod server;
