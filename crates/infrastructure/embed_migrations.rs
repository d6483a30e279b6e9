//! Embeds a folder of migration files in the crate, for the build scripts of both stores.
//!
//! Writes `$OUT_DIR/migrations.rs`: `MIGRATION_FILES`, one `(version, description, sql)`
//! per `NNNN_words.sql` file, oldest first, the SQL included from the file, and
//! `MIGRATOR`, the sqlx `Migrator` built from them at first use, so sqlx's macros (which compile a
//! second copy of sqlx, its drivers and SQLite's C library for the compiler) are not
//! needed. The version and description are read from the file name as sqlx reads them
//! (the number before the first `_`; the rest without `.sql`, `_` as spaces), so the
//! checksums and rows of databases migrated before stay valid.

use std::error::Error;
use std::fmt::Write as _;
use std::path::Path;

/// Writes `$OUT_DIR/migrations.rs` for the migrations in `folder`.
pub fn embed(folder: &Path) -> Result<(), Box<dyn Error>> {
    println!("cargo:rerun-if-changed={}", folder.display());
    let mut files = Vec::new();
    for entry in std::fs::read_dir(folder)? {
        let path = entry?.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            return Err(format!("{}: a migration's name must be UTF-8", path.display()).into());
        };
        if !name.ends_with(".sql") {
            continue;
        }
        println!("cargo:rerun-if-changed={}", path.display());
        let (version, description) = parse_name(name)
            .ok_or_else(|| format!("{}: a migration is named NNNN_words.sql", path.display()))?;
        files.push((version, description, std::fs::canonicalize(&path)?));
    }
    files.sort_by_key(|(version, _, _)| *version);
    let mut code = String::from(
        "/// The migration files, oldest first: version, description, SQL.\n\
         pub(crate) const MIGRATION_FILES: &[(i64, &str, &str)] = &[\n",
    );
    for (version, description, path) in &files {
        writeln!(
            code,
            "    ({version}, {description:?}, include_str!({path:?})),"
        )?;
    }
    code.push_str("];\n");
    code.push_str(MIGRATOR);
    let out = std::env::var("OUT_DIR")?;
    std::fs::write(Path::new(&out).join("migrations.rs"), code)?;
    Ok(())
}

/// The `Migrator` of the embedded files, as sqlx runs them; built once, never changed.
const MIGRATOR: &str = r#"
/// The embedded migrations as sqlx runs them; built once, never changed.
static MIGRATOR: std::sync::LazyLock<sqlx::migrate::Migrator> = std::sync::LazyLock::new(|| {
    sqlx::migrate::Migrator::with_migrations(
        MIGRATION_FILES
            .iter()
            .map(|(version, description, sql)| {
                sqlx::migrate::Migration::new(
                    *version,
                    std::borrow::Cow::Borrowed(*description),
                    sqlx::migrate::MigrationType::Simple,
                    sqlx::SqlStr::from_static(sql),
                    sql.starts_with("-- no-transaction"),
                )
            })
            .collect(),
    )
});
"#;

/// `0007_conversation_version.sql` → `(7, "conversation version")`; `None` for another
/// shape, or a reversible migration (`.up.sql`, `.down.sql`: the stores have none).
fn parse_name(name: &str) -> Option<(i64, String)> {
    let (number, rest) = name.split_once('_')?;
    let words = rest.strip_suffix(".sql")?;
    if words.ends_with(".up") || words.ends_with(".down") || words.is_empty() {
        return None;
    }
    Some((number.parse().ok()?, words.replace('_', " ")))
}
