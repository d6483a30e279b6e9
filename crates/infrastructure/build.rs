//! Embeds `migrations/` (the SQLite schema's migrations) in the crate.

#[path = "embed_migrations.rs"]
mod embed_migrations;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    embed_migrations::embed(std::path::Path::new("../../migrations"))
}
