//! Parsing `system/*` lines.

use super::*;

const INIT: &str = r#"{"type":"system","subtype":"init","cwd":"<CWD>","session_id":"ef76f2fe-1111-4222-8333-944445555666","tools":["Task","AskUserQuestion","Bash","CronCreate","CronDelete","CronList","Edit","EnterPlanMode","EnterWorktree","ExitPlanMode","ExitWorktree","ListAgents","Monitor","NotebookEdit","Read","ReportFindings","ScheduleWakeup","SendMessage","Skill","TaskStop","ToolSearch","WebFetch","WebSearch","Workflow","Write"],"mcp_servers":[],"model":"claude-opus-5-5","permissionMode":"default","slash_commands":["deep-research","dataviz","team-onboarding"],"terminal_slash_commands":["doctor","color","focus","reload-plugins"],"apiKeySource":"ANTHROPIC_API_KEY","claude_code_version":"2.1.332","output_style":"default","agents":["claude","Explore","general-purpose","Plan","statusline-setup"],"skills":["dataviz"],"plugins":[{"name":"cc-plugin-agents-md","path":"builtin","source":"cc-plugin-agents-md@builtin"}],"capabilities":["interrupt_receipt_v1","interrupt_cancel_queued_v1"],"analytics_disabled":true,"product_feedback_disabled":true,"served_by_anthropic":false,"uuid":"0d6a3c1e-aaaa-4bbb-8ccc-dddddddddddd","sandbox_enabled":false,"memory_paths":{"auto":"<HOME>/.claude/projects/<MANGLED_CWD>/memory/"},"original_cwd":"<CWD>","additional_directories":[],"messaging_socket_path":"<TMP>/cc-socks/4242.sock","fast_mode_state":"off","fast_mode_disabled_reason":"sdk_opt_in_required","per_turn_effort_active":true,"ultrathink_available":false,"ultrathink_typed_raises":false,"view_mode":"default"}"#;

#[test]
fn system_init_from_the_notes() {
    let System::Init(init) = system(INIT) else {
        panic!("not init");
    };
    assert_eq!(init.session_id, "ef76f2fe-1111-4222-8333-944445555666");
    assert_eq!(init.cwd.as_deref(), Some("<CWD>"));
    assert_eq!(init.model.as_deref(), Some("claude-opus-5-5"));
    assert_eq!(init.permission_mode.as_deref(), Some("default"));
    assert_eq!(init.claude_code_version.as_deref(), Some("2.1.332"));
    assert_eq!(init.api_key_source.as_deref(), Some("ANTHROPIC_API_KEY"));
    // `tools` names `Task` although the model-facing tool is `Agent` (notes 1.3.1).
    assert!(init.tools.iter().any(|tool| tool == "Task"));
    assert_eq!(init.tools.len(), 25);
    assert_eq!(init.agents[2], "general-purpose");
    assert_eq!(init.slash_commands.len(), 3);
}

