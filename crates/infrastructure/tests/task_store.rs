//! `FileTaskStore` on real temp directories (issue 5 acceptance 1 and 6).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Value, json};
use smallebot_core::ids::ConversationId;
use smallebot_core::tasks::{TaskError, TaskStatus, TaskStore, TaskStoreError, added_result};
use smallebot_infrastructure::FileTaskStore;

fn store_in(dir: &Path) -> FileTaskStore {
    FileTaskStore::new(dir.join("tasks"))
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[tokio::test]
async fn a_missing_file_is_an_empty_list_and_the_directory_is_created_on_write() {
    let tmp = tempfile::tempdir().unwrap();
    let store = store_in(tmp.path());
    let id = ConversationId::new();
    assert!(store.load(id).await.unwrap().tasks.is_empty());
    assert!(!store.dir().exists(), "reading creates nothing");

    let update = store
        .update(
            id,
            Box::new(|list| Ok(added_result(&list.add("Load data", "csv", &[])?))),
        )
        .await
        .unwrap();
    assert!(update.written);
    assert_eq!(update.list.tasks.len(), 1);
    assert!(update.output.contains(r#""title":"Load data""#));
    let path = store.path_of(id);
    assert_eq!(
        path.file_name().unwrap().to_string_lossy(),
        format!("{}.json", id.simple())
    );
    assert_eq!(path.file_name().unwrap().len(), 32 + ".json".len());
    assert_eq!(
        files_in(store.dir()),
        [format!("{}.json", id.simple())],
        "no temp files left"
    );
    assert_eq!(store.load(id).await.unwrap(), update.list);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_concurrent_updates_lose_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let store = Arc::new(store_in(tmp.path()));
    let id = ConversationId::new();
    let handles: Vec<_> = (0..50)
        .map(|i| {
            let store = Arc::clone(&store);
            tokio::spawn(async move {
                store
                    .update(
                        id,
                        Box::new(move |list| Ok(list.add(&format!("task {i}"), "", &[])?.id)),
                    )
                    .await
                    .unwrap()
            })
        })
        .collect();
    let mut ids = Vec::new();
    for handle in handles {
        ids.push(handle.await.unwrap().output);
    }
    ids.sort_by_key(|id| id.parse::<u32>().unwrap());
    let expected: Vec<String> = (1..=50).map(|n| n.to_string()).collect();
    assert_eq!(ids, expected, "every update saw the previous ones");

    let list = store.load(id).await.unwrap();
    assert_eq!(list.tasks.len(), 50);
    let mut titles: Vec<&str> = list.tasks.iter().map(|t| t.title.as_str()).collect();
    titles.sort_unstable();
    titles.dedup();
    assert_eq!(titles.len(), 50, "each update's task is there once");
    assert_eq!(files_in(store.dir()).len(), 1, "no temp files left");
}

#[tokio::test]
async fn a_refused_or_empty_edit_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let store = store_in(tmp.path());
    let id = ConversationId::new();
    store
        .update(id, Box::new(|l| Ok(l.add("a", "", &[])?.id)))
        .await
        .unwrap();
    let before = std::fs::read(store.path_of(id)).unwrap();
    let modified = std::fs::metadata(store.path_of(id))
        .unwrap()
        .modified()
        .unwrap();

    let refused = store
        .update(
            id,
            Box::new(|l| {
                l.tasks.clear(); // a misbehaving edit: its change must not be written
                Err(TaskError::NotFound)
            }),
        )
        .await
        .unwrap_err();
    assert!(matches!(
        refused,
        TaskStoreError::Rejected(TaskError::NotFound)
    ));
    let unchanged = store
        .update(id, Box::new(|_| Ok("looked".into())))
        .await
        .unwrap();
    assert!(!unchanged.written);
    assert_eq!(std::fs::read(store.path_of(id)).unwrap(), before);
    assert_eq!(
        std::fs::metadata(store.path_of(id))
            .unwrap()
            .modified()
            .unwrap(),
        modified
    );
}

#[tokio::test]
async fn a_corrupt_file_is_reported_preserved_and_never_overwritten() {
    let tmp = tempfile::tempdir().unwrap();
    let store = store_in(tmp.path());
    let id = ConversationId::new();
    std::fs::create_dir_all(store.dir()).unwrap();
    let path = store.path_of(id);
    let garbage = b"{\"tasks\": [ {\"id\": \"1\", \"title\": oops";
    std::fs::write(&path, garbage).unwrap();

    // Reading reports it and leaves it in place.
    match store.load(id).await.unwrap_err() {
        TaskStoreError::Corrupt {
            path: reported,
            preserved_as: None,
            ..
        } => assert_eq!(reported, path),
        other => panic!("expected Corrupt, got {other:?}"),
    }
    assert_eq!(std::fs::read(&path).unwrap(), garbage);

    // Updating moves it aside and applies the edit to a new list, saying so.
    let update = store
        .update(id, Box::new(|l| Ok(l.add("new", "", &[])?.id)))
        .await
        .unwrap();
    assert_eq!(update.output, "1");
    assert_eq!(update.list.tasks.len(), 1);
    let note = update.recovered.unwrap();
    let kept = corrupt_copy(store.dir(), id);
    assert!(
        note.contains(&path.display().to_string())
            && note.contains(&format!("it was kept as {}", kept.display()))
            && note.contains("a new task list was started"),
        "{note}"
    );
    assert_eq!(std::fs::read(&kept).unwrap(), garbage, "the bytes are kept");
    let kept_name = kept.file_name().unwrap().to_string_lossy().into_owned();
    let prefix = format!("{}.json.corrupt-", id.simple());
    let stamp = kept_name.strip_prefix(&prefix).unwrap();
    assert_eq!(stamp.len(), "20261122T031500Z".len(), "{kept_name}");
    assert!(chrono::NaiveDateTime::parse_from_str(stamp, "%Y%m%dT%H%M%SZ").is_ok());
    assert_eq!(
        store.load(id).await.unwrap().tasks.len(),
        1,
        "the new list is stored"
    );

    // Later updates go on with the new list; the corrupt copy stays.
    let fresh = store
        .update(id, Box::new(|l| Ok(l.add("newer", "", &[])?.id)))
        .await
        .unwrap();
    assert_eq!(fresh.output, "2");
    assert_eq!(fresh.recovered, None);
    assert_eq!(std::fs::read(&kept).unwrap(), garbage);

    // A second corruption (valid JSON, wrong shape) gets its own name, even within a second.
    std::fs::write(&path, br#"{"tasks": 5}"#).unwrap();
    let again = store
        .update(id, Box::new(|_| Ok(String::new())))
        .await
        .unwrap();
    assert!(again.recovered.is_some());
    let copies = corrupt_copies(store.dir(), id);
    assert_eq!(copies.len(), 2, "{copies:?}");
    let second = copies.into_iter().find(|c| *c != kept).unwrap();
    assert_eq!(std::fs::read(&second).unwrap(), br#"{"tasks": 5}"#);
    assert_eq!(std::fs::read(&kept).unwrap(), garbage);
}

#[tokio::test]
async fn a_seed_format_file_reads_fine_and_is_upgraded_on_the_next_write() {
    let tmp = tempfile::tempdir().unwrap();
    let store = store_in(tmp.path());
    let id = ConversationId::new();
    std::fs::create_dir_all(store.dir()).unwrap();
    let seed = json!({"tasks": [
        {"id": "3f2b9c1e0a4d4e5f8a9b0c1d2e3f4a5b", "title": "Load CSV", "description": "d", "done": true},
        {"id": "b", "title": "Report", "description": "", "done": false}
    ]});
    std::fs::write(store.path_of(id), seed.to_string()).unwrap();

    let list = store.load(id).await.unwrap();
    assert_eq!(list.tasks.len(), 2);
    assert_eq!(list.tasks[0].status, TaskStatus::Done);
    assert_eq!(list.tasks[1].status, TaskStatus::Pending);
    let unchanged = std::fs::read(store.path_of(id)).unwrap();
    assert_eq!(
        unchanged,
        seed.to_string().into_bytes(),
        "reading does not rewrite"
    );

    store
        .update(id, Box::new(|l| Ok(l.start("b")?.id)))
        .await
        .unwrap();
    let upgraded = read_json(&store.path_of(id));
    assert_eq!(
        upgraded["tasks"][0],
        json!({"id": "3f2b9c1e0a4d4e5f8a9b0c1d2e3f4a5b", "title": "Load CSV", "description": "d",
               "done": true, "status": "done", "dependsOn": [], "notes": "",
               "toolHistory": [], "files": []})
    );
    assert_eq!(upgraded["tasks"][1]["status"], "in_progress");
    assert_eq!(upgraded["tasks"][1]["done"], false);
    assert_eq!(upgraded["tasks"][1]["toolHistory"], json!([]));
}

#[tokio::test]
async fn delete_removes_the_file_and_tolerates_a_missing_one() {
    let tmp = tempfile::tempdir().unwrap();
    let store = store_in(tmp.path());
    let id = ConversationId::new();
    let other = ConversationId::new();
    for c in [id, other] {
        store
            .update(c, Box::new(|l| Ok(l.add("a", "", &[])?.id)))
            .await
            .unwrap();
    }
    store.delete(id).await.unwrap();
    assert!(!store.path_of(id).exists());
    assert!(
        store.path_of(other).exists(),
        "other conversations keep theirs"
    );
    assert!(store.load(id).await.unwrap().tasks.is_empty());
    store.delete(id).await.unwrap();
    store.delete(ConversationId::new()).await.unwrap();
}

/// Small files are read on the calling thread, large ones on the blocking pool: both
/// paths give the same list, and a path that is not a file is an error, not "no tasks".
#[tokio::test]
async fn large_small_and_unreadable_task_files_load_alike() {
    let tmp = tempfile::tempdir().unwrap();
    let store = store_in(tmp.path());
    std::fs::create_dir_all(store.dir()).unwrap();
    let (small, large, folder) = (
        ConversationId::new(),
        ConversationId::new(),
        ConversationId::new(),
    );
    let task = |i: usize, description: &str| {
        json!({"id": format!("t{i}"), "title": format!("Task {i}"),
               "description": description, "done": false})
    };
    let small_list = json!({"tasks": [task(0, "short")]});
    std::fs::write(store.path_of(small), small_list.to_string()).unwrap();
    let tasks: Vec<Value> = (0..40).map(|i| task(i, &"d".repeat(4000))).collect();
    let large_text = json!({ "tasks": tasks }).to_string();
    assert!(large_text.len() > 100 * 1024, "{}", large_text.len());
    std::fs::write(store.path_of(large), &large_text).unwrap();
    std::fs::create_dir_all(store.path_of(folder)).unwrap();

    let read = store.load(small).await.unwrap();
    assert_eq!(read.tasks.len(), 1);
    assert_eq!(read.tasks[0].description, "short");
    let read = store.load(large).await.unwrap();
    assert_eq!(read.tasks.len(), 40);
    assert_eq!(read.tasks[39].title, "Task 39");
    assert_eq!(read.tasks[39].description.len(), 4000);
    let error = store.load(folder).await.unwrap_err();
    assert!(
        matches!(error, TaskStoreError::Io { .. }),
        "a folder in the task file's place: {error}"
    );
}

/// The `.corrupt-*` copies of `id`'s task file, oldest name first.
fn corrupt_copies(dir: &std::path::Path, id: ConversationId) -> Vec<PathBuf> {
    let prefix = format!("{}.json.corrupt-", id.simple());
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with(&prefix)
        })
        .collect();
    found.sort();
    found
}

/// The one `.corrupt-*` copy of `id`'s task file.
fn corrupt_copy(dir: &std::path::Path, id: ConversationId) -> PathBuf {
    let mut copies = corrupt_copies(dir, id);
    assert_eq!(copies.len(), 1, "{copies:?}");
    copies.remove(0)
}
