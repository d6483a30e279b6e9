//! The symlink race: while a thread keeps swapping a workspace directory for a link
//! to a directory outside, ReadFile, WriteFile, AppendFile and CreateDirectory run
//! thousands of times through it (ListFiles and GrepContent hundreds). Nothing outside is ever read or written: the kernel
//! resolves each open beneath the workspace root in the same step as the open.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod workspace_fixture;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::json;
use smallebot_core::entities::ToolCallStatus;
use workspace_fixture::Fixture;

const ROUNDS: usize = 3_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn swapping_a_directory_for_an_outside_link_never_leads_a_tool_outside() {
    let fx = Fixture::new();
    std::fs::create_dir_all(fx.root.join("d")).unwrap();
    std::fs::write(fx.root.join("d/note.txt"), "inside").unwrap();
    // The outside directory has the same shape, so every check passes through the link.
    std::fs::write(fx.base.join("outside/note.txt"), "OUTSIDE SECRET").unwrap();
    std::fs::write(fx.base.join("outside/only_outside.txt"), "OUTSIDE SECRET").unwrap();
    let before = fx.outside_snapshot();
    let outside_entries = || std::fs::read_dir(fx.base.join("outside")).unwrap().count();
    let entries_before = outside_entries();

    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let (stop, root, outside) = (Arc::clone(&stop), fx.root.clone(), fx.base.join("outside"));
        std::thread::spawn(move || {
            // `d` and `d.link` change places atomically, again and again: `d` is the real
            // directory one moment and a link to the outside the next.
            let (dir, link) = (root.join("d"), root.join("d.link"));
            std::os::unix::fs::symlink(&outside, &link).unwrap();
            let mut swaps = 0u64;
            while !stop.load(Ordering::Relaxed) {
                let exchange = rustix::fs::renameat_with(
                    rustix::fs::CWD,
                    &dir,
                    rustix::fs::CWD,
                    &link,
                    rustix::fs::RenameFlags::EXCHANGE,
                );
                if exchange.is_ok() {
                    swaps += 1;
                }
            }
            swaps
        })
    };

    let mut leaked = Vec::new();
    for round in 0..ROUNDS {
        let read = fx.call("ReadFile", json!({"path": "d/note.txt"})).await;
        if read.content.contains("OUTSIDE") {
            leaked.push(format!("round {round}: ReadFile read {}", read.content));
        }
        let file = format!("d/new_{round}.txt");
        let _ = fx
            .call("WriteFile", json!({"path": file, "content": "x"}))
            .await;
        let _ = fx
            .call("AppendFile", json!({"path": "d/log.txt", "content": "x"}))
            .await;
        let dir = format!("d/sub_{round}/deeper");
        let _ = fx.call("CreateDirectory", json!({"path": dir})).await;
        if round % 10 == 0 {
            let listed = fx.call("ListFiles", json!({"path": "d"})).await;
            if listed.content.contains("only_outside") {
                leaked.push(format!(
                    "round {round}: ListFiles listed {}",
                    listed.content
                ));
            }
            let grep = fx
                .call("GrepContent", json!({"pattern": "OUTSIDE", "path": "d"}))
                .await;
            if grep.content.contains("OUTSIDE SECRET") {
                leaked.push(format!("round {round}: GrepContent found {}", grep.content));
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swapper.join().unwrap();
    assert!(swaps > 100, "the swapper ran {swaps} times");
    assert!(leaked.is_empty(), "{leaked:?}");
    assert_eq!(
        fx.outside_snapshot(),
        before,
        "something was written outside"
    );
    assert_eq!(
        outside_entries(),
        entries_before,
        "nothing appeared outside"
    );

    // The tools still work once nothing moves.
    let wrote = fx
        .call(
            "WriteFile",
            json!({"path": "after/check.txt", "content": "fine"}),
        )
        .await;
    assert_eq!(wrote.status, ToolCallStatus::Ok, "{}", wrote.content);
    let read = fx
        .call("ReadFile", json!({"path": "after/check.txt"}))
        .await;
    assert_eq!(read.status, ToolCallStatus::Ok, "{}", read.content);
    assert!(read.content.contains("fine"));
}
