//! `parse_line` never panics.

use super::*;

/// Fragments of real lines, so that random input reaches past the first pass.
fn json_ish_bytes() -> impl Strategy<Value = Vec<u8>> {
    let fragment = prop_oneof![
        Just(&b"{"[..]),
        Just(&b"}"[..]),
        Just(&b"["[..]),
        Just(&b"]"[..]),
        Just(&b","[..]),
        Just(&b":"[..]),
        Just(&b"\""[..]),
        Just(&b"null"[..]),
        Just(&b"true"[..]),
        Just(&b"-1e999"[..]),
        Just(&b"18446744073709551616"[..]),
        Just(&b"\\u0000"[..]),
        Just(&b"\\ud800"[..]),
        Just(&b"\"type\":\"system\""[..]),
        Just(&b"\"type\":\"user\""[..]),
        Just(&b"\"type\":\"assistant\""[..]),
        Just(&b"\"type\":\"result\""[..]),
        Just(&b"\"type\":\"stream_event\""[..]),
        Just(&b"\"type\":\"control_request\""[..]),
        Just(&b"\"type\":\"control_response\""[..]),
        Just(&b"\"subtype\":\"init\""[..]),
        Just(&b"\"subtype\":\"can_use_tool\""[..]),
        Just(&b"\"subtype\":\"task_started\""[..]),
        Just(&b"\"message\":"[..]),
        Just(&b"\"content\":"[..]),
        Just(&b"\"request\":"[..]),
        Just(&b"\"event\":"[..]),
        Just(&b"\xff\xfe"[..]),
    ];
    proptest::collection::vec(fragment, 0..40).prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn parse_line_never_panics_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = parse_line(&bytes);
    }

    #[test]
    fn parse_line_never_panics_on_json_ish_bytes(bytes in json_ish_bytes()) {
        let _ = parse_line(&bytes);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// A random fixture line, cut at a random byte and with one random byte changed.
    #[test]
    fn parse_line_never_panics_on_mangled_fixture_lines(
        pick in any::<prop::sample::Index>(),
        cut in any::<prop::sample::Index>(),
        flip in any::<prop::sample::Index>(),
        byte in any::<u8>(),
    ) {
        let lines = fixture_lines_cached();
        let line = lines[pick.index(lines.len())].as_bytes();
        let cut = cut.index(line.len() + 1);
        let mut mangled = line[..cut].to_vec();
        let _ = parse_line(&mangled);
        if !mangled.is_empty() {
            let at = flip.index(mangled.len());
            mangled[at] = byte;
            let _ = parse_line(&mangled);
        }
    }
}

fn fixture_lines_cached() -> &'static [String] {
    static LINES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    LINES.get_or_init(|| fixture_lines().into_iter().map(|(_, line)| line).collect())
}

/// Every fixture line truncated at every byte of its first 256 and then at every N-th byte
/// (N chosen so that a line is cut at most ~400 times): each prefix parses or is an error.
#[test]
fn parse_line_never_panics_on_truncated_fixture_lines() {
    let mut cuts = 0usize;
    for line in fixture_lines_cached() {
        let bytes = line.as_bytes();
        let stride = (bytes.len() / 400).max(1);
        let points = (0..bytes.len().min(256)).chain((256..bytes.len()).step_by(stride));
        for cut in points {
            let prefix = &bytes[..cut];
            // Only the whole line is a complete object; a strict prefix never is.
            assert!(
                parse_line(prefix).is_err(),
                "a prefix of {cut} bytes parsed: {line}"
            );
            cuts += 1;
        }
        assert!(parse_line(bytes).is_ok(), "{line}");
    }
    assert!(cuts > 1000);
}

#[test]
fn null_where_a_list_or_string_is_usual_does_not_cost_the_line() {
    let line = br#"{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"Write","input":{},"permission_suggestions":null}}"#;
    match codiva_wire::claude::parse_line(line).unwrap() {
        codiva_wire::claude::Inbound::ControlRequest(request) => match request.request {
            codiva_wire::claude::CliRequest::CanUseTool(ask) => {
                assert!(ask.permission_suggestions.is_empty())
            }
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
    let line = br#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":null,"is_error":null}]}}"#;
    assert!(codiva_wire::claude::parse_line(line).is_ok());
}
