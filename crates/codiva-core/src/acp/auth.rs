//! An ACP agent's own login, over the protocol: `initialize` lists its `authMethods`; the user
//! picks one (when there are several); a method that needs environment variables (an API key)
//! is only named — codiva stores no key — unless they are set, and `authenticate {methodId}`
//! lets the agent do the rest (open a browser, print an address, ask for a code on its
//! terminal). Pure translation ([`LoginDialogue`]); `login.rs` runs the process. Measured:
//! docs/protocol/acp-login.md.

use codiva_protocol::agent::LoginMethod;
use serde_json::{Value, json};

use super::rpc::{self, Message};
use crate::json::items;
use crate::login::{DialogueStep, LoginDialogue};
use crate::process::EnvPolicy;
use crate::provider::OutLine;

const INITIALIZE: u64 = 1;
const AUTHENTICATE: u64 = 2;

/// Names and descriptions the agent gives are shown: at most this many characters.
const MAX_TEXT: usize = 300;

/// One login of one ACP agent process.
#[derive(Debug)]
pub struct AcpLogin {
    /// Variables a method reads that the agent does not declare (`gemini-api-key`).
    known_env: Vec<(String, Vec<String>)>,
    env: EnvPolicy,
    methods: Vec<LoginMethod>,
    /// `authenticate` is out.
    authenticating: bool,
    chosen: Option<String>,
}

impl AcpLogin {
    pub fn new(known_env: Vec<(String, Vec<String>)>, env: EnvPolicy) -> Self {
        AcpLogin {
            known_env,
            env,
            methods: Vec::new(),
            authenticating: false,
            chosen: None,
        }
    }

    fn method(&self, raw: &Value) -> Option<LoginMethod> {
        let text = |key: &str| {
            raw.get(key)
                .and_then(Value::as_str)
                .and_then(|text| codiva_protocol::text::sanitize_title_to(text, MAX_TEXT))
        };
        let id = raw.get("id").and_then(Value::as_str)?.to_owned();
        let mut env_vars: Vec<String> = items(raw, "vars")
            .filter_map(|var| var.get("name").and_then(Value::as_str))
            .filter(|name| is_variable_name(name))
            .map(str::to_owned)
            .collect();
        if let Some((_, vars)) = self.known_env.iter().find(|(method, _)| *method == id) {
            for var in vars {
                if !env_vars.contains(var) {
                    env_vars.push(var.clone());
                }
            }
        }
        Some(LoginMethod {
            name: text("name").unwrap_or_else(|| {
                codiva_protocol::text::sanitize_title_to(&id, MAX_TEXT).unwrap_or_default()
            }),
            description: text("description"),
            id,
            env_vars,
        })
    }

    fn authenticate(&mut self, method: &str) -> Vec<OutLine> {
        self.authenticating = true;
        self.chosen = Some(method.to_owned());
        rpc::request(AUTHENTICATE, "authenticate", json!({ "methodId": method }))
    }
}

/// `CODEX_API_KEY`, not text that would mislead when shown as one.
fn is_variable_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn failure(err: &rpc::RpcError) -> String {
    // claude-code-acp: `{"details":"Method not implemented."}`; codex-acp: a string.
    let data = match &err.data {
        Value::String(text) => Some(text.clone()),
        Value::Object(map) => ["message", "details"]
            .iter()
            .find_map(|key| map.get(*key).and_then(Value::as_str).map(str::to_owned)),
        _ => None,
    };
    let text = match data {
        Some(data) if data != err.message => format!("{}: {data}", err.message),
        _ => err.message.clone(),
    };
    codiva_protocol::text::sanitize_title_to(&text, MAX_TEXT).unwrap_or_default()
}

impl LoginDialogue for AcpLogin {
    fn opening(&mut self) -> Vec<OutLine> {
        rpc::request(INITIALIZE, "initialize", rpc::initialize_params())
    }

