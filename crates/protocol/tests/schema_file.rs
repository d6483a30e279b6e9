//! `docs/protocol.schema.json` is the schema of the types: a change to a type without
//! the file (or the file without the type) fails here.

use std::path::PathBuf;

fn schema_file() -> PathBuf {
    let crate_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let root = crate_dir
        .ancestors()
        .nth(2)
        .unwrap_or(&crate_dir)
        .to_path_buf();
    root.join("docs/protocol.schema.json")
}

#[test]
fn the_checked_in_schema_matches_the_types() {
    let path = schema_file();
    let expected = smallebot_protocol::schema::document_text();
    if std::env::var_os("UPDATE_SCHEMA").is_some() {
        if let Err(err) = std::fs::write(&path, &expected) {
            panic!("cannot write {}: {err}", path.display());
        }
        return;
    }
    let stored = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        stored == expected,
        "{} does not match the protocol's types. If the change is meant, regenerate it with\n\n    UPDATE_SCHEMA=1 cargo test -p smallebot-protocol --test schema_file\n\nand mind docs/protocol.md's versioning rule (removing or renaming a field raises PROTOCOL_VERSION).",
        path.display()
    );
}
