//! `WriteFile` shows what it changed: replacing a text file appends a bounded unified
//! diff to its result (the form the terminal and the page read); a new file, an
//! unchanged one, a binary one and `AppendFile` get none.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod workspace_fixture;

use serde_json::json;
use workspace_fixture::Fixture;

#[tokio::test]
async fn a_replaced_text_file_shows_its_diff() {
    let fx = Fixture::new();
    let text = fx
        .ok(
            "WriteFile",
            json!({"path": "notes/a.txt", "content": "one\ntwo\nthree\n"}),
        )
        .await;
    assert_eq!(text, "Wrote 14 bytes to 'notes/a.txt' (new file).");

    let text = fx
        .ok(
            "WriteFile",
            json!({"path": "notes/a.txt", "content": "one\n2\nthree\nfour\n"}),
        )
        .await;
    assert_eq!(
        text,
        "Wrote 17 bytes to 'notes/a.txt' (replaced the previous 14 bytes).\n\n\
         ```diff\n\
         --- a/notes/a.txt\n\
         +++ b/notes/a.txt\n\
         @@ -1,3 +1,4 @@\n \
         one\n\
         -two\n\
         +2\n \
         three\n\
         +four\n\
         ```"
    );
    assert_eq!(fx.read("notes/a.txt"), "one\n2\nthree\nfour\n");

    let same = fx
        .ok(
            "WriteFile",
            json!({"path": "notes/a.txt", "content": "one\n2\nthree\nfour\n"}),
        )
        .await;
    assert_eq!(
        same,
        "Wrote 17 bytes to 'notes/a.txt' (replaced the previous 17 bytes)."
    );
}

#[tokio::test]
async fn binary_files_and_appends_show_no_diff() {
    let fx = Fixture::new();
    std::fs::create_dir_all(&fx.root).unwrap();
    std::fs::write(fx.root.join("blob.bin"), [0xff, 0xfe, 0x00, 0x41]).unwrap();
    let text = fx
        .ok(
            "WriteFile",
            json!({"path": "blob.bin", "content": "text\n"}),
        )
        .await;
    assert_eq!(
        text,
        "Wrote 5 bytes to 'blob.bin' (replaced the previous 4 bytes)."
    );
    let text = fx
        .ok(
            "AppendFile",
            json!({"path": "blob.bin", "content": "more\n"}),
        )
        .await;
    assert!(!text.contains("```"), "{text}");
}