#[test]
fn system_init_minimal_and_with_type_last() {
    let System::Init(init) =
        system(r#"{"subtype":"init","session_id":"s-1","model":"m","type":"system"}"#)
    else {
        panic!("not init");
    };
    assert_eq!(init.session_id, "s-1");
    assert!(init.tools.is_empty());
    assert_eq!(init.permission_mode, None);
}

#[test]
fn system_status_both_shapes() {
    let System::Status(status) = system(
        r#"{"type":"system","subtype":"status","status":"requesting","session_id":"594e3426-ebb8-4d51-a6bc-6388a348cb6f","uuid":"0600d01b-4dcd-4053-b28b-60cec7d22b89"}"#,
    ) else {
        panic!("not status");
    };
    assert_eq!(status.status.as_deref(), Some("requesting"));
    assert_eq!(status.permission_mode, None);

    let System::Status(status) = system(
        r#"{"status":null,"permissionMode":"acceptEdits","session_id":"s","uuid":"u","subtype":"status","type":"system"}"#,
    ) else {
        panic!("not status");
    };
    assert_eq!(status.status, None);
    assert_eq!(status.permission_mode.as_deref(), Some("acceptEdits"));
}

#[test]
fn system_api_retry_with_int_and_null_status() {
    let System::ApiRetry(retry) = system(
        r#"{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"retry_delay_ms":523,"error_status":529,"error":"overloaded","session_id":"s","uuid":"u"}"#,
    ) else {
        panic!("not api_retry");
    };
    assert_eq!(retry.attempt, 1);
    assert_eq!(retry.max_retries, 10);
    assert_eq!(retry.retry_delay_ms, 523);
    assert_eq!(retry.error_status, Some(529));
    assert_eq!(retry.error.as_deref(), Some("overloaded"));

    // A cut connection: no HTTP status.
    let System::ApiRetry(retry) = system(
        r#"{"error":"unknown","error_status":null,"retry_delay_ms":612,"max_retries":10,"attempt":2,"subtype":"api_retry","session_id":"s","type":"system"}"#,
    ) else {
        panic!("not api_retry");
    };
    assert_eq!(retry.attempt, 2);
    assert_eq!(retry.error_status, None);
    assert_eq!(retry.error.as_deref(), Some("unknown"));
}

#[test]
fn system_thinking_tokens() {
    let System::ThinkingTokens(tokens) = system(
        r#"{"type":"system","subtype":"thinking_tokens","estimated_tokens":120,"estimated_tokens_delta":40,"session_id":"s","uuid":"u"}"#,
    ) else {
        panic!("not thinking_tokens");
    };
    assert_eq!(tokens.estimated_tokens, 120);
    assert_eq!(tokens.estimated_tokens_delta, 40);
}

#[test]
fn system_task_lifecycle() {
    let System::TaskStarted(started) = system(
        r#"{"type":"system","subtype":"task_started","task_id":"af8bdff19e7feb234","run_id":"run-1","tool_use_id":"toolu_mock_agent1","description":"Inspect the repo","subagent_type":"general-purpose","is_backgrounded":false,"spawn_depth":1,"task_type":"local_agent","prompt":"List the files and report.","session_id":"s","uuid":"u"}"#,
    ) else {
        panic!("not task_started");
    };
    assert_eq!(started.task_id, "af8bdff19e7feb234");
    assert_eq!(started.tool_use_id.as_deref(), Some("toolu_mock_agent1"));
    assert_eq!(started.description.as_deref(), Some("Inspect the repo"));
    assert_eq!(started.subagent_type.as_deref(), Some("general-purpose"));
    assert!(!started.is_backgrounded);
    assert_eq!(started.task_type.as_deref(), Some("local_agent"));

    let System::TaskStarted(started) = system(
        r#"{"is_backgrounded":true,"task_id":"a7b0c1","tool_use_id":"toolu_bg","subtype":"task_started","type":"system"}"#,
    ) else {
        panic!("not task_started");
    };
    assert!(started.is_backgrounded);

    let System::TaskProgress(progress) = system(
        r#"{"type":"system","subtype":"task_progress","task_id":"af8bdff19e7feb234","tool_use_id":"toolu_mock_agent1","description":"Running List files","usage":{"total_tokens":14210,"tool_uses":1,"duration_ms":812},"last_tool_name":"Bash","session_id":"s","uuid":"u"}"#,
    ) else {
        panic!("not task_progress");
    };
    assert_eq!(progress.description.as_deref(), Some("Running List files"));
    let usage = progress.usage.unwrap();
    assert_eq!(
        (usage.total_tokens, usage.tool_uses, usage.duration_ms),
        (14210, 1, 812)
    );
    assert_eq!(progress.last_tool_name.as_deref(), Some("Bash"));

    let System::TaskUpdated(updated) = system(
        r#"{"type":"system","subtype":"task_updated","task_id":"af8bdff19e7feb234","patch":{"status":"completed","end_time":1796000000000},"session_id":"s","uuid":"u"}"#,
    ) else {
        panic!("not task_updated");
    };
    assert_eq!(updated.task_id, "af8bdff19e7feb234");
    assert_eq!(updated.patch.status.as_deref(), Some("completed"));

    // A patch without a status (only other fields changed).
    let System::TaskUpdated(updated) = system(
        r#"{"type":"system","subtype":"task_updated","task_id":"t","patch":{"end_time":1}}"#,
    ) else {
        panic!("not task_updated");
    };
    assert_eq!(updated.patch.status, None);

    let System::TaskNotification(note) = system(
        r#"{"type":"system","subtype":"task_notification","task_id":"af8bdff19e7feb234","tool_use_id":"toolu_mock_agent1","status":"completed","output_file":"<TMPDIR>/claude-0/<MANGLED_CWD>/s/tasks/af8bdff19e7feb234.output","summary":"The repo has 3 files.","summary_is_report":true,"usage":{"total_tokens":20000,"tool_uses":2,"duration_ms":1500},"session_id":"s","uuid":"u"}"#,
    ) else {
        panic!("not task_notification");
    };
    assert_eq!(note.status.as_deref(), Some("completed"));
    assert_eq!(note.summary.as_deref(), Some("The repo has 3 files."));
    assert!(note.output_file.unwrap().ends_with(".output"));
    assert_eq!(note.usage.unwrap().tool_uses, 2);
}

#[test]
fn system_background_tasks_changed() {
    let System::BackgroundTasksChanged(changed) = system(
        r#"{"type":"system","subtype":"background_tasks_changed","tasks":[{"task_id":"a7b0c1","run_id":"r1","task_type":"local_agent","subagent_type":"general-purpose","description":"Count the files"}],"session_id":"s","uuid":"u"}"#,
    ) else {
        panic!("not background_tasks_changed");
    };
    assert_eq!(changed.tasks.len(), 1);
    assert_eq!(changed.tasks[0].task_id, "a7b0c1");
    assert_eq!(changed.tasks[0].task_type.as_deref(), Some("local_agent"));
    assert_eq!(
        changed.tasks[0].description.as_deref(),
        Some("Count the files")
    );

    let System::BackgroundTasksChanged(changed) =
        system(r#"{"tasks":[],"subtype":"background_tasks_changed","type":"system"}"#)
    else {
        panic!("not background_tasks_changed");
    };
    assert!(changed.tasks.is_empty());
}

#[test]
fn system_compact_boundary() {
    let System::CompactBoundary(compact) = system(
        r#"{"type":"system","subtype":"compact_boundary","compact_metadata":{"trigger":"auto","pre_tokens":160000},"session_id":"s"}"#,
    ) else {
        panic!("not compact_boundary");
    };
    let meta = compact.compact_metadata.unwrap();
    assert_eq!(meta.trigger.as_deref(), Some("auto"));
    assert_eq!(meta.pre_tokens, Some(160_000));
}

#[test]
fn unknown_system_subtypes_are_not_errors() {
    for (line, expected) in [
        (
            r#"{"type":"system","subtype":"hook_started","hook_id":"h","extra":{"a":[1,2]}}"#,
            "hook_started",
        ),
        (r#"{"subtype":"brand_new","type":"system"}"#, "brand_new"),
        (r#"{"type":"system"}"#, ""),
        (r#"{"type":"system","subtype":null}"#, ""),
    ] {
        assert_eq!(
            system(line),
            System::Unknown {
                subtype: expected.to_owned()
            },
            "{line}"
        );
    }
}
