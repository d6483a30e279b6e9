//! `/export md|json [FILE]`: the open conversation written whole to a file, in the
//! forms of `conversations export` (Markdown, or the protocol's JSON).

use std::io::Write;
use std::path::{Path, PathBuf};

use smallebot_core::rules::export::file_name;

use super::Repl;
use crate::error::TerminalError;
use crate::export_file::{ExportFileError, write_export};
use crate::export_text::ExportFormat;
use crate::export_text::export_text;
use crate::user_path::user_path;

/// Names tried after the title's own when that file exists (`title-2.md` …).
const FREE_NAME_TRIES: usize = 100;

impl<W: Write> Repl<W> {
    /// `/export`: writes the conversation to `file`, or to a file named after its
    /// title in the current directory; never replaces an existing file.
    pub(super) async fn export(
        &mut self,
        format: ExportFormat,
        file: Option<String>,
    ) -> Result<(), TerminalError> {
        let Some(conversation) = self.conversation else {
            return self.say("nothing to export: this conversation has no messages yet");
        };
        let gathered = self.service.export(conversation).await?;
        let text = export_text(&gathered, format)?;
        let extension = match format {
            ExportFormat::Md => "md",
            ExportFormat::Json => "json",
        };
        let written = match file {
            Some(file) => {
                let path = user_path(Path::new(&file));
                write_new(&path, &text).map(|()| path)
            }
            None => write_free(&file_name(&gathered.conversation.title, extension), &text),
        };
        let line = match written {
            Ok(path) => format!(
                "exported the conversation to {} ({} bytes)",
                path.display(),
                text.len()
            ),
            Err(message) => format!("error: {message}"),
        };
        self.say(&line)
    }
}

/// Writes `text` to `path`, which must not exist yet (written whole beside it, then
/// renamed into place: see [`write_export`]).
fn write_new(path: &Path, text: &str) -> Result<(), String> {
    write_export(path, text, false).map_err(|error| match error {
        ExportFileError::Exists(_) => format!(
            "{} exists already: give another file name, or remove it first",
            path.display()
        ),
        other => other.to_string(),
    })
}

/// Writes `text` to `name` in the current directory, or to the first of `stem-2.ext`,
/// `stem-3.ext` … that does not exist; the path written.
fn write_free(name: &str, text: &str) -> Result<PathBuf, String> {
    let (stem, extension) = name.rsplit_once('.').unwrap_or((name, ""));
    for n in 1..=FREE_NAME_TRIES {
        let candidate = match n {
            1 => name.to_owned(),
            n => format!("{stem}-{n}.{extension}"),
        };
        let path = PathBuf::from(&candidate);
        if path.exists() {
            continue;
        }
        match write_new(&path, text) {
            Ok(()) => return Ok(path),
            // Created meanwhile: try the next name.
            Err(_) if path.exists() => {}
            Err(message) => return Err(message),
        }
    }
    Err(format!(
        "{name} and {stem}-2.{extension} to {stem}-{FREE_NAME_TRIES}.{extension} exist \
         already: give a file name (/export md FILE)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_existing_file_is_never_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let taken = dir.path().join("taken.md");
        std::fs::write(&taken, "keep").unwrap();
        let refused = write_new(&taken, "new").unwrap_err();
        assert!(refused.contains("taken.md exists already"), "{refused}");
        assert_eq!(std::fs::read_to_string(&taken).unwrap(), "keep");
        let stem = dir.path().join("taken").display().to_string();
        let path = write_free(&format!("{stem}.md"), "new").unwrap();
        assert_eq!(path, dir.path().join("taken-2.md"));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
    }
}
