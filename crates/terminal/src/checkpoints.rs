//! `smallebot checkpoints …`: its arguments and what it prints (the binary opens the
//! store and reads the retention of agent.json; the prune itself is
//! `smallebot_checkpoints::prune`).

use smallebot_checkpoints::{PruneReport, Retention, prune_now};
use smallebot_core::repository::CheckpointRepository;

use crate::TerminalError;

/// `smallebot checkpoints …`
#[derive(Debug, Clone, clap::Subcommand)]
pub enum CheckpointsCommand {
    /// Remove the checkpoint contents agent.json's retention does not keep: those last
    /// needed more than `checkpoints.maxAgeDays` ago, then the oldest until the rest
    /// fits `checkpoints.maxTotalBytes`. The turns whose contents go are marked, and a
    /// rewind of them names each file it cannot restore.
    Prune {
        /// Only say what would be removed.
        #[arg(long)]
        dry_run: bool,
    },
}

/// The line a prune prints.
#[must_use]
pub fn prune_line(report: &PruneReport, dry_run: bool) -> String {
    let verb = if dry_run { "would remove" } else { "removed" };
    format!(
        "{verb} {} checkpoint content(s), {} bytes; {} content(s), {} bytes kept",
        report.removed, report.removed_bytes, report.left, report.left_bytes
    )
}

/// Runs `command` on the checkpoint contents of `store` under `retention`, printing
/// what it did.
///
/// # Errors
/// The store fails, or the output cannot be written.
pub async fn run(
    store: &dyn CheckpointRepository,
    retention: Retention,
    command: CheckpointsCommand,
) -> Result<(), TerminalError> {
    match command {
        CheckpointsCommand::Prune { dry_run } => {
            let report = prune_now(store, retention, dry_run)
                .await
                .map_err(TerminalError::Rewind)?;
            outln!("{}", prune_line(&report, dry_run))?;
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prune_line_says_counts_and_bytes() {
        let report = PruneReport {
            removed: 2,
            removed_bytes: 30,
            left: 1,
            left_bytes: 5,
        };
        assert_eq!(
            prune_line(&report, false),
            "removed 2 checkpoint content(s), 30 bytes; 1 content(s), 5 bytes kept"
        );
        assert_eq!(
            prune_line(&report, true),
            "would remove 2 checkpoint content(s), 30 bytes; 1 content(s), 5 bytes kept"
        );
    }
}
