//! Issue 31: a message's attachments reach the model — an image as an `image_url` part
//! (a vision model only), a text file inlined under its header within its budget, any
//! other file saved in the workspace and named by its path — count in the estimate, and
//! are named, never sent, in a summary request.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use common::*;
use smallebot_application::{PipelineError, SendOptions};
use smallebot_core::entities::{Conversation, HistoryRow, ImageSize, Role};
use smallebot_core::repository::{AttachmentRepository, ConversationRepository};
use smallebot_core::rules::attachment::image_tokens;
use smallebot_testkit::ScriptedResponse;
use smallebot_testkit::files::png_header as png;

/// Sends `text` with files (name, content) attached, and waits for the turn's end.
async fn send_with(h: &Harness, c: &Conversation, text: &str, files: &[(&str, Vec<u8>)]) {
    let mut ids = Vec::new();
    for (name, content) in files {
        ids.push(
            h.service
                .attach(c.id, name, content.clone())
                .await
                .unwrap()
                .id,
        );
    }
    let options = SendOptions {
        attachments: ids,
        ..SendOptions::default()
    };
    h.service.send(c.id, text, options).await.unwrap();
}

fn user_row_tokens(rows: &[HistoryRow]) -> i64 {
    rows.iter()
        .find_map(|row| match row {
            HistoryRow::Message(m) if m.role == Role::User => Some(m.token_count),
            _ => None,
        })
        .unwrap()
}

#[tokio::test]
async fn an_image_reaches_a_vision_model_as_a_data_url_after_the_text() {
    let h = harness(Options {
        images: true,
        ..Options::default()
    })
    .await;
    let c = h.conversation().await;
    let image = png(1280, 720);
    h.server.push(ScriptedResponse::text("I see an error."));
    send_with(
        &h,
        &c,
        "what does this say?",
        &[("error.png", image.clone())],
    )
    .await;
    let parts = h.server.requests()[0].last_user_parts();
    assert_eq!(parts.len(), 2, "{parts:?}");
    assert_eq!(parts[0]["type"], "text");
    assert_eq!(parts[0]["text"], "what does this say?");
    assert_eq!(parts[1]["type"], "image_url");
    assert_eq!(
        parts[1]["image_url"]["url"],
        format!("data:image/png;base64,{}", STANDARD.encode(&image))
    );
    // Stored on the message.
    let rows = h.rows(&c).await;
    let HistoryRow::Message(user) = &rows[0] else {
        panic!("{rows:?}")
    };
    assert_eq!(user.attachments.len(), 1);
    assert_eq!(user.attachments[0].name, "error.png");
}

#[tokio::test]
async fn an_image_sent_before_a_switch_to_a_model_without_images_is_named_not_sent() {
    let h = harness(Options {
        images: true,
        text_model_choice: true,
        ..Options::default()
    })
    .await;
    let c = h.conversation().await;
    h.server.push(ScriptedResponse::text("I see an error."));
    send_with(&h, &c, "what does this say?", &[("error.png", png(64, 32))]).await;
    h.service.set_model(c.id, Some("text-model")).await.unwrap();
    h.server
        .push(ScriptedResponse::text("It said there was an error."));
    h.service
        .send(c.id, "what did it say?", SendOptions::default())
        .await
        .unwrap();

    let request = &h.server.requests()[1];
    assert_eq!(request.body["model"], "text-model");
    assert!(
        !request.body.to_string().contains("image_url"),
        "{}",
        request.body
    );
    let first_user = &request.body["messages"][1];
    assert_eq!(first_user["role"], "user");
    assert_eq!(first_user["content"][0]["text"], "what does this say?");
    let line = first_user["content"][1]["text"].as_str().unwrap();
    assert!(
        line.starts_with("Attached image error.png (")
            && line.contains("attachments/error.png")
            && line.ends_with("the model in use does not see images."),
        "{line}"
    );
    assert!(
        h.dir
            .path()
            .join("workspace/attachments/error.png")
            .is_file()
    );
}

#[tokio::test]
async fn a_text_file_is_inlined_under_its_header() {
    let h = harness(Options::default()).await;
    let c = h.conversation().await;
    h.server.push(ScriptedResponse::text("Two rows."));
    send_with(&h, &c, "summarize", &[("data.csv", b"a,b\n1,2\n".to_vec())]).await;
    let parts = h.server.requests()[0].last_user_parts();
    assert_eq!(parts[1]["type"], "text", "{parts:?}");
    assert_eq!(
        parts[1]["text"],
        "Attached file data.csv (8 B):\n```\na,b\n1,2\n```"
    );
}

#[tokio::test]
async fn a_long_text_is_cut_with_a_marker_and_saved_whole_in_the_workspace() {
    let h = harness(Options {
        max_inline_tokens: 50,
        ..Options::default()
    })
    .await;
    let c = h.conversation().await;
    let log: String = (0..400)
        .map(|i| format!("line {i}: all is well\n"))
        .collect();
    h.server.push(ScriptedResponse::text("Long log."));
    send_with(
        &h,
        &c,
        "read the log",
        &[("big.log", log.clone().into_bytes())],
    )
    .await;
    let parts = h.server.requests()[0].last_user_parts();
    let text = parts[1]["text"].as_str().unwrap();
    assert!(text.starts_with("Attached file big.log ("), "{text}");
    assert!(text.contains("line 0: all is well"), "{text}");
    assert!(!text.contains("line 399"), "{text}");
    assert!(
        text.contains("left out to keep within 50 tokens; the whole file is in the workspace at attachments/big.log"),
        "{text}"
    );
    let saved =
        std::fs::read_to_string(h.dir.path().join("workspace/attachments/big.log")).unwrap();
    assert_eq!(saved, log);
}

