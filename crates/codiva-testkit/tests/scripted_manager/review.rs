//! A session's review through the manager with the scripted agent: comments are checked,
//! numbered and capped; edits and removals name a comment that is there; `review/send` gives
//! the agent one message and leaves none behind; a manager started again over the same state
//! has the comments that were not sent, under the same ids, and numbers new ones after them.

use codiva_core::manager::{CreateOptions, Manager, ManagerError};
use codiva_protocol::error::RefusalCode;
use codiva_protocol::methods::request;
use codiva_protocol::params::SessionParams;
use codiva_protocol::review::{
    DiffSide, MAX_COMMENTS, ReviewAddParams, ReviewAnchor, ReviewEditParams, ReviewRemoveParams,
};
use codiva_protocol::session::Status;
use codiva_testkit::TestRepo;

use super::{options, until_status};

fn add(id: &str, path: &str, line: u32, body: &str) -> ReviewAddParams {
    ReviewAddParams {
        session_id: id.into(),
        anchor: ReviewAnchor {
            path: path.into(),
            side: DiffSide::New,
            start_line: line,
            end_line: line,
        },
        lines: vec![format!("+line {line}")],
        body: body.into(),
    }
}

fn refusal(result: Result<impl std::fmt::Debug, ManagerError>) -> RefusalCode {
    match result {
        Err(ManagerError::Refused(refusal)) => refusal.code,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn comments_are_kept_checked_and_sent_once() {
    let repo = TestRepo::new().unwrap();
    let home = tempfile::tempdir().unwrap();
    let (manager, _) = Manager::start(options(&repo, home.path().to_path_buf()))
        .await
        .unwrap();
    let mut events = manager.subscribe();
    let id = manager
        .create(CreateOptions {
            prompt: "say hello".to_owned(),
            ..CreateOptions::default()
        })
        .await
        .unwrap()
        .id;
    until_status(&mut events, &id, Status::Completed).await;

    let first = manager
        .request::<request::ReviewAdd>(add(&id, "src/a.rs", 3, "Rename this."))
        .await
        .unwrap();
    assert_eq!(first.comments.len(), 1);
    assert_eq!(first.comments[0].id, "c1");
    assert!(matches!(
        manager
            .request::<request::ReviewAdd>(add(&id, "src/a.rs", 3, " \n "))
            .await,
        Err(ManagerError::Invalid(_))
    ));
    assert!(matches!(
        manager
            .request::<request::ReviewAdd>(add(&id, "src/a.rs", 0, "line zero"))
            .await,
        Err(ManagerError::Invalid(_))
    ));
    let second = manager
        .request::<request::ReviewAdd>(add(&id, "docs/b.md", 7, "Say why."))
        .await
        .unwrap();
    assert_eq!(second.comments[1].id, "c2");
    let edited = manager
        .request::<request::ReviewEdit>(ReviewEditParams {
            session_id: id.clone(),
            comment_id: "c1".into(),
            body: "Rename this to parse_config.".into(),
        })
        .await
        .unwrap();
    assert_eq!(edited.comments[0].body, "Rename this to parse_config.");
    assert_eq!(
        refusal(
            manager
                .request::<request::ReviewRemove>(ReviewRemoveParams {
                    session_id: id.clone(),
                    comment_id: "c9".into(),
                })
                .await
        ),
        RefusalCode::NoSuchReviewComment
    );
    // Every client sees them on the session's row.
    let row = |list: Vec<codiva_protocol::manager::SessionInfo>| {
        list.into_iter().find(|s| s.id == id).unwrap()
    };
    assert_eq!(row(manager.list().await.unwrap()).review.len(), 2);

    // A manager started again over the same state has them, and numbers on after them.
    manager.shutdown().await;
    let (manager, _) = Manager::start(options(&repo, home.path().to_path_buf()))
        .await
        .unwrap();
    let mut events = manager.subscribe();
    let kept = row(manager.list().await.unwrap()).review;
    assert_eq!(
        kept.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(),
        ["c1", "c2"]
    );
    assert_eq!(kept[0].body, "Rename this to parse_config.");
    let removed = manager
        .request::<request::ReviewRemove>(ReviewRemoveParams {
            session_id: id.clone(),
            comment_id: "c2".into(),
        })
        .await
        .unwrap();
    assert_eq!(removed.comments.len(), 1);
    let third = manager
        .request::<request::ReviewAdd>(add(&id, "docs/b.md", 8, "And here."))
        .await
        .unwrap();
    assert_eq!(third.comments[1].id, "c3", "ids are never reused");

    let sent = manager
        .request::<request::ReviewSend>(SessionParams {
            session_id: id.clone(),
        })
        .await
        .unwrap();
    assert_eq!((sent.sent, sent.cut_bytes), (2, 0));
    until_status(&mut events, &id, Status::Completed).await;
    assert!(row(manager.list().await.unwrap()).review.is_empty());
    assert_eq!(
        refusal(
            manager
                .request::<request::ReviewSend>(SessionParams {
                    session_id: id.clone(),
                })
                .await
        ),
        RefusalCode::NoReviewComments
    );
    // The agent got one message with both comments.
    let log = manager
        .read(&id, codiva_protocol::session::Scope::Main, None, 1000)
        .await
        .unwrap();
    let reviews: Vec<&str> = log
        .entries
        .iter()
        .filter_map(|e| match &e.kind {
            codiva_protocol::log::EntryKind::User { text } => Some(text.as_str()),
            _ => None,
        })
        .filter(|text| text.starts_with("Review of your changes"))
        .collect();
    assert_eq!(reviews.len(), 1, "{reviews:?}");
    assert!(reviews[0].contains("src/a.rs:3\n"), "{}", reviews[0]);
    assert!(reviews[0].contains("docs/b.md:8\n"), "{}", reviews[0]);
    assert!(!reviews[0].contains("Say why."), "{}", reviews[0]);

    // At most MAX_COMMENTS are held.
    for line in 1..=MAX_COMMENTS as u32 {
        manager
            .request::<request::ReviewAdd>(add(&id, "src/a.rs", line, "x"))
            .await
            .unwrap();
    }
    assert_eq!(
        refusal(
            manager
                .request::<request::ReviewAdd>(add(&id, "src/a.rs", 1, "one more"))
                .await
        ),
        RefusalCode::ReviewFull
    );
    manager.shutdown().await;
}
