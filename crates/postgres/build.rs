//! Embeds `migrations/` (the PostgreSQL schema's migrations) in the crate, with the
//! same embedding as the SQLite store's.

#[path = "../infrastructure/embed_migrations.rs"]
mod embed_migrations;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    embed_migrations::embed(std::path::Path::new("migrations"))
}
