//! A new session's title from its agent (config `titles = "agent"`): one one-shot request per
//! session, made beside the session (it never waits for it, and none of its calls do). Until
//! it answers, and when it fails, the title is the prompt's first line; a title given by hand
//! meanwhile is kept. Stopped at shutdown (its process is killed, not waited for).

use super::Actor;
use crate::title::{self, TitleMode, TitleOrigin};

impl Actor {
    /// Asks session `id`'s agent for a title for `prompt`, when the config and the agent allow.
    pub(super) fn request_title(&mut self, id: &str, prompt: &str) {
        if self.options.titles != TitleMode::Agent {
            return;
        }
        let Some(agent) = self.records.get(id).map(|record| record.agent.clone()) else {
            return;
        };
        let Ok(provider) = self.provider_for(&agent) else {
            return;
        };
        if !provider.capabilities().titles {
            return;
        }
        let env = self.options.env.clone();
        let registry = self.options.registry.clone();
        let prompt = prompt.to_owned();
        let mut stop = self.stop_titles.subscribe();
        let id = id.to_owned();
        self.job(
            None,
            async move {
                tokio::select! {
                    made = title::generate(
                        &*provider,
                        &prompt,
                        &env,
                        title::TITLE_TIME_LIMIT,
                        registry.as_ref(),
                    ) => {
                        Some(made)
                    }
                    _ = stop.wait_for(|stopped| *stopped) => None,
                }
            },
            move |actor, made| match made {
                Some(Ok(title)) => actor.agent_title(&id, title),
                Some(Err(reason)) => {
                    tracing::info!(session = %id, %reason, "no title from the agent; the prompt's stays");
                }
                None => {}
            },
        );
    }

    /// The agent's title (already sanitised) replaces the prompt's, not one given by hand.
    fn agent_title(&mut self, id: &str, title: String) {
        let Some(record) = self.records.get_mut(id) else {
            return;
        };
        if record.title_origin != TitleOrigin::Prompt {
            return;
        }
        record.title = title;
        record.title_origin = TitleOrigin::Agent;
        self.emit_info(id);
    }
}