#[tokio::test]
async fn another_file_is_saved_in_the_workspace_without_overwriting_a_different_one() {
    let h = harness(Options::default()).await;
    let c = h.conversation().await;
    let folder = h.dir.path().join("workspace/attachments");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("spec.pdf"), b"someone else's file").unwrap();
    let pdf = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\nbinary".to_vec();
    h.server.push(ScriptedResponse::text("A spec."));
    send_with(&h, &c, "", &[("spec.pdf", pdf.clone())]).await;
    let parts = h.server.requests()[0].last_user_parts();
    // No text: the attachment's line is the only part.
    assert_eq!(parts.len(), 1, "{parts:?}");
    let line = parts[0]["text"].as_str().unwrap();
    assert!(line.contains("application/pdf"), "{line}");
    assert!(line.contains("attachments/spec-2.pdf"), "{line}");
    assert_eq!(std::fs::read(folder.join("spec-2.pdf")).unwrap(), pdf);
    assert_eq!(
        std::fs::read(folder.join("spec.pdf")).unwrap(),
        b"someone else's file"
    );
}

#[tokio::test]
async fn a_model_without_images_refuses_the_image_before_anything_is_stored() {
    let h = harness(Options::default()).await;
    let c = h.conversation().await;
    let image = h
        .service
        .attach(c.id, "error.png", png(64, 64))
        .await
        .unwrap();
    let options = SendOptions {
        attachments: vec![image.id],
        ..SendOptions::default()
    };
    let error = h.service.send(c.id, "look", options).await.unwrap_err();
    assert!(
        matches!(&error, PipelineError::ImagesNotSupported { model } if model == "test-model"),
        "{error:?}"
    );
    let text = error.to_string();
    assert!(
        text.contains("model 'test-model' cannot see images"),
        "{text}"
    );
    assert!(text.contains("/model"), "{text}");
    assert!(!text.contains("  "), "{text}");
    assert!(h.rows(&c).await.is_empty());
    assert_eq!(h.server.request_count(), 0);
    // Still waiting to be sent, on no message.
    let stored = h.store.get_attachment(image.id).await.unwrap().unwrap();
    assert_eq!(stored.message_id, None);
}

#[tokio::test]
async fn an_attachment_of_another_conversation_or_already_sent_is_refused() {
    let h = harness(Options::default()).await;
    let (a, b) = (h.conversation().await, h.conversation().await);
    let note = h
        .service
        .attach(a.id, "n.txt", b"hi".to_vec())
        .await
        .unwrap();
    let options = |id| SendOptions {
        attachments: vec![id],
        ..SendOptions::default()
    };
    let error = h
        .service
        .send(b.id, "x", options(note.id))
        .await
        .unwrap_err();
    assert!(
        matches!(error, PipelineError::AttachmentNotSendable { .. }),
        "{error:?}"
    );
    h.server.push(ScriptedResponse::text("ok"));
    h.service.send(a.id, "x", options(note.id)).await.unwrap();
    let error = h
        .service
        .send(a.id, "y", options(note.id))
        .await
        .unwrap_err();
    assert!(
        matches!(error, PipelineError::AttachmentNotSendable { .. }),
        "{error:?}"
    );
}

#[tokio::test]
async fn the_estimate_grows_by_the_image_formula() {
    let h = harness(Options {
        images: true,
        ..Options::default()
    })
    .await;
    let (plain, pictured) = (h.conversation().await, h.conversation().await);
    h.server.push(ScriptedResponse::text("ok"));
    h.server.push(ScriptedResponse::text("ok"));
    send_with(&h, &plain, "look", &[]).await;
    send_with(&h, &pictured, "look", &[("shot.png", png(1280, 720))]).await;
    let formula = image_tokens(ImageSize {
        width: 1280,
        height: 720,
    });
    // 3×2 tiles of 512 pixels at 170 tokens, plus 85.
    assert_eq!(formula, 1105);
    let difference =
        user_row_tokens(&h.rows(&pictured).await) - user_row_tokens(&h.rows(&plain).await);
    assert_eq!(difference, formula);
    let estimate = |c: &Conversation| {
        let service = std::sync::Arc::clone(&h.service);
        let id = c.id;
        async move { service.context_estimate(id).await.unwrap().used }
    };
    let grown = estimate(&pictured).await - estimate(&plain).await;
    assert_eq!(grown, u64::try_from(formula).unwrap());
    let stored = h
        .store
        .get_conversation(pictured.id)
        .await
        .unwrap()
        .unwrap();
    assert!(stored.context_tokens >= formula);
}

#[tokio::test]
async fn a_summary_request_names_the_image_and_never_carries_it() {
    let h = harness(Options {
        images: true,
        keep_recent_turns: 1,
        ..Options::default()
    })
    .await;
    let c = h.conversation().await;
    h.server.push(ScriptedResponse::text("A stack trace."));
    send_with(&h, &c, "what is this?", &[("error.png", png(1280, 720))]).await;
    h.server.push(ScriptedResponse::text("Fixed."));
    send_with(&h, &c, "thanks", &[]).await;
    h.server
        .push(ScriptedResponse::text("SUMMARY: an error screenshot"));
    let report = h.service.compact(c.id, None).await.unwrap();
    assert!(report.ok, "{}", report.detail);
    let summary = h.server.requests().last().cloned().unwrap();
    let body = summary.body.to_string();
    assert!(!body.contains("image_url"), "{body}");
    assert!(!body.contains("base64"), "{body}");
    let text = summary.last_user_text().unwrap();
    assert!(text.contains("[image: error.png 1280×720]"), "{text}");
}