    fn receive(&mut self, line: &[u8]) -> DialogueStep {
        let Ok(message) = rpc::parse(line) else {
            return DialogueStep::Nothing;
        };
        match message {
            Message::Request { id, method, .. } => DialogueStep::Write(rpc::respond_error(
                &id,
                rpc::METHOD_NOT_FOUND,
                &format!("codiva does not serve {method} during a login"),
            )),
            Message::Notification { .. } => DialogueStep::Nothing,
            Message::Response { id, result } => match (id.as_u64(), result) {
                (Some(INITIALIZE), Ok(result)) => {
                    self.methods = items(&result, "authMethods")
                        .filter_map(|raw| self.method(raw))
                        .collect();
                    match self.methods.len() {
                        0 => DialogueStep::Failed("the agent offers no way to log in".to_owned()),
                        1 => {
                            let id = self.methods[0].id.clone();
                            self.choose(&id).unwrap_or(DialogueStep::Nothing)
                        }
                        _ => DialogueStep::Choose(self.methods.clone()),
                    }
                }
                (Some(INITIALIZE), Err(err)) => DialogueStep::Failed(failure(&err)),
                (Some(AUTHENTICATE), Ok(_)) if self.authenticating => DialogueStep::Done,
                (Some(AUTHENTICATE), Err(err)) if self.authenticating => {
                    // The method's own description says what else to do (claude-code-acp:
                    // "Run `claude /login` in the terminal").
                    let hint = self
                        .chosen
                        .as_ref()
                        .and_then(|id| self.methods.iter().find(|m| &m.id == id))
                        .and_then(|method| method.description.clone());
                    DialogueStep::Failed(match hint {
                        Some(hint) => format!("{} ({hint})", failure(&err)),
                        None => failure(&err),
                    })
                }
                _ => DialogueStep::Nothing,
            },
        }
    }

    fn choose(&mut self, id: &str) -> Option<DialogueStep> {
        if self.authenticating {
            return None;
        }
        let method = self.methods.iter().find(|method| method.id == id)?.clone();
        let unset: Vec<String> = method
            .env_vars
            .iter()
            .filter(|var| self.env.var(var).is_none())
            .cloned()
            .collect();
        if !method.env_vars.is_empty() && !unset.is_empty() {
            return Some(DialogueStep::NeedsEnv(unset));
        }
        Some(DialogueStep::Write(self.authenticate(&method.id)))
    }

    fn choosing(&self) -> bool {
        !self.authenticating && self.methods.len() > 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The agent's lines (`<< `) of a captured exchange (docs/protocol/acp-login.md).
    fn agent_lines(capture: &str) -> Vec<&str> {
        capture
            .lines()
            .take_while(|line| !line.starts_with("--- "))
            .filter_map(|line| line.strip_prefix("<< "))
            .collect()
    }

    const CODEX_UNSET: &str =
        include_str!("../../tests/fixtures/acp-auth/codex-acp-authenticate-env-var-unset.txt");
    const CODEX_SET: &str =
        include_str!("../../tests/fixtures/acp-auth/codex-acp-authenticate-env-var-set.txt");
    const CLAUDE: &str =
        include_str!("../../tests/fixtures/acp-auth/claude-code-acp-authenticate.txt");
    const GEMINI_KEY: &str =
        include_str!("../../tests/fixtures/acp-auth/gemini-authenticate-api-key.txt");

    fn methods(step: DialogueStep) -> Vec<LoginMethod> {
        match step {
            DialogueStep::Choose(methods) => methods,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn codex_acp_offers_three_ways_and_an_api_key_is_only_named() {
        let lines = agent_lines(CODEX_UNSET);
        let mut login = AcpLogin::new(Vec::new(), EnvPolicy::Exact(Vec::new()));
        login.opening();
        let offered = methods(login.receive(lines[0].as_bytes()));
        let ids: Vec<&str> = offered.iter().map(|m| m.id.as_str()).collect();
        assert_eq!(ids, ["chatgpt", "codex-api-key", "openai-api-key"]);
        assert_eq!(offered[0].name, "Login with ChatGPT");
        assert_eq!(offered[1].env_vars, ["CODEX_API_KEY"]);
        assert!(login.choosing());
        assert!(login.choose("nope").is_none());
        assert_eq!(
            login.choose("codex-api-key"),
            Some(DialogueStep::NeedsEnv(vec!["CODEX_API_KEY".to_owned()]))
        );

        // With the variable set the agent checks it itself (and keeps it in its auth.json).
        let set = agent_lines(CODEX_SET);
        let env = EnvPolicy::Exact(vec![("CODEX_API_KEY".into(), "sk-x".into())]);
        let mut login = AcpLogin::new(Vec::new(), env);
        login.opening();
        methods(login.receive(set[0].as_bytes()));
        let Some(DialogueStep::Write(lines)) = login.choose("codex-api-key") else {
            panic!("no authenticate");
        };
        let sent: Value = serde_json::from_str(lines[0].as_str()).unwrap();
        assert_eq!(sent["method"], "authenticate");
        assert_eq!(sent["params"], json!({"methodId": "codex-api-key"}));
        assert!(!login.choosing());
        assert_eq!(login.receive(set[1].as_bytes()), DialogueStep::Done);
    }

    #[test]
    fn a_single_method_is_used_at_once_and_its_refusal_is_the_agents_words() {
        let lines = agent_lines(CLAUDE);
        let mut login = AcpLogin::new(Vec::new(), EnvPolicy::Exact(Vec::new()));
        login.opening();
        let DialogueStep::Write(sent) = login.receive(lines[0].as_bytes()) else {
            panic!("no authenticate");
        };
        assert!(sent[0].as_str().contains(r#""methodId":"claude-login""#));
        assert_eq!(
            login.receive(lines[1].as_bytes()),
            DialogueStep::Failed(
                "Internal error: Method not implemented. (Run `claude /login` in the terminal)"
                    .to_owned()
            )
        );
    }

    #[test]
    fn gemini_api_key_names_the_variable_its_preset_knows() {
        let lines = agent_lines(GEMINI_KEY);
        let known = vec![(
            "gemini-api-key".to_owned(),
            vec!["GEMINI_API_KEY".to_owned()],
        )];
        let mut login = AcpLogin::new(known, EnvPolicy::Exact(Vec::new()));
        login.opening();
        let offered = methods(login.receive(lines[0].as_bytes()));
        let names: Vec<&str> = offered.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "Log in with Google",
                "Gemini API key",
                "Vertex AI",
                "AI API Gateway"
            ]
        );
        assert_eq!(offered[1].env_vars, ["GEMINI_API_KEY"]);
        assert!(offered[0].env_vars.is_empty());
        assert_eq!(
            login.choose("gemini-api-key"),
            Some(DialogueStep::NeedsEnv(vec!["GEMINI_API_KEY".to_owned()]))
        );
    }

    #[test]
    fn the_agents_words_are_sanitised_and_its_requests_refused() {
        let mut login = AcpLogin::new(Vec::new(), EnvPolicy::Exact(Vec::new()));
        login.opening();
        let init = json!({"jsonrpc": "2.0", "id": 1, "result": {"authMethods": [
            {"id": "a", "name": "Log \u{1b}[31min\u{7}", "description": "x\u{1b}]8;;https://evil\u{7}y"},
            {"id": "b", "type": "env_var", "vars": [{"name": "OK_KEY"}, {"name": "rm -rf /"}]}]}});
        let offered = methods(login.receive(init.to_string().as_bytes()));
        for method in &offered {
            assert!(!method.name.contains('\u{1b}'), "{method:?}");
            assert!(!method.description.iter().any(|d| d.contains('\u{1b}')));
        }
        assert_eq!(offered[1].name, "b");
        assert_eq!(offered[1].env_vars, ["OK_KEY"]);
        let request = br#"{"jsonrpc":"2.0","id":"r1","method":"fs/read_text_file","params":{}}"#;
        let DialogueStep::Write(answer) = login.receive(request) else {
            panic!("unanswered");
        };
        assert!(answer[0].as_str().contains("-32601"));
        let none = json!({"jsonrpc": "2.0", "id": 1, "result": {"authMethods": []}});
        let mut login = AcpLogin::new(Vec::new(), EnvPolicy::Exact(Vec::new()));
        assert!(matches!(
            login.receive(none.to_string().as_bytes()),
            DialogueStep::Failed(_)
        ));
    }
}
